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


def synth_environments(
    plans: Sequence[EnvironmentPlan], outdir: str, on_stack: Callable[[str], None] | None = None
) -> Path:
    build_app(plans, outdir, on_stack).synth()
    return Path(outdir)


def main() -> int:
    config_dir = Path(os.environ.get("GKE_ACCEL_CONFIG_DIR", "config"))
    try:
        plans = load_environments(config_dir)
    except ConfigError as err:
        print(err.render(), file=sys.stderr)
        return 2
    build_app(plans).synth()
    return 0
