"""Rules on how a workload runs its pods: a multi-host TPU slice needs one pod per VM started
together, and a preempted or evicted pod must not count as an application failure."""

from __future__ import annotations

from typing import Any

from gke_accel.workloads.lint._model import TPU_TOPOLOGY_LABEL
from gke_accel.workloads.lint.findings import Finding
from gke_accel.workloads.manifests import Obj, PodGroup, Workload
from gke_accel.workloads.nodes import PoolNodes

DISRUPTION = "DisruptionTarget"


def _headless_service(wl: Workload, g: PodGroup, services: list[Obj]) -> bool:
    subdomain = g.spec.get("subdomain")
    labels = dict(g.labels)
    if wl.kind == "Job":  # the Job controller labels its pods with the Job's name
        labels |= {"job-name": wl.name, "batch.kubernetes.io/job-name": wl.name}
    for svc in services:
        meta = svc.get("metadata") or {}
        spec = svc.get("spec") or {}
        selector = spec.get("selector") or {}
        if (
            meta.get("name") == subdomain
            and meta.get("namespace") == wl.namespace
            and spec.get("clusterIP") == "None"
            and all(labels.get(str(k)) == str(v) for k, v in selector.items())
        ):
            return True
    return False


def multi_host_findings(wl: Workload, g: PodGroup, pools: list[PoolNodes], services: list[Obj]) -> list[Finding]:
    """``pools``: where the group fits. Applies when every one of them holds multi-host slices."""
    multi = [p for p in pools if p.slice_vms > 1]
    if not multi:
        return []
    if len(multi) != len(pools):
        return [
            Finding(
                "multi-host",
                "warning",
                f"{g.path}.nodeSelector",
                "the pod fits both single-host and multi-host slice pools ("
                + ", ".join(p.describe() for p in pools)
                + f"): pin one with {TPU_TOPOLOGY_LABEL}",
            )
        ]
    vms = multi[0].slice_vms
    topology = multi[0].plan.tpu_topology
    what = f"a {topology} slice has {vms} VMs"
    if g.job is None:
        return [
            Finding(
                "multi-host",
                "error",
                wl.ref,
                f"{what}: its pods must start together, one per VM, and a {wl.kind} does not do that",
                "use a JobSet (gke-accel workload new --kind jobset) or an Indexed Job",
            )
        ]
    out = []
    job = g.job
    for key in ("parallelism", "completions"):
        if job.get(key) != vms:
            out.append(
                Finding(
                    "multi-host",
                    "error",
                    f"{g.job_path}.{key}",
                    f"is {job.get(key)}: {what}, one pod each",
                    f"{key}: {vms}",
                )
            )
    if job.get("completionMode") != "Indexed":
        out.append(
            Finding(
                "multi-host",
                "error",
                f"{g.job_path}.completionMode",
                f"is {job.get('completionMode') or 'NonIndexed'}: each VM's pod needs its index (TPU worker ID)",
                "completionMode: Indexed",
            )
        )
    if wl.kind == "JobSet":
        network = (wl.obj.get("spec") or {}).get("network") or {}
        if network.get("enableDNSHostnames") is False and not _headless_service(wl, g, services):
            out.append(
                Finding(
                    "multi-host",
                    "error",
                    "spec.network.enableDNSHostnames",
                    "is false: the JobSet then creates no headless Service (by default it creates one named "
                    "after the JobSet and sets it as every pod's subdomain), so the workers of a slice "
                    "cannot find each other by name",
                    "leave it out (default true), or add a headless Service and spec.template.spec.subdomain",
                )
            )
    elif not _headless_service(wl, g, services):
        out.append(
            Finding(
                "multi-host",
                "error",
                f"{g.path}.subdomain",
                "an Indexed Job on a multi-host slice needs a headless Service (clusterIP: None) named by "
                "spec.template.spec.subdomain, selecting its pods, in the same files",
                "add the Service, or use a JobSet (it creates one)",
            )
        )
    return out


def _rules(policy: Any) -> list[Obj]:
    rules = policy.get("rules") if isinstance(policy, dict) else None
    return [r for r in rules or [] if isinstance(r, dict)]


def _on_disruption(rule: Obj) -> bool:
    return any(
        isinstance(c, dict) and c.get("type") == DISRUPTION and c.get("status", "True") == "True"
        for c in rule.get("onPodConditions") or []
    )


def retry_findings(wl: Workload, g: PodGroup, spot: bool) -> list[Finding]:
    restart = g.spec.get("restartPolicy")
    if g.job is None:
        if wl.kind == "Pod" and spot:
            return [
                Finding(
                    "retry",
                    "warning",
                    wl.ref,
                    "a bare Pod on Spot VMs is not recreated when the VM is reclaimed",
                    "run it as a Job",
                )
            ]
        return []
    out = []
    if restart not in ("Never", "OnFailure"):
        out.append(
            Finding(
                "retry",
                "error",
                f"{g.path}.restartPolicy",
                f"is {restart or 'Always (the default)'}: the API server accepts only Never or OnFailure in a Job",
                "restartPolicy: Never",
            )
        )
    pfp = _rules(g.job.get("podFailurePolicy"))
    if pfp and restart != "Never":
        out.append(
            Finding(
                "retry",
                "error",
                f"{g.path}.restartPolicy",
                "a podFailurePolicy needs restartPolicy: Never (the API server rejects the Job)",
                "restartPolicy: Never",
            )
        )
    ignores = any(r.get("action") == "Ignore" and _on_disruption(r) for r in pfp)
    fails_job = any(r.get("action") == "FailJob" and _on_disruption(r) for r in pfp)
    restarts_free = False
    if wl.kind == "JobSet":
        policy = (wl.obj.get("spec") or {}).get("failurePolicy") or {}
        restarts_free = any(
            r.get("action") == "RestartJobSetAndIgnoreMaxRestarts"
            and "PodFailurePolicy" in (r.get("onJobFailureReasons") or [])
            for r in _rules(policy)
        )
    if ignores or (fails_job and restarts_free):
        return out
    limit = g.job.get("backoffLimit", 6)
    out.append(
        Finding(
            "retry",
            "warning",
            f"{g.job_path}.podFailurePolicy",
            f"a pod preempted (priority, Spot reclaim) or evicted counts toward backoffLimit ({limit}) like an "
            "application error" + ("; the first one fails the job" if limit == 0 else ""),
            "podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}]} "
            "(JobSet: FailJob there + failurePolicy rule RestartJobSetAndIgnoreMaxRestarts on PodFailurePolicy)",
        )
    )
    return out
