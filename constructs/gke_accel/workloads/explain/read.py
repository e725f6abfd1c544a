"""Read what ``explain`` needs from the live cluster (through verify's client: every request has a
timeout, errors are one line). Kueue objects at the version the stack writes."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from gke_accel.workloads.explain._model import KUEUE_API
from gke_accel.workloads.explain.interpret import Observed
from gke_accel.workloads.verify.live import Connection, get, items

# kind -> (API path prefix, resource, the label its pods carry with the job's name; None: its selector)
KINDS: dict[str, tuple[str, str, str | None]] = {
    "Job": ("/apis/batch/v1", "jobs", "batch.kubernetes.io/job-name"),
    "JobSet": ("/apis/jobset.x-k8s.io/v1alpha2", "jobsets", "jobset.sigs.k8s.io/jobset-name"),
    "Deployment": ("/apis/apps/v1", "deployments", None),
    "StatefulSet": ("/apis/apps/v1", "statefulsets", None),
}


def _selector(job: dict[str, Any], label: str | None, name: str) -> str:
    if label is not None:
        return f"{label}={name}"
    labels = ((job.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def _items(conn: Connection, path: str) -> list[dict[str, object]]:
    return list(items(conn, path) or [])


def read_job(conn: Connection, namespace: str, name: str) -> Observed:
    """The first kind (Job, JobSet, Deployment, StatefulSet) that has ``name`` in ``namespace``, with
    everything around it."""
    kind, job, label = "Job", None, KINDS["Job"][2]
    for k, (prefix, resource, pod_label) in KINDS.items():
        found = get(conn, f"{prefix}/namespaces/{namespace}/{resource}/{name}")
        if found is not None:
            kind, job, label = k, found, pod_label
            break
    selector = quote(_selector(job or {}, label, name))
    return Observed(
        kind=kind,
        name=name,
        namespace=namespace,
        job=job,
        workloads=_items(conn, f"/apis/{KUEUE_API}/workloads") if job else [],
        cluster_queues=_items(conn, f"/apis/{KUEUE_API}/clusterqueues") if job else [],
        local_queues=_items(conn, f"/apis/{KUEUE_API}/namespaces/{namespace}/localqueues") if job else [],
        pods=_items(conn, f"/api/v1/namespaces/{namespace}/pods?labelSelector={selector}") if job else [],
        nodes=_items(conn, "/api/v1/nodes") if job else [],
    )
