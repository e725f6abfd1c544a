"""N10: once the region is wrong, suggestions are not built from it. ``us-central-1`` (a near miss)
gets the region it resembles; the cluster's location and zones are checked against the region the
location names, so they suggest ``us-central1``'s zones, not ``us-central-1-a``."""

from __future__ import annotations

from gke_accel.model import ClusterSpec, plan_cluster
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.names import check_region


def _issues(region: str, location: str) -> list[str]:
    issues = IssueCollector()
    check_region(region, "region", issues)
    plan_cluster(ClusterSpec(name="x", location=location), region=region, issues=issues)
    return [i.render() for i in issues.issues]


def test_a_near_miss_region_suggests_the_real_one_and_nothing_derived_from_it() -> None:
    lines = _issues("us-central-1", "us-central1")
    assert lines[0] == "region: 'us-central-1' is not a region name; valid: did you mean us-central1?"
    assert not [line for line in lines if "us-central-1-" in line or "us-central-1," in line]
    assert not [line for line in lines if line.startswith("cluster.location")]  # us-central1 is right
    assert "e.g. [us-central1-a, us-central1-b]" in lines[-1]  # the zones of the location's region


def test_a_region_nothing_resembles_gets_an_example() -> None:
    assert _issues("mars", "us-central1-a")[0] == "region: 'mars' is not a region name; valid: e.g. us-central1"


def test_a_valid_region_still_checks_the_location_against_it() -> None:
    lines = _issues("us-central1", "europe-west4-a")
    assert lines == [
        "cluster.location: 'europe-west4-a' is not region us-central1 or one of its zones; "
        "valid: us-central1, us-central1-a, ..."
    ]
