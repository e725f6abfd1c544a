"""A team's cpu and memory quota, derived when config leaves it out: 64 cores / 256 GiB for CPU-only pods
plus the VMs its most chips fill, each at what GKE leaves for Pods less 1 cpu / 2 GiB for GKE's
DaemonSets (docs/workloads.md). Expected values are computed by hand here from published numbers:

- machine sizes: ct5lp-hightpu-4t 112 vCPU / 192 GB, 4 v5e chips (GKE "TPUs in GKE", v5e machine table);
  g2-standard-12 12 vCPU / 48 GB, 1 L4 (Compute Engine "GPU machine types", G2);
- GKE "Plan GKE Standard node sizes": cpu reserved 6% of core 1, 1% of core 2, 0.5% of cores 3-4,
  0.25% above; memory reserved 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the
  next 112, 2% above 128; eviction threshold 100 MiB.

ct5lp-hightpu-4t: cpu 112 - (0.06 + 0.01 + 0.01 + 108 x 0.0025 = 0.35) - 1 = 110.65 cores;
  memory 192 GiB - (1 + 0.8 + 0.8 + 6.72 + 64 x 0.02 = 10.6 GiB) = 185,753.6 MiB - 100 = 185,653 MiB (whole
  MiB), - 2,048 = 183,605 MiB.
g2-standard-12: cpu 12 - (0.06 + 0.01 + 0.01 + 8 x 0.0025 = 0.1) - 1 = 10.9 cores;
  memory 48 GiB - (1 + 0.8 + 0.8 + 32 x 0.06 = 4.52 GiB) = 44,523.5 MiB - 100 = 44,423 MiB, - 2,048 = 42,375 MiB.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from gke_accel.model import load_environment, load_environment_text
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from helpers import base_config, to_yaml

CONFIG = Path(__file__).resolve().parents[2] / "config"
V5E_CPU, V5E_MIB = 110.65, 183_605  # one ct5lp-hightpu-4t VM, as above
L4_CPU, L4_MIB = 10.9, 42_375  # one g2-standard-12 VM


# staging's CPU pool: 6 e2-standard-8 (8 vCPU / 32 GiB, Compute Engine general-purpose family); per node
# 8 - (0.06 + 0.01 + 0.01 + 4 x 0.0025 = 0.09) - 1 = 6.91 cores and 32 GiB - (1 + 0.8 + 0.8 + 16 x 0.06 =
# 3.56 GiB) = 29,122.56 MiB - 100 = 29,022 MiB, - 2,048 = 26,974 MiB; 6 nodes: 41.46 cores, 161,844 MiB
# = 158 GiB; a third each for three teams, whole cores and GiB: 13 cores, 52 GiB.
STAGING_BASE = (13, 52)


def hand(vms_v5e: int, vms_l4: int, base: tuple[int, int] = (64, 256)) -> tuple[int, int]:
    cpu = base[0] + vms_v5e * V5E_CPU + vms_l4 * L4_CPU
    mib = base[1] * 1024 + vms_v5e * V5E_MIB + vms_l4 * L4_MIB
    return math.ceil(round(cpu, 6)), math.ceil(mib / 1024)


def quota_only(team: dict[str, Any]) -> dict[str, Any]:
    data = base_config()
    data["tpu_pools"] = [{"name": "v5e", "generation": "v5e", "topology": "2x4", "machine_type": "ct5lp-hightpu-4t",
                          "zone": "us-central1-a", "max_slices": 2}]  # fmt: skip
    data["teams"] = [{"name": "nlp", "google_group": "n@acme.example.com", **team}]
    return data


def test_staging_quotas_make_room_for_every_chip_a_team_may_hold_through_kueue() -> None:
    """staging: 32 v5e chips, 5 L4s (its L4 ladder: l4-reserved 2, l4-serve 1, l4-spot 2). nlp: nominal 16
    v5e + 1 L4, may borrow the other 16 chips and 4 L4s: 32 chips = 8 VMs, 5 L4 VMs. research: 8 + at most
    16 borrowed = 24 chips = 6 VMs; 0 + 5 L4s. serving: 8 + 24 = 32 chips, 4 + 1 = 5 L4s."""
    plan = load_environment(CONFIG / "staging.yaml")
    cqs = {t.team: t for t in plan.queues.teams} if plan.queues else {}
    quotas = {t.name: t.quota for t in plan.teams}
    for team, vms in (("nlp", (8, 5)), ("research", (6, 5)), ("serving", (8, 5))):
        cpu, gib = hand(*vms, base=STAGING_BASE)
        assert (cqs[team].cpu, cqs[team].memory_gib) == (cpu, gib), team
        # the ResourceQuota adds one GCS FUSE sidecar (250m, 256Mi) per accelerator pod Kueue can admit
        pods = sum(cqs[team].ceilings.values())
        assert quotas[team]["requests.cpu"] == f"{cpu * 1000 + pods * 250}m".replace("000m", ""), team


def test_without_queues_the_nominal_chips_decide_and_a_team_without_accelerators_keeps_the_base() -> None:
    plan = load_environment_text(to_yaml(quota_only({"accelerators": {"v5e": 8}})))
    assert plan.teams[0].quota["requests.cpu"] == str(hand(2, 0)[0]) == "286"
    assert plan.teams[0].quota["requests.memory"] == f"{hand(2, 0)[1]}Gi" == "615Gi"
    bare = load_environment_text(to_yaml(quota_only({})))
    assert (bare.teams[0].quota["requests.cpu"], bare.teams[0].quota["requests.memory"]) == ("64", "256Gi")


@pytest.mark.parametrize(("cpu", "warned"), [(222, False), (1000, False), (221, True), (64, True)])
def test_a_cpu_quota_set_below_its_chips_vms_is_kept_and_warned_about(cpu: int, warned: bool) -> None:
    """8 chips = 2 VMs = 221.3 cores: 222 leaves room for both (not for CPU-only pods: that is the team's call)."""
    plan = load_environment_text(to_yaml(quota_only({"accelerators": {"v5e": 8}, "cpu": cpu})))
    assert plan.teams[0].quota["requests.cpu"] == str(cpu)
    found = [w for w in plan.warnings if w.startswith("teams[0].cpu:")]
    assert bool(found) is warned, plan.warnings
    if warned:
        assert f"{cpu} cores is below the 222 cores" in found[0] and "leave it unset" in found[0]


def test_workload_new_gives_each_pod_of_a_staging_slice_its_whole_vm_and_two_slices_fit_nlp() -> None:
    """Before the quota was derived, nlp's 64 cores capped a slice's two pods at 31,750m each, so nlp ran
    one 8-chip slice, never its 16-chip share. A pod that owns a VM: 110.65 cores, less the FUSE sidecar;
    memory also less the kernel's 2% of the machine's 192 GiB (ceil(3,932.16) = 3,933 MiB, catalog node_fit)."""
    plan = load_environment(CONFIG / "staging.yaml")
    (jobset,) = new_workload(plan, WorkloadRequest(name="t", team="nlp", kind="jobset", accelerator="v5e",
                                                   image="us-docker.pkg.dev/p/r/i:1", chips=8))  # fmt: skip
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    requests = pod["containers"][0]["resources"]["requests"]
    assert requests["cpu"] == "110400m" and requests["memory"] == f"{V5E_MIB - 3933 - 256}Mi"
    nlp = next(t for t in plan.queues.teams if t.team == "nlp") if plan.queues else None
    assert nlp is not None and nlp.cpu >= 2 * 2 * 110.4  # two slices of two pods
