"""The public construct API around ``Teams`` (docs/constructs.md): the pools it checks quotas against
are the ones composed on its cluster; a pool composed after it, or one of another cluster, is refused;
teams given as YAML-like mappings work; a pool's props report every mistake at once (N8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gke_accel.cdk import App, GkeCluster, GpuNodePool, Teams, TerraformStack, TpuSlicePool
from gke_accel.model import ClusterSpec, ConfigError, GpuPoolSpec, TeamSpec, TpuPoolSpec

PROJECT, REGION = "acme-research", "us-central1"
GROUP = "ml@acme.example.com"


def _stack(tmp_path: Path) -> tuple[Any, GkeCluster]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    stack = TerraformStack(App(outdir=str(tmp_path / "out")), "research")
    spec = ClusterSpec(name="research", location="us-central1-a")
    return stack, GkeCluster(stack, "gke", project=PROJECT, region=REGION, spec=spec)


def _l4(stack: Any, cluster: GkeCluster, name: str = "l4") -> GpuNodePool:
    return GpuNodePool(
        stack, name, cluster=cluster, spec=GpuPoolSpec(name=name, gpu="l4", gpus_per_node=1, max_nodes=4)
    )


def test_quotas_are_checked_against_the_pools_on_the_cluster(tmp_path: Path) -> None:
    stack, cluster = _stack(tmp_path)
    _l4(stack, cluster)
    teams = Teams(
        stack, "teams", cluster=cluster, teams=[{"name": "a", "google_group": GROUP, "accelerators": {"l4": 4}}]
    )
    assert [p.name for p in teams.plan.pools] == ["l4"]
    assert teams.plan.team("a") is not None and teams.queues is None  # no queues asked for: no Kueue
    with pytest.raises(ConfigError) as info:
        _l4(stack, cluster, "l4-late")  # composed after Teams: its capacity was not part of the check
    assert info.value.issues[0].path == "gpu_pool l4-late"
    assert "compose every TpuSlicePool and GpuNodePool of the cluster before its Teams" in info.value.render()


def test_over_commit_is_an_error_with_strict_capacity_and_a_warning_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack, cluster = _stack(tmp_path)
    _l4(stack, cluster)
    team = TeamSpec(name="a", google_group=GROUP, accelerators={"l4": 6})  # the pool holds 4
    Teams(stack, "loose", cluster=cluster, teams=[team])
    assert "research/loose: warning: over-commit: team quotas for nvidia-l4 add up to 6" in capsys.readouterr().err
    stack2, cluster2 = _stack(tmp_path / "b")
    _l4(stack2, cluster2)
    with pytest.raises(ConfigError) as info:
        Teams(stack2, "strict", cluster=cluster2, teams=[team], strict_capacity=True)
    assert [i.path for i in info.value.issues] == ["teams"]


def test_a_pool_of_another_cluster_and_a_non_pool_are_refused(tmp_path: Path) -> None:
    stack, cluster = _stack(tmp_path)
    other_stack, other = _stack(tmp_path / "other")
    foreign = _l4(other_stack, other)
    with pytest.raises(ConfigError) as info:
        Teams(stack, "teams", cluster=cluster, pools=[foreign, "l4"], teams=[])  # type: ignore[list-item]
    assert [i.path for i in info.value.issues] == ["pools[0]", "pools[1]"]


def test_a_pools_props_report_every_mistake_at_once(tmp_path: Path) -> None:
    stack, cluster = _stack(tmp_path)
    spec = TpuPoolSpec(name="t1", generation="v5e", topology="3x3", zone="us-east1-c", consumption="spott")
    with pytest.raises(ConfigError) as info:
        TpuSlicePool(stack, "t1", cluster=cluster, spec=spec)
    paths = [i.path for i in info.value.issues]
    assert paths[0] == "tpu_pool t1.consumption"  # as written, not consumption.type
    assert "tpu_pool t1.topology" in paths  # before, the parse mistake hid the rules' findings
