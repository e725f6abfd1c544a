"""The review's queue replay without the twin: what counts as a change that shapes admission
(review/admission.py), the noise band and the numbers (review/replay_delta.py, values worked out by hand
below), the section's text, and when the replay runs, is skipped, or is not needed (review/replay.py,
with a stand-in for the twin). The replay on the real twin: tests/e2e/test_review_replay_twin.py."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.review import replay as replay_mod
from gke_accel.review.admission import admission_changes, admission_objects, kueue_configuration
from gke_accel.review.model import Review, StackReview
from gke_accel.review.render import to_dict, to_markdown
from gke_accel.review.render_replay import cell_text, replay_section
from gke_accel.review.replay import ReplaySection, ReplaySettings, add_replay
from gke_accel.review.replay_delta import (
    cell,
    floors,
    held_chip_hours,
    job_class,
    lost_classes,
    team_cells,
    team_numbers,
)
from gke_accel.simulate.events import Event

ROOT = Path(__file__).resolve().parents[2]
STAGING = yaml.safe_load((ROOT / "config" / "staging.yaml").read_text())


def plan(data: dict[str, Any]) -> EnvironmentPlan:
    return load_environment_text(yaml.safe_dump(data), expected_name="staging")


def edited(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = copy.deepcopy(STAGING)
    for path, value in changes.items():
        node = data
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = keys[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return data


def changed_keys(head: dict[str, Any], base: dict[str, Any] | None = None) -> list[str]:
    b, h = admission_objects(plan(base or STAGING)), admission_objects(plan(head))
    return [f"{c.key} {c.action}" for c in admission_changes(b, h)]


# ---- what shapes admission ---------------------------------------------------------------------------


def test_same_config_shapes_nothing_new() -> None:
    assert changed_keys(STAGING) == []


def test_alerts_only_shapes_nothing() -> None:
    head = edited(monitoring__alert_channels=[], monitoring__thresholds={"gpu_idle_percent": 3})
    assert changed_keys(head) == []


def test_labels_and_budget_like_fields_shape_nothing() -> None:
    assert changed_keys(edited(labels={"env": "staging", "owner": "someone-else"})) == []


def test_borrowing_limit_to_zero_changes_that_team_queue_only() -> None:
    head = edited(queues__teams__research={"borrowing_limit": {"v5e": 0}})
    # the namespace's ResourceQuota caps pods at nominal + borrowing limit too (docs/queues.md)
    assert changed_keys(head) == ["ClusterQueue /research changed", "ResourceQuota research/compute changed"]


def test_nominal_quota_changes_the_team_queue_and_its_namespace_quota() -> None:
    head = copy.deepcopy(STAGING)
    head["teams"][0]["accelerators"] = {"v5e": 8, "l4": 1}  # nlp 16 -> 8 (the pools hold 32 chips)
    head["teams"][1]["accelerators"] = {"v5e": 16}  # research 8 -> 16
    keys = changed_keys(head)
    assert "ClusterQueue /research changed" in keys
    assert "ClusterQueue /nlp changed" in keys
    assert all(k.startswith(("ClusterQueue ", "ResourceQuota research/", "ResourceQuota nlp/")) for k in keys), keys


def test_pool_size_feeding_a_flavor_is_a_change() -> None:
    head = copy.deepcopy(STAGING)
    head["tpu_pools"][1]["max_slices"] = 4  # v5e-shared: three slices -> four
    assert "Nodes of pool /v5e-shared-s3 added" in changed_keys(head)


def test_priority_values_are_a_change() -> None:
    head = copy.deepcopy(STAGING)
    head.setdefault("platform", {})["priority_classes"] = {"inference": {"name": "inference", "value": 200000}}
    keys = changed_keys(head)
    assert "PriorityClass /inference changed" in keys
    assert "WorkloadPriorityClass /inference changed" in keys


def test_a_new_team_is_a_change() -> None:
    head = copy.deepcopy(STAGING)
    head["teams"][2]["accelerators"] = {"v5e": 8, "l4": 2}  # serving gives one L4 to the new team
    head["teams"].append({"name": "vision", "google_group": "ml-vision@acme.example.com", "accelerators": {"l4": 1}})
    keys = changed_keys(head)
    assert "ClusterQueue /vision added" in keys
    assert "LocalQueue vision/team added" in keys


def test_kueue_configuration_comes_from_the_release_values() -> None:
    config = "apiVersion: config.kueue.x-k8s.io/v1beta1\nfairSharing: {enable: true}\n"
    values = yaml.safe_dump({"managerConfig": {"controllerManagerConfigYaml": config}})
    stack = {"resource": {"helm_release": {"k": {"chart": "kueue", "values": [values]}}}}
    expected = {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "fairSharing": {"enable": True}}
    assert kueue_configuration(stack) == expected
    assert kueue_configuration({"resource": {}}) is None
    other = {"resource": {"helm_release": {"k": {"chart": "kueue", "values": [values.replace("true", "false")]}}}}
    base, head = admission_objects(plan(STAGING), stack), admission_objects(plan(STAGING), other)
    assert [(c.key, c.action) for c in admission_changes(base, head)] == [("Kueue Configuration", "changed")]


# ---- noise band and numbers (hand-computed) ----------------------------------------------------------


def test_delta_outside_the_band_is_a_change() -> None:
    c = cell("wait_p95_h", (2.0, 3.0), 6.0)  # mean 2.5, delta 3.5; band max(2 x 1.0, 1.0) = 2.0
    assert (c.base_mean, c.delta, c.band, c.verdict) == (2.5, 3.5, 2.0, "higher")


def test_delta_inside_the_spread_is_no_change() -> None:
    c = cell("wait_p95_h", (2.0, 5.0), 0.0)  # mean 3.5, delta -3.5; band 2 x 3.0 = 6.0
    assert (c.delta, c.band, c.verdict) == (-3.5, 6.0, "no change")


def test_delta_inside_the_floor_is_no_change() -> None:
    c = cell("wait_p50_h", (2.0, 2.0), 2.75)  # band max(0, 1.0 h floor) = 1.0; delta 0.75
    assert (c.band, c.verdict) == (1.0, "no change")
    assert cell("wait_p50_h", (2.0, 2.0), 3.25).verdict == "higher"  # delta 1.25 > 1.0


def test_head_equal_to_base_is_no_change_in_every_cell() -> None:
    numbers = {"nlp": {"utilization": 0.8, "wait_p50_h": 1.5, "wait_p95_h": 9.0, "preempted": 2.0,
                       "borrowed_chip_h": 40.0, "lent_chip_h": 3.0}}  # fmt: skip
    cells = team_cells((numbers, numbers), numbers)
    assert {c.verdict for c in cells["nlp"].values()} == {"no change"}
    assert all(c.delta == 0 for c in cells["nlp"].values())


def test_borrowed_falling_to_zero_is_lower() -> None:
    c = cell("borrowed_chip_h", (64.0, 56.0), 0.0)  # mean 60, delta -60; band max(16, 8) = 16
    assert (c.delta, c.band, c.verdict) == (-60.0, 16.0, "lower")
    assert cell_text(c) == "60 → 0 (-60.0)"


def test_utilization_text_in_points() -> None:
    c = cell("utilization", (0.5, 0.5), 0.3)  # delta -0.2 > band 0.05
    assert cell_text(c) == "50% → 30% (-20 pts)"
    assert cell_text(cell("utilization", (0.5, 0.52), 0.49)) == "no change"  # band max(0.04, 0.05)


def test_floors_follow_the_replay_grain() -> None:
    # staging's largest job: two 8-chip slices; steps of 1 h; serving's nominal 8 v5e + 3 L4 over 8 h
    f = floors(16, 1.0, 11, 8.0)
    assert f["borrowed_chip_h"] == 32.0  # 2 x 16 chips x 1 h
    assert f["utilization"] == 32.0 / 88.0  # those chip-hours of 11 x 8 = 88 nominal chip-hours
    assert f["wait_p95_h"] == 2.0 and f["preempted"] == 1.0
    # 30-minute steps, 24 h: 16 chip-h; 16 / (11 x 24) = 6.1% of nominal; waits at their 1-h least
    f = floors(16, 0.5, 11, 24.0)
    assert (f["borrowed_chip_h"], f["wait_p50_h"]) == (16.0, 1.0)
    assert f["utilization"] == 16.0 / 264.0
    # one-GPU jobs: the least floors; 8 chip-h of a 4-GPU nominal over 24 h = 8 / 96
    assert floors(1, 0.5, 4, 24.0) == {"utilization": 8 / 96, "wait_p50_h": 1.0, "wait_p95_h": 1.0,
                                       "preempted": 1.0, "borrowed_chip_h": 8.0, "lent_chip_h": 8.0}  # fmt: skip


def test_a_one_slice_step_shift_is_no_change_at_that_grain() -> None:
    # a third replay of the same config admitted one 8-chip slice an hour earlier: +8 chip-h borrowed
    f = floors(16, 1.0, 11, 8.0)
    assert cell("borrowed_chip_h", (24.0, 24.0), 32.0, f["borrowed_chip_h"]).verdict == "no change"
    assert cell("borrowed_chip_h", (64.0, 64.0), 0.0, f["borrowed_chip_h"]).verdict == "lower"


def test_a_delta_equal_to_the_band_is_inside_it() -> None:
    # 16 of 88 nominal chip-hours: the floor and the drop are the same number, summed differently
    band = 32.0 / 88.0 / 2
    assert (
        cell("utilization", (0.9659090909090909, 0.9659090909090909), 0.7840909090909091, band).verdict == "no change"
    )


def test_held_chip_hours() -> None:
    events = [
        Event(0, "a", "nlp", "admitted", "v5e", 8),
        Event(7200, "a", "nlp", "finished"),
        Event(3600, "b", "research", "admitted", "v5e", 4),
        Event(5400, "b", "research", "evicted", detail="preempted"),
        Event(9000, "b", "research", "admitted", "v5e", 4),  # held to the horizon
    ]
    # a: 8 chips x 2 h = 16; b: 4 x 0.5 h + 4 x 0.5 h (9000 -> 10800) = 4
    assert held_chip_hours(events, horizon=10800) == {"nlp": 16.0, "research": 4.0}
    # from 1800 s: a 8 x 1.5 h = 12; b unchanged
    assert held_chip_hours(events, horizon=10800, start=1800) == {"nlp": 12.0, "research": 4.0}


def test_team_numbers_utilization_of_nominal() -> None:
    summaries = {"nlp": {"wait_p50_h": 0.5, "wait_p95_h": 2.0, "preempted": 1, "borrowed_chip_h": 10.0,
                         "lent_chip_h": 0.0}}  # fmt: skip
    nominal = {"nlp": {"v5e-2x4": 16, "l4": 1}, "serving": {"v5e-2x4": 8}}
    out = team_numbers(summaries, {"nlp": 204.0}, nominal, window_h=24.0)
    assert out["nlp"]["utilization"] == 204.0 / (17 * 24)  # 0.5
    assert out["nlp"]["utilization"] == 0.5
    assert out["serving"] == {"utilization": 0.0, "wait_p50_h": 0.0, "wait_p95_h": 0.0, "preempted": 0.0,
                              "borrowed_chip_h": 0.0, "lent_chip_h": 0.0}  # fmt: skip


def test_lost_classes() -> None:
    a = job_class("research", "v5e", 8, 2, None)
    b = job_class("research", "v5e", 8, 1, None)
    c = job_class("serving", "l4", 1, 1, "inference")
    assert a == "research: v5e 2x8 chips (default)"
    assert c == "serving: l4 1 chip (inference)"
    lost = lost_classes([a, b, c], [{a, b}, {a, b, c}], {b, c}, refused={})
    assert lost == {a: "admitted in both base replays, never in the head's"}  # c: only one base run admitted it
    assert lost_classes([a], [{a}, {a}], set(), refused={a: "gone"}) == {a: "gone"}


# ---- when the replay runs ------------------------------------------------------------------------------


def _configs(tmp: Path, head: dict[str, Any]) -> tuple[Path, Path]:
    for side, data in (("base", STAGING), ("head", head)):
        (tmp / side).mkdir()
        (tmp / side / "staging.yaml").write_text(yaml.safe_dump(data))
    return tmp / "base", tmp / "head"


def _review() -> Review:
    return Review("base", "head", stacks=[StackReview("staging", "changed")])


class FakeTwin:
    """Stands in for ``run_twin``: base numbers borrow 60 chip-hours for research, the head's none."""

    def __init__(self) -> None:
        self.calls: list[Path] = []

    def __call__(self, env: str, jobs: list[Any], config_dir: Path, deadline: float) -> dict[str, Any]:
        self.calls.append(config_dir)
        head = config_dir.name == "head"
        numbers = {
            "research": {
                "utilization": 0.9,
                "wait_p50_h": 1.0,
                "wait_p95_h": 8.0 if head else 4.0,
                "preempted": 0.0,
                "borrowed_chip_h": 0.0 if head else 60.0,
                "lent_chip_h": 0.0,
            }
        }
        events = [Event(0, j.name, j.team, "admitted", "v5e-2x4", 8) for j in jobs]
        return {"numbers": numbers, "events": events, "wall_s": 1.0, "startup_s": 0.5, "notes": []}


