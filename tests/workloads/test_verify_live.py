"""D5: verify cannot hang and never shows a traceback. A server that accepts the connection and never
answers fails within 30 s; a broken kubeconfig is one line; both exit 1 ("cannot check", not 2 =
drift) and name the next step."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from gke_accel.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A loopback socket that accepts connections and never sends a byte."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        server.close()


def _kubeconfig(path: Path, server: str, context: str = "local") -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": server, "insecure-skip-tls-verify": True}}],
                "users": [{"name": "u", "user": {"token": "not-a-secret"}}],
                "contexts": [{"name": context, "context": {"cluster": "c", "user": "u"}}],
                "current-context": context,
            }
        )
    )
    return path


def _verify(kubeconfig: Path, env: str = "dev") -> list[str]:
    return ["verify", "--env", env, "--config-dir", str(ROOT / "config"), "--kubeconfig", str(kubeconfig)]


def test_a_server_that_never_answers_fails_within_30_seconds(
    silent_server: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", f"https://127.0.0.1:{silent_server}")
    started = time.monotonic()
    code = main(_verify(kubeconfig))
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 1 and elapsed < 30, (code, elapsed, err)
    assert f"127.0.0.1:{silent_server} did not answer GET /api/v1/nodes" in err and "timed out" in err.lower()
    assert "gcloud container clusters get-credentials ml-dev --location us-central1" in err
    assert "Traceback" not in err


def test_a_closed_port_fails_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    code = main(_verify(_kubeconfig(tmp_path / "kubeconfig", f"https://127.0.0.1:{port}")))
    assert code == 1 and time.monotonic() - started < 10
    assert "did not answer" in capsys.readouterr().err


def test_a_broken_kubeconfig_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "kubeconfig"
    broken.write_text("apiVersion: v1\nclusters: [\n  - name: c\n    cluster: {server: x\n")
    code = main(_verify(broken))
    err = capsys.readouterr().err
    assert code == 1, err
    first = err.splitlines()[0]
    assert first.startswith("error: cannot check: kubeconfig ") and "is not valid YAML" in first
    assert "Traceback" not in err and len(err.splitlines()) <= 2


def test_a_missing_context_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", "https://127.0.0.1:1")
    code = main([*_verify(kubeconfig), "--context", "nope"])
    err = capsys.readouterr().err
    assert code == 1 and "cannot use context 'nope'" in err and "Traceback" not in err


def test_prod_s_context_is_refused_for_dev_s_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig = _kubeconfig(tmp_path / "kubeconfig", "https://127.0.0.1:1", "gke_acme-ml-prod_us-central1_ml-prod")
    code = main(_verify(kubeconfig, "dev"))
    err = capsys.readouterr().err
    assert code == 1 and "is cluster ml-prod in project acme-ml-prod" in err and "not dev's ml-dev" in err
    assert "--project acme-ml-dev --dns-endpoint" in err
