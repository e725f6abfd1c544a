"""Policy scan of synthesized stacks (checkov), honouring the skips recorded in the JSON."""

from gke_accel.policy.scan import CheckovMissing, Finding, PolicyReport, collect_skips, scan_stacks

__all__ = ["CheckovMissing", "Finding", "PolicyReport", "collect_skips", "scan_stacks"]
