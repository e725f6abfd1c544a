"""Markdown and JSON of a review built by hand: order, folding, plain "no changes"."""

from __future__ import annotations

import json

from gke_accel.review.model import (
    AttributeChange,
    CapacityLine,
    EnvironmentFacts,
    ResourceChange,
    Review,
    StackReview,
)
from gke_accel.review.render import MARKER, summary_lines, to_json, to_markdown

POOL = "google_container_node_pool"


def mixed_review() -> Review:
    changes = [
        ResourceChange("google_monitoring_alert_policy", "gpu_idle", "update", "", (AttributeChange("x", 5, 10),)),
        ResourceChange("google_compute_network", "vpc", "create", "vpc"),
        ResourceChange(
            POOL, "h100", "replace", "h100", (AttributeChange("node_config.spot", False, True, "force_new"),), True
        ),
        ResourceChange(POOL, "t4", "delete", "t4", accelerator_pool=True),
    ]
    before = EnvironmentFacts(
        (CapacityLine("nvidia.com/gpu", "nvidia-h100-80gb", 0, 16, 16, {"llm": 16}, False),),
        True,
        {"total_monthly_min": 100.0, "total_monthly_max": 1000.0, "source_date": "2026-07-30", "pools": []},
    )
    after = EnvironmentFacts(
        (CapacityLine("nvidia.com/gpu", "nvidia-h100-80gb", 0, 8, 16, {"llm": 16}, True),),
        True,
        {"total_monthly_min": 100.0, "total_monthly_max": 600.0, "source_date": "2026-07-30", "pools": []},
    )
    return Review(
        "main",
        "abc",
        [StackReview("prod", "changed", changes, before, after), StackReview("dev", "unchanged")],
    )


def test_destructive_first_then_adds_then_in_place() -> None:
    markdown = to_markdown(mixed_review())
    assert markdown.startswith(MARKER)
    positions = [markdown.index(s) for s in ("**Destructive**", "**Added**", "**Changed in place**")]
    assert positions == sorted(positions)
    destructive = markdown.split("**Destructive**")[1].split("**Added**")[0]
    assert destructive.index("**destroy**") < destructive.index("**replace**")
    assert "<details><summary>Attribute changes (2)</summary>" in markdown
    assert "> [!CAUTION]" in markdown


def test_capacity_quota_and_cost_before_after() -> None:
    markdown = to_markdown(mixed_review())
    assert "| nvidia-h100-80gb | nvidia.com/gpu | 0-16 | 0-8 **changed** |" in markdown
    assert "team quotas total 16 exceed the pools' maximum 8 (new in this change)" in markdown
    assert "| at max size | $1,000 | $600 | -$400 |" in markdown


def test_summary_lines_state_no_changes_plainly() -> None:
    assert summary_lines(mixed_review()) == [
        "prod: 1 to replace, 1 to destroy, 1 to add, 1 to change in place (2 destructive)",
        "dev: no changes",
    ]
    empty = Review("main", "abc", [StackReview("dev", "unchanged")])
    assert "**No changes.**" in to_markdown(empty)


def test_json_has_the_same_content() -> None:
    data = json.loads(to_json(mixed_review(), fail_on_destroy=True))
    assert data["exit_code"] == 3 and data["destructive"] == 2
    prod = data["stacks"][0]
    assert prod["counts"] == {"replace": 1, "delete": 1, "create": 1, "update": 1}
    assert [c["action"] for c in prod["changes"]] == ["delete", "replace", "create", "update"]
    assert prod["changes"][1]["forced_by"] == ["node_config.spot"]
    assert prod["after"]["capacity"][0]["over_committed"] is True
