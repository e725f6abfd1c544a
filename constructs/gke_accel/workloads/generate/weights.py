"""``workload new --kind deployment --weights gs://BUCKET/PATH/``: the model weights as a read-only
volume at /weights, the way the team loads them (model/storage/weights.py): a Cloud Storage FUSE
mount through the pod's file cache, or a Hyperdisk ML volume that GKE Volume Populator fills."""

from __future__ import annotations

from typing import Any

from gke_accel.workloads.generate._model import WORKLOAD_KSA, ConfigError, ConfigIssue, EnvironmentPlan, storage_weights
from gke_accel.workloads.nodes import PoolNodes

Obj = dict[str, Any]


def _fail(flag: str, message: str, valid: str) -> ConfigError:
    return ConfigError([ConfigIssue(flag, message, valid)])


def add_weights(
    plan: EnvironmentPlan,
    *,
    uri: str,
    gib: int | None,
    kind: str,
    name: str,
    namespace: str,
    team: str,
    pool: PoolNodes,
    template: Obj,
    uid: int,
) -> list[Obj]:
    """Mount the weights in ``template`` (changed in place); the objects to apply before it."""
    if kind != "deployment":
        raise _fail("--weights", f"{kind}: weights volumes are for serving", "--kind deployment")
    source = storage_weights.parse_uri(uri)
    if source is None:
        raise _fail("--weights", f"{uri!r} is not a Cloud Storage folder", "gs://BUCKET/ or gs://BUCKET/PATH/")
    method = storage_weights.team_method(plan.spec, team)
    spec = template["spec"]
    container = spec["containers"][0]
    container["volumeMounts"].append({"name": "weights", "mountPath": storage_weights.WEIGHTS_DIR, "readOnly": True})
    container["env"].append({"name": "WEIGHTS_DIR", "value": storage_weights.WEIGHTS_DIR})
    if method == "gcs-fuse":
        cached = any(v.get("name") == "gke-gcsfuse-cache" for v in spec["volumes"])
        spec["volumes"].append(storage_weights.fuse_volume(source, uid, cached))
        template["metadata"]["annotations"].setdefault("gke-gcsfuse/volumes", "true")
        return []
    problem = storage_weights.attach_problem(pool.plan)
    if problem:
        raise _fail(
            "--weights",
            f"team {team} loads weights from Hyperdisk ML, but {problem}",
            f"a pool on a machine series that attaches Hyperdisk ML, or weights.teams.{team}: gcs-fuse",
        )
    if gib is None or gib < storage_weights.MIN_GIB:
        raise _fail(
            "--weights-gib",
            f"{'missing' if gib is None else gib}: the Hyperdisk ML volume must hold the weights, "
            "and be larger than 4 Gi",
            f"{storage_weights.MIN_GIB} or more (the size of the weights plus headroom)",
        )
    zones = list(pool.plan.zones or plan.cluster.node_zones)
    objects, volume = storage_weights.hyperdisk_objects(
        plan.spec, name=name, namespace=namespace, ksa=WORKLOAD_KSA, source=source, gib=gib, zones=zones
    )
    spec["volumes"].append(volume)
    return objects
