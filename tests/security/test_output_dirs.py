"""Commands write only into their own output folder, leave exactly the current config there, and
stop on Ctrl-C with one line and no half-written output."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from gke_accel.cli.main import main
from gke_accel.output_dir import MARKER, OutputDirError, check_output_dir, claim_output_dir, staged_output
from helpers import base_config, set_path

ROOT = Path(__file__).resolve().parents[2]


def _config(folder: Path, teams: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = set_path(base_config(), "teams", [{"name": t, "google_group": f"{t}@acme.example.com"} for t in teams])
    (folder / "test.yaml").write_text(yaml.safe_dump(data))
    return folder


@pytest.mark.parametrize("target", [ROOT, ROOT.parent, Path("/")])
def test_the_repository_and_its_parents_are_refused(target: Path) -> None:
    with pytest.raises(OutputDirError, match=r"repository|home"):
        check_output_dir(target)


def test_a_folder_of_foreign_files_is_refused_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "app.py").write_text("# someone's code\n")
    with pytest.raises(OutputDirError, match="did not write"):
        check_output_dir(tmp_path)
    assert (tmp_path / "stacks" / "app.py").read_text() == "# someone's code\n"


def test_new_empty_and_marked_folders_are_accepted(tmp_path: Path) -> None:
    assert check_output_dir(tmp_path / "new") == (tmp_path / "new").resolve()
    claim_output_dir(tmp_path / "out")
    (tmp_path / "out" / "stacks").mkdir()
    assert (tmp_path / "out" / MARKER).exists()
    check_output_dir(tmp_path / "out")


def test_cli_refuses_the_repository_as_output_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path / "config", ["nlp"])
    code = main(["manifests", "--config-dir", str(config), "--out", str(ROOT)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "is the repository" in err
    assert (ROOT / "stacks" / "app.py").exists()


def test_manifests_out_drops_a_removed_team_and_other_environments(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["manifests", "--config-dir", str(_config(tmp_path / "c1", ["nlp", "vision"])), "--out", str(out)]) == 0
    assert list((out / "test").glob("*vision.rolebinding.team-member.yaml"))
    (out / "old-env").mkdir()
    (out / "old-env" / "x.yaml").write_text("kind: Namespace\n")
    assert main(["manifests", "--config-dir", str(_config(tmp_path / "c2", ["nlp"])), "--out", str(out)]) == 0
    assert not list((out / "test").glob("*vision.*")) and list((out / "test").glob("*nlp.role.team-member.yaml"))
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "test"]


def test_a_failed_run_leaves_the_previous_output(tmp_path: Path) -> None:
    folder = claim_output_dir(tmp_path / "out")
    (folder / "stacks").mkdir()
    (folder / "stacks" / "old.json").write_text("{}")
    with pytest.raises(RuntimeError), staged_output(folder, ["stacks"]) as staging:
        (staging / "stacks").mkdir()
        (staging / "stacks" / "half.json").write_text("{")
        raise RuntimeError("synth failed")
    assert [p.name for p in (folder / "stacks").iterdir()] == ["old.json"]
    assert sorted(p.name for p in folder.iterdir()) == [MARKER, "stacks"]


def test_terraform_state_in_a_stack_folder_survives_a_new_synth(tmp_path: Path) -> None:
    from gke_accel.output_dir import keep_terraform_files

    folder = claim_output_dir(tmp_path / "out")
    for env in ("dev", "old"):
        (folder / "stacks" / env).mkdir(parents=True)
        (folder / "stacks" / env / "cdk.tf.json").write_text("{}")
        (folder / "stacks" / env / f"terraform.{env}.tfstate").write_text("state")
    with staged_output(folder, ["stacks"], carry=keep_terraform_files) as staging:
        (staging / "stacks" / "dev").mkdir(parents=True)
        (staging / "stacks" / "dev" / "cdk.tf.json").write_text('{"new": 1}')
    assert (folder / "stacks" / "dev" / "cdk.tf.json").read_text() == '{"new": 1}'
    assert (folder / "stacks" / "dev" / "terraform.dev.tfstate").read_text() == "state"
    assert sorted(p.name for p in (folder / "stacks" / "old").iterdir()) == ["terraform.old.tfstate"]


SLOW_MANIFESTS = """
import sys, time
import gke_accel.cli.manifests_view as view
real = view.file_name
def slow(manifest):
    print("writing", flush=True)
    time.sleep(0.5)
    return real(manifest)
