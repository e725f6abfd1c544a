"""The pod-security rule: what PodSecurity admission refuses at the level a team namespace enforces."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from workload_cases import tpu_job

from gke_accel.model import EnvironmentPlan
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import engine, lint_texts
from gke_accel.workloads.lint.podsecurity import ENFORCE_LABEL, enforced_levels, violations

HARDENED = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def pod(**changes: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "x", "securityContext": dict(HARDENED)}]}
    spec.update(changes)
    return spec


@pytest.mark.parametrize(
    ("level", "spec", "problem"),
    [
        ("baseline", pod(hostNetwork=True), "spec.hostNetwork: true"),
        ("baseline", pod(volumes=[{"name": "h", "hostPath": {"path": "/"}}]), "volume h: hostPath"),
        (
            "baseline",
            pod(containers=[{"name": "c", "securityContext": {"privileged": True}}]),
            "container c: privileged",
        ),
        ("restricted", pod(containers=[{"name": "c"}]), "container c: allowPrivilegeEscalation must be false"),
        (
            "restricted",
            pod(containers=[{"name": "c", "securityContext": {**HARDENED, "runAsNonRoot": False}}]),
            "container c: runAsNonRoot must be true",
        ),
        (
            "restricted",
            pod(volumes=[{"name": "g", "gcePersistentDisk": {"pdName": "d"}}]),
            "volume g: gcePersistentDisk",
        ),
    ],
)
def test_violations_rejected(level: str, spec: dict[str, Any], problem: str) -> None:
    assert problem in violations(spec, level)


def test_accepted_pods() -> None:
    assert violations(pod(), "restricted") == []
    csi = {"name": "ckpt", "csi": {"driver": "gcsfuse.csi.storage.gke.io"}}
    assert violations(pod(volumes=[csi]), "restricted") == []  # CSI ephemeral volumes are allowed
    assert violations(pod(containers=[{"name": "c"}]), "baseline") == []  # baseline needs no hardening
    assert violations(pod(hostNetwork=True), "privileged") == []


def test_levels_come_from_the_namespace_manifests() -> None:
    ns = {"kind": "Namespace", "metadata": {"name": "nlp", "labels": {ENFORCE_LABEL: "restricted"}}}
    other = {"kind": "Namespace", "metadata": {"name": "vision", "labels": {}}}
    assert enforced_levels([ns, other]) == {"nlp": "restricted"}


def test_lint_applies_the_enforced_level(env: EnvironmentPlan, monkeypatch: pytest.MonkeyPatch) -> None:
    real = engine.platform_manifests

    def labelled(plan: EnvironmentPlan) -> list[dict[str, Any]]:
        out = copy.deepcopy(real(plan))
        for m in out:
            if m["kind"] == "Namespace":
                m["metadata"]["labels"][ENFORCE_LABEL] = "restricted"
        return out

    monkeypatch.setattr(engine, "platform_manifests", labelled)
    assert lint_texts(env, [("a.yaml", yaml.safe_dump(tpu_job()))]).ok  # hardened by hand
    plain = tpu_job()
    del plain["spec"]["template"]["spec"]["containers"][0]["securityContext"]
    report = lint_texts(env, [("a.yaml", yaml.safe_dump(plain))])
    assert not report.ok
    assert any(f.rule == "pod-security" and "enforces 'restricted'" in f.message for f in report.verdicts[0].findings)
    generated = new_workload(env, WorkloadRequest(name="t", team="nlp", kind="job", accelerator="v5e", image="x"))
    assert lint_texts(env, [("g.yaml", yaml.safe_dump_all(generated))]).ok
