"""Subcommand module: ``register(subparsers)`` adds its command to ``gke-accel``."""

from __future__ import annotations

import argparse

from gke_accel.model import EnvironmentPlan


def synth_section(plan: EnvironmentPlan) -> str:
    """Text printed by ``gke-accel synth`` for one environment ("" for nothing)."""
    return ""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this module's subcommand(s)."""