view.file_name = slow
from gke_accel.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_ctrl_c_prints_one_line_and_leaves_no_half_written_output(tmp_path: Path) -> None:
    config = _config(tmp_path / "config", ["nlp", "vision"])
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "constructs"), str(ROOT)])}
    cmd = [sys.executable, "-c", SLOW_MANIFESTS, "manifests", "--config-dir", str(config), "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "writing"
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert err.strip().count("\n") == 0 and err.startswith("interrupted:"), err
    assert sorted(p.name for p in out.iterdir()) == [MARKER]  # no staging folder, no partial env folder


def test_review_outdir_dot_is_refused_before_anything_is_deleted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gke_accel.review.compare as compare

    def no_delete(path: object, *args: object, **kwargs: object) -> None:
        raise AssertionError(f"review tried to delete {path}")

    monkeypatch.setattr(compare.shutil, "rmtree", no_delete)  # a regression must not delete the repository
    monkeypatch.chdir(ROOT)
    code = main(["review", "--base", "HEAD", "--outdir", ".", "--no-policy"])
    err = capsys.readouterr().err
    assert code == 1 and "is the repository" in err and "Traceback" not in err
    assert (ROOT / "stacks" / "app.py").exists() and (ROOT / "config" / "dev.yaml").exists()


def test_a_second_run_into_a_folder_being_written_stops_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # D3: the second run used to delete the first one's live staging folder (a jsii ENOENT traceback)
    config = _config(tmp_path / "config", ["nlp", "vision"])
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "constructs"), str(ROOT)])}
    cmd = [sys.executable, "-c", SLOW_MANIFESTS, "manifests", "--config-dir", str(config), "--out", str(out)]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert first.stdout is not None
        assert first.stdout.readline().strip() == "writing"  # the first run is inside its staging folder
        code = main(["manifests", "--config-dir", str(config), "--out", str(out)])
        err = capsys.readouterr().err
        _, first_err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
    assert code == 1 and err.count("\n") == 1 and "another gke-accel run is writing this folder" in err, err
    assert first.returncode == 0, first_err
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "test"]  # complete, no staging folder left
    assert list((out / "test").glob("*vision.rolebinding.team-member.yaml"))


def test_a_staging_folder_of_a_killed_run_is_removed_by_the_next_one(tmp_path: Path) -> None:
    import fcntl

    from gke_accel.output_dir import claimed_output_dir

    folder = claim_output_dir(tmp_path / "out")
    (folder / ".staging-live").mkdir()
    other = os.open(folder / MARKER, os.O_RDONLY)  # another run holds the lock (its own open file)
    fcntl.flock(other, fcntl.LOCK_EX)
    with pytest.raises(OutputDirError, match="another gke-accel run"), claimed_output_dir(folder):
        pass
    assert (folder / ".staging-live").exists()  # the other run's staging folder is left alone
    os.close(other)  # that run was killed: its lock is gone, its staging folder stays behind
    with claimed_output_dir(folder) as claimed:
        assert not (claimed / ".staging-live").exists()
        with claimed_output_dir(folder):  # re-entrant within one process (synth inside the command)
            pass


def test_a_folder_inside_git_is_refused(tmp_path: Path) -> None:
    # D8: an empty .git/refs/tags (here through a symlink) took 80 files and broke `git tag`
    tags = tmp_path / "repo" / ".git" / "refs" / "tags"
    tags.mkdir(parents=True)
    link = tmp_path / "out"
    link.symlink_to(tags)
    for target in (tags, link, tags / "new"):
        with pytest.raises(OutputDirError, match=r"inside a \.git folder"):
            check_output_dir(target)
    assert not any(tags.iterdir())


def _cdktf_out(folder: Path, stacks: dict[str, dict[str, str]]) -> Path:
    """A folder as the cdktf CLI leaves it (no marker): manifest.json and stacks/<name>/ files."""
    (folder / "stacks").mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"version": "0.21.0", "stacks": {n: {} for n in stacks}}))
    for name, files in stacks.items():
        (folder / "stacks" / name).mkdir()
        for file, text in files.items():
            (folder / "stacks" / name / file).write_text(text)
    return folder


OURS = '{"resource": {"google_container_cluster": {"c": {"resource_labels": {"managed-by": "gke-accel"}}}}}'


def test_another_projects_cdktf_output_is_not_ours(tmp_path: Path) -> None:
    # D8: stacks/billing-app/ (with a user's README) was deleted as if gke-accel had written it
    theirs = _cdktf_out(
        tmp_path / "theirs", {"billing-app": {"cdk.tf.json": '{"resource": {}}', "README-do-not-delete.md": "x"}}
    )
    mixed = _cdktf_out(tmp_path / "mixed", {"dev": {"cdk.tf.json": OURS, "notes.md": "mine"}})
    foreign = _cdktf_out(tmp_path / "foreign", {"billing-app": {"cdk.tf.json": '{"resource": {}}'}})
    for folder in (theirs, mixed, foreign):
        with pytest.raises(OutputDirError, match="did not write"):
            check_output_dir(folder)
    assert (theirs / "stacks" / "billing-app" / "README-do-not-delete.md").exists()
    ours = _cdktf_out(tmp_path / "ours", {"dev": {"cdk.tf.json": OURS, ".terraform.lock.hcl": ""}})
    assert check_output_dir(ours) == ours.resolve()


def test_synth_refuses_a_foreign_folder_before_loading_the_bindings(tmp_path: Path) -> None:
    # D8: the refusal came after 15-19 s of loading jsii and the provider bindings
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    script = (
        "import sys\nfrom gke_accel.cli.main import main\n"
        f"code = main(['synth', '--config-dir', {str(ROOT / 'config')!r}, '--outdir', {str(tmp_path / 'out')!r}])\n"
        "print(code, 'jsii' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.split()[-2:] == ["1", "False"], done.stdout + done.stderr
    assert "did not write" in done.stderr and time.perf_counter() - started < 10
