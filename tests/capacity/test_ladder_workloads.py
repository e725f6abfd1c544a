"""``workload new`` climbs the ladder (selects the ComputeClass and the shape, tolerates every rung's
taints, pins no rung) and ``lint`` checks a workload against the ladder: accepted when it selects the
class, refused when it bypasses the ladder with a bare selector, pins a rung, or names another class."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from gke_accel.model import EnvironmentPlan, load_environment_text
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts
from helpers import to_yaml
from ladder_config import ladder_config

CLASS = "v5e-2x4"


@pytest.fixture(scope="module")
def env() -> EnvironmentPlan:
    data = ladder_config(["reservation/r-ml-1", "on-demand", "flex-start", "spot"])
    data["capacity"]["v5e-2x4"]["rungs"] += ["pool/v5e-shared"]
    data["teams"] = [{"name": "ml", "google_group": "ml@acme.example.com", "accelerators": {"v5e": 8}}]
    return load_environment_text(to_yaml(data))


def _job(env: EnvironmentPlan) -> dict[str, Any]:
    request = WorkloadRequest(
        name="train", team="ml", kind="job", accelerator="v5e", image="registry.k8s.io/pause:3.10", chips=8,
        checkpoints=False,
    )  # fmt: skip
    [obj] = new_workload(env, request)
    return obj


def _lint(env: EnvironmentPlan, obj: dict[str, Any]) -> tuple[bool, list[dict[str, Any]]]:
    report = lint_texts(env, [("job.yaml", yaml.safe_dump(obj))]).to_dict()
    [wl] = report["workloads"]
    return wl["schedules"], [f for f in wl["findings"] if f["rule"] == "ladder"]


def test_workload_new_selects_the_class_and_tolerates_every_rung(env: EnvironmentPlan) -> None:
    pod = _job(env)["spec"]["template"]["spec"]
    # GKE node labels of a v5e 2x4 node (catalog-facts: tpu-v5-lite-podslice) and the class
    assert pod["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
        "cloud.google.com/gke-tpu-topology": "2x4",
        "cloud.google.com/compute-class": CLASS,
    }
    keys = {(t["key"], t.get("value")) for t in pod["tolerations"]}
    assert keys == {("cloud.google.com/compute-class", CLASS), ("cloud.google.com/gke-spot", "true"),
                    ("google.com/tpu", "present")}  # fmt: skip


def test_lint_accepts_a_workload_on_the_ladder_and_it_lands_on_every_rung(env: EnvironmentPlan) -> None:
    ok, findings = _lint(env, _job(env))
    assert ok and not findings
    report = lint_texts(env, [("job.yaml", yaml.safe_dump(_job(env)))]).to_dict()
    assert set(report["workloads"][0]["pools"]) == {"v5e-res", "v5e-od", "v5e-flex", "v5e-spot", "v5e-shared"}


def test_lint_refuses_a_bare_selector_of_the_ladders_shape(env: EnvironmentPlan) -> None:
    obj = copy.deepcopy(_job(env))
    pod = obj["spec"]["template"]["spec"]
    del pod["nodeSelector"]["cloud.google.com/compute-class"]
    ok, findings = _lint(env, obj)
    assert not ok
    [f] = findings
    assert f["severity"] == "error" and "without its ComputeClass" in f["message"]
    assert "cloud.google.com/compute-class" in f["hint"]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("cloud.google.com/gke-spot", "true"),
        ("gke-accel/capacity-rung", "on-demand"),
        ("cloud.google.com/gke-nodepool", "v5e-od"),
    ],
)
def test_lint_warns_of_pinning_one_rung(env: EnvironmentPlan, key: str, value: str) -> None:
    """W4f: a job pinned to one rung runs there (real engines), so a warning, not "will not run"."""
    obj = copy.deepcopy(_job(env))
    obj["spec"]["template"]["spec"]["nodeSelector"][key] = value
    ok, findings = _lint(env, obj)
    assert ok, findings
    assert any(
        "pins one rung" in f["message"] and f["path"].endswith(key) and f["severity"] == "warning" for f in findings
    ), findings


def test_lint_refuses_a_class_the_environment_does_not_have(env: EnvironmentPlan) -> None:
    obj = copy.deepcopy(_job(env))
    obj["spec"]["template"]["spec"]["nodeSelector"]["cloud.google.com/compute-class"] = "v6e-2x4"
    ok, findings = _lint(env, obj)
    assert not ok and any("is not a ComputeClass" in f["message"] and CLASS in f["hint"] for f in findings)


def test_without_ladders_the_rule_is_silent() -> None:
    data = ladder_config()
    del data["capacity"]
    data["teams"] = [{"name": "ml", "google_group": "ml@acme.example.com", "accelerators": {"v5e": 8}}]
    plain = load_environment_text(to_yaml(data))
    obj = _job(plain)
    assert "cloud.google.com/compute-class" not in obj["spec"]["template"]["spec"]["nodeSelector"]
    ok, findings = _lint(plain, obj)
    assert ok and not findings


# --- staging's shipped L4 ladder (config/staging.yaml capacity.l4: l4-reserved, l4-serve, l4-spot) ---


@pytest.mark.parametrize("kind", ["job", "deployment"])
def test_workload_new_for_stagings_l4_selects_the_class_and_lint_accepts_it(kind: str) -> None:
    from pathlib import Path

    from gke_accel.model import load_environment

    staging = load_environment(Path(__file__).resolve().parents[2] / "config" / "staging.yaml")
    request = WorkloadRequest(
        name="srv", team="serving", kind=kind, accelerator="l4", image="registry.k8s.io/pause:3.10",
        checkpoints=False,
    )  # fmt: skip
    obj = new_workload(staging, request)[0]
    pod = obj["spec"]["template"]["spec"]
    # GKE's node label of an L4 node (tests/fixtures/gke-nodes/gpu-l4-whole.yaml), the class, and the
    # whole-GPU unit every GPU pool of ours carries (docs/queues.md "Split GPUs"); no rung
    assert pod["nodeSelector"] == {
        "cloud.google.com/gke-accelerator": "nvidia-l4",
        "cloud.google.com/compute-class": "l4",
        "gke-accel/gpu-unit": "whole",
    }
    keys = {(t["key"], t.get("value")) for t in pod["tolerations"]}
    assert keys == {("cloud.google.com/compute-class", "l4"), ("cloud.google.com/gke-spot", "true"),
                    ("nvidia.com/gpu", "present")}  # fmt: skip
    ok, findings = _lint(staging, obj)
    assert ok and not findings
    # the rejected case: the same pod with a bare L4 selector bypasses the ladder
    bare = copy.deepcopy(obj)
    bare["spec"]["template"]["spec"]["nodeSelector"] = {"cloud.google.com/gke-accelerator": "nvidia-l4"}
    ok, findings = _lint(staging, bare)
    assert not ok and [f["severity"] for f in findings] == ["error"]
    assert (
        "without its ComputeClass" in findings[0]["message"]
        and "l4-reserved, l4-serve, l4-spot" in findings[0]["message"]
    )
