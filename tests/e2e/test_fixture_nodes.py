"""lint against kube-scheduler on GKE's nodes as GKE's documentation describes them.

The fake nodes here are the hand-written fixtures of tests/fixtures/gke-nodes (labels, taints,
allocatable cited from GKE pages), not nodes derived from our own ``node_shape``: so a wrong GKE fact
in ``node_shape`` (a missing taint, a wrong allocatable) shows up as lint disagreeing with the
scheduler. The environment holds the fixtures' pools; each case is one pod shaped from ``node_shape``
the way ``workload new`` and the Kueue flavors shape pods, at and just past each limit lint knows,
submitted three ways: a bare Pod, a Job (the job controller makes the pod) and a JobSet of one
replicated Job (the real JobSet controller v0.12.0, tests/e2e/jobset_controller.py, makes the Job);
kube-scheduler places the pod. A table of the verdicts goes to the log (pytest -s, or the junit output).

Every case asserts lint == the scheduler. Past that, each case's verdict is the one GKE gives: "fits"
schedules, the over-limit cases do not, and "no-tolerations" (the pod without tolerations) schedules
where the node's only blocking taint is its accelerator's (GKE's ExtendedResourceToleration admission adds
that toleration: see ``_untolerated_without_tolerations``) and is refused where the node carries another
(spot, queued provisioning).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from own_cluster import own_cluster

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.model.pools.node_shape import node_shape
from gke_accel.model.queues.flavors import Flavor, flavor_name
from gke_accel.model.queues.install import JOBSET
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.jobset import JobSetController
from gke_accel.twin.kueue import install_crds, release_crds
from gke_accel.workloads.lint import lint_texts

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from gke_nodes import GkeNodeFixture, load_fixtures  # noqa: E402
from helpers import base_config, to_yaml  # noqa: E402

FIXTURES = load_fixtures()
TEAM = "fx"
RESULTS: list[dict[str, Any]] = []
CASES = ("fits", "cpu-over", "memory-over", "accelerator-over", "no-tolerations")
KINDS = ("Pod", "Job", "JobSet")
JOBSET_API = "jobset.x-k8s.io/v1alpha2"
# Rules the scheduler (or admission) decides; runtime rules (multi-host layout, retries) are not compared.
SCHEDULER_RULES = {"resource-name", "extended-limits", "no-pool", "tolerations", "gpu-count", "tpu-chips", "node-size",
                   "quota", "priority"}  # fmt: skip
RESTRICTED = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "runAsUser": 10001,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def fixture_env() -> EnvironmentPlan:
    data = base_config()
    data["cluster"]["node_zones"] = ["us-central1-a", "us-central1-b", "us-central1-c"]
    data["tpu_pools"] = [f.pool for f in FIXTURES if f.kind == "tpu"]
    data["gpu_pools"] = [f.pool for f in FIXTURES if f.kind == "gpu"]
    data["teams"] = [
        {
            "name": TEAM,
            "google_group": "fx@acme.example.com",
            # the whole of each accelerator (queues: quotas may not exceed what the pools hold)
            # one quota per unit (docs/queues.md "Split GPUs"): whole GPUs, MIG instances, shared slots
            "accelerators": {
                "v5e": 20,
                "v6e": 5,
                "v5p": 4,
                "l4": 5,
                "l4-mps3": 3,
                "h100": 48,
                "h100-mig-3g-40gb": 16,
                "a100-80gb": 1,
                "a100-80gb-mig-1g-10gb": 7,
                "t4-ts4": 4,
            },
            "cpu": 100_000,
            "memory_gib": 100_000,
            "pods": 1000,
        }
    ]
    data["queues"] = {}  # the queued-provisioning pool needs Kueue in config (Kueue itself is not run here)
    return load_environment_text(to_yaml(data), expected_name="test")


def _workload(fixture: GkeNodeFixture, case: str, kind: str) -> dict[str, Any]:
    """The case's pod as a bare Pod, in a Job, or in a JobSet of one replicated Job (one pod)."""
    job = _job(fixture, case)
    name, labels = job["metadata"]["name"], job["metadata"]["labels"]
    if kind == "Job":
        return job
    if kind == "Pod":
        template = job["spec"]["template"]
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"p-{name}"[:63].rstrip("-"), "namespace": TEAM,
                             "labels": {**labels, **template["metadata"]["labels"]}},
                "spec": template["spec"]}  # fmt: skip
    # JobSet names its Job <jobset>-<replicatedJob>-<index>: keep that a valid 63-character name
    short = f"js-{name}"[:40].rstrip("-")
    return {"apiVersion": JOBSET_API, "kind": "JobSet",
            "metadata": {"name": short, "namespace": TEAM, "labels": labels},
            "spec": {"failurePolicy": {"maxRestarts": 0},
                     "replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": job["spec"]}}]}}  # fmt: skip


