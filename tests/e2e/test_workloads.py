"""The workload tools against a real kube-apiserver, kube-scheduler and kwok with fake nodes built from
our own plans (``nodes.pool_node``: ``gke_accel.model.pools.node_shape``):

- lint's verdicts vs the scheduler and admission: every workload lint accepts gets all its pods
  created and scheduled; every one it rejects for a scheduling or admission rule has a pod refused or
  left unschedulable;
- ``verify`` (the official kubernetes client) passes on a cluster built from the plan, catches a
  drifted one (a missing quota, a node without its accelerator) and ``--smoke`` schedules its pods;
- the examples applied in their environment: their pods are admitted and scheduled.
"""

from __future__ import annotations

import io
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_controllers import fake_controllers

from gke_accel.cli.main import main
from gke_accel.cli.manifests_view import environment_manifests
from gke_accel.model import EnvironmentPlan, load_environment
from gke_accel.model.environment.ladders import ladders_of
from gke_accel.model.platform.manifests import platform_manifests
from gke_accel.model.pools.node_shape import NODEPOOL_LABEL
from gke_accel.model.queues.of_environment import queue_plan_of
from gke_accel.twin.cluster import CONTROL_PLANE, LocalCluster, find_binaries
from gke_accel.twin.environment import COMPUTECLASS_CRD
from gke_accel.twin.kueue import install_crds
from gke_accel.twin.nodes import pool_node
from gke_accel.workloads.lint import lint_texts
from gke_accel.workloads.manifests import read_documents
from require import require_or_skip

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "workloads"))  # the shared cases of tests/workloads
from test_lint_rules import CASES  # noqa: E402
from workload_cases import workload_env  # noqa: E402

ROOT = TESTS.parent
CONFIG = ROOT / "config"
NODES_PER_POOL = 4  # fake nodes per pool: the pool's maximum, at most this many
# Rules decided by the scheduler or by admission: their verdicts are compared with the real ones.
# (multi-host, slices, retry, capacity are runtime or controller behaviour; queue-label needs Kueue.)
COMPARED_RULES = {
    "resource-name",
    "extended-limits",
    "no-pool",
    "tolerations",
    "gpu-count",
    "node-size",
    "quota",
    "priority",
}
COMPARED = sorted(k for k, c in CASES.items() if c.rule in COMPARED_RULES or k == "tpu-chips-over")


def _require() -> None:
    bins, reason = find_binaries((*CONTROL_PLANE, "kube-scheduler", "kwok"))
    if bins is None:
        require_or_skip(reason)


def _ready_nodes(c: LocalCluster, names: list[str]) -> bool:
    for name in names:
        conditions = c.get("node", name).get("status", {}).get("conditions", [])
        if not any(x["type"] == "Ready" and x["status"] == "True" for x in conditions):
            return False
    return True


def start_environment(tmp: Path, plan: EnvironmentPlan) -> LocalCluster:
    """A cluster with the environment's nodes (each pool at its maximum, capped) and its platform."""
    c = LocalCluster.start(tmp)
    try:
        c.start_scheduler()
        c.start_kwok()
        nodes = [
            pool_node(pool, i)
            for pool in (plan.cluster.system_pool, *plan.pools)
            for i in range(min(pool.node_bounds()[1], NODES_PER_POOL))
        ]
        c.create_nodes(nodes)
        names = [n["metadata"]["name"] for n in nodes]
        c.wait_for(lambda: _ready_nodes(c, names), timeout=90, what="kwok to mark the nodes Ready")
        # The API server's TaintNodesByCondition admission taints new nodes not-ready; the node
        # lifecycle controller (not run here) lifts it once they are Ready: do its job.
        c.kubectl("taint", "nodes", "--all", "node.kubernetes.io/not-ready:NoSchedule-", check=False)
        if queue_plan_of(plan) is not None:  # Kueue's CRDs first, as installing Kueue would
            install_crds(c)
        if ladders_of(plan):  # GKE's ComputeClass CRD (built into GKE) for the ladders' classes
            install_crds(c, [COMPUTECLASS_CRD])
        c.apply(environment_manifests(plan))
        for team in plan.spec.teams:
            ns = team.namespace or team.name
            c.wait_for(
                lambda ns=ns: c.kubectl("get", "sa", "default", "-n", ns, check=False).returncode == 0,
                timeout=60,
                what=f"the default ServiceAccount in {ns}",
            )
        return c
    except BaseException:
        c.stop()
        raise


