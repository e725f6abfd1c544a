"""`gke-accel preflight` asks gcloud whether the project is reachable and whether the deploying account
holds the project roles (#29). gcloud is faked: a runner with canned replies, and for the CLI a `gcloud`
script on PATH that answers `projects describe` and `projects get-iam-policy` as gcloud prints them
(`--format=value(projectId)`: the id and a newline; `--format=json`: the policy's JSON)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest

from gke_accel.cli import preflight_view
from gke_accel.cli.main import main
from gke_accel.cli.preflight_project import Reply, project_checks

PROJECT = "acme-ml-dev"
ME = "alice@acme.example.com"
ROLES = ("roles/container.admin", "roles/storage.admin", "roles/monitoring.editor")
DENIED = "ERROR: (gcloud.projects.describe) [alice@acme.example.com] does not have permission to access projects"


def policy(*bindings: tuple[str, list[str]]) -> str:
    return json.dumps({"bindings": [{"role": r, "members": m} for r, m in bindings], "etag": "BwY=", "version": 1})


def runner(describe: Reply, iam: Reply) -> tuple[list[list[str]], object]:
    calls: list[list[str]] = []

    def run(args: Sequence[str]) -> Reply:
        calls.append(list(args))
        return describe if args[1] == "describe" else iam

    return calls, run


OK = Reply(0, f"{PROJECT}\n", "")


def test_an_unreachable_project_fails_and_roles_are_not_asked() -> None:
    calls, run = runner(Reply(1, "", DENIED), Reply(0, policy(), ""))
    [check] = project_checks(PROJECT, ME, ROLES, run)  # type: ignore[arg-type]
    assert not check.ok and "not reachable" in check.detail and "does not have permission" in check.detail
    assert "application-default login" in check.fix
    assert [c[1] for c in calls] == ["describe"]


def test_every_role_held_passes() -> None:
    _, run = runner(OK, Reply(0, policy(*((r, [f"user:{ME}"]) for r in ROLES)), ""))
    checks = project_checks(PROJECT, ME, ROLES, run)  # type: ignore[arg-type]
    assert [(c.name, c.ok) for c in checks] == [("project", True), ("roles", True)]
    assert "holds the 3 project roles" in checks[1].detail


def test_a_missing_role_fails_with_the_one_binding_that_grants_it() -> None:
    held = [("roles/container.admin", [f"user:{ME}"]), ("roles/monitoring.editor", [f"user:{ME}", "user:bob@x.com"])]
    _, run = runner(OK, Reply(0, policy(*held, ("roles/storage.admin", ["user:bob@x.com"])), ""))
    roles = project_checks(PROJECT, ME, ROLES, run)[1]  # type: ignore[arg-type]
    assert not roles.ok and roles.detail == f"{ME} lacks roles/storage.admin"
    assert (
        roles.fix == f"gcloud projects add-iam-policy-binding {PROJECT} --member=user:{ME} --role=roles/storage.admin"
    )


def test_a_service_account_is_matched_as_a_service_account_member() -> None:
    sa = "deployer@acme-ml-dev.iam.gserviceaccount.com"
    _, run = runner(OK, Reply(0, policy(*((r, [f"serviceAccount:{sa}"]) for r in ROLES)), ""))
    assert project_checks(PROJECT, sa, ROLES, run)[1].ok  # type: ignore[arg-type]
    _, run = runner(OK, Reply(0, policy(*((r, [f"user:{sa}"]) for r in ROLES)), ""))
    assert not project_checks(PROJECT, sa, ROLES, run)[1].ok  # type: ignore[arg-type]


def test_a_role_only_a_group_holds_is_reported_as_not_verifiable_not_missing() -> None:
    held = [(r, [f"user:{ME}"]) for r in ROLES[:2]] + [(ROLES[2], ["group:ml-platform@acme.example.com"])]
    _, run = runner(OK, Reply(0, policy(*held), ""))
    roles = project_checks(PROJECT, ME, ROLES, run)[1]  # type: ignore[arg-type]
    assert roles.ok and "roles/monitoring.editor only through a group" in roles.detail


def test_an_unreadable_iam_policy_is_not_a_failure() -> None:
    _, run = runner(OK, Reply(1, "", "ERROR: PERMISSION_DENIED: resourcemanager.projects.getIamPolicy"))
    roles = project_checks(PROJECT, ME, ROLES, run)[1]  # type: ignore[arg-type]
    assert roles.ok and roles.detail.startswith("not checked: this account may not read the IAM policy")


FAKE_GCLOUD = """#!/bin/sh
case "$2" in
  describe) echo "{project}" ;;
  get-iam-policy) cat "{policy}" ;;
  *) exit 2 ;;
esac
"""


def _fake_tools(tmp_path: Path, policy_json: str) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (tmp_path / "policy.json").write_text(policy_json)
    gcloud = bindir / "gcloud"
    gcloud.write_text(FAKE_GCLOUD.format(project=PROJECT, policy=tmp_path / "policy.json"))
    plugin = bindir / "gke-gcloud-auth-plugin"
    plugin.write_text("#!/bin/sh\nexit 0\n")
    for f in (gcloud, plugin):
        f.chmod(f.stat().st_mode | stat.S_IXUSR)
    return bindir


def _login(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bindir: Path) -> None:
    gcloud = tmp_path / "gcloud"
    (gcloud / "configurations").mkdir(parents=True)
    (gcloud / "application_default_credentials.json").write_text(
        json.dumps({"type": "authorized_user", "client_id": "x", "client_secret": "y", "refresh_token": "z"})
    )
    (gcloud / "active_config").write_text("default")
    (gcloud / "configurations" / "config_default").write_text(f"[core]\naccount = {ME}\n")
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(gcloud))
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(preflight_view, "GCE_PRODUCT", tmp_path / "no-dmi")


CONFIG = str(Path(__file__).resolve().parents[2] / "config")


def test_the_cli_names_the_missing_role_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the account holds one role the deployer needs (docs/deploy.md's list), not roles/storage.admin
    _login(tmp_path, monkeypatch, _fake_tools(tmp_path, policy(("roles/container.admin", [f"user:{ME}"]))))
    assert main(["preflight", "--env", "dev", "--config-dir", CONFIG]) == 1
    err = capsys.readouterr().err
    assert f"ok    project: {PROJECT} reachable" in err
    assert "roles/storage.admin" in err and "roles/container.admin," not in err.split("lacks", 1)[1].split("\n")[0]
    assert f"gcloud projects add-iam-policy-binding {PROJECT} --member=user:{ME} --role=roles/storage.admin" in err
    assert "Traceback" not in err


def test_local_only_does_not_call_gcloud(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bindir = _fake_tools(tmp_path, "not json")
    (bindir / "gcloud").write_text('#!/bin/sh\necho called >> "$0.calls"\nexit 1\n')
    _login(tmp_path, monkeypatch, bindir)
    assert main(["preflight", "--env", "dev", "--config-dir", CONFIG, "--local-only"]) == 0
    assert not (bindir / "gcloud.calls").exists()
    assert "roles are not checked here" in capsys.readouterr().out
