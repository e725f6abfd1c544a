"""E5: ``verify`` and ``explain`` against every mode of the hostile API server (tests/fixtures/hostile/
bad_server.py, the reliability probe's): each ends within the client's deadline (5 s to connect, 30 s
for a whole answer) with one line, exit 1 ("cannot check", never 2 = drift, never an explanation),
no traceback and bounded memory. The servers run on loopback on free ports and are stopped by PID."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from security.reproduce import Run, free_port, run

SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "bad_server.py"
# mode -> what the one line says (any of these)
MODES = {
    "silent": ("in time",),
    "tls-silent": ("in time",),
    "garbage": ("is not a Kubernetes API server", "not HTTP"),
    "nonjson": ("is not a Kubernetes API server", "text/html"),
    "wrongshape": ("wrong shape",),
    "endless": ("in time", "more than 32 MiB"),
    "drip": ("in time",),
    "huge": ("more than 32 MiB",),
}
DEADLINE = 30 + 5  # the client's whole-answer deadline plus its connect timeout


def _kubeconfig(path: Path, port: int) -> Path:
    cluster = {"server": f"https://127.0.0.1:{port}", "insecure-skip-tls-verify": True}
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "local",
        "clusters": [{"name": "c", "cluster": cluster}],
        "users": [{"name": "u", "user": {"token": "not-a-secret"}}],
        "contexts": [{"name": "local", "context": {"cluster": "c", "user": "u"}}],
    }))  # fmt: skip
    return path


def _listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    import socket

    for _ in range(300):
        assert proc.poll() is None, f"bad_server.py exited with {proc.returncode}"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"bad_server.py never listened on {port}")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """One hostile server per mode; mode -> a kubeconfig pointing at it."""
    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make the hostile server's certificate")
    root = tmp_path_factory.mktemp("hostile")
    certs = root / "certs"
    procs: list[subprocess.Popen[bytes]] = []
    kubeconfigs: dict[str, Path] = {}
    try:
        for mode in MODES:  # one after the other: the first makes the certificate the others reuse
            port = free_port()
            proc = subprocess.Popen([sys.executable, str(SERVER), mode, str(port), str(certs)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            procs.append(proc)
            _listening(port, proc)
            kubeconfigs[mode] = _kubeconfig(root / f"{mode}.kubeconfig", port)
        yield kubeconfigs
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def _command(kind: str, kubeconfig: Path) -> list[str]:
    common = ["--env", "dev", "--config-dir", str(Path(__file__).resolve().parents[2] / "config"),
              "--kubeconfig", str(kubeconfig)]  # fmt: skip
    return ["verify", *common] if kind == "verify" else ["explain", "train", *common]


def test_every_mode_is_one_line_within_the_deadline(servers: dict[str, Path]) -> None:
    cases = [(mode, kind) for mode in MODES for kind in ("verify", "explain")]
    with ThreadPoolExecutor(max_workers=len(cases)) as pool:
        runs: list[Run] = list(pool.map(lambda c: run(*_command(c[1], servers[c[0]]), timeout=120), cases))
    problems = []
    for (mode, kind), result in zip(cases, runs, strict=True):
        lines = result.lines
        first = lines[0] if lines else ""
        ok = (
            result.code == 1
            and "Traceback" not in result.err
            and result.out == ""  # no drift table, no explanation
            and any(text in first for text in MODES[mode])
            and (len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("  next: ")))
            and result.seconds < DEADLINE + 25  # the deadline plus the command's start on a loaded machine
            and result.max_rss_mb < 400
        )
        if not ok:
            problems.append(f"{kind} {mode}: exit {result.code} in {result.seconds:.1f} s, {result.max_rss_mb:.0f} MB: "
                            f"{result.err[-500:]!r} {result.out[-200:]!r}")  # fmt: skip
    assert not problems, "\n".join(problems)


def test_a_kubeconfig_alias_bomb_or_fifo_is_one_line(tmp_path: Path) -> None:
    import os

    bomb = tmp_path / "bomb"
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
              f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]"
              for i in range(8)]  # fmt: skip
    bomb.write_text("\n".join(lines) + "\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, message in ((bomb, "alias bomb"), (fifo, "is not a regular file")):
        for kind in ("verify", "explain"):
            result = run(*_command(kind, path), timeout=30)
            assert result.code == 1 and message in result.lines[0], result.err
            assert result.seconds < 15 and result.max_rss_mb < 400 and "Traceback" not in result.err
