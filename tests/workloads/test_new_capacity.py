"""``workload new`` and what a team may use and where a server may run (real-engines W7, W8). Expected
values are written by hand from the configs named in each test.

- W7: with queues, a team may use what Kueue can admit for it on the pool's flavor: its nominal quota
  plus what it may borrow from the cohort; beyond that it is refused (Kueue never admits it).
- W8: a serving Deployment never lands on flex-start or queued-provisioning capacity (VMs GKE stops
  after at most 7 days) unless ``--flex-start`` asks for it: another pool of the accelerator is chosen,
  none is refused, and behind a ladder with such rungs a required node affinity keeps it off them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.model import ConfigError, EnvironmentPlan, load_environment, load_environment_text
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts
from helpers import base_config, to_yaml
from ladder_config import ladder_config

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "registry.k8s.io/pause:3.10"
CAPACITY = "gke-accel/capacity"


def _new(plan: EnvironmentPlan, **kw: Any) -> list[dict[str, Any]]:
    return new_workload(plan, WorkloadRequest(name="w", image=IMAGE, checkpoints=False, **kw))


def _pod(objects: list[dict[str, Any]]) -> dict[str, Any]:
    obj = next(o for o in objects if o["kind"] in ("Job", "Deployment", "JobSet"))
    spec: dict[str, Any] = obj["spec"]["template"]["spec"]
    return spec


def _error(plan: EnvironmentPlan, **kw: Any) -> str:
    with pytest.raises(ConfigError) as err:
        _new(plan, **kw)
    return str(err.value)


# -- W7 ---------------------------------------------------------------------------------------------


def test_staging_research_borrows_the_l4s_it_has_no_share_of() -> None:
    # config/staging.yaml: research has no L4 (accelerators {v5e: 8}); the L4 shares fill the ladder's rungs
    # in order (docs/capacity.md "Quotas"): reservation nlp 1 + serving 1, on-demand serving 1, Spot serving 2.
    # A Job is one pod set, which Kueue puts on one flavor: research may borrow at most 2 there (the
    # reservation's 2 or Spot's 2; no borrowing_limit for l4), never 5.
    staging = load_environment(str(ROOT / "config" / "staging.yaml"))
    [job] = _new(staging, team="research", kind="job", accelerator="l4", parallelism=2, completions=2)
    assert job["spec"]["parallelism"] == 2
    message = _error(staging, team="research", kind="job", accelerator="l4", parallelism=3, completions=3)
    want = "needs 3 l4 at once; team research may use 2 on one rung of the l4 ladder (nominal 0 + 2 it may borrow)"
    assert want in message, message


def test_staging_a_deployments_pods_spread_over_the_rungs() -> None:
    # Kueue admits each pod of a Deployment as a workload of its own (Kueue's "Run Deployment": every Pod of a
    # Deployment is a single independent plain Pod), so its replicas may take every rung: serving 4 of its own
    # (1 reserved, 1 on-demand, 2 Spot) + nlp's reserved 1 = 5, research 0 + 5 borrowed.
    staging = load_environment(str(ROOT / "config" / "staging.yaml"))
    for team in ("serving", "research"):
        _new(staging, team=team, kind="deployment", accelerator="l4", replicas=5)
    message = _error(staging, team="serving", kind="deployment", accelerator="l4", replicas=6)
    want = "needs 6 l4 at once; team serving may use 5 over the rungs of the l4 ladder (nominal 4 + 1 it may borrow)"
    assert want in message, message


def test_dev_nlp_may_use_its_share_and_the_other_teams_idle_one() -> None:
    # config/dev.yaml (queues: {}): nlp and vision each l4 2 of the 4 Spot L4s: nlp may use 2 + 2 = 4
    dev = load_environment(str(ROOT / "config" / "dev.yaml"))
    _new(dev, team="nlp", kind="job", accelerator="l4", parallelism=4, completions=4)
    assert "team nlp may use 4 on pool l4-dev (nominal 2 + 2 it may borrow)" in _error(
        dev, team="nlp", kind="job", accelerator="l4", parallelism=5, completions=5
    )


def test_without_queues_no_share_is_still_refused() -> None:
    # base_config: no queues; team ml has v5e only
    data = base_config()
    data["teams"] = [{"name": "ml", "google_group": "ml@acme.example.com", "accelerators": {"v5e": 4}}]
    plan = load_environment_text(to_yaml(data))
    assert "team ml may use 0 (teams[].accelerators.l4)" in _error(plan, team="ml", kind="job", accelerator="l4")


# -- W8: servers and short-lived capacity -------------------------------------------------------------


def _l4_env(*pools: tuple[str, str]) -> EnvironmentPlan:
    data = base_config()
    data["gpu_pools"] = [
        {"name": name, "gpu": "l4", "gpus_per_node": 1, "max_nodes": 2, "consumption": c} for name, c in pools
    ]
    data["teams"] = [{"name": "serve", "google_group": "s@acme.example.com", "accelerators": {"l4": 2}}]
    data["queues"] = {}
    return load_environment_text(to_yaml(data))


def test_a_deployment_takes_the_lasting_pool_of_its_accelerator() -> None:
    plan = _l4_env(("l4-flex", "flex-start"), ("l4-od", "on-demand"))
    pod = _pod(_new(plan, team="serve", kind="deployment", accelerator="l4"))
    assert pod["nodeSelector"][CAPACITY] == "on-demand"


def test_a_deployment_is_refused_where_every_pool_is_short_lived_unless_asked() -> None:
    plan = _l4_env(("l4-flex", "flex-start"))
    message = _error(plan, team="serve", kind="deployment", accelerator="l4")
    assert "deployment: every l4 pool of test is flex-start or queued-provisioning capacity (l4-flex)" in message
    assert "--flex-start" in message
    pod = _pod(_new(plan, team="serve", kind="deployment", accelerator="l4", flex_start=True))
    assert pod["nodeSelector"][CAPACITY] == "flex-start"
    job = _pod(_new(plan, team="serve", kind="job", accelerator="l4"))  # a Job may: it ends
    assert job["nodeSelector"][CAPACITY] == "flex-start"


def _ladder(rungs: list[str]) -> EnvironmentPlan:
    data = ladder_config(rungs)  # v5e 2x4 single-host pools: reservation, on-demand, flex-start, Spot
    data["teams"] = [{"name": "ml", "google_group": "ml@acme.example.com", "accelerators": {"v5e": 8}}]
    data["queues"] = {}
    return load_environment_text(to_yaml(data))


NOT_SHORT_LIVED = {"key": CAPACITY, "operator": "NotIn", "values": ["flex-start", "queued"]}


def test_behind_a_ladder_with_a_flex_start_rung_a_deployment_never_climbs_to_it() -> None:
    plan = _ladder(["reservation/r-ml-1", "on-demand", "flex-start", "spot"])
    pod = _pod(_new(plan, team="ml", kind="deployment", accelerator="v5e", chips=8))
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [NOT_SHORT_LIVED]}]
    asked = _pod(_new(plan, team="ml", kind="deployment", accelerator="v5e", chips=8, flex_start=True))
    assert "affinity" not in asked
    job = _pod(_new(plan, team="ml", kind="job", accelerator="v5e", chips=8))
    assert "affinity" not in job


def test_behind_a_ladder_without_short_lived_rungs_nothing_is_added() -> None:
    plan = _ladder(["reservation/r-ml-1", "on-demand", "spot"])
    assert "affinity" not in _pod(_new(plan, team="ml", kind="deployment", accelerator="v5e", chips=8))


# -- W8: multislice over the rungs of a ladder -----------------------------------------------------------

FIXTURES = ROOT / "tests" / "fixtures" / "capacity"


def test_multislice_spreads_over_the_rungs_that_hold_the_slices() -> None:
    # staging-ladder.yaml: v5e 2x4 on ct5lp-hightpu-4t (2 VMs a slice) on three rungs: v5e-reserved 1 slice,
    # v5e-slice (on-demand) 1, v5e-spot 2: 4 slices, no rung holds 3
    plan = load_environment(str(FIXTURES / "staging-ladder.yaml"))
    [jobset] = _new(plan, team="nlp", kind="jobset", accelerator="v5e", slices=3)
    jobs = jobset["spec"]["replicatedJobs"]
    assert [(j["name"], j["replicas"], j["template"]["spec"]["parallelism"]) for j in jobs] == [
        ("workers-0", 1, 2), ("workers-1", 1, 2), ("workers-2", 1, 2)
    ]  # fmt: skip
    assert jobset["spec"]["coordinator"] == {"replicatedJob": "workers-0", "jobIndex": 0, "podIndex": 0}
    for k, job in enumerate(jobs):
        env = {e["name"]: e.get("value") for e in job["template"]["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert env["MEGASCALE_NUM_SLICES"] == "3" and env["MEGASCALE_SLICE_ID"] == str(k)
        assert env["TPU_WORKER_HOSTNAMES"] == f"w-workers-{k}-0-0.w,w-workers-{k}-0-1.w"
    report = lint_texts(plan, [("js.yaml", yaml.safe_dump(jobset))]).to_dict()
    [wl] = report["workloads"]
    assert wl["schedules"] and not [f for f in wl["findings"] if f["severity"] == "error"], wl["findings"]
    message = _error(plan, team="nlp", kind="jobset", accelerator="v5e", slices=5)
    assert "--slices" in message and "staging-ladder has 4 2x4 slice(s)" in message


def test_one_replicated_job_of_all_slices_is_what_kueue_never_admits_on_a_ladder() -> None:
    # the shape before: one pod set of 3 slices (24 chips) takes one flavor; no rung holds more than 16
    plan = load_environment(str(FIXTURES / "staging-ladder.yaml"))
    [jobset] = _new(plan, team="nlp", kind="jobset", accelerator="v5e", slices=3)
    jobs = jobset["spec"]["replicatedJobs"]
    jobset["spec"]["replicatedJobs"] = [{**jobs[0], "name": "workers", "replicas": 3}]
    del jobset["spec"]["coordinator"]
    [wl] = lint_texts(plan, [("js.yaml", yaml.safe_dump(jobset))]).to_dict()["workloads"]
    quota = [f["message"] for f in wl["findings"] if f["rule"] == "quota"]
    assert quota and "needs 24 of Kueue flavor" in quota[0] and "Kueue never admits it" in quota[0], quota


def test_without_a_ladder_multislice_stays_one_replicated_job() -> None:
    # config/staging.yaml: four v5e 2x4 slices in pools of one flavor (v5e-slice, v5e-shared)
    staging = load_environment(str(ROOT / "config" / "staging.yaml"))
    [jobset] = _new(staging, team="nlp", kind="jobset", accelerator="v5e", slices=2)
    [job] = jobset["spec"]["replicatedJobs"]
    assert (job["name"], job["replicas"]) == ("workers", 2)
