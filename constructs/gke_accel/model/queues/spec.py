"""Config shape for sharing accelerators through Kueue (``queues:`` in ``config/<env>.yaml``).

Each team's nominal quota is its ``teams[].accelerators``; the keys here are only for real choices:
how much a team may borrow from the cohort or lend to it, and whether it may borrow by preempting
lower-priority work of other teams (an inference team). Rules: ``model/queues/rules.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_PODS_READY_TIMEOUT_SECONDS = 1800


@dataclass(frozen=True)
class TeamQueueSpec:
    """Per-team queue choices, keyed by team name under ``queues.teams``.

    ``borrowing_limit`` / ``lending_limit`` map a GPU model or TPU generation (as in
    ``teams[].accelerators``) to chips or GPUs, applied to each flavor of that accelerator.
    Default borrowing: whatever the cohort can lend; default lending: the whole nominal quota.
    """

    borrowing_limit: dict[str, int] = field(default_factory=dict)
    lending_limit: dict[str, int] = field(default_factory=dict)
    preempt_when_borrowing: bool = False  # may borrow by preempting other teams' training/batch work


@dataclass(frozen=True)
class QueuesSpec:
    """Kueue and JobSet installed, one cohort of ClusterQueues (one per team) per environment."""

    enabled: bool = True
    cohort: str | None = None  # default: the environment name
    # Kueue's waitForPodsReady timeout: an admitted workload whose pods are not all Ready by then (a
    # stockout, a pool whose nodes never arrive) is evicted and requeued with backoff, and its quota freed.
    # 1800 s: Kueue's own default from v0.19 (apis/config/v1beta2/defaults.go DefaultWaitForPodsReadyTimeout),
    # longer than a multi-host TPU slice or an 8-GPU node takes to come up and pull a large image.
    pods_ready_timeout_seconds: int = DEFAULT_PODS_READY_TIMEOUT_SECONDS
    teams: dict[str, TeamQueueSpec] = field(default_factory=dict)
