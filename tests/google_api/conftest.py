"""Fixtures of the Google-API check. Every test here is marked ``e2e``: it needs Go (the discovery
documents come from the ``google.golang.org/api`` module, tools/google_api/discovery.sh) and the
google provider built from source (tools/terraform/build_providers.sh), which ``make e2e`` prepares
(tools/ci/e2e_builds.sh). Where either is missing the tests skip with the reason, and in CI they fail
(tests/require.py)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from require import build_output, require_or_skip

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = Path(os.environ.get("GKE_ACCEL_CACHE", str(Path.home() / ".cache" / "gke-accel")))
MIRROR = CACHE / "terraform-mirror"
GOOGLE = "registry.terraform.io/hashicorp/google"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.e2e)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else -1 for p in version.replace("-", ".").split("."))


def google_build() -> tuple[str, Path] | None:
    """(version, binary) of the newest google provider build in the mirror."""
    builds = [
        (b.parents[1].name, b)
        for b in MIRROR.glob(f"{GOOGLE}/*/*/terraform-provider-google_v*")
        if not b.name.endswith(".source") and os.access(b, os.X_OK)
    ]
    return max(builds, key=lambda vb: _version_key(vb[0])) if builds else None


def provider_schema(version: str) -> dict[str, Any]:
    """``terraform providers schema -json`` of the mirror's google provider ``version``, offline."""
    cmd = shlex.split(os.environ.get("TERRAFORM", "terraform"))
    if not shutil.which(cmd[0]):
        require_or_skip("no terraform command: run tools/terraform/install_terraform_shim.sh .venv")
    with tempfile.TemporaryDirectory(prefix="gke-accel-google-schema-") as tmp:
        work = Path(tmp)
        rc = work / "terraformrc"
        rc.write_text(
            "provider_installation {\n"
            f'  filesystem_mirror {{\n    path = "{MIRROR}"\n    include = ["{GOOGLE}"]\n  }}\n}}\n'
        )
        required = {"google": {"source": "hashicorp/google", "version": version}}
        (work / "main.tf.json").write_text(json.dumps({"terraform": {"required_providers": required}}))
        env = {**os.environ, "TF_CLI_CONFIG_FILE": str(rc), "TF_IN_AUTOMATION": "1", "CHECKPOINT_DISABLE": "1"}
        try:
            subprocess.run(
                [*cmd, "init", "-input=false", "-no-color"],
                cwd=work,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            out = subprocess.run(
                [*cmd, "providers", "schema", "-json"], cwd=work, env=env, check=True, capture_output=True, text=True
            )
        except subprocess.CalledProcessError as exc:
            require_or_skip(
                f"terraform could not read the google {version} provider's schema", output=build_output(exc)
            )
        result: dict[str, Any] = json.loads(out.stdout)
        return result


@pytest.fixture(scope="session")
def documents() -> Any:
    from google_values import Documents

    try:
        out = subprocess.run(
            [str(ROOT / "tools" / "google_api" / "discovery.sh")], check=True, capture_output=True, text=True
        )
    except subprocess.CalledProcessError as exc:
        require_or_skip(
            "GKE's discovery documents could not be fetched (tools/google_api/discovery.sh)", output=build_output(exc)
        )
    build = google_build()
    if build is None:
        require_or_skip(f"no google provider build in {MIRROR}: run tools/terraform/build_providers.sh --only google")
    version, _ = build
    return Documents.load(Path(out.stdout.strip().splitlines()[-1]), provider_schema(version), version)


@pytest.fixture(scope="session")
def stacks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """{source: synthesized cdk.tf.json} of every config the check covers (configs.py)."""
    from configs import check_configs

    from gke_accel.model import load_environment_text
    from gke_accel.stacks.app import synth_environments
    from helpers import to_yaml

    out: dict[str, dict[str, Any]] = {}
    for source, data in check_configs().items():
        plan = load_environment_text(to_yaml(data), source=source)
        folder = synth_environments([plan], str(tmp_path_factory.mktemp("google-api-synth")))
        out[source] = json.loads((folder / "stacks" / plan.name / "cdk.tf.json").read_text())
    yield out
