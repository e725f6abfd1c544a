"""``gke-accel twin up --env E [--state DIR]`` / ``twin down`` / ``twin status``: the environment's
scheduling stack on loopback (gke_accel/twin), detached, for trying jobs against its queues.

``up`` prints what runs and, last, ``export KUBECONFIG=...``; ``down`` stops every recorded process by PID
(idempotent; the state folder's data and logs stay); ``status`` says what still runs (exit 1 if not all).
Errors are one message, never a traceback."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from gke_accel.cli.common import EXIT_CONFIG, EXIT_ERROR, EXIT_OK, add_command
from gke_accel.twin.client import kubectl_binary

RUNTIME_ERRORS = (RuntimeError, TimeoutError, OSError, ValueError, subprocess.CalledProcessError)
INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C


def default_state() -> Path:
    from gke_accel.twin.cluster import CACHE

    return CACHE / "twin"


def per_pool_arg(text: str) -> str | int:
    if text == "max":
        return text
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is neither 'max' nor a node count >= 1")
    return count


def _err(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _state_dir(args: argparse.Namespace) -> Path:
    return Path(args.state).resolve() if args.state else default_state()


def _interrupted(state: Path) -> int:
    """Ctrl-C at any stage of ``twin up``: one line, exit 130 (everything started is stopped by then)."""
    runs = sorted(state.glob("run-*"), key=lambda p: p.stat().st_mtime) if state.is_dir() else []
    where = f"; its logs stay in {runs[-1]}" if runs else ""
    print(f"twin up interrupted: everything it started is stopped{where}", file=sys.stderr)
    return INTERRUPTED


def cmd_up(args: argparse.Namespace) -> int:
    from gke_accel.model import ConfigError
    from gke_accel.twin import Twin, TwinError

    state = _state_dir(args)
    [env] = args.env
    started = time.monotonic()

    def step(message: str) -> None:
        print(f"twin up [{time.monotonic() - started:5.1f}s] {message}", file=sys.stderr, flush=True)

    try:
        twin = Twin.start(
            env, state, config_dir=Path(args.config_dir), per_pool=args.per_pool, detached=True, on_step=step
        )
    except KeyboardInterrupt:
        return _interrupted(state)
    except ConfigError:
        raise  # the environment's config: every mistake, exit 2
    except TwinError as exc:
        return _err(str(exc))
    except RUNTIME_ERRORS as exc:
        if _signalled():  # Ctrl-C reached a child first (its failure is the interrupt's, not a start failure)
            return _interrupted(state)
        return _err(f"twin of {env} did not start (everything it started is stopped again): {_first_line(exc)}; "
                    f"logs: {state}/run-*/")  # fmt: skip
    print(up_report(twin, state, nodes_by_pool(twin.run.nodes)))
    return EXIT_OK


def _first_line(exc: BaseException) -> str:
    text = " ".join(str(exc).strip().splitlines()[:1]) or type(exc).__name__
    return text[:300]


def _signalled() -> bool:
    main = sys.modules.get("gke_accel.cli.main")
    return bool(main is not None and main._Interrupt.seen)


def nodes_by_pool(nodes: dict[str, dict[str, Any]]) -> dict[str, int]:
    pools = Counter(n["metadata"]["labels"].get("cloud.google.com/gke-nodepool", "?") for n in nodes.values())
    return dict(sorted(pools.items()))


def up_report(twin: Any, state: Path, pools: dict[str, int]) -> str:
    """What ``twin up`` prints on stdout: what runs, how to reach it, how to stop it; KUBECONFIG last."""
    s = twin.state
    run = Path(s.run_dir)
    lines = [f"twin of {s.env} up in {s.up_seconds:.1f} s on {s.server} (state: {state})"]
    lines += [f"  {p.name:<24} pid {p.pid}" for p in s.processes]
    lines.append(f"  nodes: {s.nodes} ({', '.join(f'{pool} {n}' for pool, n in pools.items())})")
    lines.append(f"  releases: {', '.join(s.releases) or 'none (no Kueue, no JobSet)'}")
    lines.append(f"  logs: {run / 'k8s' / 'logs'}" + "".join(f", {run / r / (r + '.log')}" for r in s.releases))
    kubectl = shutil.which("kubectl") or shutil.which(kubectl_binary())  # the user's, else the one the twin built
    lines.append(f"kubectl: {kubectl or 'not on PATH: install a 1.27-1.33 client'}")
    if "kueue" in s.releases:
        lines.append("watch the queues: kubectl get clusterqueues,workloads -A -w")
    lines.append('a pod annotated gke-accel/run-seconds: "<seconds>" succeeds that long after it runs')
    lines.append(f"stop: gke-accel twin down --state {state}")
    lines.append(f"export KUBECONFIG={s.kubeconfig}")
    return "\n".join(lines)


def cmd_down(args: argparse.Namespace) -> int:
    from gke_accel.twin import TwinError, stop_twin

    state = _state_dir(args)
    try:
        twin, extra, state_error = stop_twin(state, on_line=lambda line: print(f"  {line}"))
    except TwinError as exc:
        return _err(str(exc))
    found = f"; stopped {extra} twin process(es) found by their command lines" if extra else ""
    if state_error is not None:
        print(f"error: {state_error}{found or '; no twin process found running'}; remove the file", file=sys.stderr)
        return EXIT_CONFIG
    if twin is None:
        print(f"no twin in {state}: nothing to stop" if not extra else f"no twin state in {state}{found}")
        return EXIT_OK
    s = twin.state
    if s.stopped_at is not None and not extra and twin.stopped_before:
        print(f"twin of {s.env} in {state} was already stopped")
    else:
        print(f"twin of {s.env} stopped{found}; its data and logs stay in {s.run_dir} (delete the folder to free "
              "the space)")  # fmt: skip
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    from gke_accel.twin import read_twin
    from gke_accel.twin.state import StateError, is_running
    from gke_accel.twin.state_lock import find_processes

    state = _state_dir(args)
    try:
        twin = read_twin(state)
    except StateError as exc:
        found = find_processes(state)
        pids = f"; {len(found)} twin process(es) run from it (`twin down` stops them)" if found else ""
        print(f"error: {exc}{pids}", file=sys.stderr)
        return EXIT_CONFIG
    if twin is None:
        found = find_processes(state)
        if found:
            print(f"no twin state in {state}, but {len(found)} twin process(es) run from it: "
                  f"{', '.join(f'{p.name} (pid {p.pid})' for p in found)}; stop them with "
                  f"`gke-accel twin down --state {state}`")  # fmt: skip
            return EXIT_ERROR
        print(f"no twin in {state}: start one with `gke-accel twin up --env E --state {state}`")
        return EXIT_ERROR
    s = twin.state
    running = [p for p in s.processes if is_running(p)]
    verdict = "running" if len(running) == len(s.processes) else "stopped" if not running else "partly running"
    print(f"twin of {s.env} in {state}: {verdict} ({len(running)}/{len(s.processes)} processes) on {s.server}")
    for p in s.processes:
        print(f"  {p.name:<24} pid {p.pid:<8} {'running' if p in running else 'not running'}")
    if running:
        print(f"export KUBECONFIG={s.kubeconfig}")
    return EXIT_OK if len(running) == len(s.processes) else EXIT_ERROR


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "twin",
        "a local twin of an environment's scheduling stack: twin up / down / status",
        "gke-accel twin up --env staging",
        "gke-accel twin status",
        "gke-accel twin down",
        details="up starts, detached on 127.0.0.1: etcd, kube-apiserver, kube-controller-manager,\n"
        "kube-scheduler, kwok with every pool's nodes at its maximum size, and Kueue and JobSet where the\n"
        "environment installs them, with the platform objects applied; it prints the KUBECONFIG to use.\n"
        "Binaries: make twin-tools. docs/twin.md has the details.",
    )
    twin_sub = p.add_subparsers(dest="twin_command", required=True, metavar="ACTION")
    state_help = "the twin's state folder (default: ~/.cache/gke-accel/twin)"
    up = add_command(twin_sub, "up", "start the twin of one environment, detached", "gke-accel twin up --env staging")
    up.add_argument("--env", action="append", required=True, help="environment name (config/<env>.yaml)")
    up.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    up.add_argument("--state", help=state_help)
    up.add_argument("--per-pool", type=per_pool_arg, default="max",
                    help="nodes per pool: 'max' (default, as the autoscaler could grow it) or a count")  # fmt: skip
    up.set_defaults(func=_single_env(cmd_up))
    down = add_command(twin_sub, "down", "stop every process of the twin by PID (idempotent)", "gke-accel twin down")
    down.add_argument("--state", help=state_help)
    down.set_defaults(func=cmd_down)
    status = add_command(twin_sub, "status", "what of the twin still runs", "gke-accel twin status")
    status.add_argument("--state", help=state_help)
    status.set_defaults(func=cmd_status)


def _single_env(func: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        if len(args.env) != 1:
            return _err(f"--env: one environment per twin, got {', '.join(args.env)}")
        code: int = func(args)
        return code

    return run