def test_alerts_only_runs_no_replay(tmp_path: Path) -> None:
    base, head = _configs(tmp_path, edited(monitoring__alert_channels=[]))
    review, twin = _review(), FakeTwin()
    add_replay(review, base, head, ({}, {}), ReplaySettings(hours=2), run=twin)
    assert twin.calls == []
    assert review.stacks[0].replay.status == "not needed"
    assert to_dict(review)["stacks"][0]["replay"]["status"] == "not needed"
    assert "Queue replay" not in to_markdown(review)


def test_borrowing_change_replays_base_twice_and_head_once(tmp_path: Path) -> None:
    base, head = _configs(tmp_path, edited(queues__teams__research={"borrowing_limit": {"v5e": 0}}))
    review, twin = _review(), FakeTwin()
    add_replay(review, base, head, ({}, {}), ReplaySettings(hours=2, parallel=False), run=twin)
    assert sorted(p.name for p in twin.calls) == ["base", "base", "head"]
    section = review.stacks[0].replay
    assert section.status == "replayed"
    assert [c.key for c in section.changes] == ["ClusterQueue /research", "ResourceQuota research/compute"]
    research = to_dict(review)["stacks"][0]["replay"]["teams"]["research"]
    assert research["borrowed_chip_h"]["head"] == 0.0
    assert research["borrowed_chip_h"]["verdict"] == "lower"
    assert research["wait_p95_h"] == {"base_runs": [4.0, 4.0], "base": 4.0, "head": 8.0, "delta": 4.0,
                                      "noise_band": 1.0, "verdict": "higher"}  # fmt: skip
    text = to_markdown(review)
    assert "| research | no change | no change | 4.0 h → 8.0 h (+4.0) | no change | 60 → 0 (-60.0) |" in text


