"""simulate's API client against servers that misbehave: a loaded API server's 504 ("Handler timeout")
is tried again and the run goes on; a server that never answers, drips, or answers what is not JSON
ends in one line after a bounded number of attempts, never a traceback. The hostile servers are the
reliability probe's (tests/fixtures/hostile/bad_server.py); the flaky one is a small HTTPS server here."""

from __future__ import annotations

import http.server
import json
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
import yaml

from gke_accel.simulate.api import Api, ApiError

SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "bad_server.py"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _kubeconfig(path: Path, port: int, certs: Path) -> Path:
    # the server's self-signed certificate is the CA; the client presents it too (the servers ignore it)
    crt, key = str(certs / "srv.crt"), str(certs / "srv.key")
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "local",
        "clusters": [{"name": "c", "cluster": {"server": f"https://127.0.0.1:{port}", "certificate-authority": crt}}],
        "users": [{"name": "u", "user": {"client-certificate": crt, "client-key": key}}],
        "contexts": [{"name": "local", "context": {"cluster": "c", "user": "u"}}],
    }))  # fmt: skip
    return path


def _api(kubeconfig: Path, slept: list[float]) -> Api:
    api = Api(kubeconfig)
    api.timeout, api.deadline, api.sleep = 1.0, 3.0, slept.append  # small bounds, no real back-off
    return api


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make the test server's certificate")
    d = tmp_path_factory.mktemp("certs")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(d / "srv.key"), "-out", str(d / "srv.crt")],
                   check=True, capture_output=True)  # fmt: skip
    return d


@pytest.fixture
def hostile(certs: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    port = _port()
    proc = subprocess.Popen([sys.executable, str(SERVER), request.param, str(port), str(certs)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        for _ in range(300):
            assert proc.poll() is None, f"bad_server.py exited with {proc.returncode}"
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield _kubeconfig(tmp_path / "kubeconfig", port, certs)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(
    ("hostile", "says"),
    [("tls-silent", "no usable answer"), ("drip", "no usable answer"), ("nonjson", "not JSON"),
     ("garbage", "no usable answer")],
    indirect=["hostile"],
)  # fmt: skip
def test_a_server_that_never_answers_usably_ends_in_one_line_after_four_attempts(hostile: Path, says: str) -> None:
    slept: list[float] = []
    api = _api(hostile, slept)
    started = time.monotonic()
    with pytest.raises(ApiError) as err:
        api.items("/api/v1/pods")
    took = time.monotonic() - started
    message = str(err.value)
    assert "\n" not in message and says in message and "(after 4 attempts)" in message, message
    assert message.startswith("GET /api/v1/pods: ")
    assert slept == [1.0, 2.0, 4.0]  # the back-off between the four attempts
    assert took < 4 * 3.0 + 2  # each attempt cut off at its deadline (3 s here), the drip included
    api.close()


class Flaky(http.server.BaseHTTPRequestHandler):
    """Answers 504 (a loaded kube-apiserver's "Handler timeout") to the first ``fail`` calls, then 200;
    a POST that succeeds once answers 409 AlreadyExists after."""

    fail = 2
    calls: ClassVar[list[str]] = []
    made: ClassVar[set[str]] = set()

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self, code: int, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        Flaky.calls.append(f"GET {self.path}")
        if len(Flaky.calls) <= Flaky.fail:
            self._answer(504, {"kind": "Status", "message": "Timeout: request did not complete within 60s"})
        else:
            self._answer(200, {"items": [{"metadata": {"name": "p"}}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Flaky.calls.append(f"POST {self.path}")
        if self.path in Flaky.made:
            self._answer(409, {"kind": "Status", "message": 'jobs.batch "j" already exists'})
        elif len(Flaky.calls) == 1:  # made, but the answer is lost (the server times out after writing it)
            Flaky.made.add(self.path)
            self._answer(504, {"kind": "Status", "message": "Timeout"})
        else:
            self._answer(201, {"metadata": {"name": "j"}})


@pytest.fixture
def flaky(certs: Path, tmp_path: Path) -> Iterator[Path]:
    Flaky.calls, Flaky.made = [], set()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(certs / "srv.crt"), str(certs / "srv.key"))
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield _kubeconfig(tmp_path / "kubeconfig", httpd.server_address[1], certs)
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_timeout_of_a_loaded_server_is_tried_again_and_the_call_succeeds(flaky: Path) -> None:
    slept: list[float] = []
    api = _api(flaky, slept)
    assert api.items("/api/v1/pods") == [{"metadata": {"name": "p"}}]
    assert (Flaky.calls, slept, api.retries) == (["GET /api/v1/pods"] * 3, [1.0, 2.0], 2)
    api.close()


def test_a_create_retried_after_its_lost_answer_takes_the_object_the_first_attempt_made(flaky: Path) -> None:
    slept: list[float] = []
    api = _api(flaky, slept)
    Flaky.fail = 0
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "nlp"}}
    assert api.create(job) == {"items": [{"metadata": {"name": "p"}}]}  # the GET of the object that is there
    assert Flaky.calls == ["POST /apis/batch/v1/namespaces/nlp/jobs"] * 2 + ["GET /apis/batch/v1/namespaces/nlp/jobs/j"]
    api.close()
    Flaky.fail = 2


def test_an_answer_the_server_means_is_not_tried_again(flaky: Path) -> None:
    slept: list[float] = []
    api = _api(flaky, slept)
    Flaky.fail, Flaky.made = 0, {"/apis/batch/v1/namespaces/nlp/jobs"}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "nlp"}}
    with pytest.raises(ApiError) as err:  # 409 on a first attempt: someone else's object, an error at once
        api.create(job)
    assert (str(err.value), slept) == ('HTTP 409: jobs.batch "j" already exists', [])
    api.close()
    Flaky.fail = 2
