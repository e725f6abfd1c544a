"""Limits GKE and Compute Engine enforce, in one place, and the range check that uses them.

Sources: GKE quotas and limits page (nodes per node pool per zone, nodes per cluster); provider
schema and Persistent Disk limits (boot disk size); GKE node auto-provisioning page (latency grows
above 200 node pools); gke-accel policy (at most 1,000 node pools, so synth stays bounded).
"""

from __future__ import annotations

from gke_accel.model.core.errors import IssueCollector

MAX_NODES_PER_POOL_ZONE = 1000
MAX_NODES_PER_CLUSTER = 15000
DISK_GB = (10, 65536)
POOLS_WARN = 200
POOLS_MAX = 1000


def check_range(path: str, value: int, low: int, high: int, issues: IssueCollector, high_name: str = "") -> bool:
    """Record an issue unless ``low <= value <= high``; True when the value is in range."""
    if low <= value <= high:
        return True
    top = f"{high_name} ({high})" if high_name else str(high)
    issues.bad(path, value, "is out of range", f"{low} to {top}")
    return False


def check_disk(path: str, value: int, issues: IssueCollector) -> None:
    low, high = DISK_GB
    if value < low:
        issues.bad(path, value, "is too small", f"{low} to {high} (GB)")
    elif value > high:
        issues.bad(path, value, "is too large", f"{low} to {high} (GB)")
