"""``gke-accel explain``: what holds a job (Kueue admission, preemption, scheduling, running)."""

from gke_accel.workloads.explain.interpret import Explanation, Observed, explain

__all__ = ["Explanation", "Observed", "explain"]
