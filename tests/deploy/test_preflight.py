"""`gke-accel preflight` (run first by `make deploy`): in about a second and without network, it finds
Application Default Credentials where the Google auth libraries look (GOOGLE_APPLICATION_CREDENTIALS,
then $CLOUDSDK_CONFIG or ~/.config/gcloud/application_default_credentials.json; see
cloud.google.com/docs/authentication/application-default-credentials), gcloud and the auth plugin, and
prints the one command that fixes what is missing."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gke_accel.cli import preflight_view
from gke_accel.cli.main import main
from gke_accel.cli.preflight_view import report, run_checks

ALL_TOOLS = {"gcloud": "/usr/bin/gcloud", "gke-gcloud-auth-plugin": "/usr/bin/gke-gcloud-auth-plugin"}


def checks(home: Path, env: dict[str, str] | None = None, tools: dict[str, str] = ALL_TOOLS) -> tuple[str, bool]:
    found = run_checks("acme-ml-dev", env=env or {}, home=home, which=tools.get, on_gce=False)
    return report("dev", "acme-ml-dev", found)


def user_adc(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "application_default_credentials.json"
    # The shape `gcloud auth application-default login` writes (an authorized_user refresh token).
    path.write_text(
        json.dumps({"type": "authorized_user", "client_id": "x", "client_secret": "y", "refresh_token": "z"})
    )
    return path


def test_no_credentials_is_one_clear_failure_with_the_fix(tmp_path: Path) -> None:
    text, ok = checks(tmp_path)
    assert not ok
    assert "FAIL  Application Default Credentials: none found" in text
    assert text.splitlines()[-1] == "deploy stopped before anything ran; fix: gcloud auth application-default login"


def test_credentials_from_gcloud_login_pass_and_name_the_account(tmp_path: Path) -> None:
    gcloud = tmp_path / ".config" / "gcloud"
    user_adc(gcloud)
    (gcloud / "configurations").mkdir()
    (gcloud / "active_config").write_text("default\n")
    (gcloud / "configurations" / "config_default").write_text(
        "[core]\naccount = ana@acme.example.com\nproject = acme-ml-dev\n"
    )
    text, ok = checks(tmp_path)
    assert ok, text
    assert "authorized_user, ana@acme.example.com" in text and "deploy-roles --env dev" in text


def test_cloudsdk_config_and_a_service_account_key_are_found(tmp_path: Path) -> None:
    user_adc(tmp_path / "sdk")
    assert checks(tmp_path / "home", {"CLOUDSDK_CONFIG": str(tmp_path / "sdk")})[1]
    key = tmp_path / "key.json"
    key.write_text(json.dumps({"type": "service_account", "client_email": "ci@acme-ml-dev.iam.gserviceaccount.com"}))
    text, ok = checks(tmp_path / "home", {"GOOGLE_APPLICATION_CREDENTIALS": str(key)})
    assert ok and "ci@acme-ml-dev.iam.gserviceaccount.com" in text


def test_a_missing_explicit_key_file_fails_even_with_a_gcloud_login(tmp_path: Path) -> None:
    user_adc(tmp_path / ".config" / "gcloud")
    text, ok = checks(tmp_path, {"GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "gone.json")})
    assert not ok and "gone.json: no such file" in text


def test_a_missing_auth_plugin_names_the_component_to_install(tmp_path: Path) -> None:
    user_adc(tmp_path / ".config" / "gcloud")
    text, ok = checks(tmp_path, tools={"gcloud": "/usr/bin/gcloud"})
    assert not ok and text.endswith("fix: gcloud components install gke-gcloud-auth-plugin")


def test_the_cli_exits_1_quickly_without_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.delenv("CLOUDSDK_CONFIG", raising=False)
    monkeypatch.setattr(preflight_view, "GCE_PRODUCT", tmp_path / "no-dmi")
    started = time.perf_counter()
    assert main(["preflight", "--env", "dev", "--config-dir", str(Path(__file__).resolve().parents[2] / "config")]) == 1
    assert time.perf_counter() - started < 1.5
    err = capsys.readouterr().err
    assert "fix: gcloud auth application-default login" in err and "Traceback" not in err
