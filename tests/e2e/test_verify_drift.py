"""``verify`` against the real API server (C7): staging's objects as ``manifests`` writes them and the
pinned Kueue CRDs, read back as the server stores them (defaults and all) -- every object matches;
then one drift per kind the environment creates, made with ``kubectl patch`` as an administrator
would, is a FAIL row naming the field, and verify exits 2."""

from __future__ import annotations

import io
import json
import subprocess
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any, cast

import pytest
from fake_controllers import fake_controllers
from own_cluster import own_cluster

from gke_accel.cli.main import main
from gke_accel.cli.manifests_view import environment_manifests
from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.environment import COMPUTECLASS_CRD
from gke_accel.twin.kueue import install_crds
from gke_accel.twin.nodes import pool_node
from require import build_output, require_or_skip

CONFIG = Path(__file__).resolve().parents[2] / "config"


@pytest.fixture(scope="module")
def staging(tmp_path_factory: pytest.TempPathFactory, control_plane: None) -> Iterator[tuple[LocalCluster, Any]]:
    """A control plane of this module's own (staging's namespaces are the other modules' too)."""
    with own_cluster(tmp_path_factory.mktemp("k8s-verify"), scheduler=False, kwok=False) as c:
        plan = load_environment(CONFIG / "staging.yaml")
        try:
            install_crds(c)
        except (subprocess.CalledProcessError, FileNotFoundError) as exc:
            require_or_skip("Kueue/JobSet modules not in the Go module cache or proxy", output=build_output(exc))
        install_crds(c, [COMPUTECLASS_CRD])  # staging's L4 ladder: its ComputeClass l4 (GKE builds the CRD in)
        c.apply(environment_manifests(plan))
        node = pool_node(plan.cluster.system_pool, 0)
        c.create_nodes([node])
        fake_controllers(c, plan, node["metadata"]["name"])
        yield c, plan


def _verify(c: LocalCluster) -> tuple[int, dict[tuple[str, str], dict[str, str]], str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["verify", "--env", "staging", "--config-dir", str(CONFIG), "--kubeconfig", str(c.kubeconfig),
                     "--json"])  # fmt: skip
    if code == 1:
        return code, {}, err.getvalue()
    [report] = json.loads(out.getvalue())
    return code, {(r["area"], r["subject"]): r for r in report["checks"]}, out.getvalue()


def test_the_stored_objects_match_the_plan(staging: tuple[LocalCluster, EnvironmentPlan]) -> None:
    c, _ = staging
    code, rows, text = _verify(c)
    failed = {k: r["detail"] for k, r in rows.items() if r["status"] == "FAIL"}
    assert code == 0 and not failed, failed or text
    assert rows[("context", "e2e")]["status"] == "warn"  # a local cluster: nothing tells whose it is
    for key in [("ClusterQueue", "research"), ("ValidatingAdmissionPolicy", "gke-accel-kueue-priority"),
                ("controller", "kueue-system/kueue-controller-manager"), ("namespace", "research")]:  # fmt: skip
        assert rows[key]["status"] == "ok", rows[key]


