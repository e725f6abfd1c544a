"""The slice and multi-node rules (workloads/lint/slices.py and the multi-host rules of jobs.py), each
with an accepted and a rejected workload. The test environment has two multi-host v5e 2x4 slice pools
(``v5e-mh-s0``, ``v5e-mh-s1``: GKE makes one node pool per multi-host slice); the GPU environment has a
compact-placement H100 pool of 2 nodes and one without a placement policy (a3-highgpu-8g, 8 GPUs per
node). Expected texts are written here from those facts, not taken from the code."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from workload_cases import multi_host_jobset

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.workloads.lint import LintReport, lint_texts
from helpers import base_config, to_yaml

Doc = dict[str, Any]
EXCLUSIVE = "alpha.jobset.sigs.k8s.io/exclusive-topology"


def run(env: EnvironmentPlan, docs: list[Doc]) -> LintReport:
    return lint_texts(env, [("test.yaml", yaml.safe_dump_all(docs))])


def texts(report: LintReport, rule: str, severity: str = "error") -> list[str]:
    return [
        f"{f.path}: {f.message} | {f.hint}"
        for v in report.verdicts
        for f in v.findings
        if f.rule == rule and f.severity == severity
    ]


def job_spec(doc: Doc) -> Doc:
    spec: Doc = doc["spec"]["replicatedJobs"][0]["template"]["spec"]
    return spec


def bare(doc: Doc) -> Doc:
    """The multi-host JobSet's child Job as a bare Indexed Job, with its headless Service."""
    job = copy.deepcopy(job_spec(doc))
    job["template"]["spec"]["subdomain"] = "mh"
    job["podFailurePolicy"]["rules"][0]["action"] = "Ignore"
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "mh", "namespace": "nlp"}, "spec": job}


def service(selector: dict[str, str]) -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "mh", "namespace": "nlp"},
        "spec": {"clusterIP": "None", "selector": selector},
    }


# ---- slice-placement ------------------------------------------------------------------------------


def test_jobset_with_exclusive_topology_is_accepted(env: EnvironmentPlan) -> None:
    report = run(env, [multi_host_jobset()])
    assert report.ok, report.render()
    assert report.verdicts[0].pools == ("v5e-mh-s0", "v5e-mh-s1")


def test_jobset_without_exclusive_topology_over_two_slice_pools_is_rejected(env: EnvironmentPlan) -> None:
    doc = multi_host_jobset()
    del doc["metadata"]["annotations"]
    report = run(env, [doc])
    assert not report.ok
    [text] = texts(report, "slice-placement")
    assert "may land in different node pools (v5e-mh-s0, v5e-mh-s1)" in text
    assert f"{EXCLUSIVE}: cloud.google.com/gke-nodepool" in text


def test_exclusive_topology_on_the_replicated_job_is_accepted(env: EnvironmentPlan) -> None:
    doc = multi_host_jobset()
    del doc["metadata"]["annotations"]
    doc["spec"]["replicatedJobs"][0]["template"]["metadata"] = {
        "annotations": {EXCLUSIVE: "cloud.google.com/gke-nodepool"}
    }
    assert not texts(run(env, [doc]), "slice-placement")


def test_exclusive_topology_on_another_key_is_rejected(env: EnvironmentPlan) -> None:
    doc = multi_host_jobset()
    doc["metadata"]["annotations"][EXCLUSIVE] = "kubernetes.io/hostname"
    [text] = texts(run(env, [doc]), "slice-placement")
    assert text.startswith(f"metadata.annotations.{EXCLUSIVE}:")


def test_one_slice_pool_needs_no_annotation() -> None:
    data = base_config()
    data["tpu_pools"] = [
        {"name": "one", "generation": "v5e", "topology": "2x4", "machine_type": "ct5lp-hightpu-4t",
         "zone": "us-central1-a", "max_slices": 1}
    ]  # fmt: skip
    data["teams"] = [{"name": "nlp", "google_group": "nlp@acme.example.com", "accelerators": {"v5e": 8}}]
    single = load_environment_text(to_yaml(data), expected_name="test")
    doc = multi_host_jobset()
    del doc["metadata"]["annotations"]
    report = run(single, [doc])
    assert not texts(report, "slice-placement"), report.render()


