"""Subcommand module: ``register(subparsers)`` adds its command to ``gke-accel``."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this module's subcommand(s)."""
