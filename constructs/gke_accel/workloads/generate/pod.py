"""The pod template every generated workload shares: the pool's selectors and tolerations, resources,
the team's service account, the checkpoint bucket through the GCS FUSE CSI driver under the team's
prefix, and a security context that passes the ``restricted`` Pod Security Standard and checkov."""

from __future__ import annotations

from typing import Any

from gke_accel.workloads.generate._model import WORKLOAD_KSA, storage_fuse
from gke_accel.workloads.nodes import PoolNodes

GCSFUSE_DRIVER = "gcsfuse.csi.storage.gke.io"
GCSFUSE_ANNOTATION = "gke-gcsfuse/volumes"  # asks GKE to inject the GCS FUSE sidecar
CHECKPOINT_DIR = "/checkpoints"
SCRATCH_DIR = "/tmp"  # the only writable path besides the checkpoints: the root filesystem is read-only
RUN_AS = 10001  # a high UID, outside the host's users
# Accepted checkov findings on generated workloads, recorded on the object with a reason.
CHECKOV_SKIPS = {
    "CKV_K8S_43": "the image is the user's choice: pin it by digest in the pipeline that builds it",
    "CKV2_K8S_6": "the platform declares a default-deny ingress NetworkPolicy in every team namespace",
}
PROBE_SKIPS = {
    "CKV_K8S_8": "batch pod: no long-running endpoint to probe (deployments with --port get probes)",
    "CKV_K8S_9": "batch pod: no endpoint to probe for readiness (deployments with --port get probes)",
}

Obj = dict[str, Any]


def checkov_annotations(skips: dict[str, str]) -> dict[str, str]:
    return {f"checkov.io/skip{i}": f"{code}={why}" for i, (code, why) in enumerate(sorted(skips.items()), 1)}


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
    port: int | None = None,
    fuse: storage_fuse.FuseMount | None = None,
) -> Obj:
    resources = {"cpu": cpu, "memory": memory}
    if chips:
        resources[pool.plan.resource] = str(chips)
    env = [*env, {"name": "HOME", "value": SCRATCH_DIR}]
    mounts = [{"name": "scratch", "mountPath": SCRATCH_DIR}]
    volumes: list[Obj] = [{"name": "scratch", "emptyDir": {}}]
    if bucket:
        env.append({"name": "CHECKPOINT_DIR", "value": CHECKPOINT_DIR})
        mounts.append({"name": "checkpoints", "mountPath": CHECKPOINT_DIR})
        volumes.append(
            {
                "name": "checkpoints",
                "csi": {
                    "driver": GCSFUSE_DRIVER,
                    "volumeAttributes": {
                        "bucketName": bucket,
                        # only the team's prefix: its service account may use nothing else
                        "mountOptions": fuse.mount_options
                        if fuse
                        else f"only-dir={team},implicit-dirs,uid={RUN_AS},gid={RUN_AS}",
                    },
                },
            }
        )
        if fuse and fuse.cache_volume:  # the sidecar's file cache (model/storage/fuse.py)
            volumes.append(fuse.cache_volume)
    container: Obj = {
        "name": "main",
        "image": image,
        "imagePullPolicy": "Always",
        **({"command": command} if command else {}),
        "env": env,
        "resources": {"requests": dict(resources), "limits": dict(resources)},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "volumeMounts": mounts,
    }
    if port is not None:
        probe = {"tcpSocket": {"port": port}, "periodSeconds": 10}
        container["ports"] = [{"name": "serve", "containerPort": port}]
        container["readinessProbe"] = probe
        container["livenessProbe"] = {**probe, "initialDelaySeconds": 60}
    spec: Obj = {
        "serviceAccountName": WORKLOAD_KSA,
        # Workload Identity reaches Google APIs through the metadata server, not this token
        "automountServiceAccountToken": False,
        "priorityClassName": priority,
        **({"restartPolicy": restart} if restart else {}),
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": RUN_AS,
            "runAsGroup": RUN_AS,
            "fsGroup": RUN_AS,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "nodeSelector": pool.shape.selector(),
        "tolerations": pool.shape.tolerations(),
        "containers": [container],
        "volumes": volumes,
    }
    if not spec["tolerations"]:
        del spec["tolerations"]
    skips = CHECKOV_SKIPS | ({} if port is not None else PROBE_SKIPS)
    sidecar = (fuse.annotations if fuse else {GCSFUSE_ANNOTATION: "true"}) if bucket else {}
    annotations = checkov_annotations(skips) | sidecar
    return {
        "metadata": {"labels": {"app.kubernetes.io/name": name, **labels}, "annotations": annotations},
        "spec": spec,
    }
