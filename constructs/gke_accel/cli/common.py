"""What every subcommand shares: exit codes, the parser (no abbreviations, one-line description and
an example per subcommand) and how environments are chosen on the command line."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeAlias

from gke_accel.model import ConfigError, EnvironmentPlan, load_environment
from gke_accel.model.environment.config_files import CONFIG_DIR_ENV, load_environments

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

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """As argparse, but an option the subcommand does not take is reported with the subcommand's
        usage (``gke-accel synth --bogus`` shows synth's usage, not the top-level one)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self._subcommand(getattr(parsed, "command", None))
            (command or self).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _subcommand(self, name: str | None) -> argparse.ArgumentParser | None:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and name in action.choices:
                found: argparse.ArgumentParser = action.choices[name]
                return found
        return None


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


def hidden_alias(parser: argparse.ArgumentParser, old: str, new: str, **kwargs: Any) -> None:
    """``old`` still works as ``new`` (one spelling across commands; scripts keep running), unlisted."""
    dest = new.lstrip("-").replace("-", "_")
    parser.add_argument(old, dest=dest, help=argparse.SUPPRESS, default=argparse.SUPPRESS, **kwargs)


def use_config_dir_env(args: argparse.Namespace, argv: Sequence[str]) -> None:
    """``GKE_ACCEL_CONFIG_DIR`` is the folder when ``--config-dir`` is not given (an ML engineer's own
    repository points at the platform's config once)."""
    given = any(a == "--config-dir" or a.startswith("--config-dir=") for a in argv)
    folder = os.environ.get(CONFIG_DIR_ENV)
    if folder and not given and getattr(args, "config_dir", None) == "config":
        args.config_dir = folder


def render_config_error(err: ConfigError) -> str:
    """A ConfigError as printed: mistakes in command-line options are headed as such, not as config;
    one option mistake is one line (``command-line error: --days: ...``), several are a count and a list."""
    text = err.render()
    if err.issues and all(i.path.startswith("-") or i.path.isupper() for i in err.issues):
        if len(err.issues) == 1:
            return "command-line error: " + err.issues[0].render(err.source)
        text = text.replace(" config error", " command-line error", 1)
    return text


def selected_plans(args: argparse.Namespace) -> list[EnvironmentPlan]:
    """The validated environments the arguments name; raises ConfigError with every problem."""
    if getattr(args, "config", None):
        return [load_environment(args.config)]
    return load_environments(Path(args.config_dir), args.env or None)
