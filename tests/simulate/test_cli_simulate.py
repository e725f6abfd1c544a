"""``gke-accel simulate`` without the twin: the trace checked against the environment, errors with exit
code 2 and no traceback, ``--dry-run`` and ``--save-trace``; the objects a trace job becomes."""

from __future__ import annotations

from pathlib import Path

import pytest

from gke_accel.cli.main import main
from gke_accel.model import load_environment
from gke_accel.simulate.objects import RUN_SECONDS, submission
from gke_accel.simulate.trace import TraceJob, read_trace

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "config")


def test_a_trace_the_environment_cannot_run_names_each_job_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text("name,submit,team,accelerator,chips,duration,priority\n"
                     "a,0,nlp,v5e,16,1h,\nb,0,vision,l4,1,1h,\n"
                     "c,0,research,v5e,8,1h,inference\nd,0,nlp,v5e,8,1h,\n")  # fmt: skip
    code = main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--trace", str(trace), "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"{trace}: job a: chips: 16 is not the chip count of a v5e slice in staging; valid: 8 (2x4)" in err
    assert f"{trace}: job b: team: 'vision' is not a team of staging; valid: nlp, research, serving" in err
    assert f"{trace}: job c: priority: 'inference': team research may not use it; valid: training, batch" in err
    assert "job d" not in err


def test_dry_run_checks_and_saves_a_generated_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "week.yaml"
    code = main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--generate", "--seed", "2",
                 "--save-trace", str(out), "--dry-run"])  # fmt: skip
    assert code == 0
    jobs = read_trace(out)
    assert capsys.readouterr().out == f"--generate --seed 2: {len(jobs)} jobs, valid for staging\n"
    assert len(jobs) >= 200


def test_a_generated_trace_covers_the_warm_up_and_then_the_days(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    argv = ["simulate", "--env", "staging", "--config-dir", CONFIG, "--generate", "--days", "1", "--dry-run"]
    assert main([*argv, "--save-trace", str(out), "--warmup", "1d"]) == 0
    submits = [j.submit for j in read_trace(out)]
    assert max(submits) > 86400 and min(submits) < 86400  # two days of arrivals: the warm-up's and the day's
    assert main([*argv, "--save-trace", str(out)]) == 0
    assert max(j.submit for j in read_trace(out)) < 86400


def test_bad_flags_and_files_are_one_error_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--generate", "--compression", "0"]) == 2
    assert "--compression: 0.0 is not a finite number above 0 and at most 1e+06" in capsys.readouterr().err
    assert main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--generate", "--quiet", "0"]) == 2
    assert "--quiet: 0.0 is not a finite number above 0 and at most 60" in capsys.readouterr().err
    assert main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--generate", "--warmup", "1d",
                 "--until", "12h"]) == 2  # fmt: skip
    assert "--warmup: 1d does not end before --until 12h" in capsys.readouterr().err
    assert main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--generate", "--clock", "wall",
                 "--resolution", "30m"]) == 2  # fmt: skip
    assert "--resolution: applies to the virtual clock only" in capsys.readouterr().err
    assert main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--generate", "--resolution", "30m",
                 "--dry-run"]) == 0  # fmt: skip
    capsys.readouterr()
    late = tmp_path / "late.csv"
    late.write_text("name,submit,team,accelerator,chips,duration\na,1h,nlp,l4,1,1h\nb,2h,nlp,l4,1,1h\n")
    assert main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--trace", str(late), "--warmup", "2h"]) == 2
    assert f"--warmup: 2h leaves no job of {late} to measure (the last is submitted at 2h)" in capsys.readouterr().err
    assert main(["simulate", "--env", "nowhere", "--config-dir", CONFIG, "--generate"]) == 2
    assert "--env: 'nowhere': no " in capsys.readouterr().err
    assert main(["simulate", "--env", "staging", "--config-dir", CONFIG, "--trace", str(tmp_path / "none.csv")]) == 2
    assert "none.csv: cannot be read: No such file or directory" in capsys.readouterr().err


def test_a_trace_job_becomes_the_suspended_jobset_workload_new_makes_with_its_run_time() -> None:
    plan = load_environment(f"{CONFIG}/staging.yaml")
    sub = submission(plan, TraceJob(name="a", submit=0, team="nlp", accelerator="v5e", duration=7200), 2.0)
    (obj,) = sub.objects
    # staging's v5e pools are 2x4 slices of two ct5lp-hightpu-4t VMs (4 chips each): a JobSet of 2 pods
    assert (obj["kind"], obj["metadata"]["namespace"], sub.chips, sub.resource) == (
        "JobSet",
        "nlp",
        8,
        "google.com/tpu",
    )
    assert obj["spec"]["suspend"] is True
    assert obj["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team"
    pod = obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert pod["metadata"]["annotations"][RUN_SECONDS] == "2.000"
    assert pod["spec"]["containers"][0]["resources"]["limits"]["google.com/tpu"] == "4"
    # the virtual clock: no run time for kwok's stage (twin/stages.py leaves the pod Running); 2 pods
    virtual = submission(plan, TraceJob(name="a", submit=0, team="nlp", accelerator="v5e", duration=7200), None)
    template = virtual.objects[0]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert RUN_SECONDS not in template["metadata"].get("annotations", {}) and virtual.pods == 2


def test_without_the_twin_binaries_it_says_what_to_build_in_one_line(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "GKE_ACCEL_CACHE": str(tmp_path / "empty-cache")}
    gke_accel = str(Path(sys.executable).parent / "gke-accel")
    argv = [gke_accel, "simulate", "--env", "staging", "--config-dir", CONFIG, "--generate", "--days", "1"]
    out = subprocess.run(argv,
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)  # fmt: skip
    assert out.returncode == 1 and "Traceback" not in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("simulate: the twin cannot start: ") and "make twin-tools" in last
