"""``gke-accel twin up --env staging`` / ``twin down`` as a user runs them (the installed command, detached).

1. up prints ``export KUBECONFIG=...`` last; every process in its state file runs;
2. the twin's nodes, as the API server stores them, are GKE's nodes as the hand-written fixtures of
   tests/fixtures/gke-nodes describe them (the fixture per staging pool chosen by hand below; the
   pool-specific values, node pool name, zone, slice topology and pool size, read from config/staging.yaml);
3. a pod annotated ``gke-accel/run-seconds: "6"`` succeeds about 6 s after it runs, one without keeps
   running; a team Job from ``workload new`` carrying the annotation is admitted by Kueue and completes;
4. down stops every PID of the state file (none is left running), and a second down is a no-op.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.twin.client import kubectl_binary
from gke_accel.twin.cluster import CONTROL_PLANE, find_binaries
from gke_accel.twin.state import ProcessRecord, is_running
from require import require_or_skip

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
sys.path.insert(0, str(TESTS))
from gke_nodes import load_fixtures  # noqa: E402

GKE_ACCEL = str(Path(sys.executable).parent / "gke-accel")
STAGING = yaml.safe_load((REPO / "config" / "staging.yaml").read_text())
# staging's pools -> the fixture of a GKE node of the same kind (by hand: same machine, accelerator, consumption)
FIXTURE_OF = {
    "v5e-slice": "tpu-v5e-multi-host-slice",
    "v5e-shared": "tpu-v5e-multi-host-slice",
    "l4-reserved": "gpu-l4-whole",
    "l4-serve": "gpu-l4-whole",
    "l4-spot": "gpu-l4-whole",
}
# staging's L4 pools are the rungs of its ladder (config/staging.yaml capacity.l4), by hand from the config:
# how each gets its nodes; GKE requires the label and NoSchedule taint cloud.google.com/compute-class=l4 of
# a manually created pool serving the class ("About custom ComputeClasses"); the Spot rung's nodes carry
# GKE's Spot label and the pool's Spot taint (as tests/fixtures/gke-nodes/tpu-v6e-spot.yaml), the reserved
# ones the reservation's name (RES, as gpu-h100-reservation.yaml)
L4_RUNGS = {"l4-reserved": "reservation", "l4-serve": "on-demand", "l4-spot": "spot"}
CLASS_TAINT = {"key": "cloud.google.com/compute-class", "value": "l4", "effect": "NoSchedule"}
SPOT_TAINT = {"key": "cloud.google.com/gke-spot", "value": "true", "effect": "NoSchedule"}


def _as_gke_makes(pool: str, fixture: dict[str, Any]) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The fixture node's labels and taints, with what staging's L4 ladder adds to a node of ``pool``."""
    labels, taints = dict(fixture["metadata"]["labels"]), list(fixture["spec"]["taints"])
    rung = L4_RUNGS.get(pool)
    if rung is not None:
        labels |= {"gke-accel/capacity": rung, "cloud.google.com/compute-class": "l4"}
        taints.append(CLASS_TAINT)
    if rung == "spot":
        labels["cloud.google.com/gke-spot"] = "true"
        taints.append(SPOT_TAINT)
    if rung == "reservation":
        labels["cloud.google.com/reservation-name"] = "r-l4-serve"
    return labels, sorted(taints, key=lambda t: t["key"])


# labels the twin adds for kwok and the scheduler (a kubelet sets the kubernetes.io ones on GKE)
NOT_GKE_POOL_LABELS = {"type", "kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch"}
POOL_SPECIFIC = {"cloud.google.com/gke-nodepool", "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
                 "cloud.google.com/gke-tpu-topology"}  # fmt: skip
RUN = 6.0
FIXTURE_OURS = {"gke-accel/capacity", "gke-accel/gpu-unit"}  # gke-accel's own labels the fixtures declare (OURS)
KERNEL_PERCENT = 2  # the kernel's share of machine memory the twin's nodes leave out (catalog node_fit)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GKE_ACCEL, *args], capture_output=True, text=True, env=os.environ, cwd=REPO, check=False)


@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    bins, reason = find_binaries((*CONTROL_PLANE, "kube-scheduler", "kwok"))
    if bins is None:
        require_or_skip(reason)
    state = tmp_path_factory.mktemp("twin")
    started = time.monotonic()
    up = _cli("twin", "up", "--env", "staging", "--state", str(state))
    wall = time.monotonic() - started
    try:
        assert up.returncode == 0, up.stderr
        print(f"\ntwin up --env staging: {wall:.1f} s wall")
        yield {"state": state, "up": up, "kubeconfig": json.loads((state / "twin.json").read_text())["kubeconfig"]}
    finally:
        _cli("twin", "down", "--state", str(state))  # idempotent: a no-op after test_down


