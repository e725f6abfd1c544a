"""``gke-accel``: validate, synthesize and inspect accelerator environments.

``validate`` and ``catalog`` use the pure-Python model only; ``synth`` loads the provider bindings.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from gke_accel import __version__
from gke_accel.catalog import load_catalog
from gke_accel.cli.common import (
    EXIT_CONFIG,
    EXIT_ERROR,
    EXIT_OK,
    Parser,
    add_command,
    add_env_args,
    render_config_error,
    selected_plans,
    shown_path,
    use_config_dir_env,
)
from gke_accel.cli.json_errors import json_failures, note_config_error
from gke_accel.cli.progress import Progress, exit_now
from gke_accel.frameworks import FrameworkError
from gke_accel.model import ConfigError, ConfigIssue, EnvironmentPlan
from gke_accel.output_dir import OutputDirError, claimed_output_dir
from gke_accel.tables import fit_text

if TYPE_CHECKING:
    from gke_accel.policy import PolicyReport

INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C
MANIFESTS_DIR = "manifests"  # synth also writes the platform's objects here, for `scan`
SKIPS_FILE = "policy-skips.txt"  # scan writes the accepted findings here, with their reasons

# Subcommand -> its module in gke_accel.cli (each has ``register(subparsers)``). Only the module of
# the command being run is imported, so a model-only command stays fast (``validate`` well under a second).
COMMAND_MODULES = {
    "manifests": "manifests_view",
    "cost": "cost_view",
    "review": "review_view",
    "size": "size_view",
    "lint": "lint_view",
    "workload": "workload_view",
    "verify": "verify_view",
    "explain": "explain_view",
    "deploy-roles": "deploy_roles_view",
    "schema": "schema_view",
    "init": "init_view",
    "preflight": "preflight_view",
    "simulate": "simulate_view",
    "twin": "twin_view",
    "fleet": "fleet_view",
}
MAIN_COMMANDS = ("validate", "synth", "scan", "catalog")  # defined here


def _view(name: str) -> ModuleType:
    return importlib.import_module(f"gke_accel.cli.{name}")


def synth_sections() -> tuple[Callable[[EnvironmentPlan], str], ...]:
    """What ``synth`` prints for each environment after its pool summary."""
    return tuple(
        _view(m).synth_section
        for m in ("manifests_view", "queues_view", "capacity_view", "lifecycle_view", "cost_view")
    )


def cmd_validate(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    plans = selected_plans(args)
    elapsed = time.perf_counter() - started
    for plan in plans:
        print(f"ok  {plan.name}: {len(plan.pools)} accelerator pool(s), source {shown_path(plan.source)}")
        for warning in plan.warnings:
            print(f"  warning: {warning}")
    zones = load_catalog().zones
    print(f"zone data as of {zones.as_of} (catalog/zones.yaml); validated {len(plans)} in {elapsed:.2f}s")
    return EXIT_OK


def environment_report(plan: EnvironmentPlan) -> str:
    """What ``synth`` prints for one environment: pools, then each section (model only)."""
    from gke_accel.cli.summary import environment_summary

    parts = [environment_summary(plan), *(section(plan) for section in synth_sections())]
    return fit_text("\n".join(p for p in parts if p))


def cmd_synth(args: argparse.Namespace) -> int:
    progress = Progress()
    plans = selected_plans(args)
    # a folder it may not write, or one another run is writing, is refused now, not after the bindings load
    with claimed_output_dir(args.outdir):
        return _synth(args, progress, plans)


def _synth(args: argparse.Namespace, progress: Progress, plans: list[EnvironmentPlan]) -> int:
    started = time.perf_counter()
    # Everything printed per environment comes from the model: show it before the slow part.
    for plan in plans:
        print(environment_report(plan) + "\n")
    sys.stdout.flush()
    with progress.long_step("loading the CDK framework and provider bindings"):
        from gke_accel.stacks.app import synth_environments  # loads jsii and the provider bindings

    out = synth_environments(plans, args.outdir, on_stack=lambda name: progress.step(f"building stack {name}"))
    _view("manifests_view").write_manifests(plans, out / MANIFESTS_DIR, option="--outdir")
    for plan in plans:
        print(f"{plan.name} -> {shown_path(out / 'stacks' / plan.name / 'cdk.tf.json')}")
    print(f"synthesized {len(plans)} stack(s) in {time.perf_counter() - started:.1f}s")
    return EXIT_OK


def cmd_scan(args: argparse.Namespace) -> int:
    from gke_accel.policy import CheckovMissing, scan_manifests, scan_stacks

    out = Path(args.outdir)
    stacks = out / "stacks"
    if not any(stacks.glob("*/cdk.tf.json")):
        print(f"nothing to scan: no stacks in {stacks}; run 'gke-accel synth' first", file=sys.stderr)
        return EXIT_ERROR
    try:
        reports = [("terraform", scan_stacks(stacks))]
        if any((out / MANIFESTS_DIR).glob("*/*.yaml")):
            reports.append(("kubernetes manifests", scan_manifests(out / MANIFESTS_DIR)))
    except CheckovMissing as err:
        print(f"scan: {err}", file=sys.stderr)
        return EXIT_ERROR
    return _print_scan(reports, out / SKIPS_FILE, verbose=args.verbose)


def _print_scan(reports: list[tuple[str, PolicyReport]], skips_file: Path, *, verbose: bool) -> int:
    """Failed checks first, the skips (accepted, each with its reason) in a file or with --verbose,
    and the verdict last."""
    skipped = [line for _, r in reports for line in r.skipped_lines()]
    skips_file.write_text("".join(f"{line.strip()}\n" for line in skipped))
    for _, report in reports:
        for line in report.failed_lines() + (report.skipped_lines() if verbose else []):
            print(fit_text(line))
    where = "above" if verbose else f"in {skips_file} (--verbose prints them)"
    print(fit_text(f"{len(skipped)} accepted finding(s) skipped, each with its recorded reason {where}"))
    counts = "; ".join(f"{name} {r.passed} passed, {len(r.failed)} failed" for name, r in reports)
    print(fit_text(f"policy scan (checkov): {counts}"))
    return EXIT_ERROR if any(r.failed for _, r in reports) else EXIT_OK


def cmd_catalog(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    if args.tpu and args.tpu.lower() not in catalog.tpu_generations:
        raise ConfigError(
            [ConfigIssue("--tpu", f"{args.tpu!r} is not a TPU generation", ", ".join(catalog.tpu_generations))]
        )
    if args.gpu and catalog.gpu_model(args.gpu) is None:
        raise ConfigError([ConfigIssue("--gpu", f"{args.gpu!r} is not a GPU model", ", ".join(catalog.gpu_names()))])
    from gke_accel.cli.catalog_view import catalog_text

    print(fit_text(catalog_text(catalog, args.tpu, args.gpu)))
    return EXIT_OK


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv`` naming a known command, only that command's module is imported."""
    parser = Parser(prog="gke-accel", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"gke-accel {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = add_command(
        sub,
        "validate",
        "validate environment configs (no provider bindings loaded)",
        "gke-accel validate",
        "gke-accel validate --config config/dev.yaml",
    )
    add_env_args(p, single_file=True)
    p.set_defaults(func=cmd_validate)

    p = add_command(
        sub,
        "synth",
        "validate and synthesize every environment stack (Terraform JSON per environment)",
        "gke-accel synth",
        "gke-accel synth --env dev --outdir /tmp/out",
        details="Prints each environment's pools, quotas and cost first, then loads the provider bindings.",
    )
    add_env_args(p, single_file=True)
    p.add_argument("--outdir", default="cdktf.out", help="output folder (default: cdktf.out)")
    p.set_defaults(func=cmd_synth)

    p = add_command(
        sub,
        "scan",
        "policy scan (checkov) of synthesized stacks, honouring recorded skips",
        "gke-accel scan",
        "gke-accel scan --outdir /tmp/out",
    )
    p.add_argument("--outdir", default="cdktf.out", help="synth output folder (default: cdktf.out)")
    p.add_argument("--verbose", action="store_true", help="also print each skipped check and its reason")
    p.set_defaults(func=cmd_scan)

    p = add_command(sub, "catalog", "print the accelerator catalog", "gke-accel catalog --tpu v5e")
    p.add_argument("--tpu", help="only this TPU generation (e.g. v5e)")
    p.add_argument("--gpu", help="only this GPU model (e.g. h100)")
    p.set_defaults(func=cmd_catalog)
    first = next((a for a in argv or [] if not a.startswith("-")), None)
    wanted = [first] if first in COMMAND_MODULES else [] if first in MAIN_COMMANDS else list(COMMAND_MODULES)
    for command in wanted:
        _view(COMMAND_MODULES[command]).register(sub)
    return parser


