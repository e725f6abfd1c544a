"""``gke-accel workload new``: a ready workload for a team in an environment."""

from gke_accel.workloads.generate.request import WorkloadRequest
from gke_accel.workloads.generate.workload import new_workload

__all__ = ["WorkloadRequest", "new_workload"]
