"""The review calls out a capacity-ladder rung removed, added or the rungs reordered (review/ladder.py):
scenarios on two config folders synthesized with the code loaded now, as ``gke-accel review`` does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gke_accel.review.compare import review_config_dirs
from gke_accel.review.model import Review
from gke_accel.review.render import to_markdown
from helpers import to_yaml
from ladder_config import ladder_config


def review(tmp_path: Path, base: dict[str, Any], head: dict[str, Any]) -> Review:
    for side, data in (("base-config", base), ("head-config", head)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "test.yaml").write_text(to_yaml(data))
    return review_config_dirs(tmp_path / "base-config", tmp_path / "head-config", tmp_path)


def test_a_removed_rung_and_a_reorder_are_called_out(tmp_path: Path) -> None:
    base = ladder_config(["reservation/r-ml-1", "on-demand", "flex-start", "spot"])
    head = ladder_config(["on-demand", "reservation/r-ml-1", "spot"])
    r = review(tmp_path, base, head)
    md = to_markdown(r)
    assert "**Capacity ladders**" in md
    assert "rung `flex-start` removed" in md
    assert "reservation/r-ml-1 → on-demand → spot becomes on-demand → reservation/r-ml-1 → spot" in md
    assert "admitted on `on-demand` first" in md
    # the pool that left the ladder loses the class label and taint: a change of that node pool
    pools = {c.name for c in r.stacks[0].changes if c.rtype == "google_container_node_pool"}
    assert "v5e-flex" in pools


def test_an_unchanged_ladder_says_nothing(tmp_path: Path) -> None:
    r = review(tmp_path, ladder_config(), ladder_config())
    assert "Capacity ladders" not in to_markdown(r)
    assert r.stacks[0].before is not None
    assert r.stacks[0].before.ladders == {"v5e-2x4": ("reservation/r-ml-1", "on-demand", "spot")}
