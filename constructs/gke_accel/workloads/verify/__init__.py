"""``gke-accel verify``: the live cluster against the environment's plan (read-only; ``--smoke``
submits one tiny pod per accelerator kind)."""

from gke_accel.workloads.verify.check import CheckRow, VerifyReport, verify_state
from gke_accel.workloads.verify.state import ClusterState

__all__ = ["CheckRow", "ClusterState", "VerifyReport", "verify_state"]
