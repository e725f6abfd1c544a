"""The platform's Kubernetes objects: valid against the API schema of the cluster's minor version
(strict: unknown fields are errors), and saying what the platform promises."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from server_defaults import as_stored, canonical_quantity

from gke_accel.cli.main import main
from gke_accel.model import EnvironmentPlan, load_environment, load_environment_text
from gke_accel.model.capacity.compute_class import compute_classes
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.model.platform.fences import priority_fence
from gke_accel.model.platform.manifests import gib_quantity, platform_manifests, quota_key
from gke_accel.model.queues.manifests import queue_manifests
from gke_accel.model.queues.of_environment import queue_plan_of
from helpers import QUOTA_ONLY_CONFIG, base_config, set_path, to_yaml

CONFIG = Path(__file__).resolve().parents[2] / "config"
ENVS = ("dev", "staging", "prod")


def plan_of(env: str) -> EnvironmentPlan:
    return load_environment(CONFIG / f"{env}.yaml")


def by_kind(manifests: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in manifests if m["kind"] == kind]


@pytest.mark.parametrize("env", ENVS)
def test_every_object_validates_strictly_against_the_cluster_version(env: str) -> None:
    plan = plan_of(env)
    manifests = platform_manifests(plan)
    assert len(manifests) >= 10
    for manifest in manifests:
        kubernetes_validate.validate(manifest, plan.spec.platform.kubernetes_version, strict=True)


def test_strict_validation_catches_an_unknown_field() -> None:
    manifest = by_kind(platform_manifests(plan_of("dev")), "ResourceQuota")[0]
    manifest = {**manifest, "spec": {**manifest["spec"], "hardd": {}}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(manifest, "1.33", strict=True)


def test_quota_keys_for_accelerators_use_the_requests_prefix_only() -> None:
    # without queues the ResourceQuota is the team's own numbers (tests/fixtures/configs/quota-only.yaml)
    quotas = by_kind(platform_manifests(load_environment(QUOTA_ONLY_CONFIG)), "ResourceQuota")
    [compute] = [q for q in quotas if (q["metadata"]["name"], q["metadata"]["namespace"]) == ("compute", "nlp")]
    assert compute["spec"]["hard"] == {
        "requests.cpu": "32",
        "requests.memory": "128Gi",
        "pods": "200",
        "requests.nvidia.com/gpu": "2",
        "requests.google.com/tpu": "4",
    }
    for quota in quotas:
        assert not {"nvidia.com/gpu", "google.com/tpu", "limits.nvidia.com/gpu"} & set(quota["spec"]["hard"])
    with pytest.raises(AssertionError):
        quota_key("nvidia.com/gpus")


def test_quota_sums_gpu_models_into_one_kubernetes_resource() -> None:
    data = set_path(
        base_config(),
        "gpu_pools",
        [{"name": "l4", "gpu": "l4", "max_nodes": 4}, {"name": "t4", "gpu": "t4", "max_nodes": 4}],
    )
    data["teams"] = [{"name": "nlp", "google_group": "g@acme.example.com", "accelerators": {"l4": 3, "t4": 2}}]
    manifests = platform_manifests(load_environment_text(to_yaml(data)))
    [compute] = [m for m in by_kind(manifests, "ResourceQuota") if m["metadata"]["name"] == "compute"]
    assert compute["spec"]["hard"]["requests.nvidia.com/gpu"] == "5"


def test_with_kueue_no_pod_priority_class_preempts() -> None:
    """dev runs Kueue (queues: {}): Kueue is the only preemptor, so kube-scheduler never evicts a pod
    Kueue admitted (code review R6); the values still order inference > training > batch for Kueue."""
    classes = {m["metadata"]["name"]: m for m in by_kind(platform_manifests(plan_of("dev")), "PriorityClass")}
    assert classes["inference"]["value"] > classes["training"]["value"] > classes["batch"]["value"]
    assert {c["preemptionPolicy"] for c in classes.values()} == {"Never"}
    assert [n for n, c in classes.items() if "globalDefault" in c] == ["training"]


def test_priority_classes_without_kueue_let_inference_preempt_and_batch_never() -> None:
    data = base_config()
    data["teams"] = [{"name": "nlp", "google_group": "nlp@acme.example.com", "accelerators": {"v5e": 4}}]
    plan = load_environment_text(to_yaml(data))
    assert plan.queues is None
    classes = {m["metadata"]["name"]: m for m in by_kind(platform_manifests(plan), "PriorityClass")}
    assert classes["inference"]["value"] > classes["training"]["value"] > classes["batch"]["value"]
    assert classes["inference"]["preemptionPolicy"] == "PreemptLowerPriority"
    assert classes["training"]["preemptionPolicy"] == "PreemptLowerPriority"
    assert classes["batch"]["preemptionPolicy"] == "Never"
    assert [n for n, c in classes.items() if "globalDefault" in c] == ["training"]
    assert classes["training"]["globalDefault"] is True


def test_a_team_restricted_to_some_classes_gets_a_zero_pod_quota_for_the_others() -> None:
    manifests = platform_manifests(plan_of("dev"))
    [restriction] = [m for m in by_kind(manifests, "ResourceQuota") if m["metadata"]["name"] == "priority-classes"]
    assert restriction["metadata"]["namespace"] == "vision"
    assert restriction["spec"] == {
        "hard": {"pods": "0"},
        "scopeSelector": {
            "matchExpressions": [{"scopeName": "PriorityClass", "operator": "NotIn", "values": ["training", "batch"]}]
        },
    }


def test_team_identity_access_and_isolation() -> None:
    manifests = platform_manifests(plan_of("dev"))
    [ksa] = [m for m in by_kind(manifests, "ServiceAccount") if m["metadata"]["namespace"] == "nlp"]
    assert ksa["metadata"]["annotations"] == {
        "iam.gke.io/gcp-service-account": "nlp-dev-wi@acme-ml-dev.iam.gserviceaccount.com"
    }
    [binding] = [m for m in by_kind(manifests, "RoleBinding") if m["metadata"]["namespace"] == "nlp"]
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "team-member"}
    assert binding["subjects"] == [
        {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "ml-nlp@acme.example.com"}
    ]
    [policy] = [m for m in by_kind(manifests, "NetworkPolicy") if m["metadata"]["namespace"] == "nlp"]
    assert policy["spec"]["policyTypes"] == ["Ingress"] and policy["spec"]["podSelector"] == {}
    assert {"podSelector": {}} in policy["spec"]["ingress"][0]["from"]


def test_staging_driver_installer_follows_googles_cos_manifest() -> None:
    [ds] = by_kind(platform_manifests(plan_of("staging")), "DaemonSet")
    assert (ds["metadata"]["name"], ds["metadata"]["namespace"]) == ("nvidia-driver-installer", "kube-system")
    pod = ds["spec"]["template"]["spec"]
    assert pod["priorityClassName"] == "system-node-critical"
    assert pod["tolerations"] == [{"operator": "Exists"}]
    assert pod["hostNetwork"] is True and pod["hostPID"] is True
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    for term in terms:
        keys = {e["key"]: e["operator"] for e in term["matchExpressions"]}
        assert keys["cloud.google.com/gke-accelerator"] == "Exists"
        assert keys["gke-accel/driver-variant"] == "In"
    assert {t["matchExpressions"][1]["operator"] for t in terms} == {"DoesNotExist", "In"}
    [installer] = pod["initContainers"]  # no MIG pool: no partitioner
    assert installer["image"] == "cos-nvidia-installer:fixed" and installer["imagePullPolicy"] == "Never"
    assert "@sha256:" in pod["containers"][0]["image"]


def test_staging_daemonset_pool_disables_gke_installer_and_carries_the_variant_label() -> None:
    [pool] = [p for p in plan_of("staging").pools if p.name == "l4-serve"]
    assert pool.guest_accelerator is not None and pool.guest_accelerator.driver_version == "INSTALLATION_DISABLED"
    assert pool.labels["gke-accel/driver-variant"] == "cos-default"


def test_ubuntu_pinned_and_mig_variants_side_by_side() -> None:
    data = set_path(
        base_config(),
        "gpu_pools",
        [
            {
                "name": "mig",
                "gpu": "a100",
                "partition_size": "1g.5gb",
                "driver_mode": "daemonset",
                "driver_version": "latest",
            },
            {
                "name": "ubu",
                "gpu": "l4",
                "driver_mode": "daemonset",
                "image_type": "UBUNTU_CONTAINERD",
                "driver_version": "R570",
            },
        ],
    )
    data["platform"] = {"driver_installer": {"multiple_variants": True}}
    daemonsets = {
        d["metadata"]["name"]: d for d in by_kind(platform_manifests(load_environment_text(to_yaml(data))), "DaemonSet")
    }
    assert set(daemonsets) == {"nvidia-driver-installer-cos-latest", "nvidia-driver-installer-ubuntu-r570"}
    cos = daemonsets["nvidia-driver-installer-cos-latest"]["spec"]["template"]["spec"]
    assert [c["name"] for c in cos["initContainers"]] == ["nvidia-driver-installer", "partition-gpus"]
    assert "--version=latest" in cos["initContainers"][0]["command"][2]
    assert cos["initContainers"][1]["image"].startswith("gcr.io/gke-release/nvidia-partition-gpu@sha256:")
    ubuntu = daemonsets["nvidia-driver-installer-ubuntu-r570"]["spec"]["template"]["spec"]
    assert ubuntu["initContainers"][0]["env"] == [{"name": "NVIDIA_DRIVER_VERSION", "value": "570.124.06"}]
    assert "hostPID" not in ubuntu
    for ds in daemonsets.values():
        kubernetes_validate.validate(ds, "1.33", strict=True)


def test_over_commit_is_a_warning_by_default() -> None:
    data = base_config()
    data["teams"] = [{"name": "nlp", "google_group": "g@acme.example.com", "accelerators": {"l4": 5}}]
    plan = load_environment_text(to_yaml(data))
    assert plan.warnings == (
        "over-commit: team quotas for nvidia-l4 add up to 5 GPUs, but the pools provide at most 2",
    )


def test_manifests_command_writes_yaml_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["manifests", "--config-dir", str(CONFIG), "--env", "staging", "--out", str(tmp_path)]) == 0
    files = sorted(p.name for p in (tmp_path / "staging").iterdir())
    assert "2-kube-system.daemonset.nvidia-driver-installer.yaml" in files
    assert "2-nlp.resourcequota.compute.yaml" in files
    assert main(["manifests", "--config-dir", str(CONFIG), "--env", "dev"]) == 0
    assert "kind: PriorityClass" in capsys.readouterr().out


@pytest.mark.parametrize("env", ENVS)
def test_manifest_files_in_name_order_create_every_namespace_before_its_objects(env: str, tmp_path: Path) -> None:
    """``kubectl apply -f <folder>`` reads files in name order; on an empty cluster a namespaced object
    read before its namespace fails (prod's teams sorted before ``namespace.*`` did)."""
    assert main(["manifests", "--config-dir", str(CONFIG), "--env", env, "--out", str(tmp_path)]) == 0
    (tmp_path / env / "old-name.yaml").write_text("stale: true\n")  # left from an earlier run: removed
    assert main(["manifests", "--config-dir", str(CONFIG), "--env", env, "--out", str(tmp_path)]) == 0
    created: set[str] = {"kube-system", "default"}
    seen_kinds = []
    for path in sorted((tmp_path / env).iterdir()):
        obj = yaml.safe_load(path.read_text())
        ns = obj["metadata"].get("namespace")
        assert ns is None or ns in created, f"{path.name} is applied before namespace {ns}"
        if obj["kind"] == "Namespace":
            created.add(obj["metadata"]["name"])
        seen_kinds.append(obj["kind"])
    # cluster-scoped kinds first: staging's ComputeClass (its L4 ladder) sorts before the PriorityClasses
    first = "ComputeClass" if env == "staging" else "PriorityClass"
    assert seen_kinds[0] == first and "PriorityClass" in seen_kinds and "Namespace" in seen_kinds
    queues = queue_plan_of(plan_of(env))
    kueue = queue_manifests(queues, plan_of(env).spec.platform.priority_classes) if queues else []
    fence = priority_fence(plan_of(env))  # the Kueue priority admission policy and binding
    classes = compute_classes(ladders_of(plan_of(env)))  # the capacity ladders' ComputeClasses
    assert len(seen_kinds) == len(platform_manifests(plan_of(env))) + len(fence) + len(kueue) + len(classes)


def test_stdout_lists_objects_in_apply_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["manifests", "--config-dir", str(CONFIG), "--env", "prod"]) == 0
    docs = [d for d in yaml.safe_load_all(capsys.readouterr().out) if d]
    namespaces_at = {d["metadata"]["name"]: i for i, d in enumerate(docs) if d["kind"] == "Namespace"}
    for i, doc in enumerate(docs):
        ns = doc["metadata"].get("namespace")
        if ns in namespaces_at:
            assert namespaces_at[ns] < i
    assert max(namespaces_at.values()) < min(i for i, d in enumerate(docs) if d["metadata"].get("namespace"))


