"""The event log of a simulation run: what happened to each job, in simulated seconds since the start.

Types: ``submitted``; ``admitted`` (Kueue reserved quota: ``flavor``, ``chips``); ``running`` (``chips``
held by the job's Running pods from now on; 0 = none); ``evicted`` (``detail`` preempted | node-failure;
``lost`` = seconds of work since the job's last checkpoint, thrown away); ``finished``.
Serving (simulate/serving.py): ``scaled`` (a Deployment's ``replicas`` from now on), and the events above
per replica, ``job`` the pod and ``deployment`` its Deployment.
Stored as JSON lines (one event per line) so a run can be re-reported without the twin.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass

TYPES = ("submitted", "admitted", "running", "evicted", "finished", "scaled")


@dataclass(frozen=True)
class Event:
    t: float
    job: str
    team: str
    type: str
    flavor: str = ""
    chips: int = 0
    detail: str = ""
    lost: float = 0.0
    deployment: str = ""  # a serving replica's (or a ``scaled`` event's) Deployment; "" for a job
    replicas: int = 0  # ``scaled``: the replica count asked for from now on

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"event type {self.type!r} is not one of {', '.join(TYPES)}")


def dump(events: Iterable[Event]) -> str:
    return "".join(json.dumps(asdict(e), sort_keys=True) + "\n" for e in events)


def load(text: str) -> list[Event]:
    return [Event(**json.loads(line)) for line in text.splitlines() if line.strip()]
