"""A fleet (``fleet:`` in a manager environment, docs/fleet.md): the shipped example validates; every
fleet mistake is reported at once, naming the manager file, the field, the bad value and what is valid;
the CLI exits 2 without a traceback. Each rule has its accepted case (the shipped example, or a variant
named in the test) and its rejected case.

Expected values are Kueue's own names, cited: the MultiKueue admission check controller
``kueue.x-k8s.io/multikueue`` (sigs.k8s.io/kueue@v0.19.2 apis/kueue/v1beta2/multikueue_types.go,
MultiKueueControllerName); the dispatcher names (apis/config/v1beta2/configuration_types.go,
MultiKueueDispatcherModeIncremental / AllAtOnce); the Secret key ``kubeconfig`` (MultiKueueConfigSecretKey);
the chart's ``controllerManager.featureGates`` list of ``{name, enabled}`` (charts/kueue/values.yaml).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.model import ConfigError
from gke_accel.model.environment.config_files import load_environments
from gke_accel.model.environment.objects import cluster_objects
from gke_accel.model.queues.install import kueue_configuration, kueue_values

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "fleet"
HUB, CENTRAL, EUROPE = "fleet-hub", "fleet-central", "fleet-europe"


@pytest.fixture
def fleet_dir(tmp_path: Path) -> Path:
    for f in EXAMPLE.glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def edit(folder: Path, env: str, change: Callable[[dict[str, Any]], None]) -> None:
    path = folder / f"{env}.yaml"
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def issues_of(folder: Path, env: str = HUB) -> list[tuple[str, str, str]]:
    with pytest.raises(ConfigError) as err:
        load_environments(folder, [env])
    return [(i.path, i.message, i.valid) for i in err.value.issues]


def paths(found: list[tuple[str, str, str]]) -> list[str]:
    return [p.split(": ", 1)[1] if ": " in p else p for p, _, _ in found]


def test_the_shipped_fleet_validates_with_the_workers_in_order() -> None:
    plans = {p.name: p for p in load_environments(EXAMPLE)}
    hub = plans[HUB]
    assert hub.fleet is not None
    assert hub.fleet.order == (CENTRAL, EUROPE)
    assert plans[CENTRAL].fleet is None and plans[EUROPE].fleet is None
    # what each worker offers nlp (its ceiling: nominal + borrowable): central 1 L4, europe 2 L4
    offers = {(o.worker, o.team, o.accelerator): o.chips for o in hub.fleet.offers}
    assert offers[(CENTRAL, "nlp", "nvidia-l4")] == 1
    assert offers[(EUROPE, "nlp", "nvidia-l4")] == 2
    assert offers[(CENTRAL, "vision", "tpu-v5-lite-podslice")] == 4
    assert (EUROPE, "vision", "tpu-v5-lite-podslice") not in offers


def by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def test_the_manager_objects_dispatch_through_multikueue_in_order() -> None:
    hub = {p.name: p for p in load_environments(EXAMPLE)}[HUB]
    objects = cluster_objects(hub).all()
    [check] = by_kind(objects, "AdmissionCheck").values()
    assert check["spec"]["controllerName"] == "kueue.x-k8s.io/multikueue"
    assert check["spec"]["parameters"] == {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig",
                                           "name": check["metadata"]["name"]}  # fmt: skip
    [config] = by_kind(objects, "MultiKueueConfig").values()
    assert config["spec"]["clusters"] == [CENTRAL, EUROPE]
    clusters = by_kind(objects, "MultiKueueCluster")
    assert sorted(clusters) == [CENTRAL, EUROPE]
    # access: cluster-profile: a ClusterProfile reference, no kubeconfig and no Secret anywhere
    assert clusters[CENTRAL]["spec"]["clusterSource"] == {"clusterProfileRef": {"name": "ml-fleet-central"}}
    assert not [o for o in objects if o["kind"] == "Secret"]
    for cq in by_kind(objects, "ClusterQueue").values():
        assert cq["spec"]["admissionChecksStrategy"]["admissionChecks"] == [{"name": check["metadata"]["name"]}]
    nlp = by_kind(objects, "ClusterQueue")["nlp"]
    gpu = next(g for g in nlp["spec"]["resourceGroups"] if g["coveredResources"] == ["nvidia.com/gpu"])
    # the team's cap on the hub (l4: 3) is what the workers give it together (1 + 2)
    assert gpu["flavors"][0]["resources"][0]["nominalQuota"] == 3
    assert {q["metadata"]["name"] for q in objects if q["kind"] == "LocalQueue"} >= {"team", "default"}


def test_the_manager_kueue_runs_the_ordered_dispatcher_with_its_gates() -> None:
    hub = {p.name: p for p in load_environments(EXAMPLE)}[HUB]
    assert hub.queues is not None
    block = kueue_configuration(hub.queues)["multiKueue"]
    assert block["dispatcherName"] == "kueue.x-k8s.io/multikueue-dispatcher-incremental"
    assert block["incrementalDispatcherConfig"] == {"stepSize": 1}
    assert block["workerLostTimeout"] == "900s" and block["origin"] == HUB
    assert block["clusterProfile"]["accessProviders"][0]["name"] == "google"
    values = yaml.safe_load(kueue_values(hub.queues, _placement(hub)))
    assert values["controllerManager"]["featureGates"] == [{"name": "MultiKueueClusterProfile", "enabled": True}]


def _placement(plan: Any) -> Any:
    from gke_accel.model.cluster.controllers import controller_placement

    return controller_placement(plan.cluster)


def test_all_at_once_and_kubeconfig_secrets(fleet_dir: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["fleet"].update(dispatch="all-at-once", access="kubeconfig-secret")
        del d["fleet"]["access_plugin"]

    edit(fleet_dir, HUB, change)
    [hub] = load_environments(fleet_dir, [HUB])
    assert hub.queues is not None and hub.queues.feature_gates == ()
    block = kueue_configuration(hub.queues)["multiKueue"]
    assert block["dispatcherName"] == "kueue.x-k8s.io/multikueue-dispatcher-all-at-once"
    assert "clusterProfile" not in block
    clusters = by_kind(cluster_objects(hub).all(), "MultiKueueCluster")
    assert clusters[EUROPE]["spec"]["clusterSource"] == {
        "kubeConfig": {"location": "fleet-europe-kubeconfig", "locationType": "Secret"}
    }


def test_a_worker_that_is_not_an_environment_and_a_manager_naming_itself(fleet_dir: Path) -> None:
    edit(fleet_dir, HUB, lambda d: d["fleet"].update(workers=["fleet-centrl", HUB, EUROPE, EUROPE]))
    found = issues_of(fleet_dir)
    assert paths(found) == ["fleet.workers[0]", "fleet.workers[1]", "fleet.workers[3]"]
    missing, itself, twice = found
    assert "'fleet-centrl' is not an environment in" in missing[1] and missing[2] == "fleet-central, fleet-europe"
    assert "the manager itself" in itself[1] and "cycle" in itself[1]
    assert "named twice" in twice[1]
    assert all(p.startswith(str(fleet_dir / "fleet-hub.yaml")) for p, _, _ in found)


def test_a_cycle_and_a_worker_that_is_a_manager(fleet_dir: Path) -> None:
    def back(d: dict[str, Any]) -> None:
        d["fleet"] = {"workers": [HUB], "access": "kubeconfig-secret"}

    edit(fleet_dir, CENTRAL, back)
    found = issues_of(fleet_dir)
    assert paths(found) == ["fleet.workers[0]"]
    assert "names fleet-hub as its own worker: a cycle" in found[0][1]
    edit(fleet_dir, CENTRAL, lambda d: d["fleet"].update(workers=[EUROPE]))
    [(_, message, valid)] = issues_of(fleet_dir)
    assert "is itself a fleet manager (of fleet-europe)" in message and valid.startswith("a worker environment")


def test_a_manager_with_accelerator_pools(fleet_dir: Path) -> None:
    pool = {"name": "l4", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 1}
    edit(fleet_dir, HUB, lambda d: d.update(gpu_pools=[pool]))
    [(path, message, valid)] = issues_of(fleet_dir)
    assert path.endswith(": gpu_pools") and "gpu_pools[0]" in message and "fleet.manager_pools: true" in valid
    edit(fleet_dir, HUB, lambda d: d["fleet"].update(manager_pools=True))
    [hub] = load_environments(fleet_dir, [HUB])  # accepted when wanted
    assert hub.fleet is not None


def test_a_team_that_can_run_a_job_class_nowhere(fleet_dir: Path) -> None:
    def teams(d: dict[str, Any]) -> None:
        d["teams"][0]["accelerators"] = {"l4": 3, "h100": 8}
        d["teams"].append({"name": "audio", "google_group": "ml-audio@acme.example.com"})

    edit(fleet_dir, HUB, teams)
    found = issues_of(fleet_dir)
    assert paths(found) == ["teams[0].accelerators.h100", "teams[2].name"]
    h100, audio = found
    # nlp may borrow vision's v5e chips on fleet-central (Kueue's cohort): that counts as offered
    assert (
        "offered to this team by no worker" in h100[1]
        and h100[2] == "what the workers give nlp: nvidia-l4, tpu-v5-lite-podslice"
    )
    assert "no worker has" in audio[1] and audio[2].startswith("a team of a worker (nlp, vision)")


def test_namespaces_priorities_and_worker_queues_must_agree(fleet_dir: Path) -> None:
    edit(fleet_dir, HUB, lambda d: d["teams"][0].update(namespace="nlp-fleet"))
    edit(fleet_dir, EUROPE, lambda d: d.pop("queues"))
    edit(fleet_dir, CENTRAL, lambda d: d.setdefault("platform", {}).update(
        priority_classes={"batch": {"name": "batch", "value": 500}}))  # fmt: skip
    found = issues_of(fleet_dir)
    assert sorted(paths(found)) == ["fleet.workers[1]", "platform.priority_classes", "teams[0].namespace",
                                    "teams[0].namespace"]  # fmt: skip
    text = "\n".join(f"{p}: {m}; valid: {v}" for p, m, v in found)
    assert "runs no Kueue" in text and "differs on worker fleet-central (batch=500)" in text
    assert "differs from the team's namespace on worker fleet-europe (nlp)" in text


def test_cluster_profile_access_needs_its_plugin(fleet_dir: Path) -> None:
    edit(fleet_dir, HUB, lambda d: d["fleet"].pop("access_plugin"))
    [(path, _, valid)] = issues_of(fleet_dir)
    assert path.endswith("fleet.access_plugin") and "access: kubeconfig-secret" in valid


def test_the_cli_reports_every_fleet_mistake_with_exit_2(fleet_dir: Path) -> None:
    edit(fleet_dir, HUB, lambda d: d["fleet"].update(workers=["nowhere"], worker_lost_timeout_seconds=0))
    out = subprocess.run([sys.executable, "-m", "gke_accel.cli.main", "validate", "--config-dir", str(fleet_dir)],
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert "fleet.workers[0]: 'nowhere' is not an environment in" in out.stderr
    assert "fleet.worker_lost_timeout_seconds: 0 is not a positive number of seconds" in out.stderr