@pytest.mark.parametrize("env", ENVS)
def test_the_api_server_stores_every_object_as_declared(env: str) -> None:
    """No server defaulting adds or drops a field: otherwise pods get values nobody declared and every
    apply or ``terraform plan`` shows a change."""
    for manifest in platform_manifests(plan_of(env)):
        assert as_stored(manifest) == manifest, f"{manifest['kind']} {manifest['metadata']['name']}"


def test_server_defaulting_would_inject_accelerators_from_a_bare_max() -> None:
    """The defect the real server showed: ``max`` alone becomes ``default`` and ``defaultRequest``."""
    bare = {"kind": "LimitRange", "spec": {"limits": [{"type": "Container", "max": {"nvidia.com/gpu": "1"}}]}}
    stored = as_stored(bare)["spec"]["limits"][0]
    assert stored["default"] == stored["defaultRequest"] == {"nvidia.com/gpu": "1"}
    assert as_stored({"kind": "PriorityClass", "globalDefault": False}) == {
        "kind": "PriorityClass",
        "preemptionPolicy": "PreemptLowerPriority",
    }


ACCELERATOR_RESOURCES = ("nvidia.com/gpu", "google.com/tpu")
TEAMS = {"dev": ("nlp", "vision"), "staging": ("nlp", "research", "serving"), "prod": ("llm-training", "serving")}


