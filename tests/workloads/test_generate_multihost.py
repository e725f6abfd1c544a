"""``workload new`` for multi-host TPU slices (one child Job per slice, each on a node pool of its own),
multislice (``--slices``) and multi-node GPU training (``--nodes``), on the shipped staging and prod
configs; what they write lints clean there. Expected values are written from the sources cited in
workloads/generate/jobset.py (JobSet v0.11.1, xpk, torchrun), not taken from the code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.model import ConfigError, EnvironmentPlan
from gke_accel.model.environment.config_files import load_environments
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts

CONFIG = Path(__file__).resolve().parents[2] / "config"


@pytest.fixture(scope="module")
def envs() -> dict[str, EnvironmentPlan]:
    return {e.name: e for e in load_environments(CONFIG, ["staging", "prod"])}


def generate(env: EnvironmentPlan, **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "ms",
        "team": "nlp",
        "kind": "jobset",
        "accelerator": "v5e",
        "image": "us-docker.pkg.dev/acme/ml/img:1",
    }
    [obj] = new_workload(env, WorkloadRequest(**(base | kw)))
    report = lint_texts(env, [("gen.yaml", yaml.safe_dump(obj))])
    assert report.ok and not [f for v in report.verdicts for f in v.findings], report.render()
    return obj


def env_of(obj: dict[str, Any]) -> dict[str, Any]:
    pod = obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in pod["containers"][0]["env"]}


def test_one_slice_jobset_gets_a_node_pool_of_its_own(envs: dict[str, EnvironmentPlan]) -> None:
    obj = generate(envs["staging"], chips=8)
    annotations = obj["metadata"]["annotations"]
    assert annotations["alpha.jobset.sigs.k8s.io/exclusive-topology"] == "cloud.google.com/gke-nodepool"
    [rjob] = obj["spec"]["replicatedJobs"]
    assert rjob["replicas"] == 1 and rjob["template"]["spec"]["parallelism"] == 2
    env = env_of(obj)
    assert env["TPU_WORKER_HOSTNAMES"] == "ms-workers-0-0.ms,ms-workers-0-1.ms"
    assert "MEGASCALE_NUM_SLICES" not in env and "coordinator" not in obj["spec"]


def test_two_slices_are_two_child_jobs_with_the_megascale_environment(envs: dict[str, EnvironmentPlan]) -> None:
    obj = generate(envs["staging"], chips=8, slices=2)
    [rjob] = obj["spec"]["replicatedJobs"]
    job = rjob["template"]["spec"]
    assert (rjob["replicas"], job["parallelism"], job["completions"], job["completionMode"]) == (2, 2, 2, "Indexed")
    assert obj["spec"]["coordinator"] == {"replicatedJob": "workers", "jobIndex": 0, "podIndex": 0}
    env = env_of(obj)
    label = "metadata.labels['jobset.sigs.k8s.io/{}']".format
    assert env["MEGASCALE_NUM_SLICES"] == {"fieldRef": {"fieldPath": label("replicatedjob-replicas")}}
    assert env["MEGASCALE_SLICE_ID"] == {"fieldRef": {"fieldPath": label("job-index")}}
    assert env["MEGASCALE_COORDINATOR_ADDRESS"] == {"fieldRef": {"fieldPath": label("coordinator")}}
    assert env["TPU_WORKER_HOSTNAMES"] == "ms-workers-$(MEGASCALE_SLICE_ID)-0.ms,ms-workers-$(MEGASCALE_SLICE_ID)-1.ms"
    names = [e["name"] for e in job["template"]["spec"]["containers"][0]["env"]]
    assert names.index("MEGASCALE_SLICE_ID") < names.index("TPU_WORKER_HOSTNAMES")  # $(VAR) needs it first


def test_four_slices_fit_staging_and_five_are_refused_naming_the_pools(envs: dict[str, EnvironmentPlan]) -> None:
    # 4 slices are 32 chips: written (lint then says nlp's quota of 16 refuses half of them)
    [obj] = new_workload(envs["staging"], WorkloadRequest("ms", "nlp", "jobset", "v5e", "img", chips=8, slices=4))
    assert obj["spec"]["replicatedJobs"][0]["replicas"] == 4
    with pytest.raises(ConfigError) as err:
        new_workload(envs["staging"], WorkloadRequest("ms", "nlp", "jobset", "v5e", "img", chips=8, slices=5))
    assert str(err.value).endswith(
        "--slices: 5: staging has 4 2x4 slice(s); valid: at most 4 (v5e-slice, v5e-shared-s0, v5e-shared-s1, "
        "v5e-shared-s2)"
    )


def test_slices_need_a_multi_host_tpu_jobset(envs: dict[str, EnvironmentPlan]) -> None:
    with pytest.raises(ConfigError, match="--slices: 2: multislice runs one JobSet over multi-host TPU slices"):
        new_workload(envs["staging"], WorkloadRequest("x", "nlp", "jobset", "l4", "img", slices=2))


def test_two_h100_nodes_are_one_jobset_on_the_compact_pool(envs: dict[str, EnvironmentPlan]) -> None:
    obj = generate(envs["prod"], name="ddp", team="llm-training", accelerator="h100", chips=8, nodes=2)
    [rjob] = obj["spec"]["replicatedJobs"]
    job = rjob["template"]["spec"]
    assert (rjob["replicas"], job["parallelism"], job["completions"], job["completionMode"]) == (1, 2, 2, "Indexed")
    pod = job["template"]["spec"]
    assert pod["nodeSelector"]["cloud.google.com/gke-nodepool"] == "h100-train"  # prod: placement compact
    assert pod["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "8"
    env = env_of(obj)
    index = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    assert env["NODE_RANK"] == {"fieldRef": {"fieldPath": index}}
    assert (env["MASTER_ADDR"], env["MASTER_PORT"], env["WORLD_SIZE"]) == ("ddp-workers-0-0.ddp", "29500", "16")
    assert (env["PET_NNODES"], env["PET_NODE_RANK"], env["PET_NPROC_PER_NODE"]) == ("2", "$(NODE_RANK)", "8")
    assert env["PET_MASTER_ADDR"] == "ddp-workers-0-0.ddp"


def test_more_gpu_nodes_than_a_pool_holds_are_refused(envs: dict[str, EnvironmentPlan]) -> None:
    with pytest.raises(ConfigError) as err:
        new_workload(envs["prod"], WorkloadRequest("ddp", "llm-training", "jobset", "h100", "img", chips=8, nodes=3))
    assert "--nodes: 3 nodes of 8 h100 GPUs: no pool of prod grows that large; valid: h100-train: 2" in str(err.value)


def test_nodes_need_a_gpu_jobset(envs: dict[str, EnvironmentPlan]) -> None:
    with pytest.raises(ConfigError, match="--nodes: 2: several nodes are a JobSet on a GPU pool"):
        new_workload(envs["prod"], WorkloadRequest("ddp", "llm-training", "job", "h100", "img", chips=8, nodes=2))