@pytest.fixture(scope="module")
def environments(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[str], tuple[LocalCluster, EnvironmentPlan]]]:
    """A cluster per environment ('test' = the workload rules' environment), started on first use."""
    _require()
    started: dict[str, tuple[LocalCluster, EnvironmentPlan]] = {}

    def get(name: str) -> tuple[LocalCluster, EnvironmentPlan]:
        if name not in started:
            plan = workload_env() if name == "test" else load_environment(CONFIG / f"{name}.yaml")
            started[name] = (start_environment(tmp_path_factory.mktemp(f"k8s-{name}"), plan), plan)
        return started[name]

    try:
        yield get
    finally:
        for c, _ in started.values():
            c.stop()


def pods_of(text: str, prefix: str) -> list[dict[str, Any]]:
    """Each workload's pods as bare Pods (as many as run at once), named ``prefix-...``."""
    pods = []
    for w, wl in enumerate(read_documents([("x.yaml", text)]).workloads):
        for g, group in enumerate(wl.groups):
            for i in range(group.pods):
                pods.append(
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "metadata": {
                            "name": f"{prefix}-{w}-{g}-{i}",
                            "namespace": wl.namespace or "default",
                            "labels": dict(group.labels),
                        },
                        "spec": json.loads(json.dumps(group.spec)),
                    }
                )
    return pods


def run_pods(c: LocalCluster, pods: list[dict[str, Any]], timeout: float = 30) -> tuple[bool, str]:
    """(all created and scheduled, what happened); deletes them again."""
    created, refused = [], []
    try:
        for pod in pods:
            result = c.create([pod], check=False)
            if result.returncode != 0:
                refused.append(result.stderr.strip().splitlines()[-1])
            else:
                created.append((pod["metadata"]["namespace"], pod["metadata"]["name"]))

        def settled() -> list[tuple[str, str]] | None:
            states = []
            for ns, name in created:
                cond = {x["type"]: x for x in c.get("pod", name, ns).get("status", {}).get("conditions", [])}
                scheduled = cond.get("PodScheduled")
                if scheduled is None:
                    return None
                states.append((scheduled["status"], scheduled.get("message", "")))
            return states or [("True", "")]

        states = c.wait_for(settled, timeout=timeout, what="pods to be scheduled or found unschedulable")
        unscheduled = [m for s, m in states if s != "True"]
        ok = not refused and not unscheduled
        return ok, "; ".join(refused + unscheduled) or "all scheduled"
    finally:
        for ns in sorted({ns for ns, _ in created}):
            c.kubectl("delete", "pods", "--all", "-n", ns, "--grace-period=0", "--force", "--wait=true", check=False)
        for ns in sorted({ns for ns, _ in created}):  # quota usage back to zero before the next case
            c.wait_for(
                lambda ns=ns: all(
                    q.get("status", {}).get("used", {}).get("pods", "0") == "0"
                    for q in c.get("resourcequota", namespace=ns)["items"]
                ),
                timeout=60,
                what=f"quota usage in {ns} to drop",
            )


@pytest.mark.parametrize("case_id", COMPARED)
@pytest.mark.parametrize("side", ["good", "bad"])
def test_lint_verdict_matches_the_scheduler(environments: Any, case_id: str, side: str) -> None:
    c, plan = environments("test")
    docs = getattr(CASES[case_id], side)()
    text = yaml.safe_dump_all(docs)
    report = lint_texts(plan, [("case.yaml", text)])
    scheduled, what = run_pods(c, pods_of(text, f"{case_id}-{side}"))
    assert scheduled == report.ok, f"lint said {'ok' if report.ok else 'no'}, the server: {what}\n{report.render()}"