def test_always_replays_an_unchanged_environment(tmp_path: Path) -> None:
    base, head = _configs(tmp_path, STAGING)
    review, twin = Review("b", "h", stacks=[StackReview("staging", "unchanged")]), FakeTwin()
    twin_same = lambda e, j, c, d: twin(e, j, c.parent / "base", d)  # noqa: E731 - every run the base's numbers
    add_replay(review, base, head, ({}, {}), ReplaySettings(mode="always", hours=2, parallel=False), run=twin_same)
    section = review.stacks[0].replay
    assert section.status == "replayed" and section.changes == ()
    assert {c.verdict for cells in section.cells.values() for c in cells.values()} == {"no change"}
    assert "| research | no change | no change | no change | no change | no change | no change |" in to_markdown(review)


def test_missing_binaries_skip_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base, head = _configs(tmp_path, edited(queues__teams__research={"borrowing_limit": {"v5e": 0}}))
    monkeypatch.setattr(replay_mod, "tools_missing", lambda: "kwok is not built: run `make twin-tools`")
    review = _review()
    add_replay(review, base, head, ({}, {}), ReplaySettings(hours=2))
    section = review.stacks[0].replay
    assert section.status == "skipped"
    assert "kwok is not built" in section.reason
    assert "**Queue replay** skipped: the twin's binaries are missing: kwok is not built" in to_markdown(review)


