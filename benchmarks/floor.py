"""The floor: import the two provider bindings and synthesize an empty stack, nothing else."""

from __future__ import annotations

import sys
import tempfile

from cdktf import App, TerraformStack
from cdktf_cdktf_provider_google.provider import GoogleProvider
from cdktf_cdktf_provider_kubernetes.provider import KubernetesProvider


def main() -> int:
    with tempfile.TemporaryDirectory() as out:
        app = App(outdir=out)
        stack = TerraformStack(app, "empty")
        GoogleProvider(stack, "google", project="floor-project", region="us-central1")
        KubernetesProvider(stack, "kubernetes")
        app.synth()
    return 0


if __name__ == "__main__":
    sys.exit(main())
