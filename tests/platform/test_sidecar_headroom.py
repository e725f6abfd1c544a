"""The team ResourceQuota leaves room for the GCS FUSE sidecar GKE injects into pods Kueue admitted.

Kueue admits by the pod templates (without the sidecar); the ResourceQuota counts every container of
the pod, the injected ``gke-gcsfuse-sidecar`` included (250m cpu / 256Mi by default: GKE "Configure
resources for the sidecar container"). Code review C9: on main a team at its full cpu share had
admitted pods refused by the quota."""

from __future__ import annotations

from gke_accel.model import load_environment_text
from gke_accel.model.platform.manifests import platform_manifests
from helpers import base_config, to_yaml


def _quota(queues: bool) -> dict[str, str]:
    data = base_config()
    data["teams"] = [
        {
            "name": "nlp",
            "google_group": "nlp@acme.example.com",
            "accelerators": {"v5e": 4},
            "cpu": 64,
            "memory_gib": 256,
        }
    ]
    if queues:
        data["queues"] = {}
    plan = load_environment_text(to_yaml(data), expected_name="test")
    [quota] = [
        m for m in platform_manifests(plan) if m["kind"] == "ResourceQuota" and m["metadata"]["name"] == "compute"
    ]
    hard: dict[str, str] = quota["spec"]["hard"]
    return hard


def test_with_kueue_the_quota_has_room_for_one_sidecar_per_admissible_accelerator_pod() -> None:
    # 4 v5e chips: at most 4 accelerator pods at once; 64 cpu + 4 x 250m, 256Gi + 4 x 256Mi = 257Gi
    hard = _quota(queues=True)
    assert (hard["requests.cpu"], hard["requests.memory"]) == ("65", "257Gi")


def test_without_kueue_the_quota_is_the_teams_share() -> None:
    hard = _quota(queues=False)
    assert (hard["requests.cpu"], hard["requests.memory"]) == ("64", "256Gi")
