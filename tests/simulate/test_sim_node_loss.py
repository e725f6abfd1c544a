"""A node loss goes through the engines (simulate/failures.py): the runner only takes the node away from
kwok (it stops heartbeating) ``DETECT`` simulated seconds after the loss and gives it back at the repair;
the eviction of its pods is the controllers'. A fake plane stands in for them here (the question is what
the runner does with what they do; tests/e2e/test_simulate_virtual.py runs the real ones).

Hand-computed inputs: GKE's kube-controller-manager 1.33 ``--node-monitor-grace-period`` 50 s and
kube-apiserver ``--default-unreachable-toleration-seconds`` 300 s (both binaries' ``--help``), so a lost
node's pods are evicted 350 s (5 min 50 s) after the loss; the repair is 10 min after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gke_accel.model import load_environment
from gke_accel.simulate.failures import Failure
from gke_accel.simulate.objects import JOB_LABEL
from gke_accel.simulate.trace import parse_trace
from gke_accel.simulate.virtual import VirtualRunner
from gke_accel.twin.lifecycle import SIMULATE, NodeLifecycle
from helpers import FakeClock

CONFIG = Path(__file__).resolve().parents[2] / "config"
H, MIN = 3600.0, 60.0
DETECT = 50 + 300  # GKE's grace period + default unreachable toleration (the module doc)
Obj = dict[str, Any]


class Plane:
    """One-GPU Jobs, always admitted (a flavor without topology: Kueue keeps them), each pod on the node
    given at submission. The engines, per list of the Workloads: a silent node's live pods are evicted
    (deletionTimestamp) two polls after it fell silent; a pod the runner marked Failed is replaced by
    the Job controller with a Running pod on ``spare``; a pod the runner completed finishes the job."""

    def __init__(self, placement: dict[str, str], spare: str = "spare-0") -> None:
        self.placement, self.spare = placement, spare
        self.jobs: dict[str, dict[str, Any]] = {}
        self.silent: dict[str, int] = {}  # node -> polls since it fell silent
        self.node_patches: list[tuple[str, str | None]] = []

    def tick(self) -> None:
        for node in self.silent:
            self.silent[node] += 1
        for job in self.jobs.values():
            pod = job["pod"]
            if pod["node"] in self.silent and self.silent[pod["node"]] >= 2 and pod["phase"] == "Running":
                pod["deleted"] = True  # the taint-eviction controller
            if pod["phase"] == "Failed":
                job["pod"] = {"n": pod["n"] + 1, "node": self.spare, "phase": "Running", "deleted": False}
            elif pod["phase"] == "Succeeded":
                job["finished"] = True

    def items(self, path: str) -> list[Obj]:
        if path.endswith("/workloads"):
            self.tick()
            return [self.workload(n) for n in self.jobs]
        if "fieldSelector=spec.nodeName%3D" in path:
            node = path.rsplit("%3D", 1)[1]
            return [self.pod(n) for n, j in self.jobs.items() if j["pod"]["node"] == node]
        if "/pods" in path:
            names = list(self.jobs)
            if "labelSelector=" in path and "%3D" in path:
                names = [n for n in names if n == path.rsplit("%3D", 1)[1]]
            return [self.pod(n) for n in names]
        return []  # nodes

    def workload(self, name: str) -> Obj:
        conds = [{"type": "QuotaReserved", "status": "True"}]
        if self.jobs[name].get("finished"):
            conds.append({"type": "Finished", "status": "True"})
        return {"metadata": {"namespace": "nlp", "ownerReferences": [{"name": name}]},
                "status": {"conditions": conds,
                           "admission": {"podSetAssignments": [{"flavors": {"nvidia.com/gpu": "l4"}}]}}}  # fmt: skip

    def pod(self, name: str) -> Obj:
        p = self.jobs[name]["pod"]
        meta: Obj = {"name": f"{name}-{p['n']}", "namespace": "nlp", "labels": {JOB_LABEL: name}}
        if p["deleted"]:
            meta["deletionTimestamp"] = "now"
        return {"metadata": meta, "spec": {"nodeName": p["node"], "containers": [
            {"name": "main", "image": "x", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]},
            "status": {"phase": p["phase"]}}  # fmt: skip

    def create(self, obj: Obj) -> None:
        name = obj["metadata"]["name"]
        self.jobs[name] = {"pod": {"n": 0, "node": self.placement[name], "phase": "Running", "deleted": False}}

    def request(self, method: str, path: str, body: Obj, content_type: str = "") -> Obj:
        assert method == "PATCH" and path.startswith("/api/v1/nodes/") and "merge-patch" in content_type
        node, value = path.rsplit("/", 1)[1], body["metadata"]["labels"]["type"]
        self.node_patches.append((node, value))
        if value is None:
            self.silent[node] = 0
        else:
            self.silent.pop(node, None)
        return {}

    def patch_status(self, path: str, body: Obj) -> None:
        name = path.rsplit("/", 1)[1].rsplit("-", 1)[0]
        self.jobs[name]["pod"]["phase"] = body["status"]["phase"]

    def delete(self, path: str) -> None:
        self.jobs.pop(path.rsplit("/", 1)[1], None)


def run(plane: Plane, trace: str, failures: list[Failure], until: float) -> VirtualRunner:
    plan = load_environment(CONFIG / "staging.yaml")
    clock = FakeClock()
    jobs = parse_trace("name,submit,team,accelerator,chips,duration,checkpoint\n" + trace, "t.csv")
    r = VirtualRunner(plane, plan, jobs, quiet=0.8, poll=0.1, bound=30.0, until=until,  # type: ignore[arg-type]
                      clock=clock, epoch=clock, sleep=clock.sleep)  # fmt: skip
    r.failures = failures
    r.run()
    return r


def test_a_lost_node_is_silenced_after_the_detection_delay_and_its_run_loses_all_since_the_checkpoint() -> None:
    """j (2 h, checkpoint 30 min) runs on node a from 0; a is lost at 55 min. Its pod stays Running until
    55 min + 5 min 50 s = 60 min 50 s, when a falls silent and the engines evict it: the run ran 60 min 50
    s, kept the 30-min checkpoint written before the loss, lost 30 min 50 s. It stays Terminating on the
    dead node (no kubelet) until the repair at 65 min; then the runner ends it, the Job recreates the pod
    elsewhere, and the 90 min left end at 65 + 90 = 155 min. k, on node b, is not touched: done at 3 h."""
    plane = Plane({"j": "a", "k": "b"})
    r = run(plane, "j,0,nlp,l4,1,2h,30m\nk,0,nlp,l4,1,3h,30m\n", [Failure(55 * MIN, ("a",))], until=5 * H)
    assert plane.node_patches == [("a", None), ("a", "kwok")]
    (evicted,) = [e for e in r.events if e.type == "evicted"]
    assert (evicted.job, evicted.detail, evicted.t) == ("j", "node-failure", 60 * MIN + 50)
    assert evicted.lost == 30 * MIN + 50
    runs = [(e.t, e.chips) for e in r.events if e.job == "j" and e.type == "running"]
    assert runs == [(0.0, 1), (60 * MIN + 50, 0), (65 * MIN, 1)]
    finished = {e.job: e.t for e in r.events if e.type == "finished"}
    assert finished == {"j": 155 * MIN, "k": 3 * H}
    assert r.timing["bound_hits"] == 0 and r.timing["stuck_pods"] == 1


def test_a_run_on_a_lost_node_is_not_completed_at_its_time_before_the_engines_evict_it() -> None:
    """j (1 h, no checkpoint) on node a, lost at 58 min: without the loss it would end at 1 h; its node is
    dead, so it does not: evicted at 58 min + 5 min 50 s = 63 min 50 s, all 63 min 50 s lost; back on
    a spare node at the repair (68 min), it runs the whole hour again: done at 2 h 8 min."""
    plane = Plane({"j": "a"})
    r = run(plane, "j,0,nlp,l4,1,1h,\n", [Failure(58 * MIN, ("a",))], until=4 * H)
    (evicted,) = [e for e in r.events if e.type == "evicted"]
    assert (evicted.t, evicted.lost) == (63 * MIN + 50, 63 * MIN + 50)
    assert [e.t for e in r.events if e.type == "finished"] == [2 * H + 8 * MIN]


def test_a_node_already_down_is_not_lost_again_and_a_loss_with_no_run_on_it_costs_nothing() -> None:
    """a lost at 10 min and again at 12 min (still down): one silence, one repair (at 20 min). Nothing
    ran on a: no eviction; j on b ends at its time (1 h)."""
    plane = Plane({"j": "b"})
    r = run(plane, "j,0,nlp,l4,1,1h,\n", [Failure(10 * MIN, ("a",)), Failure(12 * MIN, ("a",))], until=2 * H)
    assert plane.node_patches == [("a", None), ("a", "kwok")]
    assert [e for e in r.events if e.type == "evicted"] == []
    assert [e.t for e in r.events if e.type == "finished"] == [1 * H]


def test_the_simulate_twins_detection_settings_are_short_and_a_grace_below_two_leases_is_refused() -> None:
    assert SIMULATE.controller_manager_flags()[:2] == ["--node-monitor-grace-period=12s", "--node-monitor-period=1s"]
    assert SIMULATE.apiserver_flags() == ["--default-unreachable-toleration-seconds=1",
                                          "--default-not-ready-toleration-seconds=1"]  # fmt: skip
    assert SIMULATE.kwok_flags() == ["--node-lease-duration-seconds=4"]
    assert NodeLifecycle(grace=8, lease=4, toleration=0).grace == 8  # the least accepted
    with pytest.raises(ValueError) as err:
        NodeLifecycle(grace=5, lease=3, toleration=-1)
    text = str(err.value)  # all three problems at once
    assert "lease 3" in text and "grace 5" in text and "toleration -1" in text


def test_on_half_hour_steps_the_repair_of_a_node_silenced_at_a_step_waits_for_the_next_step() -> None:
    """j (2 h, checkpoint 30 min) on a, lost at 55 min: applied at the 1 h step; its silence (1 h 5 min 50
    s) and its repair (1 h 10 min) both fall before the next step, 1 h 30: the node is silenced there, its
    pod evicted, and the repair waits for the step after, 2 h (else the node would be back before the
    engines saw it silent). The run ran 1 h 30, lost its node 1 h +- 15 min in: on average it keeps 45 min
    (docs/simulate.md, the sawtooth's mean), loses 45 min; 75 min left from 2 h: 3 h 15, a tie, 3 h."""
    plane = Plane({"j": "a"})
    plan = load_environment(CONFIG / "staging.yaml")
    clock = FakeClock()
    jobs = parse_trace("name,submit,team,accelerator,chips,duration,checkpoint\nj,0,nlp,l4,1,2h,30m\n", "t.csv")
    r = VirtualRunner(plane, plan, jobs, quiet=0.8, poll=0.1, bound=30.0, until=5 * H, resolution=30 * MIN,  # type: ignore[arg-type]
                      clock=clock, epoch=clock, sleep=clock.sleep)  # fmt: skip
    r.failures = [Failure(55 * MIN, ("a",))]
    r.run()
    assert plane.node_patches == [("a", None), ("a", "kwok")]
    (evicted,) = [e for e in r.events if e.type == "evicted"]
    assert (evicted.t, evicted.lost) == (1.5 * H, pytest.approx(45 * MIN))
    assert [(e.t, e.chips) for e in r.events if e.type == "running"] == [(0.0, 1), (1.5 * H, 0), (2 * H, 1)]
    assert [e.t for e in r.events if e.type == "finished"] == [3 * H]


def test_nodes_still_silent_at_the_horizon_are_given_back_to_kwok_and_a_lost_node_not_yet_silent_is_left() -> None:
    """Horizon 1 h 58 min. a lost at 1 h 50 min: silent at 1 h 55 min 50 s, its repair (2 h) after the
    horizon, so the runner gives it back at the end (the twin's next run starts with every node); b lost
    at 1 h 57 min would fall silent after the horizon: nothing to give back."""
    plane = Plane({"j": "a"})
    run(plane, "j,0,nlp,l4,1,3h,\n", [Failure(110 * MIN, ("a",)), Failure(117 * MIN, ("b",))], until=118 * MIN)
    assert plane.node_patches == [("a", None), ("a", "kwok")]
