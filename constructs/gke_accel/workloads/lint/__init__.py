"""``gke-accel lint``: whether and where each workload schedules in an environment, and why not."""

from gke_accel.workloads.lint.engine import LintReport, WorkloadVerdict, lint_documents, lint_texts
from gke_accel.workloads.lint.findings import Finding

__all__ = ["Finding", "LintReport", "WorkloadVerdict", "lint_documents", "lint_texts"]
