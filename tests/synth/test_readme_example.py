"""The construct usage example (docs/constructs.md) runs as written and synthesizes what it promises:
a cluster, a TPU pool, a GPU pool and teams with quotas; the refused teams of the same page are
refused with every field named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from constructs_doc import DOC, readme_example, refused_app
from gke_accel.model import ConfigError


def _resources(doc: dict[str, Any], rtype: str) -> list[dict[str, Any]]:
    return list(doc["resource"].get(rtype, {}).values())


def test_construct_example_synthesizes_a_cluster_pools_and_teams(tmp_path: Path) -> None:
    code = readme_example("constructs")
    assert len(code.strip().splitlines()) <= 30
    # The jsii Node process keeps the directory it started in, so the output folder is made absolute.
    code = code.replace('outdir="cdktf.out"', f'outdir="{tmp_path}/cdktf.out"')
    exec(compile(code, "docs/constructs.md", "exec"), {})
    doc = json.loads((tmp_path / "cdktf.out" / "stacks" / "research" / "cdk.tf.json").read_text())
    pools = {p["name"]: p for p in _resources(doc, "google_container_node_pool")}
    assert {"system", "l4"} <= set(pools) and any(n.startswith("v5e") for n in pools)
    assert pools["l4"]["node_config"]["spot"] is True  # consumption="spot", as in YAML
    quotas = {q["metadata"]["namespace"]: q["spec"]["hard"] for q in _resources(doc, "kubernetes_resource_quota_v1")}
    # With queues the ResourceQuota is Kueue's ceiling (docs/queues.md, "Kueue is the ceiling"): a
    # team's nominal plus what the other teams' nominal in the cohort lets it borrow. The page's teams:
    # vision: v5e 8 (nobody lends it more), l4 2 + serving's 2 = 4; serving: l4 2 + vision's 2 = 4, and
    # v5e 0 + vision's 8 = 8 (by default a team may borrow whatever the cohort lends).
    assert quotas["vision"]["requests.google.com/tpu"] == "8"
    assert quotas["vision"]["requests.nvidia.com/gpu"] == "4"
    assert quotas["serving"]["requests.nvidia.com/gpu"] == "4"
    assert quotas["serving"]["requests.google.com/tpu"] == "8"
    namespaces = {n["metadata"]["name"] for n in _resources(doc, "kubernetes_namespace_v1")}
    assert {"vision", "serving"} <= namespaces
    releases = {r["name"] for r in _resources(doc, "helm_release")}
    assert "kueue" in releases  # queues=True: Kueue with a ClusterQueue per team


def test_documented_refused_teams_name_every_field(tmp_path: Path) -> None:
    code = refused_app().replace('outdir="cdktf.out"', f'outdir="{tmp_path}/cdktf.out"')
    with pytest.raises(ConfigError) as info:
        exec(compile(code, "docs/constructs.md", "exec"), {})
    paths = [i.path for i in info.value.issues]
    assert paths == ["teams[0].accelerators", "teams[0].google_group", "teams[1].accelerators.h100"]
    text = info.value.render()
    assert "no pool of this environment provides; valid: l4, v5e" in text
    for line in text.splitlines()[1:]:  # the page shows the same lines
        assert line.strip().removeprefix("- ") in DOC.read_text(), line
    assert not list(tmp_path.rglob("cdk.tf.json"))  # refused before anything was synthesized
