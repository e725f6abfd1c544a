"""Every shipped environment, whole, on real engines (environments_run.py: GKE's pod admission, scheduler,
kwok nodes of every pool at max size, the stack's Kueue/JobSet releases with their webhooks, the platform
objects as ``gke-accel manifests`` writes them):

- every team's ``gke-accel workload new`` output, for every accelerator the team has a share of, reaches
  Running with every pod on a node of a pool of that accelerator (the pool's accelerator as config/<env>.yaml
  names it: ``generation`` of a TPU pool, ``gpu`` of a GPU pool);
- a CPU-only pod of each team runs on a node of the environment's CPU pool, never on the system pool or an
  accelerator node.

On main at 90b3e6c 8 of these failed (real-engines.md F1, F2, F4: LimitRange accelerator defaults and
no JobSet outside Kueue environments); issue #19 fixed them.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from pods import RESTRICTED

from gke_accel.twin.cluster import KubectlError
from gke_accel.twin.environment import CONFIG, EnvironmentRun, plan_of
from gke_accel.workloads.generate import WorkloadRequest, new_workload
from gke_accel.workloads.generate.placement import choose_pool
from gke_accel.workloads.lint.team import teams_by_namespace

ENVS = ("dev", "staging", "prod")
IMAGE = "registry.k8s.io/pause:3.10"
STUCK_SECONDS = 10  # every pod refused by the scheduler this long (or the workload never got pods): it never runs
WAIT = 60


def pool_accelerators(env: str) -> dict[str, str]:
    """Pool name -> accelerator, read from the environment's YAML as a user wrote it."""
    data = yaml.safe_load((CONFIG / f"{env}.yaml").read_text())
    out = {p["name"]: p["generation"] for p in data.get("tpu_pools", [])}
    out.update({p["name"]: p["gpu"] for p in data.get("gpu_pools", [])})
    return out


def _param(env: str, team: str, what: str) -> Any:
    return pytest.param(env, team, what, id=f"{env}-{team}-{what}")


def cases() -> list[Any]:
    """Per environment (grouped: one control plane at a time), per team: every accelerator it has a share
    of, then a CPU-only pod (``cpu``)."""
    return [
        _param(env, team.name, what)
        for env in ENVS
        for team in plan_of(env).spec.teams
        for what in [*(a for a, share in team.accelerators.items() if share > 0), "cpu"]
    ]


@pytest.fixture(scope="module")
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, scheduling_control_plane: None
        ) -> Iterator[EnvironmentRun]:  # fmt: skip
    """The environment ``request.param`` on its own control plane (one at a time: tests are grouped by it)."""
    with EnvironmentRun.start(request.param, tmp_path_factory.mktemp(f"env-{request.param}")) as environment:
        yield environment


def namespace_of(r: EnvironmentRun, team: str) -> str:
    [ns] = [ns for ns, t in teams_by_namespace(r.plan).items() if t.name == team]
    return ns


def team_priority(r: EnvironmentRun, team: str) -> str:
    """The priority class a member of ``team`` writes: the default (``training``) where the team may use
    it, else the team's first allowed class (``team.priority_classes``)."""
    spec = next(t for t in r.plan.spec.teams if t.name == team)
    pcs = r.plan.spec.platform.priority_classes
    allowed = list(spec.priority_classes) or [pcs.training.name]
    return pcs.training.name if pcs.training.name in allowed else allowed[0]


def generated_workload(r: EnvironmentRun, team: str, accelerator: str) -> list[dict[str, Any]]:
    """``gke-accel workload new --env E --team T --accelerator A --image IMG`` with ``--kind jobset`` for a
    multi-host slice and the team's first allowed priority where it may not use ``training``."""
    priority = team_priority(r, team)
    request = WorkloadRequest(name=f"{accelerator}-run", team=team, kind="job", accelerator=accelerator, image=IMAGE,
                              priority=priority)  # fmt: skip
    if choose_pool(r.plan, request).slice_vms > 1:
        request = dataclasses.replace(request, kind="jobset")
    return new_workload(r.plan, request)