def test_bare_indexed_job_over_two_slice_pools_is_rejected_with_both_fixes(env: EnvironmentPlan) -> None:
    report = run(env, [bare(multi_host_jobset()), service({"app": "train"})])
    [text] = texts(report, "slice-placement")
    assert "a Job cannot keep its pods on one slice" in text
    assert "use a JobSet with alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool" in text
    assert "or select one pool: cloud.google.com/gke-nodepool: v5e-mh-s0" in text


def test_bare_indexed_job_pinned_to_one_slice_pool_is_accepted(env: EnvironmentPlan) -> None:
    job = bare(multi_host_jobset())
    job["spec"]["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-nodepool"] = "v5e-mh-s1"
    report = run(env, [job, service({"app": "train"})])
    assert report.ok, report.render()
    assert report.verdicts[0].pools == ("v5e-mh-s1",)


# ---- slices -----------------------------------------------------------------------------------------


def test_two_slices_over_two_slice_pools_are_accepted(env: EnvironmentPlan) -> None:
    doc = multi_host_jobset()
    doc["spec"]["replicatedJobs"][0]["replicas"] = 2
    report = run(env, [doc])
    assert report.ok, report.render()


def test_more_slices_than_the_fitting_pools_hold_are_rejected_naming_them(env: EnvironmentPlan) -> None:
    doc = multi_host_jobset()
    doc["spec"]["replicatedJobs"][0]["replicas"] = 3
    [text] = texts(run(env, [doc]), "slices")
    assert text == (
        "spec.replicatedJobs[0].replicas: is 3: the pools it fits (v5e-mh-s0, v5e-mh-s1) hold 2 2x4 slice(s), "
        "one per replica | at most 2"
    )


def test_slices_pinned_to_one_pool_count_that_pool_only(env: EnvironmentPlan) -> None:
    doc = multi_host_jobset()
    doc["spec"]["replicatedJobs"][0]["replicas"] = 2
    job_spec(doc)["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-nodepool"] = "v5e-mh-s0"
    [text] = texts(run(env, [doc]), "slices")
    assert "is 2: pool v5e-mh-s0 holds 1 2x4 slice(s)" in text


def test_staging_counts_the_four_slices_of_two_configured_pools() -> None:
    """C8: staging's v5e-slice (1 slice) and v5e-shared (3 slices) are all 2x4 on ct5lp-hightpu-4t."""
    from pathlib import Path

    from gke_accel.model.environment.config_files import load_environments

    [staging] = load_environments(Path(__file__).resolve().parents[2] / "config", ["staging"])
    doc = multi_host_jobset()
    pod = job_spec(doc)["template"]["spec"]
    pod["nodeSelector"] = {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
        "cloud.google.com/gke-tpu-topology": "2x4",
    }
    doc["spec"]["replicatedJobs"][0]["replicas"] = 4
    assert not texts(run(staging, [doc]), "slices")
    doc["spec"]["replicatedJobs"][0]["replicas"] = 5
    [text] = texts(run(staging, [doc]), "slices")
    assert "(v5e-slice, v5e-shared-s0, v5e-shared-s1, v5e-shared-s2) hold 4 2x4 slice(s)" in text


# ---- pods per child Job, chips per pod (jobs.py and tpu.py) ----------------------------------------


@pytest.mark.parametrize("pods", [1, 3])
def test_pods_per_child_job_other_than_vms_per_slice_are_rejected(env: EnvironmentPlan, pods: int) -> None:
    doc = multi_host_jobset()
    job_spec(doc).update(parallelism=pods, completions=pods)
    found = texts(run(env, [doc]), "multi-host")
    assert (
        f"spec.replicatedJobs[0].template.spec.parallelism: is {pods}: a 2x4 slice has 2 VMs, one pod each"
        in (found[0].split(" | ")[0])
    )


def test_chips_per_pod_other_than_chips_per_vm_are_rejected(env: EnvironmentPlan) -> None:
    doc = multi_host_jobset()
    job_spec(doc)["template"]["spec"]["containers"][0]["resources"] = {"limits": {"google.com/tpu": "8"}}
    report = run(env, [doc])
    assert not report.ok
    assert any("at most 4" in t for t in texts(report, "tpu-chips")), report.render()


# ---- headless Service / subdomain ------------------------------------------------------------------


def test_jobset_with_dns_hostnames_disabled_is_rejected_saying_what_jobset_provides(env: EnvironmentPlan) -> None:
    doc = multi_host_jobset()
    doc["spec"]["network"] = {"enableDNSHostnames": False}
    [text] = texts(run(env, [doc]), "multi-host")
    assert text.startswith("spec.network.enableDNSHostnames: is false: the JobSet then creates no headless Service")
    assert "by default it creates one named after the JobSet" in text


