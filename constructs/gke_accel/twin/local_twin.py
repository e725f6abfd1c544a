"""``Twin``: one environment's scheduling stack on loopback, as ``gke-accel twin up`` starts it.

    with Twin.start("staging", Path("/tmp/twin")) as twin:    # or detached=True, then twin down
        twin.cluster.apply(job); twin.kubeconfig; twin.plan

What runs (``environment.EnvironmentRun``): etcd, kube-apiserver (GKE's pod admission), kube-controller-manager
(job, replicaset, deployment, quota, namespace, garbage collector ...), kube-scheduler, kwok with every
pool's nodes as ``model/pools/node_shape`` says GKE makes them (each pool at its maximum size unless
``per_pool``), Kueue and JobSet where the stack installs them (their webhooks registered by URL), and
the platform objects of ``gke-accel manifests``. Pods annotated ``gke-accel/run-seconds`` succeed that
long after they run (stages.py); others run until deleted.

Each ``start`` uses a new ``run-<time>`` folder inside ``state`` (certificates, etcd data, logs), and
writes ``state/twin.json`` (state.py) with every process's PID; ``stop()`` stops them by PID.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.model.queues.install import JOBSET, KUEUE
from gke_accel.twin.binaries import PortRangeError, port_range
from gke_accel.twin.client import kubectl_binary
from gke_accel.twin.cluster import CONTROL_PLANE, LocalCluster, find_binaries
from gke_accel.twin.environment import EnvironmentRun
from gke_accel.twin.kueue import cached_controller
from gke_accel.twin.lifecycle import NodeLifecycle
from gke_accel.twin.state import (
    ProcessRecord,
    StateError,
    TwinState,
    is_running,
    names_state_dir,
    read_state,
    stop_processes,
    write_state,
)
from gke_accel.twin.state_lock import StateBusy, find_processes, state_lock

TOOLS_COMMAND = "make twin-tools"
TWIN_BINARIES = (*CONTROL_PLANE, "kube-scheduler", "kwok")


class TwinError(RuntimeError):
    """The twin cannot start or stop; the message is one line for the user (no traceback)."""


class MissingTools(TwinError):
    """A binary the twin needs is not built: the message names it and the command that builds it."""


def check_tools() -> None:
    """Every program the control plane needs, before anything starts."""
    bins, reason = find_binaries(TWIN_BINARIES)
    if bins is None:
        raise MissingTools(reason)
    if not any((bins.parent / "stages").glob("*.yaml")):
        raise MissingTools(f"kwok stage configs missing in {bins.parent / 'stages'}: run `{TOOLS_COMMAND}`")
    tools = (
        (kubectl_binary(), "kubectl", "any 1.27-1.33 client"),
        ("openssl", "openssl", "it makes the twin's certificates"),
    )
    for command, program, why in tools:
        if shutil.which(command) is None:
            raise MissingTools(f"{program} is not on PATH ({why})")


def check_controllers(releases: dict[str, Any]) -> None:
    """The Kueue/JobSet controllers the stack installs are built, and Go can read their modules (CRDs)."""
    wanted = [r for r in (KUEUE, JOBSET) if r.chart in releases]
    missing = [str(cached_controller(r)) for r in wanted if not cached_controller(r).is_file()]
    if missing:
        raise MissingTools(f"controller binaries missing ({', '.join(missing)}): run `{TOOLS_COMMAND}` (needs Go)")
    if wanted and shutil.which("go") is None:
        raise MissingTools(f"go is not on PATH: the CRDs and webhooks of {', '.join(r.name for r in wanted)} "
                           f"come from their Go modules (`{TOOLS_COMMAND}` downloads them)")  # fmt: skip


def _new_run_dir(state: Path) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    for n in range(100):
        candidate = state / (f"run-{stamp}" if n == 0 else f"run-{stamp}-{n}")
        if not candidate.exists():
            candidate.mkdir(parents=True)
            return candidate
    raise TwinError(f"cannot make a new run folder in {state}")


def _argv0(args: Any) -> str:
    return str(args if isinstance(args, (str, bytes, Path)) else args[0])


def records_of(run: EnvironmentRun) -> tuple[ProcessRecord, ...]:
    """Every process of the run, in start order, as the state file keeps them."""
    records = [ProcessRecord.of(name, p.pid, _argv0(p.args)) for name, p in run.cluster.procs.items()]
    for name, controller in (("jobset", run.jobset), ("kueue", run.kueue)):
        if controller is not None:
            records.append(ProcessRecord.of(name, controller.proc.pid, controller.binary))
    return tuple(records)


class Twin:
    def __init__(self, run: EnvironmentRun | None, state_dir: Path, state: TwinState) -> None:
        self._run, self.state_dir, self.state = run, state_dir, state
        self.stopped_before = state.stopped_at is not None  # as read: `twin down` had already stopped it

    @property
    def kubeconfig(self) -> Path:
        return Path(self.state.kubeconfig)

    @property
    def cluster(self) -> LocalCluster:
        if self._run is None:
            raise TwinError("this Twin was read from its state file; its cluster object lives in `twin up`")
        return self._run.cluster

    @property
    def plan(self) -> EnvironmentPlan:
        if self._run is None:
            raise TwinError("this Twin was read from its state file; load the plan with load_environment")
        return self._run.plan

    @property
    def run(self) -> EnvironmentRun:
        """The environment (nodes, releases, helpers); only in the process that started the twin."""
        if self._run is None:
            raise TwinError("this Twin was read from its state file")
        return self._run

    @classmethod
    def start(
        cls,
        env: str,
        state: Path,
        *,
        config_dir: Path | None = None,
        per_pool: str | int = "max",
        detached: bool = False,
        on_step: Callable[[str], None] | None = None,
        lifecycle: NodeLifecycle | None = None,
    ) -> Twin:
        """Start the twin of ``env`` (``config_dir/<env>.yaml``, default ``./config``) and return it running.
        Refused while a twin started from ``state`` still runs. ``detached``: the processes outlive this
        Python process (``gke-accel twin up``); stop them with ``Twin.stop`` or ``stop_twin(state)``."""
        t0 = time.monotonic()
        state = Path(state).resolve()
        config = Path(config_dir or "config").resolve()
        try:
            port_range()  # a bad $GKE_ACCEL_TWIN_PORTS is one line before anything starts
        except PortRangeError as exc:
            raise TwinError(str(exc)) from None
        try:
            with state_lock(state, "up"):  # held for the whole start: a second `twin up` here is refused
                return cls._start(
                    env, state, config, t0, per_pool=per_pool, detached=detached, on_step=on_step, lifecycle=lifecycle
                )
        except StateBusy as exc:
            raise TwinError(str(exc)) from None

    @classmethod
    def _start(
        cls,
        env: str,
        state: Path,
        config: Path,
        t0: float,
        *,
        per_pool: str | int,
        detached: bool,
        on_step: Callable[[str], None] | None,
        lifecycle: NodeLifecycle | None = None,
    ) -> Twin:
        try:
            previous = read_state(state)
        except StateError as exc:
            raise TwinError(f"{exc}; remove it (`gke-accel twin down --state {state}` first stops any twin "
                            "process it finds)") from None  # fmt: skip
        running = [p for p in previous.processes if is_running(p)] if previous is not None else []
        running += [p for p in find_processes(state) if p.pid not in {r.pid for r in running}]
        if running:
            what = (
                f"a twin of {previous.env} already runs"
                if previous is not None
                else ("twin processes without a state file already run")
            )
            pids = ", ".join(str(p.pid) for p in running[:8])
            raise TwinError(f"{what} from {state} (pids {pids}): stop it with `gke-accel twin down --state {state}`")
        if not (config / f"{env}.yaml").is_file():
            known = sorted(p.stem for p in config.glob("*.yaml"))
            raise TwinError(
                f"--env {env!r}: no {config / (env + '.yaml')}; environments there: {', '.join(known) or 'none'}"
            )
        load_environment(str(config / f"{env}.yaml"))  # a ConfigError (exit 2) before any folder or process
        check_tools()
        run_dir = _new_run_dir(state)
        try:
            run = EnvironmentRun.launch(
                env, run_dir, config_dir=config, per_pool=per_pool, detached=detached, on_step=on_step,
                on_releases=check_controllers, lifecycle=lifecycle,
            )  # fmt: skip
        except BaseException:
            if not (run_dir / "k8s").exists():  # nothing started (no logs to keep): no empty run folder left
                shutil.rmtree(run_dir, ignore_errors=True)
            raise
        try:
            twin_state = TwinState(
                env=env,
                run_dir=str(run_dir),
                kubeconfig=str(run.cluster.kubeconfig),
                server=run.cluster.server,
                started_at=time.time(),
                up_seconds=round(time.monotonic() - t0, 1),
                processes=records_of(run),
                nodes=len(run.nodes),
                releases=tuple(sorted(r for r in run.releases if r in (KUEUE.chart, JOBSET.chart))),
            )
            write_state(state, twin_state)
        except BaseException:
            run.stop()
            raise
        twin = cls(run, state, twin_state)
        if not detached:  # a Python process that forgets stop() still stops its twin on exit
            atexit.register(twin._stop_at_exit)
        return twin

    def stop(self, on_line: Callable[[str], None] | None = None) -> list[ProcessRecord]:
        """Stop every process by PID (idempotent); returns any still running (none, normally)."""
        if self._run is not None:
            self._run.stop()
        left = stop_processes(self.state.processes, on_line)
        if self.state.stopped_at is None and not left:
            self.state = dataclasses.replace(self.state, stopped_at=time.time())
            write_state(self.state_dir, self.state)
        return left

    def _stop_at_exit(self) -> None:
        with contextlib.suppress(OSError):  # the state folder may be gone by then (a test's tmp_path)
            self.stop()

    def __enter__(self) -> Twin:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def read_twin(state: Path) -> Twin | None:
    """The twin recorded in ``state`` (running or not), without its in-process objects."""
    recorded = read_state(Path(state).resolve())
    return None if recorded is None else Twin(None, Path(state).resolve(), recorded)


def stop_twin(state: Path, on_line: Callable[[str], None] | None = None) -> tuple[Twin | None, int, StateError | None]:
    """``twin down``: stop the processes recorded in ``state`` and every twin process found there by its
    command line (``find_processes``: this also stops a twin whose ``twin.json`` was deleted or cannot be
    read), by PID, while holding the state folder's lock. Returns the recorded twin (None when there is no
    readable state file), how many processes were found without a record, and why the state file could
    not be read (None when it could, or when there is none)."""
    state = Path(state).resolve()
    if not state.is_dir():
        return None, 0, None
    try:
        with state_lock(state, "down"):
            twin, state_error = None, None
            try:
                twin = read_twin(state)
            except StateError as exc:
                state_error = exc
            recorded = twin.state.processes if twin is not None else ()
            foreign = [r for r in recorded if is_running(r) and not names_state_dir(r, state)]
            for r in foreign:
                if on_line is not None:
                    on_line(f"{r.name} (pid {r.pid}) left alone: its command line does not name {state}/run-*")
            known = {r.pid for r in recorded}
            extra = [r for r in find_processes(state) if r.pid not in known]
            left: list[ProcessRecord] = []
            if twin is not None:
                twin.state = dataclasses.replace(twin.state, processes=tuple(r for r in recorded if r not in foreign))
                left += twin.stop(on_line)
            left += stop_processes(extra, on_line)
    except StateBusy as exc:
        raise TwinError(str(exc)) from None
    if left:
        names = ", ".join(f"{r.name} (pid {r.pid})" for r in left)
        raise TwinError(f"still running after SIGKILL: {names}")
    return twin, len(extra), state_error
