"""The GCS FUSE checkpoint mount of generated workloads, and what lint makes of the sidecar, its file
cache and the image's registry.

Facts: GKE "Plan GKE Standard node sizes" (example node with a 100 GB boot disk: allocatable
ephemeral-storage 47060071478 bytes); "Optimize Cloud Storage FUSE CSI driver for GKE performance"
(mount options ``file-cache:enable-parallel-downloads:true``, ``file-cache:max-size-mb``);
"Configure the Cloud Storage FUSE CSI driver sidecar container" (``gke-gcsfuse/*-request``
annotations, the ``gke-gcsfuse-cache`` volume; default requests 250m CPU, 256 MiB); "Use Image
streaming to pull container images" (Artifact Registry images only)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gke_accel.catalog import load_catalog
from gke_accel.model import EnvironmentPlan
from gke_accel.model.environment.config_files import load_environments
from gke_accel.model.pools.allocatable import machine_allocatable
from gke_accel.model.storage.fuse import ephemeral_allocatable_bytes
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts

CONFIG = Path(__file__).resolve().parents[2] / "config"
IMAGE = "us-central1-docker.pkg.dev/acme-ml-dev/training/train:1"


@pytest.fixture(scope="module")
def dev() -> EnvironmentPlan:
    return next(p for p in load_environments(CONFIG) if p.name == "dev")


def test_ephemeral_storage_matches_the_page_example() -> None:
    assert ephemeral_allocatable_bytes(100) == pytest.approx(47060071478, rel=1e-3)


def _job(dev: EnvironmentPlan, image: str = IMAGE) -> dict:  # type: ignore[type-arg]
    return new_workload(dev, WorkloadRequest(name="ft", team="nlp", kind="job", accelerator="l4", image=image))[0]


def _findings(dev: EnvironmentPlan, obj: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    report = lint_texts(dev, [("job.yaml", yaml.safe_dump(obj))])
    return [(f.rule, f.severity) for v in report.verdicts for f in v.findings]


def test_generated_mount_has_parallel_downloads_and_a_sized_cache(dev: EnvironmentPlan) -> None:
    pod = _job(dev)["spec"]["template"]
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    options = volumes["checkpoints"]["csi"]["volumeAttributes"]["mountOptions"].split(",")
    assert "file-cache:enable-parallel-downloads:true" in options
    assert "only-dir=nlp" in options
    # l4-dev: 200 GB boot disk, one GPU per node (the pod's share is the whole node): half of what is
    # left once the sidecar's 5 GiB are taken, of floor(0.9425*200 - min(100, 6+70, 100) - 0.1*0.9425*200)
    room = 200 * 0.94254 - 76 - 0.1 * 200 * 0.94254
    expected = int((room - 5) * 0.5)
    assert volumes["gke-gcsfuse-cache"] == {"name": "gke-gcsfuse-cache", "emptyDir": {"sizeLimit": f"{expected}Gi"}}
    assert f"file-cache:max-size-mb:{expected * 1024}" in options
    assert pod["metadata"]["annotations"]["gke-gcsfuse/ephemeral-storage-request"] == "5Gi"
    assert _findings(dev, _job(dev)) == []


def test_a_cache_no_node_holds_is_an_error(dev: EnvironmentPlan) -> None:
    job = _job(dev)
    for v in job["spec"]["template"]["spec"]["volumes"]:
        if v["name"] == "gke-gcsfuse-cache":
            v["emptyDir"]["sizeLimit"] = "400Gi"
    assert ("gcsfuse-cache", "error") in _findings(dev, job)


def test_the_sidecar_counts_toward_the_pods_requests(dev: EnvironmentPlan) -> None:
    pool = next(p for p in dev.pools if p.name == "l4-dev")
    node = machine_allocatable(pool.machine_type, load_catalog())
    assert node is not None
    job = _job(dev)
    spec = job["spec"]["template"]["spec"]
    container = spec["containers"][0]
    # the container alone takes the node's allocatable memory less 100 MiB: fits without the sidecar
    memory = f"{node.memory_mib - 100}Mi"
    container["resources"]["requests"]["memory"] = container["resources"]["limits"]["memory"] = memory
    bare = yaml.safe_load(yaml.safe_dump(job))
    bare_spec = bare["spec"]["template"]
    bare_spec["metadata"]["annotations"] = {}
    bare_spec["spec"]["volumes"] = [v for v in bare_spec["spec"]["volumes"] if v["name"] == "scratch"]
    bare_spec["spec"]["containers"][0]["volumeMounts"] = [{"name": "scratch", "mountPath": "/tmp"}]
    assert ("node-size", "error") not in _findings(dev, bare)
    # with the sidecar's 256 MiB it does not
    assert ("node-size", "error") in _findings(dev, job)


@pytest.mark.parametrize(
    ("image", "warned"),
    [
        (IMAGE, False),
        ("us-docker.pkg.dev/acme-ml-dev/training/train:1", False),  # the multi-region holding us-central1
        ("europe-west4-docker.pkg.dev/acme-ml-dev/training/train:1", True),
        ("ghcr.io/acme/train:1", True),
    ],
)
def test_images_image_streaming_cannot_serve_are_warned(dev: EnvironmentPlan, image: str, warned: bool) -> None:
    assert (("image-streaming", "warning") in _findings(dev, _job(dev, image))) is warned