def expected_pods(obj: dict[str, Any]) -> int:
    if obj["kind"] == "JobSet":
        return sum(rj.get("replicas", 1) * rj["template"]["spec"].get("parallelism", 1)
                   for rj in obj["spec"]["replicatedJobs"])  # fmt: skip
    if obj["kind"] == "Deployment":
        return int(obj["spec"].get("replicas", 1))
    return int(obj["spec"].get("parallelism", 1))


def unschedulable(pod: dict[str, Any]) -> str:
    for c in pod.get("status", {}).get("conditions", []):
        if c["type"] == "PodScheduled" and c["status"] == "False" and c.get("reason") == "Unschedulable":
            return str(c.get("message", ""))
    return ""


def describe(r: EnvironmentRun, namespace: str) -> str:
    """What the engines say, for a failure message: pods (node, phase, scheduler message) and Kueue workloads."""
    lines = []
    for p in r.pods(namespace):
        lines.append(f"pod {p['metadata']['name']}: node={p['spec'].get('nodeName')} phase={p['status'].get('phase')} "
                     f"selector={p['spec'].get('nodeSelector')} gates={p['spec'].get('schedulingGates')} "
                     f"{unschedulable(p)}")  # fmt: skip
    workloads = r.cluster.kubectl("get", "workloads.kueue.x-k8s.io", "-n", namespace, "-o", "json", check=False)
    if workloads.returncode == 0:
        for w in json.loads(workloads.stdout)["items"]:
            conds = [
                (c["type"], c["status"], c.get("message", "")[:160]) for c in w.get("status", {}).get("conditions", [])
            ]
            flavors = [a.get("flavors") for a in w.get("status", {}).get("admission", {}).get("podSetAssignments", [])]
            lines.append(f"workload {w['metadata']['name']}: flavors={flavors} conditions={conds}")
    return "\n".join(lines) or "no pods, no workloads"


def wait_running(r: EnvironmentRun, namespace: str, count: int) -> list[dict[str, Any]]:
    """The ``count`` pods once all are Running; AssertionError (with what the engines say) once they are
    stuck: refused by the scheduler for STUCK_SECONDS, or still missing after WAIT seconds."""
    deadline, stuck_since = time.monotonic() + WAIT, None
    while True:
        pods = r.pods(namespace)
        if len(pods) == count and all(p["status"].get("phase") == "Running" for p in pods):
            return pods
        if (
            pods
            and all(unschedulable(p) for p in pods if not p["spec"].get("nodeName"))
            and any(unschedulable(p) for p in pods)
        ):
            stuck_since = stuck_since or time.monotonic()
        else:
            stuck_since = None
        if (stuck_since and time.monotonic() - stuck_since > STUCK_SECONDS) or time.monotonic() > deadline:
            raise AssertionError(f"{count} pods in {namespace} never all Running:\n{describe(r, namespace)}")
        time.sleep(0.5)


def clean(r: EnvironmentRun, namespace: str) -> None:
    kinds = "jobs,deployments,pods" + (",jobsets.jobset.x-k8s.io" if "jobset" in r.releases else "")
    r.cluster.kubectl("delete", kinds, "--all", "-n", namespace, "--wait=true", "--cascade=foreground",
                      "--timeout=60s", check=False)  # fmt: skip
    r.cluster.wait_for(lambda: not r.pods(namespace), timeout=60, what=f"pods of {namespace} gone")


@pytest.mark.parametrize(("run", "team", "what"), cases(), indirect=["run"], scope="module")
def test_the_environment_runs_what_its_teams_submit(run: EnvironmentRun, team: str, what: str) -> None:
    """``what``: an accelerator (the team's generated workload runs on a pool of it) or ``cpu``."""
    if what == "cpu":
        a_cpu_only_team_pod_runs_on_a_cpu_node(run, team)
    else:
        the_generated_workload_runs_on_a_pool_of_its_accelerator(run, team, what)