@pytest.mark.parametrize("env", ENVS)
def test_no_limit_range_names_an_extended_resource(env: str) -> None:
    """real-engines F1/F2: a defaulted ``nvidia.com/gpu: 0`` makes Kueue assign (and inject the node labels
    of) a GPU flavor to TPU jobs, and GKE's ExtendedResourceToleration admission plugin tolerates the
    taint of every resource a container *names*, whatever the quantity ("Run GPUs in Standard node
    pools", cloud.google.com/kubernetes-engine/docs/how-to/gpus), so CPU pods landed on accelerator
    nodes. A ``max`` alone is no way out: the API server defaults ``default`` from it."""
    ranges = by_kind(platform_manifests(plan_of(env)), "LimitRange")
    assert {m["metadata"]["namespace"] for m in ranges} == set(TEAMS[env])
    for limit_range in ranges:
        for item in as_stored(limit_range)["spec"]["limits"]:  # as the server stores it, after defaulting
            for key in ("default", "defaultRequest", "max", "min", "maxLimitRequestRatio"):
                assert not set(item.get(key, {})) & set(ACCELERATOR_RESOURCES), (env, key, item)
            assert item["default"] == {"cpu": "1", "memory": "2Gi"}
            assert item["defaultRequest"] == {"cpu": "250m", "memory": "512Mi"}


