"""``workload new``: what it generates passes lint, the API schema (kubernetes-validate, strict),
and the restricted Pod Security Standard, and takes every fact from the plan."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest
import yaml

from gke_accel.model import ConfigError, EnvironmentPlan
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.lint import lint_texts
from gke_accel.workloads.lint.podsecurity import violations

REQUESTS = {
    "tpu-job": WorkloadRequest(
        name="train",
        team="nlp",
        kind="job",
        accelerator="v5e",
        image="us-docker.pkg.dev/acme/ml/train:1",
        command=("python", "train.py"),
        chips=4,
    ),
    "tpu-multihost": WorkloadRequest(
        name="mh", team="nlp", kind="jobset", accelerator="v5e", image="us-docker.pkg.dev/acme/ml/train:1", chips=8
    ),
    "gpu-job": WorkloadRequest(
        name="ft", team="nlp", kind="job", accelerator="l4", image="us-docker.pkg.dev/acme/ml/ft:1", chips=2
    ),
    "serve": WorkloadRequest(
        port=8080,
        name="serve",
        team="nlp",
        kind="deployment",
        accelerator="l4",
        image="us-docker.pkg.dev/acme/ml/srv:1",
        replicas=2,
        checkpoints=False,
    ),
    "vision-batch": WorkloadRequest(
        name="sweep",
        team="vision",
        kind="job",
        accelerator="l4",
        image="us-docker.pkg.dev/acme/ml/x:1",
        priority="batch",
    ),
}


def pod_of(obj: dict[str, Any]) -> dict[str, Any]:
    if obj["kind"] == "JobSet":
        spec: dict[str, Any] = obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
        return spec
    spec = obj["spec"]["template"]["spec"]
    return spec


@pytest.mark.parametrize("key", sorted(REQUESTS))
def test_generated_workload_passes_lint_schema_and_restricted(env: EnvironmentPlan, key: str) -> None:
    objects = new_workload(env, REQUESTS[key])
    report = lint_texts(env, [("gen.yaml", yaml.safe_dump_all(objects))])
    assert report.ok and not [f for v in report.verdicts for f in v.findings], report.render()
    for obj in objects:
        if obj["kind"] == "JobSet":  # a CRD: validate its Job template as a batch/v1 Job
            job = obj["spec"]["replicatedJobs"][0]["template"]
            kubernetes_validate.validate(
                {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"}, **job}, "1.33", strict=True
            )
        else:
            kubernetes_validate.validate(obj, "1.33", strict=True)
        if obj["kind"] != "PodDisruptionBudget":  # no pods of its own
            assert violations(pod_of(obj), "restricted") == []


def test_tpu_job_takes_selectors_tolerations_and_identity_from_the_plan(env: EnvironmentPlan) -> None:
    [job] = new_workload(env, REQUESTS["tpu-job"])
    pod = pod_of(job)
    assert job["metadata"]["namespace"] == "nlp"
    assert pod["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
        "cloud.google.com/gke-tpu-topology": "2x2",
        "cloud.google.com/gke-spot": "true",
        "gke-accel/capacity": "spot",
    }
    assert {(t["key"], t["value"]) for t in pod["tolerations"]} == {
        ("google.com/tpu", "present"),
        ("cloud.google.com/gke-spot", "true"),
    }
    assert pod["serviceAccountName"] == "workload" and pod["priorityClassName"] == "training"
    assert pod["containers"][0]["resources"]["limits"]["google.com/tpu"] == "4"
    # retries: disruptions are ignored, application errors use backoffLimit
    assert job["spec"]["podFailurePolicy"]["rules"] == [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
    ]
    assert pod["restartPolicy"] == "Never" and job["spec"]["backoffLimit"] == 3


def test_checkpoint_bucket_is_mounted_under_the_team_prefix(env: EnvironmentPlan) -> None:
    [job] = new_workload(env, REQUESTS["tpu-job"])
    tmpl = job["spec"]["template"]
    [volume] = [v for v in tmpl["spec"]["volumes"] if v["name"] == "checkpoints"]
    assert volume["csi"]["driver"] == "gcsfuse.csi.storage.gke.io"
    assert volume["csi"]["volumeAttributes"]["bucketName"] == "acme-ml-test-test-checkpoints"
    assert volume["csi"]["volumeAttributes"]["mountOptions"].startswith("only-dir=nlp,")
    assert tmpl["metadata"]["annotations"]["gke-gcsfuse/volumes"] == "true"
    env_vars = {e["name"]: e.get("value") for e in tmpl["spec"]["containers"][0]["env"]}
    assert env_vars["CHECKPOINT_DIR"] == "/checkpoints"


def test_multi_host_jobset_gets_one_pod_per_vm_and_tpu_environment(env: EnvironmentPlan) -> None:
    [js] = new_workload(env, REQUESTS["tpu-multihost"])
    job = js["spec"]["replicatedJobs"][0]["template"]["spec"]
    assert (job["parallelism"], job["completions"], job["completionMode"]) == (2, 2, "Indexed")
    assert js["spec"]["failurePolicy"]["rules"][0]["action"] == "RestartJobSetAndIgnoreMaxRestarts"
    env_vars = {e["name"]: e for e in job["template"]["spec"]["containers"][0]["env"]}
    assert env_vars["TPU_WORKER_HOSTNAMES"]["value"] == "mh-workers-0-0.mh,mh-workers-0-1.mh"
    assert "job-completion-index" in env_vars["TPU_WORKER_ID"]["valueFrom"]["fieldRef"]["fieldPath"]


def test_deployment_defaults_to_inference_priority(env: EnvironmentPlan) -> None:
    dep, _ = new_workload(env, REQUESTS["serve"])
    assert pod_of(dep)["priorityClassName"] == "inference"
    assert [v["name"] for v in pod_of(dep)["volumes"]] == ["scratch"]  # --no-checkpoints
    assert dep["spec"]["replicas"] == 2


@pytest.mark.parametrize(
    ("change", "text"),
    [
        ({"team": "ops"}, "--team: 'ops' is not a team of test; valid: nlp, vision"),
        ({"accelerator": "h100"}, "--accelerator: 'h100': no pool of test has it; valid: l4, v5e"),
        ({"chips": 16}, "--chips: 16 is not the chip count of a v5e slice in test; valid: 4 (2x2), 8 (2x4)"),
        ({"chips": 8, "kind": "job"}, "--kind: 'job': a 2x4 slice has 2 VMs, one pod each; valid: jobset"),
        ({"accelerator": "l4", "chips": 4}, "--gpus: 4 GPUs per pod: no l4 pool has that many per node; valid: 1, 2"),
        (
            {"team": "vision", "priority": "inference", "accelerator": "l4", "chips": 1},
            "--priority: 'inference': team vision may not use it; valid: training, batch",
        ),
    ],
)
def test_impossible_requests_are_config_errors(env: EnvironmentPlan, change: dict[str, Any], text: str) -> None:
    base = REQUESTS["tpu-job"]
    request = WorkloadRequest(**{**base.__dict__, **change})
    with pytest.raises(ConfigError) as info:
        new_workload(env, request)
    assert text in info.value.render()


def test_deployment_comes_with_a_disruption_budget_of_one_replica(env: EnvironmentPlan) -> None:
    dep, pdb = new_workload(env, REQUESTS["serve"])
    # policy/v1 PodDisruptionBudget (Kubernetes API reference): same namespace and pod selector
    assert (pdb["apiVersion"], pdb["kind"]) == ("policy/v1", "PodDisruptionBudget")
    assert pdb["metadata"]["namespace"] == dep["metadata"]["namespace"]
    assert pdb["spec"] == {"maxUnavailable": 1, "selector": {"matchLabels": {"app.kubernetes.io/name": "serve"}}}
    assert dep["spec"]["selector"] == pdb["spec"]["selector"]


def test_deployment_with_a_port_gets_probes_and_a_read_only_root(env: EnvironmentPlan) -> None:
    dep, _ = new_workload(env, REQUESTS["serve"])
    [container] = pod_of(dep)["containers"]
    assert container["readinessProbe"]["tcpSocket"] == {"port": 8080}
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert {"name": "HOME", "value": "/tmp"} in container["env"]
    assert not any("CKV_K8S_8" in v for v in dep["metadata"]["annotations"].values())
    [job] = new_workload(env, REQUESTS["tpu-job"])
    assert any(v.startswith("CKV_K8S_8=") for v in job["metadata"]["annotations"].values())


def _big_quota_env() -> EnvironmentPlan:
    from workload_cases import workload_env_config

    from gke_accel.model import load_environment_text
    from helpers import to_yaml

    data = workload_env_config()
    data["teams"][0].update(cpu=1024, memory_gib=4096)
    return load_environment_text(to_yaml(data), expected_name="test")


def _mib(q: str) -> float:
    return float(q[:-2]) * {"Mi": 1.0, "Gi": 1024.0}[q[-2:]]


def test_a_pod_that_owns_a_tpu_vm_is_sized_for_the_vm() -> None:
    """Expected bounds from tests/fixtures/gke-nodes/tpu-v5e-single-host.yaml (ct5lp-hightpu-4t allocatable
    111650m, 185653Mi; the machine 192 GiB): the pod gets it less at most 2 cpu / 4 GiB for GKE's DaemonSets and
    the GCS FUSE sidecar, and (memory) the kernel's 2% of the machine, 3,933 MiB (catalog node_fit). On main it
    asked for 8 cpu / 32Gi as requests and limits (code review C2)."""
    [job] = new_workload(_big_quota_env(), REQUESTS["tpu-job"])
    res = pod_of(job)["containers"][0]["resources"]
    cpu, memory = res["requests"]["cpu"], res["requests"]["memory"]
    millis = int(cpu[:-1]) if cpu.endswith("m") else int(cpu) * 1000
    assert 111650 - 2000 <= millis <= 111650
    assert 185653 - 4096 - 3933 <= _mib(memory) <= 185653 - 3933
    assert res["limits"]["cpu"] == cpu and res["limits"]["memory"] == memory  # Guaranteed: the LimitRange
    # would otherwise give a missing cpu limit its default of 1 and refuse the pod


def test_sizing_never_exceeds_the_team_quota() -> None:
    # nlp's quota in the test environment: cpu 64, memory 256Gi; one pod plus its 250m/256Mi FUSE sidecar.
    from workload_cases import workload_env

    [job] = new_workload(workload_env(), REQUESTS["tpu-job"])
    res = pod_of(job)["containers"][0]["resources"]["requests"]
    assert res["cpu"] == "63750m"
    assert _mib(res["memory"]) <= 256 * 1024 - 256
