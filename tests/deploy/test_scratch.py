"""The process's scratch folder (gke_accel/scratch.py): what a command writes only while it runs is gone
when it ends, also on the ``os._exit`` path that skips every exit hook."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GKE_ACCEL = str(Path(sys.executable).parent / "gke-accel")


def _env(tmp: Path) -> dict[str, str]:
    tmp.mkdir()
    return {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT / "constructs")}


def test_exit_now_removes_the_scratch_folder_where_atexit_would_not_run(tmp_path: Path) -> None:
    made = ("from gke_accel import scratch; (scratch.scratch_dir('charts') / 'Chart.yaml').write_text('x'); "
            "print(scratch.scratch_root(), flush=True)")  # fmt: skip
    for tail, gone in (("; from gke_accel.cli.progress import exit_now; exit_now(0)", True),
                       ("; import os; os._exit(0)", False)):  # fmt: skip
        tmp = tmp_path / str(gone)
        proc = subprocess.run([sys.executable, "-c", made + tail], capture_output=True, text=True, env=_env(tmp),
                              check=True)  # fmt: skip
        folder = Path(proc.stdout.strip())
        assert folder.parent == tmp and folder.name.startswith("gke-accel-")
        assert folder.exists() is not gone  # a bare os._exit leaves it: exit_now is what removes it


def test_synth_leaves_nothing_in_the_temporary_folder(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    out = subprocess.run([GKE_ACCEL, "synth", "--env", "dev", "--outdir", str(tmp_path / "out")], capture_output=True,
                         text=True, env=_env(tmp), cwd=ROOT, timeout=300, check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "out" / "stacks" / "dev" / "cdk.tf.json").is_file()
    assert sorted(p.name for p in tmp.iterdir()) == []  # no chart folder, jsii runtime copy or jsii-kernel-*
