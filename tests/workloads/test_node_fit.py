"""Pods that fit real nodes: ``workload new`` leaves GKE's DaemonSets and the kernel their share of a node,
lint warns when a pod does not, and the twin's nodes report what a real kubelet does.

Expected values by hand from published numbers (no gke-accel code):
- ct5lp-hightpu-4t: 112 vCPU, 192 GiB, 4 v5e chips (GKE "TPUs in GKE" v5e machine table);
- GKE "Plan GKE Standard node sizes": cpu reserved 6% of core 1, 1% of core 2, 0.5% of cores 3-4, 0.25%
  above; memory reserved 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112,
  2% above 128; eviction threshold 100 MiB;
- the catalog's stated margins (accelerators.yaml ``node_fit``, not GKE facts): DaemonSets 1000m / 2048 MiB,
  the kernel 2% of the machine's memory; the GCS FUSE sidecar 250m / 256 MiB (GKE's sidecar defaults).

Allocatable from the machine size: cpu 112000 - 350 = 111650m; memory 196608 - 10854.4 - 100 = 185653 MiB.
A whole-VM pod: cpu 111650 - 1000 - 250 = 110400m; memory 185653 - 2048 - ceil(196608 x 2%) = 3933 - 256 =
179416 MiB (it was 183349 MiB, 98.8% of allocatable, before the kernel margin).
The node a real kubelet reports with the kernel's 2%: capacity 196608 - 3933 = 192675 MiB (188.159 GiB);
reserved 1 + 0.8 + 0.8 + 6.72 + 60.159 x 2% = 10.523 GiB = 10775.75 MiB; allocatable 192675 - 10775.75 - 100
= 181799 MiB."""

from __future__ import annotations

from typing import Any

import yaml

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.twin.nodes import pool_node
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts
from helpers import base_config, to_yaml


def _env() -> EnvironmentPlan:
    data = base_config()
    data["tpu_pools"] = [{"name": "v5e", "generation": "v5e", "topology": "2x2", "machine_type": "ct5lp-hightpu-4t",
                          "zone": "us-central1-a", "max_slices": 1}]  # fmt: skip
    data["gpu_pools"] = []
    data["teams"] = [{"name": "nlp", "google_group": "n@acme.example.com", "accelerators": {"v5e": 4},
                      "cpu": 1000, "memory_gib": 4000}]  # fmt: skip
    return load_environment_text(to_yaml(data))


def _job(env: EnvironmentPlan) -> dict[str, Any]:
    [job] = new_workload(env, WorkloadRequest(name="t", team="nlp", kind="job", accelerator="v5e", image="r/i:1"))
    return dict(job)


def _main(job: dict[str, Any]) -> dict[str, Any]:
    return dict(next(c for c in job["spec"]["template"]["spec"]["containers"] if c["name"] == "main"))


def test_workload_new_leaves_the_daemonsets_and_the_kernel_their_share() -> None:
    requests = _main(_job(_env()))["resources"]["requests"]
    assert (requests["cpu"], requests["memory"]) == ("110400m", "179416Mi")


def test_the_twins_node_reports_what_a_kubelet_does_below_the_machine_size() -> None:
    node = pool_node(_env().pools[0])
    assert node["status"]["capacity"]["cpu"] == "112"
    assert node["status"]["capacity"]["memory"] == "192675Mi"
    assert node["status"]["allocatable"]["memory"] == "181799Mi"
    assert node["status"]["allocatable"]["cpu"] == "111650m"


def _fit_warnings(env: EnvironmentPlan, job: dict[str, Any]) -> list[dict[str, Any]]:
    [wl] = lint_texts(env, [("job.yaml", yaml.safe_dump(job))]).to_dict()["workloads"]
    return [f for f in wl["findings"] if f["rule"] == "node-fit"]


def test_lint_accepts_what_workload_new_writes_and_warns_on_a_pod_sized_to_the_machine() -> None:
    env = _env()
    job = _job(env)
    assert _fit_warnings(env, job) == []
    resources = _main(job)["resources"]
    for part in ("requests", "limits"):
        resources[part]["memory"] = "183349Mi"  # the old size: fits allocatable, not a real node
    [warning] = _fit_warnings(env, job)
    assert warning["severity"] == "warning" and "kernel" in warning["message"] and "2%" in warning["message"]
