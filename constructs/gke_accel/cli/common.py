"""What every subcommand shares: exit codes and how environments are chosen on the command line."""

from __future__ import annotations

import argparse
from pathlib import Path

from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.model.environment.config_files import load_environments

EXIT_OK, EXIT_ERROR, EXIT_CONFIG = 0, 1, 2


def add_env_args(parser: argparse.ArgumentParser, *, single_file: bool = False) -> None:
    parser.add_argument("--env", action="append", help="environment name (repeatable); default: all in --config-dir")
    parser.add_argument("--config-dir", default="config", help="folder with <env>.yaml files (default: config)")
    if single_file:
        parser.add_argument("--config", help="one config file instead of a folder")


def selected_plans(args: argparse.Namespace) -> list[EnvironmentPlan]:
    """The validated environments the arguments name; raises ConfigError with every problem."""
    if getattr(args, "config", None):
        return [load_environment(args.config)]
    return load_environments(Path(args.config_dir), args.env or None)
