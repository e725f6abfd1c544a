"""Deploy needs from the model alone (no jsii): control-plane reachability rule, the APIs and roles
an environment needs, where controllers run, and props from Python checked like YAML."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gke_accel.cli.main import main
from gke_accel.model import ClusterSpec, ConfigError, TpuPoolSpec, load_environment_text
from gke_accel.model.cluster.controllers import controller_placement
from gke_accel.model.core.props import validated_props
from gke_accel.model.environment.deploy_needs import deployer_roles, required_services
from gke_accel.model.pools.node_shape import node_shape
from helpers import Rule, assert_rule_accepts, assert_rule_rejects, base_config, set_path, to_yaml

ROOT = Path(__file__).resolve().parents[2]
IP = {"cluster.control_plane_access": "ip"}

REACHABILITY = [
    Rule(
        "deployer-inside-authorized",
        "cluster.deployer_cidr",
        "10.8.0.0/24",
        "35.190.0.0/24",
        "cluster.deployer_cidr",
        "is not inside cluster.master_authorized_networks (10.0.0.0/8)",
        IP,
    ),
    Rule(
        "deployer-required-with-ip",
        "cluster.deployer_cidr",
        "10.0.0.0/8",
        None,
        "cluster.deployer_cidr",
        "is required with control_plane_access: ip",
        IP,
    ),
    Rule(
        "deployer-valid-cidr",
        "cluster.deployer_cidr",
        "10.1.0.0/16",
        "10.1.0.1/16",
        "cluster.deployer_cidr",
        "is not a valid CIDR range",
        IP,
    ),
    Rule(
        "deployer-only-with-ip",
        "cluster.control_plane_access",
        "ip",
        "dns",
        "cluster.deployer_cidr",
        "is only used with control_plane_access: ip",
        {"cluster.deployer_cidr": "10.8.0.0/24"},
    ),
    Rule(
        "deployer-private-for-private-endpoint",
        "cluster.deployer_cidr",
        "10.8.0.0/24",
        "35.190.0.0/24",
        "cluster.deployer_cidr",
        "is a public range but the control plane has only a private endpoint",
        {
            **IP,
            "cluster.private_endpoint": True,
            "cluster.master_authorized_networks": [
                {"cidr": "10.0.0.0/8", "name": "corp"},
                {"cidr": "35.190.0.0/24", "name": "office"},
            ],
        },
    ),
    Rule(
        "control-plane-access-choice",
        "cluster.control_plane_access",
        "dns",
        "vpn",
        "cluster.control_plane_access",
        "is not a valid choice",
    ),
]


@pytest.mark.parametrize("rule", REACHABILITY, ids=[r.id for r in REACHABILITY])
def test_reachability_rule_accepts(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", REACHABILITY, ids=[r.id for r in REACHABILITY])
def test_reachability_rule_rejects(rule: Rule) -> None:
    assert_rule_rejects(rule)


def test_shipped_configs_reach_the_control_plane_through_the_dns_endpoint() -> None:
    for env in ("dev", "staging", "prod"):
        plan = load_environment_text((ROOT / "config" / f"{env}.yaml").read_text())
        assert plan.cluster.spec.control_plane_access == "dns"


def _plan(**changes: object):  # type: ignore[no-untyped-def]
    data = base_config()
    for path, value in changes.items():
        data = set_path(data, path.replace("__", "."), value)
    return load_environment_text(to_yaml(data))


def test_services_follow_what_the_environment_uses() -> None:
    names = {s.name for s in required_services(_plan())}
    assert {"container.googleapis.com", "compute.googleapis.com", "storage.googleapis.com"} <= names
    assert "cloudquotas.googleapis.com" not in names and "billingbudgets.googleapis.com" not in names
    budget = {"amount_usd": 100, "billing_account": "01A2B3-C4D5E6-F7A8B9"}
    contact = {"quota_contact": "ml@acme.example.com"}
    more = {s.name for s in required_services(_plan(quota_preferences=True, budget=budget, monitoring=contact))}
    assert more - names == {"cloudquotas.googleapis.com", "billingbudgets.googleapis.com"}
    fewer = {s.name for s in required_services(_plan(platform__checkpoints={"enabled": False}))}
    assert names - fewer == {"storage.googleapis.com"}


def test_roles_follow_what_the_environment_uses() -> None:
    roles = {(r.role, r.scope) for r in deployer_roles(_plan())}
    assert ("roles/container.admin", "project") in roles and ("roles/compute.networkAdmin", "project") in roles
    assert not any(r.startswith("roles/billing") for r, _ in roles)
    gcs = {(r.role, r.scope) for r in deployer_roles(_plan(backend={"type": "gcs", "bucket": "acme-tf"}))}
    assert gcs - roles == {("roles/storage.objectAdmin", "bucket acme-tf")}
    existing = {"create": False, "network": "shared", "subnetwork": "shared-sub"}
    no_vpc = {r.role for r in deployer_roles(_plan(cluster__network=existing))}
    assert "roles/compute.networkAdmin" not in no_vpc and "roles/compute.securityAdmin" not in no_vpc


def test_deploy_roles_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deploy-roles", "--config-dir", str(ROOT / "config"), "--env", "prod", "--member", "group:x@y"]) == 0
    out = capsys.readouterr().out
    assert "roles/billing.costsManager" in out and "billing account 01A2B3-C4D5E6-F7A8B9" in out
    assert 'gcloud projects add-iam-policy-binding acme-ml-prod --member=group:x@y --role="$role"' in out
    assert "cloudquotas" in out and all(len(line) <= 100 for line in out.splitlines())


def test_controllers_run_on_the_system_pool() -> None:
    plan = _plan()
    placement = controller_placement(plan.cluster)
    system = node_shape(plan.cluster.system_pool)
    # the selector matches the system pool's nodes, and every taint of those nodes is tolerated
    assert placement.node_selector.items() <= system.labels.items()
    assert {(t.key, t.value, t.effect) for t in system.taints} == {
        (t["key"], t["value"], t["effect"]) for t in placement.tolerations
    }
    assert system.taints  # the pool stays tainted: team pods do not land there by accident
    for pool in plan.pools:  # ...and the selector never matches an accelerator pool
        assert not placement.node_selector.items() <= node_shape(pool).labels.items()
    assert placement.pod_spec()["tolerations"][0]["operator"] == "Equal"


def test_python_props_are_parsed_like_yaml() -> None:
    spec = validated_props(TpuPoolSpec, TpuPoolSpec("v5e", "v5e", "2x2", consumption="spot"), "tpu_pool v5e")  # type: ignore[arg-type]
    assert spec.consumption.type == "spot"
    bad = dataclasses.replace(ClusterSpec("ml", "us-central1"), release_channel="WEEKLY")  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as info:
        validated_props(ClusterSpec, bad, "cluster")
    yaml_door = set_path(base_config(), "cluster.release_channel", "WEEKLY")
    with pytest.raises(ConfigError) as yaml_info:
        load_environment_text(to_yaml(yaml_door))
    assert [i for i in info.value.issues] == [i for i in yaml_info.value.issues if i.path == "cluster.release_channel"]
