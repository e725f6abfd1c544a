"""What every subcommand shares: exit codes, the parser (no abbreviations, one-line description and
an example per subcommand) and how environments are chosen on the command line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TypeAlias

from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.model.environment.config_files import load_environments

EXIT_OK, EXIT_ERROR, EXIT_CONFIG = 0, 1, 2


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that never guesses abbreviations (``--config`` is not ``--config-dir``);
    subcommand parsers made by ``add_subparsers`` are of this class too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        """Help is plain text: docstrings' reST double backticks (``--flag``) are dropped."""
        return super().format_help().replace("``", "")


Subcommands: TypeAlias = "argparse._SubParsersAction[Parser]"


def shown_path(path: str | Path) -> str:
    """``path`` as a person reads it: relative to the working folder when inside it (an absolute path
    in a deep checkout runs past the line width), else as given."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def add_command(sub: Subcommands, name: str, summary: str, *examples: str, details: str = "") -> Parser:
    """A subcommand with a one-line ``summary`` (shown in ``gke-accel --help`` and first in its own
    ``--help``), optional ``details`` and at least one example command line."""
    if not examples:
        raise ValueError(f"subcommand {name!r} needs an example")
    description = summary + (f"\n\n{details.strip()}" if details else "")
    epilog = "examples:\n" + "\n".join(f"  {e}" for e in examples)
    parser = sub.add_parser(name, help=summary, description=description, epilog=epilog)
    assert isinstance(parser, Parser)  # add_subparsers makes parsers of the parent's class
    return parser


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
