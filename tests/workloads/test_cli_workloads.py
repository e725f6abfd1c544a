"""The four commands from the command line: output, exit codes, --json, stdin, and that none of
them loads jsii, the provider bindings or (except verify) the kubernetes client."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gke_accel.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ["--config-dir", str(ROOT / "config")]
BAD_TPU_JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: guide, namespace: nlp}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: x, resources: {limits: {cloud.google.com/tpu: 4}}}
"""


def test_workload_new_output_lints_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "job.yaml"
    args = [
        "workload",
        "new",
        "--env",
        "dev",
        *CONFIG,
        "--team",
        "nlp",
        "--accelerator",
        "v5e",
        "--image",
        "t:1",
        "--command",
        "python train.py --resume",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    [job] = yaml.safe_load_all(out.read_text())
    assert job["spec"]["template"]["spec"]["containers"][0]["command"] == ["python", "train.py", "--resume"]
    capsys.readouterr()
    assert main(["lint", "--env", "dev", *CONFIG, str(out)]) == 0
    assert "ok    Job/train (nlp" in capsys.readouterr().out


def test_lint_exit_2_with_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_TPU_JOB)
    assert main(["lint", "--env", "dev", *CONFIG, str(path)]) == 2
    out = capsys.readouterr().out
    assert "FAIL  Job/guide" in out and "fix: use google.com/tpu" in out


def test_lint_json_and_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(BAD_TPU_JOB))
    assert main(["lint", "--env", "dev", "--env", "prod", *CONFIG, "--json", "-"]) == 2
    data = json.loads(capsys.readouterr().out)
    assert [d["environment"] for d in data] == ["dev", "prod"]
    assert data[0]["workloads"][0]["source"] == "<stdin>#1"
    assert {"rule": "resource-name", "severity": "error"}.items() <= data[0]["workloads"][0]["findings"][0].items()


def test_lint_missing_file_is_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--env", "dev", *CONFIG, "/nonexistent.yaml"]) == 2
    err = capsys.readouterr().err
    assert "/nonexistent.yaml: (file)" not in err and "cannot be read" in err and "Traceback" not in err


def test_size_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["size", "--params", "7B", "--task", "train"]) == 0
    out = capsys.readouterr().out
    assert "optimizer    78.2 GiB   7e9 trainable x 12 B (adamw, incl. fp32 master copy)" in out
    assert "v5e                    4x4" in out  # 150.4 GiB at the training fraction 0.75 (docs/workloads.md)
    assert main(["size", "--params", "7B", "--task", "serve", "--env", "dev", *CONFIG, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["options"] == [] and {f["pool"] for f in data["environments"]["dev"]} == {"v5e-dev", "l4-dev"}


def test_size_bad_params_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["size", "--params", "lots", "--task", "train"]) == 2
    assert "--params: 'lots' is not a parameter count" in capsys.readouterr().err


def test_verify_without_a_cluster_is_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
    # exit 1: cannot check (2 is drift)
    assert main(["verify", "--env", "dev", *CONFIG, "--kubeconfig", str(kubeconfig), "--context", "nope"]) == 1
    err = capsys.readouterr().err
    assert "cannot use context 'nope'" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["size", "--params", "7B", "--task", "train"],
        ["lint", "--env", "dev", "examples/single-host-v5e-training.yaml"],
        ["workload", "new", "--env", "dev", "--team", "nlp", "--accelerator", "l4", "--image", "x"],
    ],
)
def test_commands_load_no_jsii_no_bindings_no_kubernetes_client(args: list[str]) -> None:
    code = (
        f"import sys; from gke_accel.cli.main import main; rc = main({args!r}); "
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('jsii', 'cdktf', 'constructs', "
        "'cdktf_cdktf_provider_google', 'kubernetes')]; print('LOADED', loaded, file=sys.stderr); sys.exit(rc)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stderr


def test_verify_against_an_unreachable_server_is_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as s:  # a free loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": f"http://127.0.0.1:{port}"}}],
                "users": [{"name": "u", "user": {"token": "x"}}],
                "contexts": [{"name": "down", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "down",
            }
        )
    )
    assert main(["verify", "--env", "dev", *CONFIG, "--kubeconfig", str(kubeconfig)]) == 1  # cannot check
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port} did not answer" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("env", "accelerator", "chips", "kind", "pods"),
    [
        # prod's v5p 2x2x2 and staging's v5e 2x4 on ct5lp-hightpu-4t: 2 VMs of 4 chips each (catalog-facts §3),
        # so one JobSet with a pod per VM; --kind job was refused and the default used to be job (issue 19)
        ("prod", "v5p", "8", "JobSet", 2),
        ("staging", "v5e", "8", "JobSet", 2),
        ("dev", "v5e", "4", "Job", 1),  # dev's v5e 2x2: one VM, a plain Job
    ],
)
def test_workload_new_without_kind_picks_a_jobset_for_a_multi_host_slice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], env: str, accelerator: str, chips: str, kind: str, pods: int
) -> None:
    out = tmp_path / "w.yaml"
    team = {"prod": "llm-training", "staging": "nlp", "dev": "nlp"}[env]
    args = ["workload", "new", "--env", env, *CONFIG, "--team", team, "--accelerator", accelerator]
    assert main([*args, "--chips", chips, "--image", "t:1", "--out", str(out)]) == 0
    [obj] = yaml.safe_load_all(out.read_text())
    assert obj["kind"] == kind
    spec = obj["spec"]["replicatedJobs"][0]["template"]["spec"] if kind == "JobSet" else obj["spec"]
    assert spec.get("parallelism", 1) == pods  # a Job without parallelism runs one pod (batch/v1 default)
    capsys.readouterr()
    assert main(["lint", "--env", env, *CONFIG, str(out)]) == 0, capsys.readouterr().out
