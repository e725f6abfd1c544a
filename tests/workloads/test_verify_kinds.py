"""verify compares every kind the environment creates field by field (C7): a drift in each is a FAIL
row naming the field; server defaults (fields the plan does not declare) are not drift; Kueue
objects are expected at v1beta2; the kubeconfig context must be the environment's cluster; the
controllers must be ready on the system pool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_verify import healthy_state

from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.workloads.verify import verify_state
from gke_accel.workloads.verify.check import expected_objects
from gke_accel.workloads.verify.compare import differences, list_path
from gke_accel.workloads.verify.context import context_row
from gke_accel.workloads.verify.state import CheckRow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def staging() -> EnvironmentPlan:
    return load_environment(ROOT / "config" / "staging.yaml")


def _row(plan: EnvironmentPlan, state: Any, subject: str, area: str | None = None) -> CheckRow:
    [row] = [r for r in verify_state(plan, state).rows if r.subject == subject and area in (None, r.area)]
    return row


# (kind, namespace, name, path of the change, new value, text of the FAIL row); ``{expected}`` in the
# text is the value the plan declares at that path (the ResourceQuota's cpu depends on the sidecar room)
DRIFTS = [
    ("Namespace", "", "research", "metadata/labels/pod-security.kubernetes.io~enforce", "privileged",
     "metadata.labels.pod-security.kubernetes.io/enforce=privileged, expected restricted"),
    ("ResourceQuota", "research", "compute", "spec/hard/requests.cpu", "640",
     "spec.hard.requests.cpu=640, expected {expected}"),
    ("LimitRange", "research", "defaults", "spec/limits/0/default/memory", "16Gi",
     "spec.limits[0].default.memory=16Gi, expected 2Gi"),
    ("Role", "research", "team-member", "rules/8/verbs", ["get", "list", "watch", "create", "delete"],
     "rules[8].verbs has 5 item(s), expected 3"),
    ("RoleBinding", "research", "team-member", "subjects/0/name", "everyone@acme.example.com",
     "subjects[0].name=everyone@acme.example.com, expected ml-research@acme.example.com"),
    ("NetworkPolicy", "research", "default-deny-ingress", "spec/policyTypes", [],
     "spec.policyTypes has 0 item(s), expected 1"),
    ("PriorityClass", "", "inference", "value", 1, "value=1, expected 100000"),
    ("WorkloadPriorityClass", "", "batch", "value", 200000, "value=200000, expected 1000"),
    ("ResourceFlavor", "", "cpu-memory", "metadata/labels", {},
     "metadata.labels.app.kubernetes.io/managed-by=(missing)"),
    ("Topology", "", "tpu-slices", "spec/levels/0/nodeLabel", "topology.kubernetes.io/zone",
     "spec.levels[0].nodeLabel=topology.kubernetes.io/zone, expected cloud.google.com/gke-nodepool"),
    # research's v5e-2x4 chips: the TAS flavor's cpu, memory and google.com/tpu, after cpu-memory's
    ("ClusterQueue", "", "research", "spec/resourceGroups/0/flavors/1/resources/2/nominalQuota", "16",
     "spec.resourceGroups[0].flavors[1].resources[2].nominalQuota=16, expected 8"),
    ("ClusterQueue", "", "research", "spec/resourceGroups/0/flavors/1/resources/2/borrowingLimit", 32,
     "borrowingLimit=32, expected 16"),
    ("ClusterQueue", "", "serving", "spec/preemption/withinClusterQueue", "Never",
     "spec.preemption.withinClusterQueue=Never, expected LowerPriority"),
    ("LocalQueue", "research", "team", "spec/clusterQueue", "nlp", "spec.clusterQueue=nlp, expected research"),
    ("ValidatingAdmissionPolicy", "", "gke-accel-kueue-priority", "spec/failurePolicy", "Ignore",
     "spec.failurePolicy=Ignore, expected Fail"),
    ("ValidatingAdmissionPolicyBinding", "", "gke-accel-kueue-priority", "spec/validationActions", ["Audit"],
     "spec.validationActions[0]=Audit, expected Deny"),
    # staging's L4 ladder (config/staging.yaml capacity.l4): rung 1 is l4-reserved; Spot first is drift
    ("ComputeClass", "", "l4", "spec/priorities/0/nodepools/0", "l4-spot",
     "spec.priorities[0].nodepools[0]=l4-spot, expected l4-reserved"),
    ("ServiceAccount", "research", "workload", "metadata/annotations", {},
     "metadata.annotations.iam.gke.io/gcp-service-account=(missing), expected research-staging-wi@"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "ns", "name", "path", "value", "text"), DRIFTS, ids=lambda v: str(v)[:40])
def test_a_drift_in_each_kind_is_a_failure_naming_the_field(
    staging: EnvironmentPlan, kind: str, ns: str, name: str, path: str, value: Any, text: str
) -> None:
    state = healthy_state(staging)
    assert verify_state(staging, state).ok
    obj = state.objects[(kind, ns, name)]
    keys = [k.replace("~", "/") for k in path.split("/")]
    for k in keys[:-1]:
        obj = obj[int(k)] if isinstance(obj, list) else obj[k]
    last: Any = int(keys[-1]) if isinstance(obj, list) else keys[-1]
    if "{expected}" in text:
        text = text.replace("{expected}", str(obj[last]))  # what the plan says, before the drift
    obj[last] = value
    row = _row(staging, state, f"{ns}/{name}" if ns else name, "namespace" if kind == "Namespace" else kind)
    assert row.status == "FAIL" and text in row.detail, row


def test_the_kind_with_a_known_drift_is_one_the_environment_creates(staging: EnvironmentPlan) -> None:
    made = {m["kind"] for m in expected_objects(staging)}
    assert {d[0] for d in DRIFTS} | {"DaemonSet"} == made  # every kind has a drift case above


def test_server_defaults_are_not_drift() -> None:
    declared = {"spec": {"containers": [{"name": "a", "image": "x"}], "hard": {"requests.memory": "4096Gi"}}}
    stored = {"spec": {"containers": [{"name": "a", "image": "x", "terminationMessagePath": "/dev/termination-log"}],
                       "hard": {"requests.memory": "4Ti"}, "dnsPolicy": "ClusterFirst"}}  # fmt: skip
    assert differences(declared, stored) == []
    stored["spec"]["containers"].append({"name": "b", "image": "y"})
    assert differences(declared, stored) == ["spec.containers has 2 item(s), expected 1: [{'name': 'a', 'image': 'x'}]"]


def test_kueue_objects_are_read_at_the_version_the_stack_writes(staging: EnvironmentPlan) -> None:
    kueue = [m for m in expected_objects(staging) if m["apiVersion"].startswith("kueue.x-k8s.io/")]
    assert kueue and {m["apiVersion"] for m in kueue} == {"kueue.x-k8s.io/v1beta2"}
    assert list_path("kueue.x-k8s.io/v1beta2", "ClusterQueue") == "/apis/kueue.x-k8s.io/v1beta2/clusterqueues"
    assert list_path("v1", "LimitRange") == "/api/v1/limitranges"
    assert list_path("networking.k8s.io/v1", "NetworkPolicy") == "/apis/networking.k8s.io/v1/networkpolicies"
    assert list_path("scheduling.k8s.io/v1", "PriorityClass") == "/apis/scheduling.k8s.io/v1/priorityclasses"


def test_a_missing_kind_says_it_is_not_served(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    for key in [k for k in state.objects if k[0] == "LocalQueue"]:
        del state.objects[key]
    state = type(state)(state.nodes, state.pods, state.objects, state.namespaces, frozenset({"LocalQueue"}))
    row = _row(staging, state, "research/team")
    assert row.status == "FAIL" and "kueue.x-k8s.io/v1beta2 LocalQueue is not served" in row.detail


# --- the context ------------------------------------------------------------------------------------


def test_the_environment_s_gke_context_is_accepted(staging: EnvironmentPlan) -> None:
    row = context_row(staging, "gke_acme-ml-staging_us-central1_ml-staging", "https://x", {})
    assert isinstance(row, CheckRow) and row.status == "ok"


def test_another_environment_s_cluster_is_refused_with_the_command_to_fix_it(staging: EnvironmentPlan) -> None:
    dev = load_environment(ROOT / "config" / "dev.yaml")
    prod_context = "gke_acme-ml-prod_us-central1_ml-prod"
    refusal = context_row(dev, prod_context, "https://34.1.2.3", {})
    assert isinstance(refusal, str)
    assert "is cluster ml-prod in project acme-ml-prod" in refusal and "not dev's ml-dev" in refusal
    assert "gcloud container clusters get-credentials ml-dev --location us-central1 --project acme-ml-dev" in refusal
    assert refusal.endswith("--dns-endpoint")
    # a renamed context pointing at prod's server is refused too
    servers = {prod_context: "https://34.1.2.3", "prod": "https://34.1.2.3"}
    assert isinstance(context_row(dev, "prod", "https://34.1.2.3", servers), str)
    staging_ctx = "gke_acme-ml-staging_us-central1_ml-staging"
    row = context_row(
        staging, "mine", "https://34.9.9.9", {staging_ctx: "https://34.9.9.9", "mine": "https://34.9.9.9"}
    )
    assert isinstance(row, CheckRow) and row.status == "ok"


def test_an_unknown_context_is_a_warning(staging: EnvironmentPlan) -> None:
    row = context_row(staging, "kind-local", "https://127.0.0.1:6443", {"kind-local": "https://127.0.0.1:6443"})
    assert (
        isinstance(row, CheckRow)
        and row.status == "warn"
        and "gke_acme-ml-staging_us-central1_ml-staging" in row.detail
    )


# --- the controllers --------------------------------------------------------------------------------


def test_a_controller_not_ready_or_off_the_system_pool_is_drift(staging: EnvironmentPlan) -> None:
    state = healthy_state(staging)
    assert _row(staging, state, "kueue-system/kueue-controller-manager").status == "ok"
    state.objects[("Deployment", "jobset-system", "jobset-controller-manager")]["status"]["readyReplicas"] = 0
    row = _row(staging, state, "jobset-system/jobset-controller-manager")
    assert row.status == "FAIL" and "0/1 replicas ready" in row.detail
    tpu = next(n["metadata"]["name"] for n in state.nodes if n["metadata"]["name"].startswith("v5e-slice"))
    next(p for p in state.pods if p["metadata"].get("namespace") == "kueue-system")["spec"]["nodeName"] = tpu
    row = _row(staging, state, "kueue-system/kueue-controller-manager")
    assert (
        row.status == "FAIL" and f"on {tpu} (pool v5e-slice)" in row.detail and "not on the system pool" in row.detail
    )
    del state.objects[("Deployment", "kueue-system", "kueue-controller-manager")]
    assert _row(staging, state, "kueue-system/kueue-controller-manager").detail == "missing"


def test_a_deleted_or_changed_compute_class_is_a_failure() -> None:
    """The capacity ladder's ComputeClass (tests/ladder_config.py: one ladder, shape v5e-2x4) is one of
    the objects verify compares; before, verify left the ComputeClasses out (R8)."""
    from gke_accel.model import load_environment_text
    from helpers import to_yaml
    from ladder_config import ladder_config

    plan = load_environment_text(to_yaml(ladder_config()))
    healthy = healthy_state(plan)
    assert _row(plan, healthy, "v5e-2x4", "ComputeClass").status == "ok"
    gone = healthy_state(plan)
    del gone.objects[("ComputeClass", "", "v5e-2x4")]
    row = _row(plan, gone, "v5e-2x4", "ComputeClass")
    assert (row.status, row.detail) == ("FAIL", "missing")
    changed = healthy_state(plan)
    changed.objects[("ComputeClass", "", "v5e-2x4")]["spec"]["whenUnsatisfiable"] = "ScaleUpAnyway"
    row = _row(plan, changed, "v5e-2x4", "ComputeClass")
    assert row.status == "FAIL" and "whenUnsatisfiable=ScaleUpAnyway" in row.detail
