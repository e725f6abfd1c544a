"""``workload new --kind deployment --weights``: the weights as the team loads them.

GKE "Automate data transfer to Hyperdisk ML with GKE Volume Populator": GCPDataSource
(datalayer.gke.io/v1, spec.cloudStorage{serviceAccountName, uri}), a StorageClass of provisioner
pd.csi.storage.gke.io with type hyperdisk-ml and allowedTopologies on the nodes' zones, a
ReadOnlyMany PVC whose dataSourceRef names the GCPDataSource and whose size is larger than 4 Gi.
"About Hyperdisk for GKE": support depends on the node's machine type; N1 attaches no Hyperdisk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.model import ConfigError, EnvironmentPlan, load_environment_text
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts
from helpers import Rule, assert_rule_accepts, assert_rule_rejects

CONFIG = Path(__file__).resolve().parents[2] / "config"
IMAGE = "us-central1-docker.pkg.dev/acme/serve/vllm:1"


def plan(env: str, weights: dict[str, Any] | None = None) -> EnvironmentPlan:
    data = yaml.safe_load((CONFIG / f"{env}.yaml").read_text())
    if weights is not None:
        data["weights"] = weights
    return load_environment_text(yaml.safe_dump(data))


def serve(p: EnvironmentPlan, team: str, accelerator: str, **kw: Any) -> list[dict[str, Any]]:
    req = WorkloadRequest(
        name="srv", team=team, kind=kw.pop("kind", "deployment"), accelerator=accelerator, image=IMAGE, **kw
    )
    return new_workload(p, req)


def test_gcs_fuse_weights_are_a_read_only_mount() -> None:
    dep, _pdb = serve(plan("dev"), "nlp", "l4", weights="gs://acme-models/llama/8b/")  # and its PodDisruptionBudget
    spec = dep["spec"]["template"]["spec"]
    weights = next(v for v in spec["volumes"] if v["name"] == "weights")
    assert weights["csi"]["readOnly"] is True
    assert weights["csi"]["volumeAttributes"]["bucketName"] == "acme-models"
    assert "only-dir=llama/8b" in weights["csi"]["volumeAttributes"]["mountOptions"]
    assert {"name": "weights", "mountPath": "/weights", "readOnly": True} in spec["containers"][0]["volumeMounts"]


def test_hyperdisk_ml_weights_are_a_populated_read_only_many_volume() -> None:
    p = plan("dev", {"teams": {"nlp": "hyperdisk-ml"}})
    sc, source, pvc, dep, _pdb = serve(p, "nlp", "l4", weights="gs://acme-models/llama/8b", weights_gib=40)
    pool = next(x for x in p.pools if x.name == "l4-dev")
    zones = list(pool.zones or p.cluster.node_zones)
    assert sc["kind"] == "StorageClass" and sc["provisioner"] == "pd.csi.storage.gke.io"
    assert sc["parameters"]["type"] == "hyperdisk-ml"
    assert sc["allowedTopologies"] == [{"matchLabelExpressions": [{"key": "topology.gke.io/zone", "values": zones}]}]
    assert source["apiVersion"] == "datalayer.gke.io/v1" and source["kind"] == "GCPDataSource"
    assert source["spec"]["cloudStorage"] == {"serviceAccountName": "workload", "uri": "gs://acme-models/llama/8b/"}
    assert pvc["spec"]["accessModes"] == ["ReadOnlyMany"]
    assert pvc["spec"]["dataSourceRef"] == {
        "apiGroup": "datalayer.gke.io",
        "kind": "GCPDataSource",
        "name": "srv-weights",
    }
    assert pvc["spec"]["resources"]["requests"]["storage"] == "40Gi"
    volume = next(v for v in dep["spec"]["template"]["spec"]["volumes"] if v["name"] == "weights")
    assert volume == {"name": "weights", "persistentVolumeClaim": {"claimName": "srv-weights", "readOnly": True}}
    report = lint_texts(p, [("srv.yaml", yaml.safe_dump_all([sc, source, pvc, dep]))])
    assert report.ok, report.render()


def test_hyperdisk_ml_on_an_n1_pool_is_refused() -> None:
    p = plan("prod", {"teams": {"serving": "hyperdisk-ml"}})
    with pytest.raises(ConfigError, match="N1 machines attach no Hyperdisk"):
        serve(p, "serving", "t4", weights="gs://acme-models/m/", weights_gib=40)


@pytest.mark.parametrize(
    ("kw", "text"),
    [
        ({"weights": "gs://acme-models/m/", "kind": "job"}, "weights volumes are for serving"),
        ({"weights": "s3://acme-models/m/"}, "not a Cloud Storage folder"),
    ],
)
def test_bad_weights_requests(kw: dict[str, Any], text: str) -> None:
    with pytest.raises(ConfigError, match=text):
        serve(plan("dev"), "nlp", "l4", **kw)


def test_hyperdisk_ml_needs_a_size() -> None:
    with pytest.raises(ConfigError, match="larger than 4 Gi"):
        serve(plan("dev", {"teams": {"nlp": "hyperdisk-ml"}}), "nlp", "l4", weights="gs://acme-models/m/")


RULES = [
    Rule(
        "weights-team",
        "weights",
        {"teams": {"nlp": "hyperdisk-ml"}},
        {"teams": {"vision": "hyperdisk-ml"}},
        "weights.teams.vision",
        "not a team",
        setup={"teams": [{"name": "nlp", "google_group": "nlp@acme.example.com"}]},
    ),
    Rule("weights-method", "weights.default", "hyperdisk-ml", "nfs", "weights.default", "gcs-fuse"),
]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_weights_rules(rule: Rule) -> None:
    assert_rule_accepts(rule)
    assert_rule_rejects(rule)
