"""lint's priority-label rule, matching the admission policy proven in tests/e2e/test_priority_fence.py:
the Kueue priority label must name the pods' priority class. Accepted and rejected cases (staging uses
Kueue; the label and class names are config/staging.yaml's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gke_accel.model import load_environment
from gke_accel.workloads.lint import lint_texts
from helpers import QUOTA_ONLY_CONFIG

ROOT = Path(__file__).resolve().parents[2]
LABEL = "kueue.x-k8s.io/priority-class"


def _job(labels: dict[str, str], priority_class: str | None, env_ns: str = "nlp") -> str:
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [{"name": "m", "image": "x"}]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "j", "namespace": env_ns, "labels": {"kueue.x-k8s.io/queue-name": "team", **labels}},
           "spec": {"template": {"spec": spec}}}  # fmt: skip
    return yaml.safe_dump(job)


def _rule(env: str, text: str) -> list[str]:
    path = QUOTA_ONLY_CONFIG if env == "quota-only" else ROOT / "config" / f"{env}.yaml"
    report = lint_texts(load_environment(path), [("job.yaml", text)])
    return [f"{f.path}: {f.message}" for v in report.verdicts for f in v.findings if f.rule == "priority-label"]


def test_a_label_that_agrees_with_the_class_is_accepted() -> None:
    assert _rule("staging", _job({LABEL: "inference"}, "inference")) == []
    assert _rule("staging", _job({LABEL: "training"}, None)) == []  # the default class is training


def test_a_label_that_disagrees_is_an_error() -> None:
    [message] = _rule("staging", _job({LABEL: "inference"}, "batch"))
    assert message.startswith(f"metadata.labels.{LABEL}: is 'inference', but the pods' priorityClassName is 'batch'")
    [message] = _rule("staging", _job({LABEL: "batch"}, None))
    assert "(none set: the default 'training')" in message


def test_without_kueue_the_label_means_nothing() -> None:
    assert _rule("quota-only", _job({LABEL: "inference"}, "batch")) == []