def kubectl(twin: dict[str, Any], *args: str, stdin: str | None = None) -> str:
    out = subprocess.run([kubectl_binary(), f"--kubeconfig={twin['kubeconfig']}", *args], input=stdin,
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out.stdout


def records(state: Path) -> list[ProcessRecord]:
    return [ProcessRecord(**p) for p in json.loads((state / "twin.json").read_text())["processes"]]


def test_up_prints_the_kubeconfig_and_every_process_runs(twin: dict[str, Any]) -> None:
    out = twin["up"].stdout.splitlines()
    assert out[-1] == f"export KUBECONFIG={twin['kubeconfig']}"
    procs = records(twin["state"])
    names = [p.name for p in procs]
    assert names == ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "jobset", "kueue"]
    assert all(is_running(p) for p in procs)
    for p in procs:  # the PID runs the recorded binary, in a session of its own (it outlived `twin up`)
        assert Path(f"/proc/{p.pid}/cmdline").read_bytes().split(b"\0")[0].decode() == p.binary
        assert os.getsid(p.pid) != os.getsid(0)


def _nodes_by_pool(twin: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for node in json.loads(kubectl(twin, "get", "nodes", "-o", "json"))["items"]:
        out.setdefault(node["metadata"]["labels"]["cloud.google.com/gke-nodepool"], []).append(node)
    return out


def test_every_pool_runs_at_its_maximum_size(twin: dict[str, Any]) -> None:
    """Sizes from config/staging.yaml: a multi-host slice pool has topology chips / 4 VMs (ct5lp-hightpu-4t)
    per slice, one pool per slice; a GPU or CPU pool max_nodes; the system pool its max per zone times zones."""
    pools = {p: len(n) for p, n in _nodes_by_pool(twin).items()}
    want: dict[str, int] = {}
    for tpu in STAGING["tpu_pools"]:
        a, b = (int(x) for x in tpu["topology"].split("x"))
        vms = a * b // 4
        slices = tpu.get("max_slices", 1)
        names = [tpu["name"]] if slices == 1 else [f"{tpu['name']}-s{i}" for i in range(slices)]
        want.update({name: vms for name in names})
    for gpu in STAGING["gpu_pools"]:
        want[gpu["name"]] = gpu["max_nodes"]
    for cpu in STAGING["cpu_pools"]:  # a CPU pool's max_nodes is its total across zones
        want[cpu["name"]] = cpu["max_nodes"]
    system = {k: v for k, v in pools.items() if k not in want}
    assert {k: v for k, v in pools.items() if k in want} == want
    assert len(system) == 1, system


def test_the_twins_nodes_are_gke_nodes_as_the_fixtures_describe_them(twin: dict[str, Any]) -> None:
    fixtures = {f.name: f.node for f in load_fixtures()}
    checked = 0
    for pool, nodes in _nodes_by_pool(twin).items():
        base = next((b for b in FIXTURE_OF if pool == b or pool.startswith(f"{b}-s")), None)
        if base is None:
            continue  # the system pool and the CPU pool: no accelerator, no fixture
        gke = fixtures[FIXTURE_OF[base]]
        gke_labels, gke_taints = _as_gke_makes(base, gke)
        config = next(p for p in STAGING["tpu_pools"] + STAGING["gpu_pools"] if p["name"] == base)
        for node in nodes:
            labels = {k: v for k, v in node["metadata"]["labels"].items() if k not in NOT_GKE_POOL_LABELS
                      and (not k.startswith("gke-accel") or k in FIXTURE_OURS)}  # fmt: skip
            assert set(labels) == set(gke_labels), node["metadata"]["name"]
            for key in set(labels) - POOL_SPECIFIC:
                assert labels[key] == gke_labels[key], (node["metadata"]["name"], key)
            assert labels["cloud.google.com/gke-nodepool"] == pool
            assert labels["topology.kubernetes.io/region"] == STAGING["region"]
            zones = [config["zone"]] if "zone" in config else config.get("zones", STAGING["cluster"]["node_zones"])
            assert labels["topology.kubernetes.io/zone"] in zones
            if "topology" in config:
                assert labels["cloud.google.com/gke-tpu-topology"] == config["topology"]
            assert sorted(node["spec"]["taints"], key=lambda t: t["key"]) == gke_taints
            # memory: the kubelet's capacity is below the machine size by the kernel's share, 2% in the twin
            # (catalog node_fit; the fixtures keep the machine size, KCAP); GKE's reservation on the memory
            # removed is at most 25% of it (the top tier of "Plan GKE Standard node sizes"), so allocatable
            # drops by between 75% and 100% of the margin. Everything else as the fixture says.
            have, want = _quantities(node["status"]["capacity"]), _quantities(gke["status"]["capacity"])
            margin = math.ceil(want["memory"] / 2**20 * KERNEL_PERCENT / 100) * 2**20
            assert have.pop("memory") == want.pop("memory") - margin and have == want
            have, want = _quantities(node["status"]["allocatable"]), _quantities(gke["status"]["allocatable"])
            drop = want.pop("memory") - have.pop("memory")
            assert 0.75 * margin <= drop <= margin and have == want
            checked += 1
    assert checked == sum(len(v) for p, v in _nodes_by_pool(twin).items() if p not in ("system", "cpu"))


def _quantities(resources: dict[str, str]) -> dict[str, float]:
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    out = {}
    for name, text in resources.items():
        unit = next((u for u in units if text.endswith(u)), "")
        out[name] = float(text[: len(text) - len(unit)]) * units.get(unit, 1)
    return out


def _pod(name: str, annotations: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "twin-e2e", "annotations": annotations},
        "spec": {
            "restartPolicy": "Never",
            "nodeSelector": {"cloud.google.com/gke-nodepool": "system"},
            "tolerations": [{"key": "components.gke.io/gke-managed-components", "operator": "Exists"}],
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}],
        },
    }