def _job(fixture: GkeNodeFixture, case: str) -> dict[str, Any]:
    shape = node_shape(fixture.plan())
    assert shape.machine is not None and shape.resource is not None
    cpu, memory, units = shape.machine.cpu_millis, shape.machine.memory_mib, shape.allocatable
    if case == "cpu-over":
        cpu += 1000
    elif case == "memory-over":
        memory += 1024
    elif case == "accelerator-over":
        units += 1
    resources = {"cpu": f"{cpu}m", "memory": f"{memory}Mi", shape.resource: str(units)}
    pod: dict[str, Any] = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "nodeSelector": shape.selector(),
        "containers": [
            {
                "name": "main",
                "image": "registry.example/train:1",
                "resources": {"requests": resources, "limits": resources},
                "securityContext": RESTRICTED,
            }
        ],
    }
    if case != "no-tolerations":
        pod["tolerations"] = shape.tolerations()
    name = f"{fixture.name}-{case}"[:63].rstrip("-")
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": TEAM, "labels": {"kueue.x-k8s.io/queue-name": "team"}},
        "spec": {"backoffLimit": 0, "template": {"metadata": {"labels": {"app": name}}, "spec": pod}},
    }


def _untolerated_without_tolerations(fixture: GkeNodeFixture) -> list[str]:
    """The fixture node's blocking taints a pod with no tolerations of its own still does not tolerate.

    GKE runs the ExtendedResourceToleration admission plugin ("Run GPUs in Standard node pools",
    cloud.google.com/kubernetes-engine/docs/how-to/gpus: GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule
    and "automatically applies corresponding tolerations to Pods requesting GPUs by running the
    ExtendedResourceToleration admission controller"; the plugin adds {key: <resource>, operator: Exists,
    effect: NoSchedule} for every extended resource a container names, so google.com/tpu too), and so does
    the e2e API server (localcluster.ADMISSION_PLUGINS). So a pod asking for the accelerator schedules
    without tolerations on a node whose only taint is the accelerator's, and is refused where the node
    carries a taint GKE does not tolerate for it (spot, queued provisioning; flex-start and reservation
    nodes carry only the accelerator taint in their fixtures). Read from the hand-written fixture node, not
    from ``node_shape`` or lint, so a wrong taint model in either shows up here."""
    resource = node_shape(fixture.plan()).resource
    out = []
    for t in fixture.node["spec"].get("taints") or []:
        if t.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if t["key"] == resource and t["effect"] == "NoSchedule":  # added by ExtendedResourceToleration
            continue
        out.append(f"{t['key']}={t.get('value', '')}:{t['effect']}")
    return out


@pytest.fixture(scope="module")
def fixture_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with contextlib.ExitStack() as stack:
        c = stack.enter_context(own_cluster(tmp_path_factory.mktemp("k8s-fixtures")))
        stack.callback(_print_results)
        nodes = []
        for f in FIXTURES:
            node = yaml.safe_load(yaml.safe_dump(f.node))
            node["metadata"]["labels"]["kubernetes.io/hostname"] = node["metadata"]["name"]
            nodes.append(node)
        c.create_nodes(nodes)
        names = [n["metadata"]["name"] for n in nodes]

        def ready() -> bool:
            for name in names:
                conditions = c.get("node", name).get("status", {}).get("conditions", [])
                if not any(x["type"] == "Ready" and x["status"] == "True" for x in conditions):
                    return False
            return True

        c.wait_for(ready, timeout=90, what="kwok to mark the fixture nodes Ready")
        c.kubectl("taint", "nodes", "--all", "node.kubernetes.io/not-ready:NoSchedule-", check=False)
        c.kubectl("create", "namespace", TEAM)
        install_crds(c, release_crds(JOBSET))
        jobset = JobSetController.start(c, tmp_path_factory.mktemp("jobset-fixtures"))
        stack.callback(jobset.stop)
        yield c


def _print_results() -> None:
    if RESULTS:
        agree = sum(r["lint_ok"] == r["server_ok"] for r in RESULTS)
        print(
            f"\nlint vs kube-scheduler on GKE fixture nodes: {len(RESULTS)} cases, {agree} agree, "
            f"{len(RESULTS) - agree} disagree"
        )
        for r in RESULTS:
            mark = "agree   " if r["lint_ok"] == r["server_ok"] else "DISAGREE"
            print(
                f"  {mark} {r['case']:48} lint={'ok' if r['lint_ok'] else 'no':3} "
                f"scheduler={'ok' if r['server_ok'] else 'no':3} {r['detail'][:90]}"
            )


