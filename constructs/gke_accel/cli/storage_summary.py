"""What ``synth`` says about storage and restarts, per environment."""

from __future__ import annotations

from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.platform.rules import checkpoint_bucket
from gke_accel.model.storage.bucket import bucket_options
from gke_accel.model.storage.restart import restart_summary


def storage_lines(plan: EnvironmentPlan) -> list[str]:
    spec = plan.spec
    cp = spec.platform.checkpoints
    lines = []
    if cp.enabled:
        cache = "no file cache" if cp.file_cache == "off" else f"file cache on {cp.file_cache}"
        lines.append(
            f"  checkpoints: bucket {checkpoint_bucket(spec)} ({bucket_options(cp, spec.region).describe()}); "
            f"GCS FUSE with parallel downloads, {cache}"
        )
    lines.append("  " + restart_summary(spec, plan.pools))
    return lines
