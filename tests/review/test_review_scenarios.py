"""The issue's seven scenarios, end to end: two config folders synthesized in-process and compared.

Each gives exactly the expected summary lines and exit code. Provider bindings load once per session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gke_accel.review.compare import review_config_dirs
from gke_accel.review.model import Review
from gke_accel.review.render import summary_lines, to_markdown
from helpers import base_config, set_path, to_yaml

TEAM = {"name": "nlp", "google_group": "nlp@acme.example.com", "accelerators": {"l4": 1}}


def review(tmp_path: Path, base: dict[str, Any], head: dict[str, Any]) -> Review:
    for side, data in (("base-config", base), ("head-config", head)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "test.yaml").write_text(to_yaml(data))
    return review_config_dirs(tmp_path / "base-config", tmp_path / "head-config", tmp_path)


def capacity(r: Review, side: str) -> dict[str, tuple[int, int]]:
    facts = getattr(r.stacks[0], side)
    return {c.accelerator: (c.chips_min, c.chips_max) for c in facts.capacity}


def test_no_change(tmp_path: Path) -> None:
    r = review(tmp_path, base_config(), base_config())
    assert summary_lines(r) == ["test: no changes"]
    assert r.exit_code() == 0 and r.exit_code(fail_on_destroy=True) == 0
    assert "**No changes.**" in to_markdown(r)


def test_add_a_pool(tmp_path: Path) -> None:
    t4 = {"name": "t4", "gpu": "t4", "gpus_per_node": 1, "max_nodes": 3}
    head = set_path(base_config(), "gpu_pools", [*base_config()["gpu_pools"], t4])
    r = review(tmp_path, base_config(), head)
    # the GPU alerts' and the upcoming-maintenance alert's runbooks name the pools: three change in place
    assert summary_lines(r) == ["test: 0 to replace, 0 to destroy, 1 to add, 3 to change in place"]
    assert r.exit_code(fail_on_destroy=True) == 2
    assert {c.rtype for c in r.stacks[0].changes if c.action == "update"} == {"google_monitoring_alert_policy"}
    added = next(c for c in r.stacks[0].changes if c.action == "create")
    assert (added.rtype, added.name, added.accelerator_pool) == ("google_container_node_pool", "t4", True)
    assert "nvidia-tesla-t4" not in capacity(r, "before")
    assert capacity(r, "after")["nvidia-tesla-t4"] == (0, 3)


def test_resize_a_pool(tmp_path: Path) -> None:
    head = set_path(base_config(), "gpu_pools[0].max_nodes", 4)
    r = review(tmp_path, base_config(), head)
    assert summary_lines(r) == ["test: 0 to replace, 0 to destroy, 0 to add, 1 to change in place"]
    assert r.exit_code(fail_on_destroy=True) == 2
    assert [a.path for a in r.stacks[0].changes[0].attributes] == ["autoscaling.total_max_node_count"]
    assert (capacity(r, "before")["nvidia-l4"], capacity(r, "after")["nvidia-l4"]) == ((0, 2), (0, 4))


def test_gpu_pool_machine_type_change_replaces_it(tmp_path: Path) -> None:
    # g2-standard-12 (1 L4) -> g2-standard-24 (2 L4): guest_accelerator.count is ForceNew
    head = set_path(base_config(), "gpu_pools[0].machine_type", "g2-standard-24")
    head = set_path(head, "gpu_pools[0].gpus_per_node", 2)
    r = review(tmp_path, base_config(), head)
    assert summary_lines(r) == ["test: 1 to replace, 0 to destroy, 0 to add, 0 to change in place (1 destructive)"]
    assert (r.exit_code(), r.exit_code(fail_on_destroy=True)) == (2, 3)
    change = r.stacks[0].changes[0]
    assert change.warning == "accelerator pool: the jobs on it lose their nodes"
    assert [a.path for a in change.replaced_by] == ["node_config.guest_accelerator[0].count"]
    markdown = to_markdown(r)
    assert "[!CAUTION]" in markdown and "jobs on it lose their nodes" in markdown
    assert "<details><summary>Attribute changes" in markdown


def test_tpu_topology_change_replaces_the_slice_pool(tmp_path: Path) -> None:
    head = set_path(base_config(), "tpu_pools[0].topology", "2x4")
    r = review(tmp_path, base_config(), head)
    # the slice pool and its terraform_data shape trigger (harmless) are replaced
    assert summary_lines(r) == ["test: 2 to replace, 0 to destroy, 0 to add, 0 to change in place (1 destructive)"]
    assert (r.exit_code(), r.exit_code(fail_on_destroy=True)) == (2, 3)
    change = next(c for c in r.stacks[0].changes if c.rtype == "google_container_node_pool")
    assert change.accelerator_pool
    assert "node_config.machine_type" in [a.path for a in change.replaced_by]
    assert (capacity(r, "before")["tpu-v5-lite-podslice"], capacity(r, "after")["tpu-v5-lite-podslice"]) == (
        (0, 4),
        (0, 8),
    )


def test_team_quota_change(tmp_path: Path) -> None:
    base = set_path(base_config(), "teams", [TEAM])
    head = set_path(base_config(), "teams", [{**TEAM, "accelerators": {"l4": 2}}])
    r = review(tmp_path, base, head)
    assert summary_lines(r) == ["test: 0 to replace, 0 to destroy, 0 to add, 1 to change in place"]
    assert r.exit_code(fail_on_destroy=True) == 2
    assert r.stacks[0].changes[0].rtype == "kubernetes_resource_quota_v1"
    before = {c.accelerator: c for c in r.stacks[0].before.capacity}  # type: ignore[union-attr]
    after = {c.accelerator: c for c in r.stacks[0].after.capacity}  # type: ignore[union-attr]
    assert (before["nvidia-l4"].team_quotas, after["nvidia-l4"].team_quotas) == ({"nlp": 1}, {"nlp": 2})
    assert after["nvidia-l4"].over_committed is False
    assert "**Team quotas**" in to_markdown(r)


def test_alert_threshold_change(tmp_path: Path) -> None:
    head = set_path(base_config(), "monitoring", {"thresholds": {"gpu_idle_percent": 10}})
    r = review(tmp_path, base_config(), head)
    assert summary_lines(r) == ["test: 0 to replace, 0 to destroy, 0 to add, 1 to change in place"]
    assert r.exit_code(fail_on_destroy=True) == 2
    change = r.stacks[0].changes[0]
    assert change.rtype == "google_monitoring_alert_policy"
    assert ("conditions[0].condition_threshold.threshold_value", 5, 10) in [
        (a.path, a.before, a.after) for a in change.attributes
    ]
    assert capacity(r, "before") == capacity(r, "after")
