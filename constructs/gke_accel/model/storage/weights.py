"""Model weights for inference pods: a read-only Cloud Storage FUSE mount, or a Hyperdisk ML volume
filled from Cloud Storage by GKE Volume Populator, chosen per team (``weights`` in config).

GKE facts (docs/storage.md cites each page):

- "Automate data transfer to Hyperdisk ML with GKE Volume Populator": a ``GCPDataSource``
  (``datalayer.gke.io/v1``, ``spec.cloudStorage{serviceAccountName, uri}``, the URI of a folder ends
  in ``/``) in the workload's namespace; a StorageClass with provisioner ``pd.csi.storage.gke.io``,
  ``parameters.type: hyperdisk-ml``, ``provisioned-throughput-on-create`` (the page: "2400Mi"),
  ``allowedTopologies`` on ``topology.gke.io/zone`` ("the location where you created your nodes" on
  Standard without node auto-provisioning); a PVC ``ReadOnlyMany`` with ``dataSourceRef`` to the
  GCPDataSource, larger than the data and larger than 4 Gi.
- "About Hyperdisk for GKE": "Hyperdisk support is subject to the disks and machine type of your
  node" (Compute Engine "Machine type support"). N1 machines (the hosts of T4, V100, P100 and P4
  GPUs) attach no Hyperdisk. The catalog lists no per-series Hyperdisk ML support, so only N1 is
  refused here; other machine series are left to Compute Engine (UNVERIFIED offline).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.storage.config import StorageConfig

METHODS = ("gcs-fuse", "hyperdisk-ml")
GS_URI = re.compile(r"^gs://(?P<bucket>[a-z0-9][a-z0-9._-]{1,61}[a-z0-9])/(?P<path>([^/]+/)*)$")
MIN_GIB = 5  # "the value of DISK_SIZE must be larger than 4 Gi"
DATA_API = "datalayer.gke.io"
WEIGHTS_DIR = "/weights"
Obj = dict[str, Any]


@dataclass(frozen=True)
class WeightsSource:
    bucket: str
    path: str  # inside the bucket, ending in "/" ("" for the whole bucket)

    @property
    def uri(self) -> str:
        return f"gs://{self.bucket}/{self.path}"


def parse_uri(uri: str) -> WeightsSource | None:
    match = GS_URI.fullmatch(uri if uri.endswith("/") else uri + "/")
    return None if match is None else WeightsSource(match.group("bucket"), match.group("path"))


def team_method(spec: StorageConfig, team: str) -> str:
    return spec.weights.teams.get(team, spec.weights.default)


def attach_problem(pool: NodePoolPlan) -> str | None:
    """Why the pool's nodes cannot attach a Hyperdisk ML volume, or None."""
    if pool.machine_type.startswith("n1-"):
        return f"{pool.name} runs on {pool.machine_type}: N1 machines attach no Hyperdisk"
    return None


def check_weights(spec: StorageConfig, issues: IssueCollector) -> None:
    w = spec.weights
    if w.default not in METHODS:
        issues.bad("weights.default", w.default, "is not a way to load weights", METHODS)
    names = [t.name for t in spec.teams]
    for team, method in w.teams.items():
        if team not in names:
            issues.bad(f"weights.teams.{team}", team, "is not a team of this environment", names or "none")
        if method not in METHODS:
            issues.bad(f"weights.teams.{team}", method, "is not a way to load weights", METHODS)
    if w.throughput_mib < 1:
        issues.bad("weights.throughput_mib", w.throughput_mib, "is out of range", "1 or more (MiB/s)")


def hyperdisk_objects(
    spec: StorageConfig, *, name: str, namespace: str, ksa: str, source: WeightsSource, gib: int, zones: list[str]
) -> tuple[list[Obj], Obj]:
    """The StorageClass, GCPDataSource and ReadOnlyMany PVC of a Hyperdisk ML weights volume in
    ``zones``, and the pod volume that reads it."""
    sc_name = f"hyperdisk-ml-{spec.environment}-{'-'.join(z.rsplit('-', 1)[1] for z in zones)}"
    params = {"type": "hyperdisk-ml", "provisioned-throughput-on-create": f"{spec.weights.throughput_mib}Mi"}
    if len(zones) > 1:
        params["enable-multi-zone-provisioning"] = "true"
    storage_class = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": sc_name},
        "provisioner": "pd.csi.storage.gke.io",
        "parameters": params,
        "allowVolumeExpansion": False,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "Immediate",  # the transfer starts when the PVC is created
        "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.gke.io/zone", "values": zones}]}],
    }
    data_source = {
        "apiVersion": f"{DATA_API}/v1",
        "kind": "GCPDataSource",
        "metadata": {"name": f"{name}-weights", "namespace": namespace},
        "spec": {"cloudStorage": {"serviceAccountName": ksa, "uri": source.uri}},
    }
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": f"{name}-weights", "namespace": namespace},
        "spec": {
            "accessModes": ["ReadOnlyMany"],
            "storageClassName": sc_name,
            "resources": {"requests": {"storage": f"{gib}Gi"}},
            "dataSourceRef": {"apiGroup": DATA_API, "kind": "GCPDataSource", "name": f"{name}-weights"},
        },
    }
    volume = {"name": "weights", "persistentVolumeClaim": {"claimName": f"{name}-weights", "readOnly": True}}
    return [storage_class, data_source, pvc], volume


def fuse_volume(source: WeightsSource, uid: int, cached: bool) -> Obj:
    """A read-only Cloud Storage FUSE volume of the weights' folder, through the pod's file cache."""
    options = ["implicit-dirs", f"uid={uid}", f"gid={uid}"]
    if source.path:
        options.insert(0, f"only-dir={source.path.rstrip('/')}")
    if cached:
        # -1: as much of the pod's cache volume as is free ("Cloud Storage FUSE CSI driver volume attributes")
        options += [
            "file-cache:max-size-mb:-1",
            "file-cache:cache-file-for-range-read:true",
            "file-cache:enable-parallel-downloads:true",
        ]
    return {
        "name": "weights",
        "csi": {
            "driver": "gcsfuse.csi.storage.gke.io",
            "readOnly": True,
            "volumeAttributes": {"bucketName": source.bucket, "mountOptions": ",".join(options)},
        },
    }
