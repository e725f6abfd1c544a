"""Node loss through the engines (``gke-accel simulate``'s twin): kube-controller-manager's node-lifecycle,
taint-eviction and pod-GC controllers, and kwok heartbeating each node it manages through a Lease, so a node
kwok stops managing goes silent, and the real controllers notice: after ``--node-monitor-grace-period``
without a renewed Lease the node-lifecycle controller sets its Ready condition Unknown and taints it
``node.kubernetes.io/unreachable:NoExecute``; the taint-eviction controller deletes its pods once the
toleration the DefaultTolerationSeconds admission plugin gave them runs out
(``--default-unreachable-toleration-seconds``), with a ``DisruptionTarget`` condition
(``DeletionByTaintManager``) it sets itself.

GKE runs these with the upstream defaults (kube-controller-manager 1.33 ``--help``:
``--node-monitor-grace-period`` 50 s, ``--node-monitor-period`` 5 s; kube-apiserver ``--default-unreachable-
toleration-seconds`` and ``--default-not-ready-toleration-seconds`` 300). Those are minutes of wall time, and
on the virtual clock simulated time stands still while the control plane settles: so the twin runs them
short (``SIMULATE``: seconds), and the simulate runner accounts GKE's values as simulated time
(``simulate/failures.py`` ``DETECT``). The node-eviction rate (0.1 nodes a second) is raised so a lost
multi-host slice is tainted in one pass; the zone-disruption thresholds stay the defaults.

Without a ``NodeLifecycle`` (every other twin) none of this runs: kwok writes no Leases and no
controller looks at node health (``binaries.WORKLOAD_CONTROLLERS``).
"""

from __future__ import annotations

from dataclasses import dataclass

CONTROLLERS = ("nodelifecycle", "taint-eviction-controller", "podgc")
KWOK_LABEL = ("type", "kwok")  # the label kwok manages nodes by (cluster.start_kwok)


@dataclass(frozen=True)
class NodeLifecycle:
    """Wall-clock settings of node-health detection in a twin."""

    grace: int  # s: kube-controller-manager --node-monitor-grace-period
    lease: int  # s: kwok --node-lease-duration-seconds (it renews every lease / 4)
    toleration: int  # s: kube-apiserver --default-{unreachable,not-ready}-toleration-seconds
    period: int = 1  # s: kube-controller-manager --node-monitor-period
    eviction_rate: float = 100.0  # nodes a second: --node-eviction-rate

    def __post_init__(self) -> None:
        problems = []
        if self.lease < 4:
            problems.append(f"lease {self.lease!r}: at least 4 s (kwok renews every lease / 4, whole seconds)")
        if self.grace < 2 * self.lease:
            problems.append(f"grace {self.grace!r}: at least twice the lease ({2 * self.lease} s), or a node kwok "
                            "heartbeats late on a loaded machine goes Unknown")  # fmt: skip
        if self.toleration < 0 or self.period < 1 or self.eviction_rate <= 0:
            problems.append(f"toleration {self.toleration!r} >= 0, period {self.period!r} >= 1 and eviction_rate "
                            f"{self.eviction_rate!r} > 0")  # fmt: skip
        if problems:
            raise ValueError("NodeLifecycle: " + "; ".join(problems))

    def apiserver_flags(self) -> list[str]:
        return [f"--default-unreachable-toleration-seconds={self.toleration}",
                f"--default-not-ready-toleration-seconds={self.toleration}"]  # fmt: skip

    def controller_manager_flags(self) -> list[str]:
        return [f"--node-monitor-grace-period={self.grace}s", f"--node-monitor-period={self.period}s",
                f"--node-startup-grace-period={max(60, 2 * self.grace)}s",
                f"--node-eviction-rate={self.eviction_rate:g}"]  # fmt: skip

    def kwok_flags(self) -> list[str]:
        return [f"--node-lease-duration-seconds={self.lease}"]


# The simulate twin: a silent node is Unknown after 12 wall seconds (kwok renews every 1 s), its pods
# evicted 1 s later.
SIMULATE = NodeLifecycle(grace=12, lease=4, toleration=1)