def _phase(twin: dict[str, Any], name: str) -> tuple[str, dict[str, Any]]:
    pod = json.loads(kubectl(twin, "get", "pod", name, "-n", "twin-e2e", "-o", "json"))
    return pod["status"].get("phase", ""), pod


def test_a_pod_with_run_seconds_succeeds_after_that_time_and_one_without_keeps_running(twin: dict[str, Any]) -> None:
    kubectl(twin, "create", "namespace", "twin-e2e")
    kubectl(twin, "create", "-f", "-", stdin=yaml.safe_dump_all(
        [_pod("timed", {"gke-accel/run-seconds": str(RUN)}), _pod("forever", {})]))  # fmt: skip
    deadline = time.monotonic() + 60
    running_at = None
    while time.monotonic() < deadline:
        phase, _ = _phase(twin, "timed")
        if phase == "Running" and running_at is None:
            running_at = time.monotonic()
        if phase == "Succeeded":
            break
        time.sleep(0.2)
    done_at = time.monotonic()
    phase, pod = _phase(twin, "timed")
    assert phase == "Succeeded" and running_at is not None
    assert RUN - 1.0 <= done_at - running_at <= RUN + 3.0, done_at - running_at
    [status] = pod["status"]["containerStatuses"]
    ended = status["state"]["terminated"]
    assert (ended["exitCode"], ended["reason"]) == (0, "Completed")
    took = datetime.fromisoformat(ended["finishedAt"]) - datetime.fromisoformat(ended["startedAt"])
    assert abs(took.total_seconds() - RUN) <= 1.0  # the API keeps whole seconds
    time.sleep(2)
    assert _phase(twin, "forever")[0] == "Running"


def test_a_team_job_with_run_seconds_is_admitted_and_completes(twin: dict[str, Any]) -> None:
    new = _cli("workload", "new", "--env", "staging", "--team", "nlp", "--accelerator", "l4", "--gpus", "1",
               "--image", "registry.example/serve:1", "--name", "twin-try")  # fmt: skip
    assert new.returncode == 0, new.stderr
    docs = [d for d in yaml.safe_load_all(new.stdout) if d]
    [job] = [d for d in docs if d["kind"] == "Job"]
    job["spec"]["template"].setdefault("metadata", {}).setdefault("annotations", {})["gke-accel/run-seconds"] = "3"
    kubectl(twin, "apply", "-f", "-", stdin=yaml.safe_dump_all(docs))
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        stored = json.loads(kubectl(twin, "get", "job", "twin-try", "-n", "nlp", "-o", "json"))
        if any(
            c["type"] == "Complete" and c["status"] == "True" for c in stored.get("status", {}).get("conditions", [])
        ):
            break
        time.sleep(0.5)
    else:
        pytest.fail(f"the Job did not complete: {stored.get('status')}")
    [workload] = json.loads(kubectl(twin, "get", "workloads.kueue.x-k8s.io", "-n", "nlp", "-o", "json"))["items"]
    conditions = {c["type"]: c["status"] for c in workload["status"]["conditions"]}
    assert "Admitted" in conditions and conditions.get("Finished") == "True", conditions
    assert workload["status"]["admission"]["clusterQueue"] == "nlp"


def test_down_leaves_no_process_and_a_second_down_is_a_no_op(twin: dict[str, Any]) -> None:
    procs = records(twin["state"])
    down = _cli("twin", "down", "--state", str(twin["state"]))
    assert down.returncode == 0, down.stderr
    assert [line.split()[0] for line in down.stdout.splitlines()[:-1]] == [p.name for p in reversed(procs)]
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{p.pid}").exists() and is_running(p) for p in procs) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [p.name for p in procs if is_running(p)]
    again = _cli("twin", "down", "--state", str(twin["state"]))
    assert again.returncode == 0 and again.stdout.splitlines()[-1].endswith("was already stopped")
    status = _cli("twin", "status", "--state", str(twin["state"]))
    assert status.returncode == 1 and f"stopped (0/{len(procs)} processes)" in status.stdout
