"""What ``cdktf.json`` runs from the repository root: ``python -m stacks.app``.

The app itself is ``gke_accel.stacks.app`` (installed with the package); this module is not installed,
so no top-level package named ``stacks`` lands in site-packages.
"""

from __future__ import annotations

from gke_accel.stacks.app import build_app, main, synth_environments

__all__ = ["build_app", "main", "synth_environments"]

if __name__ == "__main__":
    from gke_accel.cli.progress import exit_now

    exit_now(main())  # the stacks are written: skip seconds of interpreter teardown
