"""The runner ends a first run that kwok's stage left running (a loaded machine once made a 1-hour
job end with a 2-hour one), two polls after its time, and says so; a run kwok ends in time is left
to kwok. A fake API stands in for the twin: the question is what the runner does, not the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gke_accel.model import load_environment
from gke_accel.simulate.objects import JOB_LABEL
from gke_accel.simulate.runner import Runner
from gke_accel.simulate.trace import parse_trace

CONFIG = Path(__file__).resolve().parents[2] / "config"
K, TICK = 300.0, 0.25  # the e2e test's compression and poll: two polls are 150 simulated seconds
Obj = dict[str, Any]


class FakeApi:
    """One admitted L4 job of nlp whose single pod runs until someone completes it."""

    def __init__(self) -> None:
        self.patched: list[str] = []
        self.phase = "Running"

    def items(self, path: str) -> list[Obj]:
        if path.endswith("/workloads"):
            return [{
                "metadata": {"namespace": "nlp", "ownerReferences": [{"name": "j"}]},
                "status": {"conditions": [{"type": "QuotaReserved", "status": "True"}],
                           "admission": {"podSetAssignments": [{"flavors": {"nvidia.com/gpu": "l4"}}]}},
            }]  # fmt: skip
        if "/pods" in path:
            return [{
                "metadata": {"name": "j-0", "labels": {JOB_LABEL: "j"}},
                "spec": {"containers": [{"name": "main", "image": "x",
                                         "resources": {"requests": {"nvidia.com/gpu": "1"}}}]},
                "status": {"phase": self.phase},
            }]  # fmt: skip
        return []  # nodes

    def create(self, obj: Obj) -> None:
        pass

    def patch_status(self, path: str, body: Obj) -> None:
        self.patched.append(path)
        self.phase = body["status"]["phase"]


def _runner(api: FakeApi) -> Runner:
    plan = load_environment(CONFIG / "staging.yaml")
    jobs = parse_trace("name,submit,team,accelerator,chips,duration\nj,0,nlp,l4,1,1h\n", "t.csv")
    return Runner(api, plan, jobs, compression=K, tick=TICK, until=3 * 3600)  # type: ignore[arg-type]


def test_a_first_run_kwok_leaves_running_is_ended_two_polls_after_its_time_and_noted() -> None:
    api = FakeApi()
    runner = _runner(api)
    runner.step(0.0)  # submitted, admitted, 1 GPU running: the run starts at 0
    runner.step(3600.0 + 149.0)  # due at 1 h; kwok gets two polls (150 s) more
    assert api.patched == []
    runner.step(3600.0 + 150.0)
    assert api.patched == ["/api/v1/namespaces/nlp/pods/j-0"] and api.phase == "Succeeded"
    assert runner.late == {"j"}


def test_a_run_kwok_ends_in_time_is_left_to_kwok() -> None:
    api = FakeApi()
    runner = _runner(api)
    runner.step(0.0)
    api.phase = "Succeeded"  # kwok's stage, at 1 h
    runner.step(3600.0)
    runner.step(3600.0 + 600.0)
    assert api.patched == [] and runner.late == set()
