"""review calls out a change that removes a maintenance exclusion or puts a training pool on a rolling
surge (review/lifecycle.py): two configs reviewed end to end, the Safety section's text pinned."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from lifecycle_configs import production_roles

from gke_accel.review.compare import review_config_dirs
from gke_accel.review.model import Review
from gke_accel.review.render import to_markdown
from helpers import to_yaml


def review(tmp_path: Path, base: dict[str, Any], head: dict[str, Any]) -> Review:
    for side, data in (("base-config", base), ("head-config", head)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "test.yaml").write_text(to_yaml(data))
    return review_config_dirs(tmp_path / "base-config", tmp_path / "head-config", tmp_path)


def kinds(r: Review) -> list[str]:
    return [item.kind for _, item in r.safety]


def test_dropping_the_training_role_removes_the_exclusion_and_is_called_out(tmp_path: Path) -> None:
    base = production_roles()
    head = copy.deepcopy(base)
    head["tpu_pools"][0]["role"] = "batch"  # the only training pool: no exclusion any more
    r = review(tmp_path, base, head)
    assert "exclusion-removed" in kinds(r)
    text = to_markdown(r)
    assert "maintenance exclusion `gke-accel-training` (NO_MINOR_OR_NODE_UPGRADES)" in text
    assert r.exit_code(fail_on_destroy=True) != 0


def test_switching_a_training_pool_to_surge_is_called_out(tmp_path: Path) -> None:
    base = production_roles()
    head = copy.deepcopy(base)
    head["gpu_pools"][1]["role"] = "training"
    # host maintenance kept: changing it replaces the pool (ForceNew), another safety item
    head["gpu_pools"][1]["lifecycle"].update(
        {"upgrade": "surge", "max_surge": 1, "max_unavailable": 0, "protect": True}
    )
    r = review(tmp_path, base, head)
    assert kinds(r) == ["training-pool-surge"]
    assert "training pool `sweep` now upgrades by rolling surge" in to_markdown(r)


def test_a_training_pool_kept_on_whole_pool_upgrades_is_not_called_out(tmp_path: Path) -> None:
    base = production_roles()
    head = copy.deepcopy(base)
    head["gpu_pools"][1]["role"] = "training"
    head["gpu_pools"][1]["lifecycle"].update({"max_surge": 0, "max_unavailable": 2})
    head["cluster"]["maintenance"]["disruption_budget"]["patch_interval_hours"] = 96
    r = review(tmp_path, base, head)
    assert "training-pool-surge" not in kinds(r) and "exclusion-removed" not in kinds(r)
