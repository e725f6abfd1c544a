"""``gke-accel workload new``: a ready workload for a team in an environment."""

from gke_accel.workloads.generate.workload import WorkloadRequest, new_workload

__all__ = ["WorkloadRequest", "new_workload"]