def test_budget_spent_skips_with_the_reason(tmp_path: Path) -> None:
    base, head = _configs(tmp_path, edited(queues__teams__research={"borrowing_limit": {"v5e": 0}}))

    def slow(env: str, jobs: list[Any], config_dir: Path, deadline: float) -> dict[str, Any]:
        raise replay_mod.BudgetSpent("the time budget ran out")

    review = _review()
    add_replay(review, base, head, ({}, {}), ReplaySettings(hours=2, budget=5), run=slow)
    section = review.stacks[0].replay
    assert section.status == "skipped" and "time budget ran out" in section.reason


def test_environment_without_queues_is_skipped(tmp_path: Path) -> None:
    data = copy.deepcopy(STAGING)
    del data["queues"]
    head = copy.deepcopy(data)
    head["teams"][1]["priority_classes"] = ["training"]
    for side, d in (("base", data), ("head", head)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "staging.yaml").write_text(yaml.safe_dump(d))
    review = _review()
    add_replay(review, tmp_path / "base", tmp_path / "head", ({}, {}), ReplaySettings(hours=2), run=FakeTwin())
    assert review.stacks[0].replay.status == "skipped"
    assert "no Kueue queues" in review.stacks[0].replay.reason


def test_never_leaves_no_section(tmp_path: Path) -> None:
    base, head = _configs(tmp_path, edited(queues__teams__research={"borrowing_limit": {"v5e": 0}}))
    review = _review()
    add_replay(review, base, head, ({}, {}), ReplaySettings(mode="never"), run=FakeTwin())
    assert review.stacks[0].replay is None
    assert to_dict(review)["stacks"][0]["replay"] is None


