"""Unit tests of the validation building blocks: value rendering, labels, N1 shapes, maintenance
windows, the node service-account id and the zone rule. Each rule: accepted and rejected cases."""

from __future__ import annotations

import re

import pytest

from gke_accel.catalog import load_catalog
from gke_accel.model.cluster.identity import node_service_account_id
from gke_accel.model.cluster.maintenance import _occurrences_per_32_days, _rrule, check_maintenance
from gke_accel.model.cluster.spec import MaintenanceExclusion, MaintenanceSpec
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.labels import check_node_labels, check_resource_labels
from gke_accel.model.core.show import show
from gke_accel.model.pools.n1_shape import N1Shape, n1_shape
from gke_accel.model.pools.zone_check import zone_verdict

CATALOG = load_catalog()


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("3x3", "'3x3'"),
        (None, "null"),
        (True, "true"),
        ([1, "a"], "[1, 'a']"),
        ({"a": [1, 2], "true": None}, "{a: [1, 2], 'true': null}"),
        ("it's", "'it''s'"),
        ("a\nb", '"a\\nb"'),
        (list(range(10**6)), "[0, 1, 2, 3, 4, 5, ... 999994 more]"),
        (10**5000, "(a 16610-bit number)"),
    ],
    ids=["text", "null", "bool", "list", "mapping", "quote", "newline", "long-list", "huge-int"],
)
def test_values_show_as_yaml(value: object, shown: str) -> None:
    assert show(value) == shown


def test_huge_values_are_cut_before_rendering() -> None:
    text = show("x" * 10_000_000)
    assert len(text) < 100 and text.endswith("... (10000000 characters)")
    assert len(show({str(i): "v" * 1000 for i in range(10_000)})) < 600


@pytest.mark.parametrize("key", ["team", "acme.example.com/role", "Team_A", "a.b-c", "x/y.Z"])
def test_node_labels_follow_kubernetes_syntax(key: str) -> None:
    issues = IssueCollector()
    check_node_labels({key: "Value.1"}, "labels", issues)
    assert issues.issues == []


@pytest.mark.parametrize(
    ("key", "value", "text"),
    [
        ("-team", "x", "not a valid Kubernetes label key"),
        ("a" * 64, "x", "not a valid Kubernetes label key"),
        ("Bad_Prefix/x", "x", "prefix that is not a DNS subdomain"),
        ("kubernetes.io/role", "x", "reserves"),
        ("node.kubernetes.io/role", "x", "reserves"),
        ("cloud.google.com/gke-spot", "x", "reserves"),
        ("gke-accel/pool", "x", "reserves"),
        ("team", "bad value", "not a valid Kubernetes label value"),
        ("team\n", "x", "not a valid Kubernetes label key"),
    ],
)
def test_node_label_mistakes(key: str, value: str, text: str) -> None:
    issues = IssueCollector()
    check_node_labels({key: value}, "labels", issues)
    assert any(text in i.render() for i in issues.issues), [i.render() for i in issues.issues]


def test_resource_labels_follow_gcp_syntax() -> None:
    ok = IssueCollector()
    check_resource_labels({"env": "dev", "cost_center": "ml-42", "empty": ""}, "labels", ok)
    assert ok.issues == []
    bad = IssueCollector()
    check_resource_labels({"Env": "dev", "team": "NLP", "a/b": "x"}, "labels", bad)
    assert [i.path for i in bad.issues] == ["labels.Env", "labels.team", "labels.a/b"]
    many = IssueCollector()
    check_resource_labels({f"k{i}": "v" for i in range(65)}, "labels", many)
    assert "at most 64" in many.issues[0].render()


@pytest.mark.parametrize(
    ("machine", "vcpu", "memory"),
    [
        ("n1-standard-1", 1, 3.75),
        ("n1-highcpu-4", 4, 3.6),
        ("n1-highmem-96", 96, 624.0),
        ("custom-4-15360", 4, 15.0),
        ("custom-1-1024", 1, 1.0),
        ("custom-2-20480-ext", 2, 20.0),
    ],
)
def test_n1_shapes(machine: str, vcpu: int, memory: float) -> None:
    assert n1_shape(machine, CATALOG.n1_shapes) == N1Shape(machine, vcpu, memory)


@pytest.mark.parametrize(
    ("machine", "text"),
    [
        ("f1-micro", "shared-core"),
        ("g1-small", "shared-core"),
        ("n1-standard-3", "not an N1 machine type"),
        ("n2-standard-4", "not an N1 machine type"),
        ("custom-3-4096", "even number"),
        ("custom-4-1000", "multiple of 256"),
        ("custom-4-30720", "4 vCPUs take 3688 to 26624 MB"),
        ("n1-standard-4\n", "not an N1 machine type"),
    ],
)
def test_n1_shape_mistakes(machine: str, text: str) -> None:
    problem = n1_shape(machine, CATALOG.n1_shapes)
    assert isinstance(problem, str) and text in problem


@pytest.mark.parametrize("length", range(1, 41))
def test_node_service_account_id_is_valid_for_every_cluster_name_length(length: int) -> None:
    dashes = "a" + "-" * (length - 2) + "b" if length > 1 else "a"
    for name in ("a" * length, ("a-" * 20)[:length].rstrip("-") or "a", dashes):
        account = node_service_account_id(name)
        assert re.fullmatch(r"[a-z][-a-z0-9]{4,28}[a-z0-9]", account), (name, account)
    assert node_service_account_id("ml-dev") == "ml-dev-nodes"
    long_a, long_b = "x" * 30 + "-alpha", "x" * 30 + "-bravo"
    assert node_service_account_id(long_a) != node_service_account_id(long_b)


