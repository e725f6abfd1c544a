"""The cdktf app: every environment in ``config/`` as one stack, built in one process.

``cdktf.json`` runs ``python -m stacks.app`` (through the cdktn or the cdktf CLI, see docs/frameworks.md);
``gke-accel synth`` calls ``synth_environments``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

# Before jsii starts its Node process: run by `cdktn synth` / `cdktf synth` (cdktf.json), the app would
# otherwise print jsii's Node 20 end-of-life banner on every run (the value lists the major versions).
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")

from gke_accel.cdk._framework import App
from gke_accel.model import ConfigError, EnvironmentPlan
from gke_accel.model.environment.config_files import load_environments
from stacks.environment_stack import EnvironmentStack


def build_app(plans: Sequence[EnvironmentPlan], outdir: str | None = None) -> App:
    app = App(outdir=outdir) if outdir else App()
    for plan in plans:
        EnvironmentStack(app, plan)
    return app


def synth_environments(plans: Sequence[EnvironmentPlan], outdir: str) -> Path:
    build_app(plans, outdir).synth()
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


if __name__ == "__main__":
    sys.exit(main())