def test_skipped_section_text() -> None:
    assert replay_section(ReplaySection("staging", "skipped", "no time")) == [
        "",
        "**Queue replay** skipped: no time. The rest of this review is complete.",
    ]
    assert replay_section(ReplaySection("staging", "not needed")) == []


@pytest.mark.parametrize("flag", ["--replay-hours", "--replay-budget"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "ten", "20000"])
def test_replay_flags_refuse_what_is_not_a_positive_number(
    flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from gke_accel.cli.main import main

    with pytest.raises(SystemExit) as exc:
        main(["review", "--base", "HEAD", flag, value])
    assert exc.value.code == 2
    assert f"argument {flag}: '{value}' is not a number above 0 and at most 10000" in capsys.readouterr().err


def test_replay_flags_accept_a_positive_number() -> None:
    from gke_accel.cli.main import build_parser

    args = build_parser().parse_args(["review", "--base", "HEAD", "--replay-hours", "6", "--replay-budget", "300"])
    assert (args.replay_hours, args.replay_budget, args.replay) == (6.0, 300.0, "auto")


def test_the_caution_stays_first_and_the_comment_fits(tmp_path: Path) -> None:
    from gke_accel.review.model import ResourceChange
    from gke_accel.review.render import COMMENT_LIMIT

    base, head = _configs(tmp_path, edited(queues__teams__research={"borrowing_limit": {"v5e": 0}}))
    review = _review()
    many = [ResourceChange("google_container_node_pool", f"pool{i:04d}", "delete", name=f"p{i}") for i in range(3000)]
    review.stacks[0].changes = many
    add_replay(review, base, head, ({}, {}), ReplaySettings(hours=2, parallel=False), run=FakeTwin())
    text = to_markdown(review)
    assert len(text) <= COMMENT_LIMIT
    assert text.index("[!CAUTION]") < text.index("**Queue replay**")
    assert "| research | no change | no change | 4.0 h → 8.0 h (+4.0) |" in text
