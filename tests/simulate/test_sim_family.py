"""The benchmark family's traces (simulate/family.py): what each promises, checked on the trace itself
and against staging the way `workload new` checks a job (objects.check_trace)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gke_accel.model import ConfigError, load_environment
from gke_accel.simulate import family, generate
from gke_accel.simulate.objects import check_trace
from gke_accel.simulate.trace import TraceJob

CONFIG = Path(__file__).resolve().parents[2] / "config"
H, DAY = 3600.0, 86400.0


def test_the_typical_week_offers_75_to_90_percent_on_the_hour_with_jobs_every_policy_can_run() -> None:
    plan = load_environment(CONFIG / "staging.yaml")
    jobs = family.typical_week(20261204)
    check_trace(plan, jobs, "typical")  # raises on a job staging cannot run
    measured = [j for j in jobs if j.submit >= DAY]
    load = generate.offered_load(measured, generate.capacity_of(plan), 7 * DAY)
    assert 0.75 <= load["v5e"] <= 0.9 and 0.75 <= load["l4"] <= 0.9, load
    assert all(j.submit % H == 0 and j.duration % H == 0 and H <= j.duration <= 12 * H for j in jobs)
    # staging's nominal quotas: nlp 16 v5e (two slices), research 8, serving 8: only nlp has two-slice jobs,
    # so a static baseline carries no job it can never admit (Q2)
    assert {(j.team, j.slices) for j in jobs if j.accelerator == "v5e"} == {
        ("nlp", 1), ("nlp", 2), ("research", 1), ("serving", 1)}  # fmt: skip
    assert family.typical_week(20261204) == jobs  # seeded


def test_each_team_is_busy_at_its_own_hours() -> None:
    jobs = [j for j in family.typical_week(20261204) if j.accelerator == "v5e"]

    def share(team: str, hours: range, weekdays: bool = True) -> float:
        mine = [j for j in jobs if j.team == team]
        inside = [j for j in mine if int(j.submit % DAY // H) in hours and (int(j.submit // DAY) % 7 < 5) == weekdays]
        return len(inside) / len(mine)

    assert share("nlp", range(9, 19)) > 0.7  # weekdays 09-19 h
    assert share("research", range(9, 19)) < 0.15  # nights and weekends
    serving_l4 = [j for j in family.typical_week(20261204) if j.team == "serving" and j.accelerator == "l4"]
    assert sum(j.submit % DAY >= 18 * H for j in serving_l4) / len(serving_l4) > 0.6  # the evening peak
    assert {j.priority for j in serving_l4} == {"inference"}


def test_the_inference_peak_arrives_on_a_full_cluster_and_day_night_alternates(tmp_path: Path) -> None:
    plan = load_environment(CONFIG / "staging.yaml")
    peak = family.inference_peak()
    check_trace(plan, peak, "peak")
    at_zero = [j for j in peak if j.submit == 0]
    assert sum(8 * j.slices for j in at_zero) == 32 and all(j.checkpoint == 1800 for j in at_zero)
    assert [(j.submit, j.priority) for j in peak if j.submit > 0] == [(5 * H + 20 * 60, "inference")] * 2
    dn = family.day_night(days=1)
    check_trace(load_environment(single_host(tmp_path)), dn, "day-night")
    train = [j for j in dn if j.team != "serving"]
    assert [(j.team, j.submit, j.duration, j.chips, j.slices) for j in train] == [
        ("nlp", 8 * H, 12 * H, 8, 1), ("nlp", 8 * H, 12 * H, 8, 1), ("research", 8 * H, 12 * H, 8, 1)]  # fmt: skip
    # serving: one Deployment, 1, 2, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1 replicas in the hours from 20 h, then 0:
    # a row where the count changes (20 h 1, 21 h 2, 22 h 3, 01 h 2, 04 h 1, 08 h 0)
    night = [j for j in dn if j.team == "serving"]
    assert {(j.name, j.kind, j.priority, j.chips) for j in night} == {("serving-night", "deployment", "inference", 8)}
    assert [(j.submit / H, j.replicas) for j in night] == [(20, 1), (21, 2), (22, 3), (25, 2), (28, 1), (32, 0)]


def test_day_night_serving_cannot_run_on_the_shipped_two_vm_slices() -> None:
    """staging ships its 2x4 slices as two VMs (ct5lp-hightpu-4t): one pod per VM, so a JobSet; a
    Deployment replica is one pod, and workload new refuses it there."""
    with pytest.raises(ConfigError) as err:
        check_trace(load_environment(CONFIG / "staging.yaml"), family.day_night(days=1), "day-night")
    assert "day-night: job serving-night: kind: 'deployment': a 2x4 slice has 2 VMs, one pod each; valid: jobset" in [
        i.render() for i in err.value.issues
    ]


def single_host(folder: Path) -> Path:
    """staging with its v5e slices single-host (ct5lp-hightpu-8t), as bench-queues runs day/night."""
    text, n = re.subn(r"machine_type: ct5lp-hightpu-4t.*", "machine_type: ct5lp-hightpu-8t",
                      (CONFIG / "staging.yaml").read_text())  # fmt: skip
    assert n == 2
    (folder / "staging.yaml").write_text(text)
    return folder / "staging.yaml"


def test_a_deployment_is_checked_at_its_largest_replica_count(tmp_path: Path) -> None:
    """staging (single-host slices): serving may hold 8 v5e chips of its own + 24 it may borrow = 32, four
    8-chip replicas; a Deployment that ever asks for five is refused once, naming its largest count."""
    plan = load_environment(single_host(tmp_path))

    def rows(*counts: int) -> list[TraceJob]:
        return [TraceJob(name="web", submit=i * H, team="serving", accelerator="v5e", duration=0.0, chips=8,
                         kind="deployment", replicas=n) for i, n in enumerate(counts)]  # fmt: skip

    check_trace(plan, rows(1, 4, 0), "ok")
    with pytest.raises(ConfigError) as err:
        check_trace(plan, rows(1, 5, 2, 0), "big")
    (issue,) = err.value.issues
    assert issue.path == "big: job web: chips" and "needs 40 v5e at once" in issue.message
