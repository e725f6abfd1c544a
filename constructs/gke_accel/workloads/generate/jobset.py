"""The JobSet of a multi-host workload: one child Job per TPU slice (``replicas`` = slices,
``parallelism = completions`` = VMs per slice), each child Job on a GKE node pool of its own, or a
multi-node GPU job on one compact-placement pool; with the environment the frameworks read.

Sources of the names and values:
- ``alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool``: JobSet's documented
  placement for TPU slices ("TPU Multislice Training with JobSet", jobset.sigs.k8s.io/docs/tasks/
  tpu_multislice; ``ExclusiveKey`` in sigs.k8s.io/jobset v0.11.1 api/jobset/v1alpha2/jobset_types.go):
  the leader pod (completion index 0) of each child Job gets a pod affinity to its own Job and an
  anti-affinity to other Jobs on the same node pool; the followers are admitted only once the leader
  is bound, with a nodeSelector for the leader's pool.
- ``MEGASCALE_NUM_SLICES`` / ``MEGASCALE_SLICE_ID`` / ``MEGASCALE_COORDINATOR_ADDRESS``: as xpk's
  JobSet template sets them (AI-Hypercomputer/xpk src/xpk/templates/pathways_workload_create.yaml.j2):
  from the pod labels ``jobset.sigs.k8s.io/replicatedjob-replicas``, ``jobset.sigs.k8s.io/job-index``
  and ``jobset.sigs.k8s.io/coordinator`` (the last one exists when ``spec.coordinator`` is set; its
  value is ``<jobset>-<job>-<jobIndex>-<podIndex>.<subdomain>``, ``CoordinatorEndpoint`` in JobSet's
  jobset_controller.go). Ray's TPU support and others set the same three names.
- ``MASTER_ADDR``/``MASTER_PORT``/``WORLD_SIZE``/``NODE_RANK`` (torch.distributed's env:// names) and
  ``PET_NNODES``/``PET_NODE_RANK``/``PET_NPROC_PER_NODE``/``PET_MASTER_ADDR``/``PET_MASTER_PORT``:
  torchrun reads every flag from ``PET_<FLAG>`` (torch/distributed/argparse_util.py ``env``).
  29500 is torchrun's default ``--master-port``.
- The pod DNS names: JobSet gives each pod hostname ``<jobset>-<job>-<jobIndex>-<podIndex>`` and the
  subdomain ``<jobset>``, a headless Service it creates (``network.enableDNSHostnames`` defaults true).
"""

from __future__ import annotations

import copy
from typing import Any

from gke_accel.workloads.generate._model import NODEPOOL_LABEL

Obj = dict[str, Any]
JOBSET_API = "jobset.x-k8s.io/v1alpha2"
EXCLUSIVE_KEY = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODEPOOL_TOPOLOGY = NODEPOOL_LABEL  # one node pool per child Job
JOB = "workers"  # the one replicated job
COMPLETION_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
REPLICAS_LABEL = "jobset.sigs.k8s.io/replicatedjob-replicas"
JOB_INDEX_LABEL = "jobset.sigs.k8s.io/job-index"
COORDINATOR_LABEL = "jobset.sigs.k8s.io/coordinator"
TORCH_MASTER_PORT = 29500
APP_RETRIES = 3  # application errors before the JobSet gives up; disruptions are free


def pod_dns(name: str, job_index: int | str, pod_index: int, job: str = JOB) -> str:
    """The stable DNS name of one pod of the JobSet (relative to its namespace)."""
    return f"{name}-{job}-{job_index}-{pod_index}.{name}"


def slice_job(index: int) -> str:
    """The replicated job of slice ``index`` when each slice is a replicated job of its own."""
    return f"{JOB}-{index}"


def per_slice_templates(template: Obj, name: str, vms: int, slices: int) -> list[Obj]:
    """One pod template per slice, each slice a replicated job of its own (``slice_job``): Kueue makes one
    pod set of each and picks its flavor alone, so the slices of one JobSet can take different rungs of a
    capacity ladder (one pod set takes one flavor: a single replicated job of N slices needs N slices in
    one rung). The slice's identity is written out: MEGASCALE_NUM_SLICES, MEGASCALE_SLICE_ID and the
    slice's worker hostnames (the JobSet's labels would say 1 replica, job index 0 for every slice)."""
    out = []
    for k in range(slices):
        t = copy.deepcopy(template)
        main = t["spec"]["containers"][0]
        fixed = {
            "MEGASCALE_NUM_SLICES": str(slices),
            "MEGASCALE_SLICE_ID": str(k),
            "TPU_WORKER_HOSTNAMES": ",".join(pod_dns(name, 0, i, slice_job(k)) for i in range(vms)),
        }
        main["env"] = [{"name": e["name"], "value": fixed[e["name"]]} if e["name"] in fixed else e for e in main["env"]]
        out.append(t)
    return out


