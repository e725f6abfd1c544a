"""Guard rails: every environment, production environments, and state locations across files.
Each rule has an accepted and a rejected case."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gke_accel.model import ConfigError
from gke_accel.model.environment.config_files import load_environments
from helpers import Rule, assert_rule_accepts, assert_rule_rejects, base_config, set_path

PROD = {
    "production": True,
    "backend": {"type": "gcs", "bucket": "acme-tfstate", "prefix": "gke-accel/test"},
    "cluster.binary_authorization": {"mode": "enforce"},
    "cluster.deletion_protection": True,
}
KEY = "projects/acme-ml-test/locations/us-central1/keyRings/ring/cryptoKeys/secrets"

RULES = [
    Rule(
        "whole-internet-authorized",
        "cluster.master_authorized_networks[0].cidr",
        "10.0.0.0/8",
        "0.0.0.0/0",
        "cluster.master_authorized_networks[0].cidr",
        "whole internet",
    ),
    Rule(  # D10: a set of ranges that together are the whole IPv4 internet, outside production too
        "split-internet-authorized",
        "cluster.master_authorized_networks",
        [{"cidr": "10.0.0.0/8", "name": "corp"}, {"cidr": "203.0.114.0/24", "name": "office"}],
        [{"cidr": "0.0.0.0/1", "name": "a"}, {"cidr": "128.0.0.0/1", "name": "b"}],
        "cluster.master_authorized_networks",
        "together open the control plane to the whole internet",
    ),
    Rule(  # D10: the documented bound for one public range (docs/security.md)
        "wide-public-authorized",
        "cluster.master_authorized_networks[0].cidr",
        "34.120.0.0/16",
        "34.0.0.0/8",
        "cluster.master_authorized_networks[0].cidr",
        "is a public range wider than /16",
    ),
    Rule(  # D10: many small public ranges add up past the bound
        "many-public-authorized",
        "cluster.master_authorized_networks",
        [{"cidr": f"34.{i}.0.0/17", "name": f"n{i}"} for i in range(2)],
        [{"cidr": f"34.{i}.0.0/17", "name": f"n{i}"} for i in range(3)],
        "cluster.master_authorized_networks",
        "together open the control plane to 98,304 public addresses",
    ),
    Rule(  # D2: Terraform's gcs backend cleans the prefix with Go's path.Join
        "prefix-dot-dot",
        "backend",
        {"type": "gcs", "bucket": "acme-tfstate", "prefix": "/gke-accel/test/"},
        {"type": "gcs", "bucket": "acme-tfstate", "prefix": "../../x"},
        "backend.prefix",
        "a '..' segment",
    ),
    Rule(
        "prefix-empty-segment",
        "backend",
        {"type": "gcs", "bucket": "acme-tfstate", "prefix": "gke-accel/test"},
        {"type": "gcs", "bucket": "acme-tfstate", "prefix": "gke-accel//test"},
        "backend.prefix",
        "an empty segment ('//')",
    ),
    Rule(
        "prefix-on-local-backend",
        "backend",
        {"type": "local"},
        {"type": "local", "prefix": "gke-accel/test"},
        "backend.prefix",
        "only used with type 'gcs'",
    ),
    Rule(
        "prod-public-authorized",
        "cluster.master_authorized_networks[0].cidr",
        "192.168.0.0/16",
        "34.120.0.0/24",
        "cluster.master_authorized_networks[0].cidr",
        "private ranges only",
        setup=PROD,
    ),
    Rule(
        "prod-public-superset",
        "cluster.master_authorized_networks[0].cidr",
        "10.0.0.0/8",
        "10.0.0.0/7",
        "cluster.master_authorized_networks[0].cidr",
        "public range",
        setup=PROD,
    ),
    Rule(
        "prod-needs-remote-state",
        "backend",
        {"type": "gcs", "bucket": "acme-tfstate"},
        {"type": "local"},
        "backend.type",
        "production environment on one machine",
        setup=PROD,
    ),
    Rule(
        "prod-deletion-protection-off-needs-reason",
        "cluster.deletion_protection_reason",
        "decommissioning ml-prod, approved by CAB-1234, until 2027-01-31",
        None,
        "cluster.deletion_protection",
        "without a reason",
        setup={**PROD, "cluster.deletion_protection": False},
    ),
    Rule(
        "reason-only-when-off",
        "cluster.deletion_protection",
        False,
        True,
        "cluster.deletion_protection_reason",
        "only used to turn deletion protection off",
        setup={"cluster.deletion_protection_reason": "testing the teardown of this env"},
    ),
    Rule(
        "prod-secrets-encryption-on",
        "cluster.secrets_encryption.mode",
        "create",
        "off",
        "cluster.secrets_encryption.mode",
        "not allowed in a production environment",
        setup=PROD,
    ),
    Rule(
        "kms-key-name",
        "cluster.secrets_encryption",
        {"mode": "key", "key": KEY},
        {"mode": "key", "key": "my-key"},
        "cluster.secrets_encryption.key",
        "not a Cloud KMS key name",
    ),
    Rule(
        "kms-key-region",
        "cluster.secrets_encryption",
        {"mode": "key", "key": KEY},
        {"mode": "key", "key": KEY.replace("us-central1", "europe-west4")},
        "cluster.secrets_encryption.key",
        "GKE needs the key in the cluster's region",
    ),
    Rule(
        "kms-rotation",
        "cluster.secrets_encryption.rotation_days",
        30,
        365,
        "cluster.secrets_encryption.rotation_days",
        "out of range",
    ),
    Rule(
        "prod-binauthz-explicit",
        "cluster.binary_authorization",
        {"mode": "audit"},
        {},
        "cluster.binary_authorization.mode",
        "must be set explicitly",
        setup=PROD,
    ),
    Rule(
        "prod-binauthz-not-disabled",
        "cluster.binary_authorization",
        {"mode": "enforce"},
        {"mode": "disabled"},
        "cluster.binary_authorization.mode",
        "not disabled",
        setup=PROD,
    ),
    Rule(
        "binauthz-pattern",
        "cluster.binary_authorization.allowed_images",
        ["us-docker.pkg.dev/acme/images/*"],
        ["*"],
        "cluster.binary_authorization.allowed_images[0]",
        "would allow every image",
    ),
    Rule(
        "team-pod-security-level",
        "teams",
        [{"name": "a", "google_group": "a@acme.example.com", "pod_security": "baseline"}],
        [{"name": "a", "google_group": "a@acme.example.com", "pod_security": "privileged"}],
        "teams[0].pod_security",
        "privileged",
    ),
]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_accepts_good_value(rule: Rule) -> None:
    assert_rule_accepts(rule)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_rejects_bad_value(rule: Rule) -> None:
    assert_rule_rejects(rule)


def _write(folder: Path, name: str, backend: dict[str, str], cluster: str | None = None) -> None:
    data = set_path(set_path(base_config(), "environment", name), "backend", backend)
    data = set_path(data, "cluster.name", cluster or f"ml-{name}")  # each environment its own cluster
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(data))


def test_two_environments_with_one_state_location_are_refused_even_when_one_is_loaded(tmp_path: Path) -> None:
    _write(tmp_path, "staging", {"type": "gcs", "bucket": "tfstate", "prefix": "envs/shared"})
    _write(tmp_path, "prod", {"type": "gcs", "bucket": "tfstate", "prefix": "envs/shared/"})
    with pytest.raises(ConfigError) as info:
        load_environments(tmp_path, ["staging"])
    text = info.value.render()
    assert "staging.yaml: backend" in text and "also the state of prod" in text and "destroy" in text


def test_the_default_prefix_counts_as_a_state_location(tmp_path: Path) -> None:
    _write(tmp_path, "staging", {"type": "gcs", "bucket": "tfstate", "prefix": "gke-accel/prod"})
    _write(tmp_path, "prod", {"type": "gcs", "bucket": "tfstate"})
    with pytest.raises(ConfigError, match="also the state of"):
        load_environments(tmp_path)


@pytest.mark.parametrize(
    "prefix", ["gke-accel//prod", "./gke-accel/prod", "gke-accel/prod/../prod", "/gke-accel/prod/"]
)
def test_a_prefix_terraform_cleans_into_another_environments_state_is_a_shared_state(
    tmp_path: Path, prefix: str
) -> None:
    # Terraform names the object path.Join(prefix, "default.tfstate"): all four are gke-accel/prod/default.tfstate
    _write(tmp_path, "staging", {"type": "gcs", "bucket": "tfstate", "prefix": prefix})
    _write(tmp_path, "prod", {"type": "gcs", "bucket": "tfstate", "prefix": "gke-accel/prod"})
    with pytest.raises(ConfigError) as info:
        load_environments(tmp_path, ["prod"])
    assert "prod.yaml: backend" in info.value.render() and "also the state of staging" in info.value.render()


def test_a_copied_environment_that_keeps_the_project_and_cluster_is_refused(tmp_path: Path) -> None:
    # copying dev.yaml to qa.yaml and changing only `environment:` validated clean
    _write(tmp_path, "dev", {"type": "local"}, cluster="ml-shared")
    _write(tmp_path, "qa", {"type": "local"}, cluster="ml-shared")
    with pytest.raises(ConfigError) as info:
        load_environments(tmp_path, ["qa"])
    text = info.value.render()
    assert "qa.yaml: cluster.name" in text
    assert "'ml-shared' in project 'acme-ml-test' is also the cluster of dev" in text
    _write(tmp_path, "qa", {"type": "local"}, cluster="ml-qa")
    assert [p.name for p in load_environments(tmp_path)] == ["dev", "qa"]


def test_distinct_state_locations_load(tmp_path: Path) -> None:
    _write(tmp_path, "staging", {"type": "gcs", "bucket": "tfstate", "prefix": "gke-accel/staging"})
    _write(tmp_path, "prod", {"type": "gcs", "bucket": "tfstate", "prefix": "gke-accel/prod"})
    _write(tmp_path, "dev", {"type": "local"})
    assert [p.name for p in load_environments(tmp_path)] == ["dev", "prod", "staging"]


def test_shipped_prod_is_a_guarded_production_environment() -> None:
    (prod,) = load_environments(Path(__file__).resolve().parents[2] / "config", ["prod"])
    assert prod.spec.production and prod.prevent_destroy
    assert prod.binary_authorization_mode == "enforce"


def test_plan_review_quotes_the_reason_for_turning_deletion_protection_off() -> None:
    from gke_accel.review.diff import diff_stack
    from gke_accel.review.safety import safety_items

    def doc(body: dict[str, object]) -> dict[str, object]:
        return {"resource": {"google_container_cluster": {"c": {"name": "ml", **body}}}}

    before = doc({"deletion_protection": True})
    after = doc({"deletion_protection": False, "//": {"deletion_protection_reason": "decommission, CAB-1234"}})
    (item,) = safety_items(diff_stack(before, after), [], before, after)
    assert item.subject.endswith("reason given: decommission, CAB-1234")
