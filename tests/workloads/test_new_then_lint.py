"""`workload new` never writes what its own `lint` rejects: for every team and accelerator of every
shipped environment, with only --env --team --accelerator --image, it either writes a workload `lint`
accepts or refuses (exit 2, nothing written) because the team may not use that accelerator (no share
without queues; with queues, nothing it may hold or borrow); and `workload new | lint -` fails when the
generation fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from gke_accel.cli.main import main
from gke_accel.workloads.quantity import parse_quantity

ROOT = Path(__file__).resolve().parents[2]


def may_use(data: dict[str, Any], team: dict[str, Any], acc: str) -> int:
    """What the team may use of ``acc`` as docs/queues.md states it, read from the YAML: its share; with
    ``queues:`` plus what the other teams lend (their whole share unless a lending_limit says less), at
    most its borrowing_limit (W7: staging's research has no L4 share and may borrow serving's and nlp's)."""

    def share(t: dict[str, Any]) -> int:
        return int((t.get("accelerators") or {}).get(acc, 0))

    if data.get("queues") is None:
        return share(team)
    settings: dict[str, Any] = (data["queues"] or {}).get("teams") or {}
    lent = 0
    for other in data.get("teams", []):
        if other["name"] != team["name"]:
            limit = ((settings.get(other["name"]) or {}).get("lending_limit") or {}).get(acc)
            lent += share(other) if limit is None else min(share(other), int(limit))
    borrow = ((settings.get(team["name"]) or {}).get("borrowing_limit") or {}).get(acc)
    return share(team) + (lent if borrow is None else min(lent, int(borrow)))


def combinations() -> list[object]:
    cases: list[object] = []
    for path in sorted((ROOT / "config").glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        accelerators = [p["generation"] for p in data.get("tpu_pools", [])] + [
            p["gpu"] for p in data.get("gpu_pools", [])
        ]
        for team in data.get("teams", []):
            for acc in dict.fromkeys(accelerators):  # staging has two v5e pools
                share = may_use(data, team, acc)
                cases.append(pytest.param(path.stem, team["name"], acc, share, id=f"{path.stem}-{team['name']}-{acc}"))
    return cases


@pytest.mark.parametrize(("env", "team", "accelerator", "share"), combinations())
def test_new_writes_what_lint_accepts_or_refuses(
    env: str, team: str, accelerator: str, share: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["workload", "new", "--env", env, "--team", team, "--accelerator", accelerator, "--image", "img:1"])
    out, err = capsys.readouterr()
    if not share:
        assert code == 2 and out == "", out
        assert f"team {team} may use 0" in err, err
        return
    assert code == 0, err
    job = tmp_path / "job.yaml"
    job.write_text(out)
    assert main(["lint", "--env", env, str(job)]) == 0, capsys.readouterr().out


def test_the_default_priority_is_one_the_team_may_use(capsys: pytest.CaptureFixture[str]) -> None:
    # prod's serving team may use only `inference` (config/prod.yaml); a Job defaults to training otherwise.
    assert main(["workload", "new", "--env", "prod", "--team", "serving", "--accelerator", "t4", "--image", "i"]) == 0
    pod = yaml.safe_load(capsys.readouterr().out)["spec"]["template"]["spec"]
    assert pod["priorityClassName"] == "inference"
    assert main(["workload", "new", "--env", "dev", "--team", "nlp", "--accelerator", "l4", "--image", "i"]) == 0
    assert yaml.safe_load(capsys.readouterr().out)["spec"]["template"]["spec"]["priorityClassName"] == "training"


def test_an_8_gpu_job_fits_a_64_cpu_team(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The newcomer's case: an a3-highgpu-8g node (208 vCPU, 1872 GB; cloud.google.com/compute/docs/gpus)
    gave 104 cpu / 936Gi per pod by default, above a 64-cpu / 512Gi team quota."""
    shutil.copytree(ROOT / "config", tmp_path / "config")
    dev = tmp_path / "config" / "dev.yaml"
    data = yaml.safe_load(dev.read_text())
    data["gpu_pools"].append(
        {"name": "h100-dev", "gpu": "h100", "gpus_per_node": 8, "max_nodes": 1, "consumption": "spot"}
    )
    data["teams"].append(
        {
            "name": "research",
            "google_group": "r@acme.example.com",
            "cpu": 64,
            "memory_gib": 512,
            "accelerators": {"h100": 8},
        }
    )
    dev.write_text(yaml.safe_dump(data, sort_keys=False))
    cfg = ["--env", "dev", "--config-dir", str(tmp_path / "config")]
    assert (
        main(["workload", "new", *cfg, "--team", "research", "--accelerator", "h100", "--gpus", "8", "--image", "i"])
        == 0
    )
    out = capsys.readouterr().out
    requests = yaml.safe_load(out)["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]
    # Any Kubernetes quantity: the share of the VM, capped by the quota, is in millicores and Mi.
    cpu, memory = parse_quantity(requests["cpu"]), parse_quantity(requests["memory"])
    assert cpu is not None and cpu <= 64 and memory is not None and memory <= 512 * 2**30, requests
    (tmp_path / "job.yaml").write_text(out)
    assert main(["lint", *cfg, str(tmp_path / "job.yaml")]) == 0, capsys.readouterr().out


def test_a_failed_generation_fails_the_pipe() -> None:
    cli = f"{shlex_quote(sys.executable)} -m gke_accel.cli.main"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    pipe = f"{cli} workload new --env dev --team nosuch --accelerator l4 --image i | {cli} lint --env dev -"
    proc = subprocess.run(["bash", "-c", pipe], cwd=ROOT, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 2, proc.stdout
    assert "'nosuch' is not a team of dev" in proc.stderr
    assert "standard input is empty" in proc.stderr and "0 error(s)" not in proc.stdout


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)
