"""The shipped fleet (examples/fleet) synthesized: the manager's stack installs its MultiKueue objects as
a generated chart after Kueue, passes Kueue the ``multiKueue`` block and the ClusterProfile feature gate
through the chart's own values (sigs.k8s.io/kueue@v0.19.2 charts/kueue/values.yaml:
``controllerManager.featureGates`` as ``{name, enabled}``; templates/_helpers.tpl turns them into
``--feature-gates``), and no credential is anywhere in any of the three stacks."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from gke_accel.model.environment.config_files import load_environments
from gke_accel.stacks.app import synth_environments
from helpers import one

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fleet"


def test_the_fleet_stacks(tmp_path: Path) -> None:
    plans = load_environments(EXAMPLE)
    out = synth_environments(plans, tmp_path / "out")
    stacks = {p.name: json.loads((out / "stacks" / p.name / "cdk.tf.json").read_text()) for p in plans}
    hub = stacks["fleet-hub"]
    release = one(hub, "helm_release", name="gke-accel-fleet")
    text = (out / "stacks" / "fleet-hub" / release["chart"] / "templates" / "fleet.yaml").read_text()
    kinds = [o["kind"] for o in yaml.safe_load_all(text) if o]
    assert kinds == ["AdmissionCheck", "MultiKueueConfig", "MultiKueueCluster", "MultiKueueCluster"]
    [kueue_key] = [k for k, r in hub["resource"]["helm_release"].items() if r["name"] == "kueue"]
    assert f"helm_release.{kueue_key}" in release["depends_on"]
    values = yaml.safe_load(hub["resource"]["helm_release"][kueue_key]["values"][0])
    assert values["controllerManager"]["featureGates"] == [{"name": "MultiKueueClusterProfile", "enabled": True}]
    config = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    assert config["multiKueue"]["dispatcherName"] == "kueue.x-k8s.io/multikueue-dispatcher-incremental"
    # the workers install no MultiKueue objects of their own; no stack holds a kubeconfig or a Secret
    for name in ("fleet-central", "fleet-europe"):
        assert not [r for r in stacks[name]["resource"]["helm_release"].values() if r["name"] == "gke-accel-fleet"]
    for path in (out / "stacks").rglob("*"):
        if path.is_file():
            body = path.read_text(errors="replace")
            assert "client-key-data" not in body and "kind: Secret" not in body, path
