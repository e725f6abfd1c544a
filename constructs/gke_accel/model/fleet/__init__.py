"""A fleet: one manager environment that queues jobs and dispatches them, through Kueue's MultiKueue,
to worker environments (each its own cluster, region and project) in a configured order."""

from gke_accel.model.fleet.plan import FleetPlan, WorkerOffer, WorkerView, plan_fleet
from gke_accel.model.fleet.spec import FleetSpec

__all__ = ["FleetPlan", "FleetSpec", "WorkerOffer", "WorkerView", "plan_fleet"]