def test_jobset_with_dns_hostnames_disabled_and_its_own_headless_service_is_accepted(env: EnvironmentPlan) -> None:
    doc = multi_host_jobset()
    doc["spec"]["network"] = {"enableDNSHostnames": False}
    job_spec(doc)["template"]["spec"]["subdomain"] = "mh"
    job_spec(doc)["template"]["metadata"] = {"labels": {"app": "train"}}
    assert not texts(run(env, [doc, service({"app": "train"})]), "multi-host")


def test_bare_job_service_may_select_the_job_controllers_job_name_label(env: EnvironmentPlan) -> None:
    """The Job controller labels its pods batch.kubernetes.io/job-name=<job> (real-engines: p01)."""
    job = bare(multi_host_jobset())
    job["spec"]["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-nodepool"] = "v5e-mh-s0"
    assert not texts(run(env, [job, service({"batch.kubernetes.io/job-name": "mh"})]), "multi-host")
    rejected = texts(run(env, [job, service({"batch.kubernetes.io/job-name": "other"})]), "multi-host")
    assert rejected and "needs a headless Service" in rejected[0]


# ---- multi-node GPU ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gpu_env() -> EnvironmentPlan:
    data = base_config()
    data["tpu_pools"] = []
    data["gpu_pools"] = [
        {"name": "h100", "gpu": "h100", "gpus_per_node": 8, "zones": ["us-central1-a"], "placement": "compact",
         "max_nodes": 2},
        {"name": "h100-loose", "gpu": "h100", "gpus_per_node": 8, "zones": ["us-central1-a"], "max_nodes": 4},
    ]  # fmt: skip
    data["teams"] = [
        {"name": "nlp", "google_group": "nlp@acme.example.com", "accelerators": {"h100": 48}, "cpu": 1024,
         "memory_gib": 8192}
    ]  # fmt: skip
    return load_environment_text(to_yaml(data), expected_name="test")


def ddp(nodes: int, pool: str | None = "h100") -> Doc:
    """A hand-written 2-node-style PyTorch JobSet: one pod per node, all 8 GPUs each."""
    doc = multi_host_jobset()
    del doc["metadata"]["annotations"]
    job_spec(doc).update(parallelism=nodes, completions=nodes)
    pod = job_spec(doc)["template"]["spec"]
    pod["nodeSelector"] = {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
    if pool:
        pod["nodeSelector"]["cloud.google.com/gke-nodepool"] = pool
    pod["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    pod["containers"][0]["resources"] = {"limits": {"cpu": "100", "memory": "900Gi", "nvidia.com/gpu": "8"}}
    pod["containers"][0]["env"] = [{"name": "MASTER_ADDR", "value": "mh-workers-0-0.mh"}]
    return doc


def test_two_nodes_on_the_compact_pool_are_accepted(gpu_env: EnvironmentPlan) -> None:
    report = run(gpu_env, [ddp(2)])
    assert report.ok and not texts(report, "multi-node", "warning"), report.render()


def test_more_nodes_than_the_pool_holds_are_rejected(gpu_env: EnvironmentPlan) -> None:
    [text] = texts(run(gpu_env, [ddp(3)]), "multi-node")
    assert "runs 3 pods x 8 GPUs = 24 GPUs at once, but pool h100 holds 2 such pods (2 nodes x 8 GPUs)" in text


def test_a_pool_without_compact_placement_is_warned(gpu_env: EnvironmentPlan) -> None:
    report = run(gpu_env, [ddp(2, "h100-loose")])
    assert report.ok
    [text] = texts(report, "multi-node", "warning")
    assert "pool(s) h100-loose have no compact placement policy" in text


def test_nodes_not_pinned_to_one_pool_are_warned(gpu_env: EnvironmentPlan) -> None:
    warnings = texts(run(gpu_env, [ddp(2, None)]), "multi-node", "warning")
    assert any("may be spread over pools (h100, h100-loose)" in t for t in warnings), warnings


def test_a_single_gpu_sweep_job_is_not_a_multi_node_job(gpu_env: EnvironmentPlan) -> None:
    sweep = bare(ddp(2))
    sweep["spec"]["template"]["spec"]["containers"][0]["env"] = []
    sweep["spec"]["template"]["spec"].pop("subdomain")
    assert not texts(run(gpu_env, [sweep]), "multi-node", "warning")
