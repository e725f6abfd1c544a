"""tools/terraform/local_stack.py: a synthesized stack's in-cluster half (every ``kubernetes_*`` resource and
``helm_release``) as a Terraform configuration against another cluster's kubeconfig, whatever endpoint
the stack's provider blocks use (the cluster's IP endpoint with its CA, or its DNS endpoint without).
The e2e tier applies what it writes (tests/e2e/test_terraform_apply.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from helpers import load_script

KUBECONFIG = Path("/state/admin.kubeconfig")
VERSIONS = {"kubernetes": "3.2.1", "helm": "3.2.0"}
EXEC = {"api_version": "client.authentication.k8s.io/v1beta1", "command": "gke-gcloud-auth-plugin"}
# the two endpoint shapes a GKE stack's providers take (hand-written, as the google provider names them)
IP_ENDPOINT = {
    "host": "https://${google_container_cluster.c.endpoint}",
    "cluster_ca_certificate": "${base64decode(google_container_cluster.c.master_auth[0].cluster_ca_certificate)}",
    "exec": EXEC,
}
DNS_ENDPOINT = {
    "host": "https://${google_container_cluster.c.control_plane_endpoints_config[0].dns_endpoint_config[0].endpoint}",
    "exec": EXEC,
}


def load_tool() -> ModuleType:
    return load_script("tools/terraform/local_stack.py", "local_stack")


def stack(helm_connection: Any, **extra_resources: dict[str, Any]) -> dict[str, Any]:
    return {
        "terraform": {
            "backend": {"gcs": {"bucket": "acme-tf-state"}},
            "required_providers": {
                "google": {"source": "hashicorp/google", "version": "8.7.0"},
                "kubernetes": {"source": "hashicorp/kubernetes", "version": "3.2.1"},
                "helm": {"source": "hashicorp/helm", "version": "3.1.1"},
            },
        },
        "provider": {
            "google": [{"project": "acme-ml"}],
            "kubernetes": [{**DNS_ENDPOINT, "ignore_labels": ["cloud.google.com/.*"]}],
            "helm": [{"kubernetes": helm_connection, "burst_limit": 200},
                     {"alias": "b", "kubernetes": helm_connection}],
        },
        "resource": {
            "google_container_cluster": {"c": {"name": "acme"}},
            "google_container_node_pool": {"system": {"cluster": "${google_container_cluster.c.name}"}},
            "kubernetes_namespace_v1": {"team": {"metadata": {"name": "nlp"},
                                                 "depends_on": ["google_container_node_pool.system"]}},
            "helm_release": {
                "kueue": {"name": "kueue", "namespace": "kueue-system", "repository": "oci://registry.k8s.io/kueue/charts",
                          "chart": "kueue", "version": "0.17.0", "atomic": True, "wait": True, "provider": "helm",
                          "depends_on": ["google_container_cluster.c", "google_container_node_pool.system"]},
                "queues": {"name": "gke-accel-queues", "namespace": "kueue-system", "chart": "assets/queues-chart/ab12",
                           "provider": "helm.b", "values": ["ns: ${kubernetes_namespace_v1.team.metadata[0].name}"],
                           "depends_on": ["helm_release.kueue", "kubernetes_namespace_v1.team"]},
            },
            **extra_resources,
        },
        "output": {"endpoint": {"value": "${google_container_cluster.c.endpoint}"}},
    }  # fmt: skip


@pytest.mark.parametrize(
    "connection",
    [IP_ENDPOINT, DNS_ENDPOINT, [IP_ENDPOINT]],
    ids=["ip-endpoint-with-ca", "dns-endpoint", "helm-2.x-block-list"],
)
def test_provider_blocks_point_at_the_kubeconfig_whatever_endpoint_the_stack_uses(connection: Any) -> None:
    config, report = load_tool().in_cluster_part(stack(connection), KUBECONFIG, VERSIONS)
    assert config["provider"] == {
        "kubernetes": [{"ignore_labels": ["cloud.google.com/.*"], "config_path": "/state/admin.kubeconfig"}],
        "helm": [
            {"burst_limit": 200, "kubernetes": {"config_path": "/state/admin.kubeconfig"}},
            {"alias": "b", "kubernetes": {"config_path": "/state/admin.kubeconfig"}},
        ],
    }
    assert config["terraform"] == {"required_providers": {
        "helm": {"source": "hashicorp/helm", "version": "3.2.0"},
        "kubernetes": {"source": "hashicorp/kubernetes", "version": "3.2.1"},
    }}  # fmt: skip
    assert report["pinned"] == {"helm": "3.1.1", "kubernetes": "3.2.1"}
    assert "${google_" not in json.dumps(config)  # nothing of the GKE half is left


def test_only_the_in_cluster_resources_are_kept_and_their_order_among_themselves() -> None:
    config, report = load_tool().in_cluster_part(stack(DNS_ENDPOINT), KUBECONFIG, VERSIONS)
    resources = config["resource"]
    assert sorted(resources) == ["helm_release", "kubernetes_namespace_v1"]
    assert resources["helm_release"]["queues"]["depends_on"] == ["helm_release.kueue", "kubernetes_namespace_v1.team"]
    assert "depends_on" not in resources["helm_release"]["kueue"]
    assert "depends_on" not in resources["kubernetes_namespace_v1"]["team"]
    assert resources["helm_release"]["queues"]["provider"] == "helm.b"  # aliases still chosen per release
    assert sorted(report["dropped_depends_on"]) == [
        "helm_release.kueue -> google_container_cluster.c",
        "helm_release.kueue -> google_container_node_pool.system",
        "kubernetes_namespace_v1.team -> google_container_node_pool.system",
    ]
    assert sorted(report["left_out"]) == ["google_container_cluster.c", "google_container_node_pool.system"]


def test_a_pinned_chart_is_read_from_a_local_directory_with_its_version() -> None:
    charts = {"kueue": Path("/modules/kueue/charts/kueue")}
    config, report = load_tool().in_cluster_part(stack(DNS_ENDPOINT), KUBECONFIG, VERSIONS, charts)
    kueue = config["resource"]["helm_release"]["kueue"]
    assert kueue["chart"] == "/modules/kueue/charts/kueue" and kueue["version"] == "0.17.0"
    assert "repository" not in kueue and kueue["atomic"] is True and kueue["wait"] is True
    assert config["resource"]["helm_release"]["queues"]["chart"] == "assets/queues-chart/ab12"  # the stack's asset
    assert report["charts_replaced"] == {"kueue": "/modules/kueue/charts/kueue"}
    with pytest.raises(ValueError, match=r"does not have: \['kueue-typo'\]"):
        load_tool().in_cluster_part(stack(DNS_ENDPOINT), KUBECONFIG, VERSIONS, {"kueue-typo": Path("/x")})


def test_kubernetes_part_refuses_references_outside_it() -> None:
    """A kept resource whose arguments name a GKE resource could not be applied on its own (moved here from
    the e2e tier: it tests the harness's transformation, not the product)."""
    outside = {"kubernetes_namespace_v1": {"a": {"metadata": {"name": "${google_project.p.id}"}}}}
    bad = stack(DNS_ENDPOINT)
    bad["resource"].update(outside)
    with pytest.raises(ValueError, match=r"kubernetes_namespace_v1.a refers to \['google_project.p'\]"):
        load_tool().in_cluster_part(bad, KUBECONFIG, VERSIONS)
    values = stack(DNS_ENDPOINT)
    values["resource"]["helm_release"]["queues"]["values"] = ["sa: ${google_service_account.kueue.email}"]
    with pytest.raises(ValueError, match=r"helm_release.queues refers to \['google_service_account.kueue'\]"):
        load_tool().in_cluster_part(values, KUBECONFIG, VERSIONS)
    setting = stack({**DNS_ENDPOINT})
    setting["provider"]["helm"][0]["registries"] = [{"url": "oci://x", "password": "${google_secret.s.data}"}]
    with pytest.raises(ValueError, match=r"google_secret\.s"):
        load_tool().in_cluster_part(setting, KUBECONFIG, VERSIONS)


def test_the_written_configuration_carries_the_generated_charts(tmp_path: Path) -> None:
    tool = load_tool()
    stack_dir = tmp_path / "stacks" / "dev"
    (stack_dir / "assets" / "queues-chart" / "ab12" / "templates").mkdir(parents=True)
    (stack_dir / "assets" / "queues-chart" / "ab12" / "Chart.yaml").write_text("name: gke-accel-queues\n")
    (stack_dir / "cdk.tf.json").write_text(json.dumps(stack(DNS_ENDPOINT)))
    assert tool.main([str(stack_dir), str(KUBECONFIG), str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "assets" / "queues-chart" / "ab12" / "Chart.yaml").exists()
    written = json.loads((tmp_path / "out" / "main.tf.json").read_text())
    assert sorted(written["resource"]) == ["helm_release", "kubernetes_namespace_v1"]
    assert "backend" not in written["terraform"]  # local state in the output folder


def test_every_shipped_stacks_in_cluster_half_is_kept_whole(shipped: dict[str, dict[str, Any]]) -> None:
    """Each shipped environment: every kubernetes_* resource and helm_release, nothing else, no reference to
    the GKE half, and one kubeconfig for every provider block."""
    for env, doc in shipped.items():
        config, _ = load_tool().in_cluster_part(doc, KUBECONFIG, VERSIONS)
        wanted = {f"{t}.{n}" for t, named in doc["resource"].items()
                  if t.startswith("kubernetes_") or t == "helm_release" for n in named}  # fmt: skip
        assert {f"{t}.{n}" for t, named in config["resource"].items() for n in named} == wanted, env
        assert any(a.startswith("helm_release.") for a in wanted), f"{env} installs no helm release"
        assert "${google_" not in json.dumps(config), env
        for blocks in config["provider"].values():
            for block in blocks:
                connection = block.get("kubernetes", block)
                assert {k for k in connection if k in load_tool().CONNECTION} == {"config_path"}, env