def _field(name: str, path: str) -> Obj:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


def tpu_env(name: str, vms: int, slices: int) -> list[Obj]:
    """TPU worker identity in its slice and, for several slices, the MEGASCALE (DCN) variables."""
    if slices > 1:
        env = [
            _field("MEGASCALE_NUM_SLICES", f"metadata.labels['{REPLICAS_LABEL}']"),
            _field("MEGASCALE_SLICE_ID", f"metadata.labels['{JOB_INDEX_LABEL}']"),
            _field("MEGASCALE_COORDINATOR_ADDRESS", f"metadata.labels['{COORDINATOR_LABEL}']"),
        ]
        # the workers of this pod's own slice: $(VAR) expands a variable defined earlier in the list
        hosts = ",".join(pod_dns(name, "$(MEGASCALE_SLICE_ID)", i) for i in range(vms))
    else:
        env, hosts = [], ",".join(pod_dns(name, 0, i) for i in range(vms))
    return [
        *env,
        _field("TPU_WORKER_ID", COMPLETION_INDEX),
        {"name": "TPU_WORKER_HOSTNAMES", "value": hosts},
    ]


def torch_env(name: str, nodes: int, gpus: int) -> list[Obj]:
    """What torchrun (PET_*) and torch.distributed (MASTER_*, WORLD_SIZE) read; rank 0 is pod 0."""
    master = pod_dns(name, 0, 0)
    port = str(TORCH_MASTER_PORT)
    return [
        _field("NODE_RANK", COMPLETION_INDEX),
        {"name": "MASTER_ADDR", "value": master},
        {"name": "MASTER_PORT", "value": port},
        {"name": "WORLD_SIZE", "value": str(nodes * gpus)},  # processes: one per GPU
        {"name": "PET_NNODES", "value": str(nodes)},
        {"name": "PET_NODE_RANK", "value": "$(NODE_RANK)"},
        {"name": "PET_NPROC_PER_NODE", "value": str(gpus)},
        {"name": "PET_MASTER_ADDR", "value": master},
        {"name": "PET_MASTER_PORT", "value": port},
    ]


def jobset(
    *, name: str, metadata: Obj, template: Obj, pods: int, slices: int, exclusive: bool, spread: bool = False
) -> Obj:
    """A JobSet of ``slices`` child Jobs of ``pods`` pods each, restarted whole on a disruption; ``spread``:
    each slice a replicated job of its own (``per_slice_templates``), else one replicated job of them all."""
    disruption = {"onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
    job = {
        "parallelism": pods,
        "completions": pods,
        "completionMode": "Indexed",
        "backoffLimit": 0,
        # a lost VM fails the job with reason PodFailurePolicy; the JobSet then restarts every
        # slice from the last checkpoint without counting it against maxRestarts
        "podFailurePolicy": {"rules": [{"action": "FailJob", **disruption}]},
        "template": template,
    }
    meta = dict(metadata)
    if exclusive:
        meta["annotations"] = {**metadata.get("annotations", {}), EXCLUSIVE_KEY: NODEPOOL_TOPOLOGY}
    spec: Obj = {
        "failurePolicy": {
            "maxRestarts": APP_RETRIES,
            "rules": [
                {
                    "name": "disruptionsAreFree",
                    "action": "RestartJobSetAndIgnoreMaxRestarts",
                    "onJobFailureReasons": ["PodFailurePolicy"],
                }
            ],
        },
    }
    if spread and slices > 1:
        spec["coordinator"] = {"replicatedJob": slice_job(0), "jobIndex": 0, "podIndex": 0}
        spec["replicatedJobs"] = [
            {"name": slice_job(k), "replicas": 1, "template": {"spec": {**job, "template": t}}}
            for k, t in enumerate(per_slice_templates(template, name, pods, slices))
        ]
        return {"apiVersion": JOBSET_API, "kind": "JobSet", "metadata": meta, "spec": spec}
    if slices > 1:
        spec["coordinator"] = {"replicatedJob": JOB, "jobIndex": 0, "podIndex": 0}
    spec["replicatedJobs"] = [{"name": JOB, "replicas": slices, "template": {"spec": job}}]
    return {"apiVersion": JOBSET_API, "kind": "JobSet", "metadata": meta, "spec": spec}
