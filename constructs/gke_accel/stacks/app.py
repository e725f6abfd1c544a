"""The cdktf app: every environment in ``config/`` as one stack, built in one process.

``cdktf.json`` runs ``python -m stacks.app`` (the repository's entry point, which calls ``main``);
``gke-accel synth`` calls ``synth_environments``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from gke_accel.cdk._framework import App
from gke_accel.model import ConfigError, EnvironmentPlan
from gke_accel.model.environment.config_files import load_environments
from gke_accel.output_dir import MARKER, MARKER_TEXT, claimed_output_dir, keep_terraform_files, staged_output
from gke_accel.stacks.environment_stack import EnvironmentStack


def build_app(
    plans: Sequence[EnvironmentPlan], outdir: str | None = None, on_stack: Callable[[str], None] | None = None
) -> App:
    app = App(outdir=outdir) if outdir else App()
    for plan in plans:
        if on_stack is not None:
            on_stack(plan.name)
        EnvironmentStack(app, plan)
    return app


# What a synth owns in its output folder: replaced whole, so only the environments of this run remain.
SYNTH_ENTRIES = ("stacks", "manifest.json")


def synth_environments(
    plans: Sequence[EnvironmentPlan], outdir: str | Path, on_stack: Callable[[str], None] | None = None
) -> Path:
    """Synthesize ``plans`` into ``outdir``, which then holds exactly these stacks.

    Raises OutputDirError for a folder gke-accel may not replace (the repository, a parent of it,
    or a folder with files it did not write). An interrupted synth leaves the previous output.
    Terraform's files in a stack folder (``.terraform``) are kept; local state is never there
    (``terraform-state/``, see ``environment_stack.LOCAL_STATE_DIR``)."""
    with (
        claimed_output_dir(outdir) as folder,
        staged_output(folder, SYNTH_ENTRIES, carry=keep_terraform_files) as staging,
    ):
        build_app(plans, str(staging), on_stack).synth()
    return folder


def main() -> int:
    config_dir = Path(os.environ.get("GKE_ACCEL_CONFIG_DIR", "config"))
    try:
        plans = load_environments(config_dir)
    except ConfigError as err:
        print(err.render(), file=sys.stderr)
        return 2
    app = build_app(plans)
    app.synth()
    marker = Path(app.outdir) / MARKER  # the cdktf CLI's output folder is ours to replace next time
    if not marker.exists():
        marker.write_text(MARKER_TEXT, encoding="utf-8")
    return 0
