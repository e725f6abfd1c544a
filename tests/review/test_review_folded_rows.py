"""N17: attribute rows a reviewer cannot act on are said in words: a dashboard's escaped JSON as its
widget count, a generated Helm chart's asset path as "chart regenerated" pointing at the Kueue queues
section; every other row keeps its values."""

from __future__ import annotations

import json

from gke_accel.review.model import AttributeChange, ResourceChange
from gke_accel.review.render_changes import attribute_table


def _dashboard(widgets: int) -> str:
    return json.dumps({"displayName": "d", "gridLayout": {"columns": "2", "widgets": [{"title": "w"}] * widgets}})


def test_dashboard_json_is_shown_as_widget_counts() -> None:
    change = ResourceChange(
        "google_monitoring_dashboard",
        "dash",
        "update",
        attributes=(AttributeChange("dashboard_json", _dashboard(5), _dashboard(6)),),
    )
    (row,) = [line for line in attribute_table([change]) if line.startswith("| `dash`")]
    assert "| 5 widgets | 6 widgets |" in row and "gridLayout" not in row


def test_a_regenerated_queue_chart_points_at_the_queues_section() -> None:
    before, after = "assets/queues_queues-chart_EA4E3175/F6B9", "assets/queues_queues-chart_EA4E3175/0CFD"
    change = ResourceChange(
        "helm_release", "queues_queues_1A2B", "update", attributes=(AttributeChange("chart", before, after),)
    )
    (row,) = [line for line in attribute_table([change]) if line.startswith("| `queues_queues_1A2B`")]
    assert "chart regenerated (Kueue objects: see **Kueue queues** above)" in row and "F6B9" not in row


def test_other_rows_keep_their_values() -> None:
    change = ResourceChange(
        "google_container_node_pool",
        "pool",
        "update",
        attributes=(AttributeChange("node_config.machine_type", "g2-standard-4", "g2-standard-8"),),
    )
    (row,) = [line for line in attribute_table([change]) if line.startswith("| `pool`")]
    assert "g2-standard-4" in row and "g2-standard-8" in row
    chart = ResourceChange("helm_release", "kueue", "update", attributes=(AttributeChange("chart", "kueue", "kueue2"),))
    assert "kueue2" in "\n".join(attribute_table([chart]))  # a chart by name, not a generated asset: as is