def _verify(c: LocalCluster, env: str, *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["verify", "--env", env, "--config-dir", str(CONFIG), "--kubeconfig", str(c.kubeconfig), *extra])
    return code, out.getvalue()


def test_verify_passes_on_the_plan_and_catches_drift(environments: Any) -> None:
    c, plan = environments("staging")
    # the driver installer DaemonSet has no controller here: run its pod on each node it selects
    [ds] = [m for m in platform_manifests(plan) if m["kind"] == "DaemonSet"]
    l4_nodes = [
        n["metadata"]["name"] for n in c.get("node")["items"] if "gke-accel/driver-variant" in n["metadata"]["labels"]
    ]
    c.create(
        [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"installer-{n}",
                    "namespace": ds["metadata"]["namespace"],
                    "labels": ds["spec"]["template"]["metadata"]["labels"],
                },
                "spec": {**ds["spec"]["template"]["spec"], "nodeName": n},
            }
            for n in l4_nodes
        ]
    )
    c.wait_for(
        lambda: all(
            any(
                x["type"] == "Ready" and x["status"] == "True"
                for x in c.get("pod", f"installer-{n}", "kube-system").get("status", {}).get("conditions", [])
            )
            for n in l4_nodes
        ),
        timeout=60,
        what="installer pods Ready",
    )
    system = next(n["metadata"]["name"] for n in c.get("node")["items"]
                  if n["metadata"]["labels"].get(NODEPOOL_LABEL) == plan.cluster.system_pool.name)  # fmt: skip
    fake_controllers(c, plan, system)  # verify checks Kueue's and JobSet's controllers are ready there
    started = time.monotonic()
    code, out = _verify(c, "staging")
    elapsed = time.monotonic() - started
    assert code == 0, out
    assert "OK:" in out and "nvidia-driver-installer" in out
    print(f"verify (healthy staging) took {elapsed:.2f}s")

    code, out = _verify(c, "staging", "--smoke", "--timeout", "30")
    assert code == 0, out
    assert [line for line in out.splitlines() if line.startswith("ok      smoke")], out

    # drift: a missing quota and a node of the v5e pool without its accelerator
    c.kubectl("delete", "resourcequota", "compute", "-n", "nlp")
    pool = next(p for p in plan.pools if p.kind == "tpu")
    node = pool_node(pool, 9)
    node["status"]["allocatable"].pop("google.com/tpu")
    node["status"]["capacity"].pop("google.com/tpu")
    c.create_nodes([node])
    code, out = _verify(c, "staging", "--json")
    assert code == 2, out
    [report] = json.loads(out)
    failed = [row for row in report["checks"] if row["status"] == "FAIL"]
    assert {"area": "ResourceQuota", "subject": "nlp/compute", "status": "FAIL", "detail": "missing"} in failed, failed
    [node_row] = [row for row in failed if row["subject"] == f"{pool.name}/{node['metadata']['name']}"]
    assert "allocatable google.com/tpu=(none), expected 4" in node_row["detail"], failed
    # the two drifts (and the drifted node's pool), nothing else
    subjects = {(row["area"], row["subject"]) for row in failed}
    assert subjects == {("ResourceQuota", "nlp/compute"), ("node", node_row["subject"]), ("pool", pool.name)}, failed


EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_pods_are_admitted_and_scheduled(environments: Any, path: Path) -> None:
    text = path.read_text()
    env = text.splitlines()[0].split("--env ")[1].split()[0]
    c, _ = environments(env)
    docs = list(yaml.safe_load_all(text))
    for doc in docs:  # the objects themselves: the API server accepts them (JobSet needs its CRD: dry run skipped)
        if doc["kind"] != "JobSet":
            c.kubectl("create", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(doc))
    scheduled, what = run_pods(c, pods_of(text, path.stem[:30]))
    assert scheduled, what
