"""``workload new --elastic`` and the ``elastic`` lint rule (workloads/generate/elastic.py, lint/elastic.py).

Expected values come from Kueue v0.19.2, not from our code: the annotation ``kueue.x-k8s.io/elastic-job``
with the value ``"true"`` (pkg/constants/constants.go, pkg/workloadslicing/workloadslicing.go); only
``batch/v1`` Jobs (and Ray kinds) may be elastic (pkg/controller/jobframework/validation.go
``supportedElasticJobGVKs``); partial admission (``kueue.x-k8s.io/job-min-parallelism``) is refused with it
(pkg/controller/jobs/job/job_webhook.go). The real controller's answer is in tests/e2e/test_elastic_job.py."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from workload_cases import tpu_job, workload_env_config

from gke_accel.model import ConfigError, EnvironmentPlan, load_environment_text
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts
from helpers import to_yaml

ELASTIC = "kueue.x-k8s.io/elastic-job"


def _env(queues: bool) -> EnvironmentPlan:
    data = workload_env_config()
    if queues:
        data["queues"] = {}
        data["teams"][0]["accelerators"]["v5e"] = 32
    return load_environment_text(to_yaml(data), expected_name="test")


@pytest.fixture(scope="module")
def kueue_env() -> EnvironmentPlan:
    return _env(queues=True)


def _errors(env: EnvironmentPlan, obj: dict[str, Any]) -> list[tuple[str, str, str]]:
    report = lint_texts(env, [("a.yaml", yaml.safe_dump(obj))])
    return [(f.rule, f.severity, f.path) for v in report.verdicts for f in v.findings if f.rule == "elastic"]


def _elastic_job(**req: Any) -> WorkloadRequest:
    base: dict[str, Any] = {"name": "train", "team": "nlp", "kind": "job", "accelerator": "v5e", "image": "t:1",
                            "chips": 4, "parallelism": 2, "elastic": True}  # fmt: skip
    return WorkloadRequest(**{**base, **req})


def test_generated_elastic_job_is_a_resizable_job_and_lint_accepts_it(kueue_env: EnvironmentPlan) -> None:
    [job] = new_workload(kueue_env, _elastic_job())
    assert job["kind"] == "Job" and job["metadata"]["annotations"][ELASTIC] == "true"
    assert job["spec"]["parallelism"] == 2
    assert "completions" not in job["spec"] and "completionMode" not in job["spec"]
    assert _errors(kueue_env, job) == []
    assert lint_texts(kueue_env, [("a.yaml", yaml.safe_dump(job))]).ok


@pytest.mark.parametrize(
    "change",
    [
        {"kind": "jobset", "chips": 8},  # a multi-host slice is a JobSet: Kueue does not resize JobSets
        {"kind": "deployment"},
        {"completions": 4},
    ],
)
def test_generate_refuses_what_kueue_cannot_resize(kueue_env: EnvironmentPlan, change: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as err:
        new_workload(kueue_env, _elastic_job(**change))
    assert err.value.issues[0].path == "--elastic"


def test_generate_refuses_elastic_without_kueue() -> None:
    with pytest.raises(ConfigError) as err:
        new_workload(_env(queues=False), _elastic_job())
    assert "queues off" in err.value.issues[0].render()


def test_lint_rejects_an_elastic_annotation_kueue_would_refuse_or_ignore(kueue_env: EnvironmentPlan) -> None:
    wrong_value = tpu_job()
    wrong_value["metadata"]["annotations"] = {ELASTIC: "yes"}
    assert _errors(kueue_env, wrong_value) == [("elastic", "error", f"metadata.annotations.{ELASTIC}")]
    partial = tpu_job()
    partial["metadata"]["annotations"] = {ELASTIC: "true", "kueue.x-k8s.io/job-min-parallelism": "1"}
    partial["spec"]["parallelism"] = 2
    assert ("elastic", "error", "metadata.annotations.kueue.x-k8s.io/job-min-parallelism") in _errors(
        kueue_env, partial
    )
    capped = tpu_job()
    capped["metadata"]["annotations"] = {ELASTIC: "true"}
    capped["spec"].update(parallelism=2, completions=2)
    assert _errors(kueue_env, capped) == [("elastic", "warning", "spec.completions")]
    [jobset] = new_workload(kueue_env, WorkloadRequest("ms", "nlp", "jobset", "v5e", "t:1", chips=8))
    jobset["metadata"]["annotations"][ELASTIC] = "true"
    assert _errors(kueue_env, jobset) == [("elastic", "error", f"metadata.annotations.{ELASTIC}")]