def test_a_limit_range_with_an_accelerator_is_caught_by_the_stored_form_check() -> None:
    """The check above fails on what the platform used to write (zero defaults beside a ``max``)."""
    old = {
        "kind": "LimitRange",
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "1", "nvidia.com/gpu": "0"},
                             "max": {"nvidia.com/gpu": "1"}}]},
    }  # fmt: skip
    item = as_stored(old)["spec"]["limits"][0]
    assert "nvidia.com/gpu" in item["defaultRequest"]


def test_quantities_are_written_in_the_servers_canonical_form() -> None:
    """prod's 4096 GiB quota came back from the server as 4Ti, so every apply said "configured"."""
    prod = load_environment_text((CONFIG / "prod.yaml").read_text().replace(
        "accelerators: {v5p: 8, h100: 16}", "accelerators: {v5p: 8, h100: 16}\n    memory_gib: 4096"))  # fmt: skip
    assert [gib_quantity(n) for n in (0, 128, 1536, 4096, 1024 * 1024)] == ["0", "128Gi", "1536Gi", "4Ti", "1Pi"]
    assert [canonical_quantity(q) for q in ("4096Gi", "1536Mi", "250m", "32")] == ["4Ti", "1536Mi", "250m", "32"]
    [prod_llm] = [
        m
        for m in by_kind(platform_manifests(prod), "ResourceQuota")
        if m["metadata"]["namespace"] == "llm-training" and m["metadata"]["name"] == "compute"
    ]
    assert prod_llm["spec"]["hard"]["requests.memory"] == "4Ti"