def the_generated_workload_runs_on_a_pool_of_its_accelerator(r: EnvironmentRun, team: str, accelerator: str) -> None:
    namespace = namespace_of(r, team)
    objects = generated_workload(r, team, accelerator)
    pools = {name for name, acc in pool_accelerators(r.env).items() if acc == accelerator}
    try:
        try:
            r.cluster.create(objects)
        except KubectlError as exc:
            raise AssertionError(f"the API server refused what workload new wrote: {exc}") from exc
        pods = wait_running(r, namespace, sum(expected_pods(o) for o in objects))
        for p in pods:
            node = p["spec"]["nodeName"]
            assert any(r.pool_of(node) == pool or r.pool_of(node).startswith(f"{pool}-s") for pool in pools), (
                f"pod {p['metadata']['name']} runs on {node} (pool {r.pool_of(node)}), not in {sorted(pools)}"
            )
    finally:
        clean(r, namespace)


def cpu_pod(namespace: str, queue: str | None = None, priority: str | None = None) -> dict[str, Any]:
    """A CPU-only pod as a team member writes one: no accelerator, no toleration, no selector; in an
    environment with queues, a LocalQueue label of the team (without one Kueue labels it ``default``, the
    team's second LocalQueue: tests/e2e/test_default_queue.py);
    ``priority``: a class the team may use (without one the pod gets the global default, ``training``,
    which the zero-pod quota of a team limited to other classes refuses: prod's serving, ``inference``)."""
    labels = {"kueue.x-k8s.io/queue-name": queue} if queue else {}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "cpu-only", "namespace": namespace, "labels": labels},
        "spec": {
            **({"priorityClassName": priority} if priority else {}),
            "restartPolicy": "Never",
            "containers": [{"name": "main", "image": IMAGE, "securityContext": RESTRICTED,
                            "resources": {"requests": {"cpu": "1", "memory": "1Gi"},
                                          "limits": {"cpu": "1", "memory": "1Gi"}}}],
        },
    }  # fmt: skip


def a_cpu_only_team_pod_runs_on_a_cpu_node(r: EnvironmentRun, team: str) -> None:
    """A CPU-only Job's pod (no toleration, no selector) is bound to a node of a CPU pool (``cpu_pools``) and
    runs: never on the system pool (tainted for the controllers) nor an accelerator pool (code review R3).
    Staying unschedulable is a failure: the shipped environments have a CPU pool."""
    namespace = namespace_of(r, team)
    queues = r.local_queues(namespace)
    cpu_pools = {p.name for p in r.plan.cpu_pools}
    assert cpu_pools, f"{r.env} ships no cpu_pools: CPU-only pods have no node"
    try:
        pod = cpu_pod(namespace, queues[0] if queues else None, team_priority(r, team))
        job = {"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": "cpu-only", "namespace": namespace, "labels": pod["metadata"]["labels"]},
               "spec": {"backoffLimit": 0, "template": {"spec": pod["spec"]}}}  # fmt: skip
        r.cluster.create([job])

        def running() -> dict[str, Any] | None:
            pods = r.pods(namespace)  # none until Kueue admits the Job and the Job controller makes its pod
            ok = [p for p in pods if p["spec"].get("nodeName") and p["status"].get("phase") == "Running"]
            return ok[0] if ok else None

        try:
            pod = r.cluster.wait_for(running, timeout=WAIT, what="the CPU-only pod to run")
        except TimeoutError as err:
            raise AssertionError(f"the CPU-only pod of {team} never ran:\n{describe(r, namespace)}") from err
        node = pod["spec"]["nodeName"]
        assert r.pool_of(node) in cpu_pools and not r.is_accelerator_node(node), (
            f"the CPU-only pod of {team} runs on {node} (pool {r.pool_of(node)}), not a CPU pool {sorted(cpu_pools)}"
        )
    finally:
        clean(r, namespace)
