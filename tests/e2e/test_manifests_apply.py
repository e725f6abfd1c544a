"""Every environment's ``gke-accel manifests`` output applies to an empty cluster with plain
``kubectl apply -f <folder>``, and a second apply changes nothing (the server keeps what we wrote).
An environment with Kueue queues needs Kueue installed first (its CRDs, as the pinned chart would
install them; docs/queues.md), like a GitOps user's cluster; one with capacity ladders (staging) needs
GKE's ComputeClass CRD, built into every GKE cluster (here the twin's stand-in of its documented fields)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gke_accel.cli.main import main
from gke_accel.model import load_environment
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.model.queues.names import uses_kueue
from gke_accel.twin.cluster import LocalCluster
from gke_accel.twin.environment import COMPUTECLASS_CRD
from gke_accel.twin.kueue import install_crds

CONFIG = Path(__file__).resolve().parents[2] / "config"
ENVS = ("dev", "staging", "prod")


def write_manifests(env: str, out: Path) -> Path:
    assert main(["manifests", "--config-dir", str(CONFIG), "--env", env, "--out", str(out)]) == 0
    return out / env


@pytest.mark.parametrize("env", ENVS)
def test_manifests_folder_applies_to_an_empty_cluster_and_reapplies_unchanged(
    env: str, fresh_cluster: Callable[[], LocalCluster], tmp_path: Path
) -> None:
    folder = write_manifests(env, tmp_path)
    cluster = fresh_cluster()
    plan = load_environment(CONFIG / f"{env}.yaml")
    if uses_kueue(plan.spec):
        install_crds(cluster)
    if ladders_of(plan):  # staging's L4 ladder: ComputeClass l4
        install_crds(cluster, [COMPUTECLASS_CRD])
    first = cluster.kubectl("apply", "-f", str(folder), check=False)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.strip().splitlines()
    assert len(lines) == len(list(folder.glob("*.yaml")))
    assert all(line.endswith(" created") for line in lines), first.stdout

    second = cluster.kubectl("apply", "-f", str(folder))
    changed = [line for line in second.stdout.strip().splitlines() if not line.endswith(" unchanged")]
    assert changed == [], f"a second apply changed objects (the server rewrote what we declared): {changed}"
    # and the server-side view agrees: nothing to change
    diff = cluster.kubectl("diff", "-f", str(folder), check=False)
    assert diff.returncode == 0, diff.stdout


def test_staging_serving_is_reachable_from_google_load_balancers_and_nlp_as_stored(
    fresh_cluster: Callable[[], LocalCluster], tmp_path: Path
) -> None:
    """config/staging.yaml: serving's ``ingress_from: {presets: [google-lb], teams: [nlp]}`` is a second
    NetworkPolicy the API server stores as declared: Google's health-check and GFE ranges (35.191.0.0/16,
    130.211.0.0/22: cloud.google.com/load-balancing/docs/firewall-rules) and nlp's namespace; the default
    deny is still there (code review R7)."""
    folder = write_manifests("staging", tmp_path)
    cluster = fresh_cluster()
    install_crds(cluster)
    install_crds(cluster, [COMPUTECLASS_CRD])  # staging's L4 ladder (its ComputeClass l4)
    cluster.kubectl("apply", "-f", str(folder))
    stored = cluster.get("networkpolicy", "allow-ingress-from", namespace="serving")
    [rule] = stored["spec"]["ingress"]
    assert stored["spec"]["podSelector"] == {} and stored["spec"]["policyTypes"] == ["Ingress"]
    assert [p["ipBlock"]["cidr"] for p in rule["from"] if "ipBlock" in p] == ["35.191.0.0/16", "130.211.0.0/22"]
    assert [p["namespaceSelector"]["matchLabels"] for p in rule["from"] if "namespaceSelector" in p] == [
        {"kubernetes.io/metadata.name": "nlp"}
    ]
    assert cluster.get("networkpolicy", "default-deny-ingress", namespace="serving")["spec"]["podSelector"] == {}
    assert cluster.kubectl("get", "networkpolicy", "allow-ingress-from", "-n", "nlp", check=False).returncode != 0
