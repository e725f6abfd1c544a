"""Policy scan (checkov) of synthesized stacks and of the platform's Kubernetes manifests, honouring
the skips recorded on each resource."""

from gke_accel.policy.k8s_scan import scan_manifests
from gke_accel.policy.scan import CheckovMissing, Finding, PolicyReport, collect_skips, scan_stacks

__all__ = ["CheckovMissing", "Finding", "PolicyReport", "collect_skips", "scan_manifests", "scan_stacks"]
