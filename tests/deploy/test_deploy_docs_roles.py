"""N13: docs/deploy.md names every role and API that `gke-accel deploy-roles` prints for the shipped
environments (it was behind: roles/artifactregistry.admin, containerfilesystem, artifactregistry)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gke_accel.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "deploy.md").read_text()


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_role_and_api_deploy_roles_prints_is_in_the_docs(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deploy-roles", "--config-dir", str(ROOT / "config"), "--env", env]) == 0
    out = capsys.readouterr().out
    roles = set(re.findall(r"roles/[A-Za-z0-9.]+[A-Za-z0-9]", out))
    apis = out.split("APIs the stack enables", 1)[1].split(":", 1)[1].split("Service Usage", 1)[0]
    services = {a.strip() for a in apis.replace("\n", " ").split(",") if a.strip()}
    assert roles and services
    assert sorted(r for r in roles if f"`{r}`" not in DOC) == []
    assert sorted(s for s in services if f"`{s}`" not in DOC) == []