class _Interrupt:
    """Ctrl-C (SIGINT) or SIGTERM: remembered, then raised as KeyboardInterrupt. The jsii Node process
    gets the same Ctrl-C and may fail first with its own error; the flag tells main it was the user."""

    seen = False

    @classmethod
    def handler(cls, signum: int, frame: object) -> None:
        cls.seen = True
        raise KeyboardInterrupt


def _stop_interrupted() -> None:
    """One line, no traceback; exit without running jsii's exit hooks (its Node process is gone)."""
    sys.stdout.flush()
    print("interrupted: no output was half-written (each output folder is complete or unchanged)", file=sys.stderr)
    exit_now(INTERRUPTED)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # --json promises JSON on stdout: a failure that printed none gets {"ok": false, ...} (cli/json_errors.py)
    with json_failures(argv) as failure:
        return failure.exit(_main(argv))


def _main(argv: list[str]) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `gke-accel ... | head` ends quietly
    previous = {s: signal.signal(s, _Interrupt.handler) for s in (signal.SIGINT, signal.SIGTERM)}
    # jsii prints a large banner on every run under Node 20 (end-of-life); keep command output readable.
    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
    os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
    args = build_parser(argv).parse_args(argv)
    use_config_dir_env(args, argv)
    try:
        code: int = args.func(args)
        return code
    except ConfigError as err:
        print(render_config_error(err), file=sys.stderr)
        note_config_error(err)
        return EXIT_CONFIG
    except FrameworkError as err:
        print(f"gke-accel: {err}", file=sys.stderr)
        return EXIT_ERROR
    except OutputDirError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_ERROR
    except BaseException:
        if _Interrupt.seen:
            _stop_interrupted()
        raise
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def run() -> None:
    """The ``gke-accel`` command: ``main`` then a prompt exit (no seconds of interpreter teardown
    after the provider bindings were loaded)."""
    code = main()
    if "jsii" in sys.modules:
        exit_now(code)
    sys.exit(code)


if __name__ == "__main__":
    run()
