"""The pod template every generated workload shares: the pool's selectors and tolerations, resources,
the team's service account, the checkpoint bucket through the GCS FUSE CSI driver under the team's
prefix, and a security context that passes the ``restricted`` Pod Security Standard."""

from __future__ import annotations

from typing import Any

from gke_accel.workloads._model import WORKLOAD_KSA
from gke_accel.workloads.nodes import PoolNodes

GCSFUSE_DRIVER = "gcsfuse.csi.storage.gke.io"
GCSFUSE_ANNOTATION = "gke-gcsfuse/volumes"  # asks GKE to inject the GCS FUSE sidecar
CHECKPOINT_DIR = "/checkpoints"
SELECTOR_KEYS = (
    "cloud.google.com/gke-tpu-accelerator",
    "cloud.google.com/gke-tpu-topology",
    "cloud.google.com/gke-accelerator",
)
RUN_AS = 1000

Obj = dict[str, Any]


def node_selector(pool: PoolNodes) -> dict[str, str]:
    """The pool's accelerator labels (type and TPU topology), as its nodes carry them."""
    return {k: pool.labels[k] for k in SELECTOR_KEYS if k in pool.labels}


def tolerations(pool: PoolNodes) -> list[Obj]:
    return [
        {"key": t.key, "operator": "Equal", "value": t.value, "effect": t.effect}
        for t in pool.taints
        if t.effect in ("NoSchedule", "NoExecute")
    ]


def pod_template(
    *,
    name: str,
    pool: PoolNodes,
    chips: int,
    image: str,
    command: list[str],
    priority: str,
    bucket: str | None,
    team: str,
    cpu: str,
    memory: str,
    restart: str | None,
    env: list[Obj],
    labels: dict[str, str],
) -> Obj:
    resources = {"cpu": cpu, "memory": memory}
    if chips:
        resources[pool.plan.resource] = str(chips)
    container: Obj = {
        "name": "main",
        "image": image,
        "env": [*env, {"name": "CHECKPOINT_DIR", "value": CHECKPOINT_DIR}] if bucket else env,
        "resources": {"requests": dict(resources), "limits": dict(resources)},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "runAsNonRoot": True,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    }
    if command:
        container["command"] = command
    spec: Obj = {
        "serviceAccountName": WORKLOAD_KSA,
        "priorityClassName": priority,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": RUN_AS,
            "runAsGroup": RUN_AS,
            "fsGroup": RUN_AS,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "nodeSelector": node_selector(pool),
        "tolerations": tolerations(pool),
        "containers": [container],
    }
    if restart:
        spec["restartPolicy"] = restart
    if not spec["tolerations"]:
        del spec["tolerations"]
    metadata: Obj = {"labels": {"app.kubernetes.io/name": name, **labels}}
    if bucket:
        container["volumeMounts"] = [{"name": "checkpoints", "mountPath": CHECKPOINT_DIR}]
        spec["volumes"] = [
            {
                "name": "checkpoints",
                "csi": {
                    "driver": GCSFUSE_DRIVER,
                    "volumeAttributes": {
                        "bucketName": bucket,
                        # only the team's prefix: its service account may use nothing else
                        "mountOptions": f"only-dir={team},implicit-dirs,uid={RUN_AS},gid={RUN_AS}",
                    },
                },
            }
        ]
        metadata["annotations"] = {GCSFUSE_ANNOTATION: "true"}
    return {"metadata": metadata, "spec": spec}
