"""Config shapes for the in-cluster platform: teams, priority classes, checkpoint storage."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TeamSpec:
    name: str