def _scheduled(c: LocalCluster, workload: dict[str, Any]) -> tuple[bool, str]:
    kind = workload["kind"]
    if kind == "JobSet":
        template = workload["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    else:
        template = workload["spec"]["template"] if kind == "Job" else workload
    name = template["metadata"]["labels"]["app"]  # every pod of the case carries it
    resource = {"Pod": "pod", "Job": "job", "JobSet": "jobsets.jobset.x-k8s.io"}[kind]
    c.create([workload])
    try:

        def settled() -> tuple[bool, str] | None:
            pods = c.get("pod", namespace=TEAM)["items"]
            mine = [p for p in pods if p["metadata"].get("labels", {}).get("app") == name]
            if not mine:
                return None
            cond = {x["type"]: x for x in mine[0].get("status", {}).get("conditions", [])}
            scheduled = cond.get("PodScheduled")
            if scheduled is None:
                return None
            where = mine[0]["spec"].get("nodeName") or scheduled.get("message", "")
            return scheduled["status"] == "True", str(where)

        return c.wait_for(settled, timeout=60, what=f"the pod of {kind} {name} to be scheduled or unschedulable")
    finally:
        c.kubectl("delete", resource, workload["metadata"]["name"], "-n", TEAM, "--cascade=foreground",
                  "--wait=true", check=False)  # fmt: skip
        c.kubectl("delete", "pods", "-l", f"app={name}", "-n", TEAM, "--grace-period=0", "--force",
                  "--wait=true", check=False)  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])
def test_lint_agrees_with_the_scheduler_on_gke_nodes(
    fixture_cluster: LocalCluster, fixture: GkeNodeFixture, case: str, kind: str
) -> None:
    plan = fixture_env()
    job = _workload(fixture, case, kind)
    # Kueue is not run here: lint as the scheduler alone sees the pods (no flavor tolerations added)
    report = lint_texts(plan, [("case.yaml", yaml.safe_dump(job))], kueue=False)
    errors = [f for v in report.verdicts for f in v.findings if f.severity == "error" and f.rule in SCHEDULER_RULES]
    lint_ok = not errors
    started = time.monotonic()
    ok, detail = _scheduled(fixture_cluster, job)
    RESULTS.append(
        {"case": f"{fixture.name}/{case}/{kind}", "lint_ok": lint_ok, "server_ok": ok, "detail": detail,
         "seconds": round(time.monotonic() - started, 1)}
    )  # fmt: skip
    assert ok == lint_ok, f"lint said {'ok' if lint_ok else 'no'}, the scheduler: {detail}\n{report.render()}"
    if case == "no-tolerations":
        refused_by = _untolerated_without_tolerations(fixture)
        why = f"taints {refused_by} stay untolerated" if refused_by else "admission tolerates the accelerator taint"
        assert ok == (not refused_by), f"{case}: the scheduler said {'ok' if ok else 'no'} ({detail}); {why}"
    else:  # one GPU more than a whole-GPU node has does not go to a MIG or shared node of the model either
        assert ok == (case == "fits"), f"{case}: the scheduler said {'ok' if ok else 'no'} ({detail})"


def _flavor_pod(name: str, flavor: Flavor, avoid: list[str]) -> dict[str, Any]:
    """A pod as Kueue admits it on ``flavor``: the flavor's nodeLabels in its nodeSelector and its
    tolerations (Kueue v0.17 injects both), one unit of the flavor's resource; ``avoid``: nodes it may not use."""
    resources = {"cpu": "100m", "memory": "128Mi", flavor.resource: "1"}
    spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "nodeSelector": dict(flavor.node_labels),
        # Kueue adds the flavor's tolerations; a pod it admits tolerates the flavor's nodeTaints itself
        "tolerations": [{"key": t.key, "operator": "Equal", "value": t.value, "effect": t.effect}
                        for t in (*flavor.tolerations, *flavor.node_taints)],
        "containers": [{"name": "main", "image": "registry.example/train:1",
                        "resources": {"requests": resources, "limits": resources}, "securityContext": RESTRICTED}],
    }  # fmt: skip
    if avoid:
        term = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "NotIn", "values": avoid}]}
        required = {"nodeSelectorTerms": [term]}
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": TEAM, "labels": {"app": name}}, "spec": spec}  # fmt: skip


def test_no_flavor_reaches_another_flavors_gke_node(fixture_cluster: LocalCluster) -> None:
    """Code review R4 on the real scheduler: a pod admitted on a flavor lands on that flavor's fixture
    node, and with its own nodes excluded it is unschedulable: no other kind of GKE node (on-demand vs
    flex-start vs reservation of one GPU model, Spot, queued, MIG, shared) takes it."""
    plan = fixture_env()
    assert plan.queues is not None
    nodes_of: dict[str, list[str]] = {}
    for f in FIXTURES:
        nodes_of.setdefault(flavor_name(f.plan()), []).append(f.node["metadata"]["name"])
    flavors = plan.queues.flavors
    assert {f.name for f in flavors} == set(nodes_of)
    wrong: list[str] = []
    for i, flavor in enumerate(flavors):
        own = nodes_of[flavor.name]
        ok, where = _scheduled(fixture_cluster, _flavor_pod(f"flavor-{i}-own", flavor, []))
        if not ok or where not in own:
            wrong.append(f"{flavor.name}: not on its own nodes {own} ({where})")
        ok, where = _scheduled(fixture_cluster, _flavor_pod(f"flavor-{i}-other", flavor, own))
        if ok:
            wrong.append(f"{flavor.name}: reached {where}, a node of another flavor")
    assert not wrong, "\n".join(wrong)
