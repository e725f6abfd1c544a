"""What users see of the queues: the synth table, `gke-accel manifests`, the ResourceQuota ceiling,
and the plan review's queue section."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gke_accel.cli.main import main
from gke_accel.cli.queues_view import synth_section
from gke_accel.model import load_environment, load_environment_text
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.review.facts import environment_facts, facts_from_dict, facts_to_dict
from gke_accel.review.tables import queue_changes
from helpers import QUOTA_ONLY_CONFIG, to_yaml

CONFIG = Path(__file__).resolve().parents[2] / "config"


def staging_data() -> dict[str, object]:
    data: dict[str, object] = yaml.safe_load((CONFIG / "staging.yaml").read_text())
    return data


def test_shipped_staging_shares_32_tpu_chips_between_three_teams_with_a_preempting_inference_team() -> None:
    text = synth_section(load_environment(CONFIG / "staging.yaml"))
    lines = text.splitlines()
    assert "queues (Kueue 0.19.2, JobSet 0.12.0; cohort staging):" in lines[0]
    rows = {line.split()[0]: line for line in lines[3:6]}
    assert set(rows) == {"nlp", "research", "serving"}
    assert "v5e-2x4 16" in rows["nlp"] and "v5e-2x4 8" in rows["research"] and "v5e-2x4 8" in rows["serving"]
    assert "yes" in rows["serving"] and "yes" not in rows["nlp"]
    assert "tpu 24" in rows["research"]  # 8 nominal + borrowing limit 16
    assert "  flavor v5e-2x4: 32 tpu max, pools v5e-slice, v5e-shared-s0, v5e-shared-s1, v5e-shared-s2" in lines
    # the L4 ladder's flavors (config/staging.yaml capacity.l4), most preferred first; the L4 shares fill
    # them in that order: nlp's 1 and serving's first 1 on the reservation, serving's next 1 on-demand, 2 Spot
    assert "l4-reservation-r-l4-serve 1, v5e-2x4 16" in rows["nlp"]
    assert "l4-reservation-r-l4-serve 1, l4-on-demand 1, l4-spot 2, v5e-2x4 8" in rows["serving"]
    flavors = [line for line in lines if line.startswith("  flavor l4")]
    assert flavors == [
        "  flavor l4-reservation-r-l4-serve: 2 gpu max, pools l4-reserved",
        "  flavor l4-on-demand: 1 gpu max, pools l4-serve",
        "  flavor l4-spot: 2 gpu max, pools l4-spot",
    ]


def test_no_queue_table_without_kueue() -> None:
    assert synth_section(load_environment(QUOTA_ONLY_CONFIG)) == ""


def test_shipped_dev_shares_its_spot_pools_between_two_teams() -> None:
    # config/dev.yaml: v5e-dev up to 2 slices of 2x2 (8 chips), l4-dev up to 4 nodes of 1 L4; nlp and
    # vision 4 chips and 2 GPUs each, neither limits borrowing: each may reach 8 chips and 4 GPUs
    lines = synth_section(load_environment(CONFIG / "dev.yaml")).splitlines()
    assert "cohort dev" in lines[0]
    rows = {line.split()[0]: line for line in lines[3:5]}
    assert set(rows) == {"nlp", "vision"}
    for row in rows.values():
        # cpu/memory: 13 + 2 ct5lp-hightpu-4t x 110.65 + 4 g2-standard-12 x 10.9 = 277.9 cores; 52 GiB +
        # (2 x 183,605 + 4 x 42,375) MiB = 576.1 GiB (per-VM figures: tests/platform/test_team_compute.py;
        # the base 13 cores / 52 GiB: half of dev's CPU pool, 4 e2-standard-8 of 6.91 cores / 26,974 MiB
        # after GKE's reservation and the DaemonSet margin, 27.6 cores / 105.4 GiB in all)
        assert "l4-spot 2, v5e-2x2-spot 4" in row and row.endswith("tpu 8, gpu 4           278 / 577Gi")
    assert "  flavor v5e-2x2-spot: 8 tpu max, pools v5e-dev" in lines
    assert "  flavor l4-spot: 4 gpu max, pools l4-dev" in lines


# staging's 5 L4s (l4-reserved 2, l4-serve 1, l4-spot 2): nlp's 1 + the 4 serving lends, research's 0 + all 5,
# serving's 4 + nlp's 1
@pytest.mark.parametrize(("team", "tpu", "gpu"), [("nlp", "32", "5"), ("research", "24", "5"), ("serving", "32", "5")])
def test_resource_quota_is_the_kueue_ceiling(team: str, tpu: str, gpu: str) -> None:
    manifests = platform_manifests(load_environment(CONFIG / "staging.yaml"))
    [quota] = [
        m
        for m in manifests
        if m["kind"] == "ResourceQuota" and m["metadata"] == {**m["metadata"], "name": "compute", "namespace": team}
    ]
    hard = quota["spec"]["hard"]
    assert (hard["requests.google.com/tpu"], hard["requests.nvidia.com/gpu"]) == (tpu, gpu)


def test_without_kueue_the_resource_quota_is_the_teams_own_quota() -> None:
    data = staging_data()
    del data["queues"]
    manifests = platform_manifests(load_environment_text(to_yaml(data)))
    [quota] = [m for m in manifests if m["kind"] == "ResourceQuota" and m["metadata"].get("namespace") == "research"
               and m["metadata"]["name"] == "compute"]  # fmt: skip
    assert quota["spec"]["hard"]["requests.google.com/tpu"] == "8"


def test_manifests_command_includes_the_queue_objects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["manifests", "--config-dir", str(CONFIG), "--env", "staging", "--out", str(tmp_path)]) == 0
    files = {p.name for p in (tmp_path / "staging").iterdir()}
    assert {"3-clusterqueue.research.yaml", "4-research.localqueue.team.yaml", "3-resourceflavor.v5e-2x4.yaml"} <= files
    assert "3-workloadpriorityclass.inference.yaml" in files
    cq = yaml.safe_load((tmp_path / "staging" / "3-clusterqueue.serving.yaml").read_text())
    assert cq["apiVersion"] == "kueue.x-k8s.io/v1beta2" and cq["spec"]["cohortName"] == "staging"
    assert main(["manifests", "--config-dir", str(CONFIG), "--env", "dev"]) == 0
    assert "kind: ClusterQueue" in capsys.readouterr().out.split("# environment: dev")[-1]
    quota_only = QUOTA_ONLY_CONFIG.parent
    assert main(["manifests", "--config-dir", str(quota_only), "--env", "quota-only"]) == 0
    assert "kind: ClusterQueue" not in capsys.readouterr().out.split("# environment: quota-only")[-1]


def test_review_shows_queue_changes_before_and_after() -> None:
    before = environment_facts(load_environment(CONFIG / "staging.yaml"))
    data = staging_data()
    data["queues"] = {"teams": {"research": {"borrowing_limit": {"v5e": 8}}, "serving": {}}}
    after = environment_facts(load_environment_text(to_yaml(data)))
    assert facts_from_dict(facts_to_dict(after)) == after
    assert before != after
    section = queue_changes(before, after)
    assert section[1] == "**Kueue queues** (per team, what changes; docs/queues.md)"
    research, serving = section[3:]
    # one line per team with only what moved: research's borrowing limit 16 -> 8, serving's preemption
    assert (
        research.startswith("- **research**: ")
        and "may borrow `l4-reservation-r-l4-serve idle, l4-on-demand idle, l4-spot idle, v5e-2x4 16` → "
        "`l4-reservation-r-l4-serve idle, l4-on-demand idle, l4-spot idle, v5e-2x4 8`" in research
    )
    assert serving.startswith("- **serving**: ") and "preempts to borrow `yes` → `-`" in serving
    assert "nominal" not in research and "nominal" not in serving  # unchanged parts are not repeated
    assert queue_changes(before, before) == []