def _maintenance(**changes: object) -> list[str]:
    issues = IssueCollector()
    check_maintenance(MaintenanceSpec(**changes), issues)  # type: ignore[arg-type]
    return [i.render() for i in issues.issues]


def test_default_maintenance_window_is_valid() -> None:
    assert _maintenance() == []


@pytest.mark.parametrize(
    ("changes", "text"),
    [
        ({"start_time": "2025-01-04T03:00:00"}, "has no time zone offset"),
        ({"end_time": "2025-01-04 11:00:00"}, "has no time zone offset"),
        ({"start_time": "2025-01-04"}, "is not an RFC 3339 time"),
        ({"start_time": "2025-13-04T03:00:00Z"}, "is not a valid date and time"),
        ({"end_time": "2025-01-04T02:00:00Z"}, "must be after start_time"),
        ({"end_time": "2025-01-04T05:00:00Z"}, "GKE counts only windows of at least 4 hours"),
        ({"recurrence": "FREQ=WEEKLY;BYDAY=SA"}, "allows 32 hours of maintenance in some 32 days"),
        ({"recurrence": "FREQ=MONTHLY;BYMONTHDAY=1"}, "GKE requires at least 48"),
        ({"recurrence": "every sunday"}, "is not an RFC 5545 RRULE"),
        (
            {"exclusions": (MaintenanceExclusion("x", "2025-12-20T00:00:00", "2025-12-21T00:00:00Z"),)},
            "has no time zone offset",
        ),
    ],
)
def test_maintenance_mistakes(changes: dict[str, object], text: str) -> None:
    found = _maintenance(**changes)
    assert any(text in f for f in found), found


@pytest.mark.parametrize(
    "changes",
    [
        {
            "start_time": "2025-01-04T03:00:00+01:00",
            "end_time": "2025-01-04T07:00:00+01:00",
            "recurrence": "FREQ=WEEKLY;BYDAY=MO,TU,WE",
        },
        {"end_time": "2025-01-04T15:00:00Z", "recurrence": "FREQ=WEEKLY;BYDAY=SA"},
        {"end_time": "2025-01-04T07:00:00Z", "recurrence": "FREQ=DAILY"},
        {"start_time": "2025-01-04T03:00:00.123456789Z"},
        {"end_time": "2025-01-06T03:00:00Z", "recurrence": "FREQ=MONTHLY;BYMONTHDAY=1"},
    ],
)
def test_maintenance_windows_gke_accepts(changes: dict[str, object]) -> None:
    assert _maintenance(**changes) == []


def test_occurrences_in_the_worst_32_days() -> None:
    def count(rule: str) -> int | None:
        parsed = _rrule(rule)
        assert parsed is not None
        return _occurrences_per_32_days(parsed)

    assert count("FREQ=DAILY") == 32
    assert count("FREQ=WEEKLY;BYDAY=SA,SU") == 8
    assert count("FREQ=WEEKLY;BYDAY=MO") == 4
    assert count("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO") == 2
    assert count("FREQ=HOURLY") is None


@pytest.mark.parametrize(
    ("kind", "accelerator", "zone", "level", "text"),
    [
        ("tpu", "v5e", "us-central1-a", "ok", ""),
        ("tpu", "v6e", "europe-west4-a", "ok", ""),
        ("tpu", "v4", "us-central2-b", "ok", ""),
        ("tpu", "v5e", "us-east4-b", "ok", ""),
        ("tpu", "v6e", "us-east4-b", "warn", "older copy of the TPU page"),
        ("tpu", "v6e", "asia-east1-c", "warn", "without a price"),
        ("tpu", "tpu7x", "us-central1-ai1a", "ok", ""),
        ("tpu", "v5e", "us-central1-ai1a", "warn", "documented AI zone where no source lists"),
        ("tpu", "v6e", "us-east7-ai1b", "warn", "not a documented AI zone"),
        ("tpu", "v5e", "us-central1-f", "error", "no source lists it there"),
        ("tpu", "v5e", "europe-west9-a", "error", "no source lists it there"),
        ("tpu", "v6e", "mars-north1-a", "warn", "not in the zone data"),
        ("gpu", "nvidia-l4", "us-central1-a", "ok", ""),
        ("gpu", "nvidia-l4", "us-west1-c", "warn", "newer regions page does not"),
        ("gpu", "nvidia-h100-80gb", "europe-west2-b", "warn", "A3 Edge"),
        ("gpu", "nvidia-h100-80gb", "europe-west8-c", "warn", "no -8g"),
        ("gpu", "nvidia-l4", "africa-south1-a", "error", "no source lists it there"),
        ("gpu", "nvidia-l4", "us-central2-b", "warn", "not in the zone data"),
        ("gpu", "nvidia-l4", "us-south1-ai1b", "warn", "no source lists GPUs per AI zone"),
        ("gpu", "nvidia-tesla-t4", "me-west1-b", "ok", ""),
    ],
)
def test_zone_rule(kind: str, accelerator: str, zone: str, level: str, text: str) -> None:
    verdict = zone_verdict(CATALOG.zones, kind, accelerator, zone, accelerator)  # type: ignore[arg-type]
    assert verdict.level == level
    assert text in verdict.reason