# (kubectl resource, namespace, name, JSON patch, (area, subject), text in the FAIL row); ``{expected}`` in
# the text is what the plan's object holds at the patched path (the ResourceQuota's cpu depends on the
# sidecar room), as in the unit twin tests/workloads/test_verify_kinds.py
DRIFTS = [
    ("namespace", None, "research", [{"op": "replace", "path": "/metadata/labels/pod-security.kubernetes.io~1enforce",
                                      "value": "privileged"}],
     ("namespace", "research"), "metadata.labels.pod-security.kubernetes.io/enforce=privileged, expected restricted"),
    ("resourcequota", "research", "compute", [{"op": "replace", "path": "/spec/hard/requests.cpu", "value": "640"}],
     ("ResourceQuota", "research/compute"), "spec.hard.requests.cpu=640, expected {expected}"),
    ("limitrange", "research", "defaults", [{"op": "replace", "path": "/spec/limits/0/default/memory",
                                             "value": "16Gi"}],
     ("LimitRange", "research/defaults"), "spec.limits[0].default.memory=16Gi, expected {expected}"),
    ("role", "research", "team-member", [{"op": "add", "path": "/rules/-",
                                          "value": {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}}],
     ("Role", "research/team-member"), "rules has 12 item(s), expected 11"),
    ("rolebinding", "research", "team-member", [{"op": "add", "path": "/subjects/-", "value": {
        "kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "everyone@acme.example.com"}}],
     ("RoleBinding", "research/team-member"), "subjects has 2 item(s), expected 1"),
    ("networkpolicy", "research", "default-deny-ingress", [{"op": "remove", "path": "/spec/ingress/0/from/1"}],
     ("NetworkPolicy", "research/default-deny-ingress"), "spec.ingress[0].from has 1 item(s), expected 2"),
    ("priorityclass", None, "inference", [{"op": "replace", "path": "/description", "value": "anything"}],
     ("PriorityClass", "inference"), "description=anything, expected Online inference"),
    ("serviceaccount", "research", "workload", [{"op": "remove", "path": "/metadata/annotations"}],
     ("ServiceAccount", "research/workload"),
     "iam.gke.io/gcp-service-account=(missing), expected research-staging-wi@"),
    ("daemonset", "kube-system", "nvidia-driver-installer",
     [{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "registry.k8s.io/pause:3.1"}],
     ("DaemonSet", "kube-system/nvidia-driver-installer"),
     "spec.template.spec.containers[0].image=registry.k8s.io/pause:3.1"),
    ("workloadpriorityclass.kueue.x-k8s.io", None, "batch", [{"op": "replace", "path": "/value", "value": 200000}],
     ("WorkloadPriorityClass", "batch"), "value=200000, expected 1000"),
    ("resourceflavor.kueue.x-k8s.io", None, "cpu-memory", [{"op": "remove", "path": "/metadata/labels"}],
     ("ResourceFlavor", "cpu-memory"), "metadata.labels.app.kubernetes.io/managed-by=(missing), expected gke-accel"),
    ("clusterqueue.kueue.x-k8s.io", None, "research", [{"op": "replace", "value": 32,
        "path": "/spec/resourceGroups/0/flavors/1/resources/2/borrowingLimit"}],  # v5e-2x4's TPU, beside cpu-memory
     ("ClusterQueue", "research"), "spec.resourceGroups[0].flavors[1].resources[2].borrowingLimit=32, expected 16"),
    ("localqueue.kueue.x-k8s.io", "research", "team", [{"op": "remove", "path": "/metadata/labels"}],
     ("LocalQueue", "research/team"), "metadata.labels.app.kubernetes.io/managed-by=(missing), expected gke-accel"),
    ("validatingadmissionpolicy", None, "gke-accel-kueue-priority", [{"op": "replace", "path": "/spec/failurePolicy",
                                                                      "value": "Ignore"}],
     ("ValidatingAdmissionPolicy", "gke-accel-kueue-priority"), "spec.failurePolicy=Ignore, expected Fail"),
    ("validatingadmissionpolicybinding", None, "gke-accel-kueue-priority",
     [{"op": "replace", "path": "/spec/validationActions", "value": ["Warn"]}],
     ("ValidatingAdmissionPolicyBinding", "gke-accel-kueue-priority"), "spec.validationActions[0]=Warn, expected Deny"),
]  # fmt: skip


@pytest.mark.parametrize(("resource", "ns", "name", "patch", "key", "text"), DRIFTS, ids=[d[0] for d in DRIFTS])
def test_a_drift_in_each_kind_is_caught(
    staging: tuple[LocalCluster, EnvironmentPlan],
    resource: str,
    ns: str | None,
    name: str,
    patch: list[dict[str, Any]],
    key: tuple[str, str],
    text: str,
) -> None:
    c, plan = staging
    original = _planned(plan, resource, name, ns)
    if "{expected}" in text:  # what the plan says at the patched path, before the drift
        text = text.replace("{expected}", str(_at(original, patch[0]["path"])))
    where = ["-n", ns] if ns else []
    c.kubectl("patch", resource, name, *where, "--type=json", "-p", json.dumps(patch))
    try:
        code, rows, out = _verify(c)
        assert code == 2, out
        assert rows[key]["status"] == "FAIL" and text in rows[key]["detail"], rows[key]
        assert [k for k, r in rows.items() if r["status"] == "FAIL"] == [key]
    finally:
        c.kubectl("replace", "-f", "-", stdin=json.dumps(_with_version(c, resource, name, ns, original)))


def _planned(plan: EnvironmentPlan, resource: str, name: str, ns: str | None) -> dict[str, Any]:
    """The object as ``manifests`` writes it for the plan."""
    manifests = cast(list[dict[str, Any]], environment_manifests(plan))
    return next(m for m in manifests
                if (m["metadata"]["name"], m["metadata"].get("namespace")) == (name, ns)
                and m["kind"].lower() == resource.split(".")[0])  # fmt: skip


def _at(obj: Any, pointer: str) -> Any:
    """The value at a JSON pointer (RFC 6901: ``~1`` is ``/``, ``~0`` is ``~``)."""
    for raw in pointer.lstrip("/").split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        obj = obj[int(key)] if isinstance(obj, list) else obj[key]
    return obj


def _with_version(c: LocalCluster, resource: str, name: str, ns: str | None, manifest: dict[str, Any]) -> Any:
    live = c.get(resource, name, ns)
    return {**manifest, "metadata": {**manifest["metadata"], "resourceVersion": live["metadata"]["resourceVersion"]}}


def test_a_controller_that_is_not_ready_is_caught(staging: tuple[LocalCluster, EnvironmentPlan]) -> None:
    c, _ = staging
    ready = '{"status":{"readyReplicas":1,"availableReplicas":1}}'
    c.kubectl("patch", "deployment", "jobset-controller-manager", "-n", "jobset-system", "--subresource=status",
              "--type=merge", "-p", '{"status":{"readyReplicas":0,"availableReplicas":0}}')  # fmt: skip
    try:
        code, rows, _ = _verify(c)
        row = rows[("controller", "jobset-system/jobset-controller-manager")]
        assert code == 2 and row["status"] == "FAIL" and "0/1 replicas ready" in row["detail"]
    finally:
        c.kubectl("patch", "deployment", "jobset-controller-manager", "-n", "jobset-system", "--subresource=status",
                  "--type=merge", "-p", ready)  # fmt: skip
