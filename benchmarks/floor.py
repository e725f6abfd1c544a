"""The floor: import the two provider bindings and synthesize an empty stack, nothing else.

The framework is the one gke-accel would use (``gke_accel.frameworks.choose``: GKE_ACCEL_FRAMEWORK or
the installed one). Its modules are imported by the names the seam uses, not through
``gke_accel.cdk`` (whose package import loads every resource binding, which is more than the floor).
"""

from __future__ import annotations

import importlib
import sys
import tempfile

from gke_accel.frameworks import choose


def main() -> int:
    framework = choose()
    core = importlib.import_module(framework.core)
    google = importlib.import_module(f"{framework.google}.provider")
    kubernetes = importlib.import_module(f"{framework.kubernetes}.provider")
    with tempfile.TemporaryDirectory() as out:
        app = core.App(outdir=out)
        stack = core.TerraformStack(app, "empty")
        google.GoogleProvider(stack, "google", project="floor-project", region="us-central1")
        kubernetes.KubernetesProvider(stack, "kubernetes")
        app.synth()
    print(framework.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
