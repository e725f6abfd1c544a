"""``slice-topology``: a queued multi-host TPU JobSet, in an environment whose slice flavor is placed by Kueue's
Topology (model/queues/topology.py), must ask for its slices at the node-pool level on each replicated
job's pod template: ``kueue.x-k8s.io/podset-slice-required-topology: cloud.google.com/gke-nodepool`` and
``kueue.x-k8s.io/podset-slice-size: <VMs per slice>``.

Without a topology request Kueue v0.19.2 never admits it: a TAS flavor refuses a PodSet that requests no
topology ("Flavor ... supports only TopologyAwareScheduling", flavorassigner/tas_flavorassigner.go), and the
only other flavor of the group (cpu-memory) has no chips. A slice size other than the VMs of one slice
would let one slice span two node pools (too small) or ask for a pool larger than any (too large); a
required topology at the node-pool level for several slices asks for all of them in one pool.
"""

from __future__ import annotations

from gke_accel.workloads.lint._model import EnvironmentPlan, slice_request, slice_topology_of
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.lint.queues import QUEUE_LABEL
from gke_accel.workloads.manifests import PodGroup, Workload
from gke_accel.workloads.nodes import PoolNodes

# Kueue's PodSet annotations (sigs.k8s.io/kueue@v0.19.2 apis/kueue/v1beta2/topology_types.go); the two
# that place slices, and the slice level, are the ones ``workload new`` writes (model/queues/topology.py)
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
SLICE_REQUIRED, SLICE_SIZE = list(slice_request(2))
SLICE_LEVEL = slice_request(2)[SLICE_REQUIRED]


def _problem(annotations: dict[str, str], vms: int, replicas: int) -> str | None:
    if annotations.get(REQUIRED) == SLICE_LEVEL and replicas == 1 and SLICE_REQUIRED not in annotations:
        return None  # one slice, the whole PodSet in one node pool: the same placement
    level, size = annotations.get(SLICE_REQUIRED), annotations.get(SLICE_SIZE)
    if level is None and REQUIRED not in annotations:
        return "asks Kueue for no topology: the TAS flavor refuses it and the JobSet is never admitted"
    if REQUIRED in annotations and SLICE_REQUIRED not in annotations:
        return (
            f"{REQUIRED}: {annotations[REQUIRED]} asks for all {replicas} slices in one domain of that level; "
            "each slice needs a node pool of its own"
        )
    if level != SLICE_LEVEL:
        return f"{SLICE_REQUIRED} is {level!r}: one slice is one node pool ({SLICE_LEVEL})"
    if size != str(vms):
        return f"{SLICE_SIZE} is {size!r}: one slice is {vms} pods (a pod per VM)"
    return None


def slice_topology_findings(plan: EnvironmentPlan, wl: Workload, g: PodGroup, pools: list[PoolNodes]) -> list[Finding]:
    """``pools``: the pools the group fits on."""
    if wl.kind != "JobSet" or QUEUE_LABEL not in wl.labels or not pools:
        return []
    tas = [p for p in pools if p.slice_vms > 1 and slice_topology_of(plan, p.plan.name)]
    if len(tas) != len(pools):
        return []
    vms = tas[0].slice_vms
    problem = _problem(g.annotations, vms, g.replicas)
    if problem is None:
        return []
    want = ", ".join(f"{k}: {v!r}" for k, v in slice_request(vms).items())
    return [
        Finding(
            "slice-topology",
            "error",
            f"{g.path.rsplit('.spec', 1)[0]}.metadata.annotations",
            f"{problem} (pools {', '.join(p.name for p in tas)} are placed by Kueue's Topology "
            f"{slice_topology_of(plan, tas[0].plan.name)})",
            want,
        )
    ]
