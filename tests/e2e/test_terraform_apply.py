"""Each shipped environment's in-cluster half applied by real Terraform with the real kubernetes and helm
providers (built from the Go module proxy) to a local control plane: every ``kubernetes_*`` resource and
every ``helm_release`` of the synthesized stack (tools/terraform/local_stack.py: provider blocks pointed at
the local kubeconfig, the pinned Kueue and JobSet charts read from their Go modules, the generated charts
as synthesized). One ``terraform apply`` per environment, ``atomic``/``wait`` as shipped:

- kube-scheduler, kwok, the Deployment and ReplicaSet controllers, kwok nodes of every accelerator pool;
- the real Kueue and JobSet controllers, run out of cluster from what their releases installed (their
  ConfigMap, arguments, ServiceAccount, webhook certificate), answer the releases' Service-based webhooks
  (failurePolicy Fail) at their Services' ClusterIPs (tests/e2e/release_controllers.py), so the queue
  chart's ClusterQueues, LocalQueues and flavors pass Kueue's webhooks as on GKE;
- on GKE a controller's pod turns Ready when its /readyz does (certificates written, webhook server
  serving); kwok turns a pod Ready as soon as it is bound. So the system pool's nodes are created only once
  every controller's own /readyz answers: until then the controllers' pods stay Pending and Helm's ``wait``
  holds the releases, as the readiness probe would on GKE.

Then: every release is ``deployed`` at its first revision (Helm's own record on the server), the objects
Terraform and the generated charts created are exactly ``gke-accel manifests --env E``'s, each stored with
every field that command declares, the controllers' pods run on system-pool nodes, and a second
``terraform plan -detailed-exitcode`` shows no changes.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from release_controllers import RUNS, run_release_controller
from terraform_k8s import PROVIDER_VERSIONS, Terraform, local_stack, provider_binary, terraform_command

from charts import PINNED, chart_source
from gke_accel.cli.main import main as gke_accel
from gke_accel.model import load_environment
from gke_accel.twin.cluster import WORKLOAD_CONTROLLERS, LocalCluster
from gke_accel.twin.environment import COMPUTECLASS_CRD, kueue_configuration_of
from gke_accel.twin.jobset import DEFAULTING_PROBE
from gke_accel.twin.kueue import SUSPEND_PROBE, wait_established
from gke_accel.twin.nodes import environment_nodes
from require import require_or_skip

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "config"
ENVS = ("dev", "staging", "prod")
POOL_LABEL = "cloud.google.com/gke-nodepool"
HELM_OWNER = "app.kubernetes.io/managed-by"  # Helm sets it to "Helm" on every object it installs


@pytest.fixture(scope="module")
def terraform_ready(scheduling_control_plane: None) -> None:
    for name, version in PROVIDER_VERSIONS.items():
        if provider_binary(name) is None:
            require_or_skip(f"hashicorp/{name} {version} is not in the provider mirror: run "
                            f"tools/terraform/build_providers.sh --only {name} (make e2e does)")  # fmt: skip
    if terraform_command() is None:
        require_or_skip("no terraform command: run tools/terraform/install_terraform_shim.sh .venv (make e2e does)")


@contextlib.contextmanager
def background(tf: Terraform, log: Path, *args: str) -> Iterator[Any]:
    proc = tf.start(*args, log=log)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


def helm_records(cluster: LocalCluster) -> dict[str, list[dict[str, Any]]]:
    """Helm's release records on the server (its Secret driver), by release name: labels and the manifest."""
    out = cluster.kubectl("get", "secrets", "--all-namespaces", "-l", "owner=helm", "-o", "json").stdout
    records: dict[str, list[dict[str, Any]]] = {}
    for s in json.loads(out)["items"]:
        labels = s["metadata"]["labels"]
        body = json.loads(gzip.decompress(base64.b64decode(base64.b64decode(s["data"]["release"]))))
        records.setdefault(labels["name"], []).append({"labels": labels, "manifest": body.get("manifest", "")})
    return records


def kind_of(resource_type: str) -> str:
    """``kubernetes_resource_quota_v1`` -> ``ResourceQuota`` (the provider's naming of the kinds we use)."""
    middle = resource_type.removeprefix("kubernetes_").rsplit("_v", 1)[0]
    return "".join(w.capitalize() for w in middle.split("_"))


def key(obj: dict[str, Any]) -> tuple[str, str, str]:
    meta = obj["metadata"]
    return obj["kind"], meta.get("namespace") or "", meta["name"]


def contained(declared: Any, stored: Any, where: str = "") -> list[str]:
    """Where ``stored`` lacks or differs from what ``declared`` says (server defaults on top are fine)."""
    if isinstance(declared, dict):
        if not isinstance(stored, dict):
            return [f"{where}: {stored!r} is not a mapping"]
        return [m for k, v in declared.items() for m in contained(v, stored.get(k), f"{where}.{k}")]
    if isinstance(declared, list):
        if not isinstance(stored, list) or len(stored) != len(declared):
            return [f"{where}: stored {stored!r}, declared {declared!r}"]
        if all(isinstance(v, str) for v in declared):  # a set of names (RBAC verbs, resources: the kubernetes
            same = sorted(declared) == sorted(map(str, stored))  # provider sends them in its own order)
            return [] if same else [f"{where}: stored {stored!r}, declared {declared!r}"]
        pairs = enumerate(zip(declared, stored, strict=True))
        return [m for i, (d, s) in pairs for m in contained(d, s, f"{where}[{i}]")]
    if isinstance(declared, int) and not isinstance(declared, bool) and isinstance(stored, str):
        return [] if str(declared) == stored else [f"{where}: stored {stored!r}, declared {declared!r}"]  # a quantity
    return [] if declared == stored else [f"{where}: stored {stored!r}, declared {declared!r}"]


@contextlib.contextmanager
def prepared(env: str, shipped_stacks: Path, tmp_path: Path) -> Iterator[Any]:
    """A control plane for ``env`` (Services on loopback, scheduler, kwok, a node of every accelerator pool),
    the stack's in-cluster half written for it and ``terraform init`` done; yields (cluster, terraform,
    stack, configuration, report, the system pool's nodes, not yet created)."""
    stack = json.loads((shipped_stacks / env / "cdk.tf.json").read_text())
    plan = load_environment(CONFIG / f"{env}.yaml")
    releases = {b["name"]: b for b in stack["resource"].get("helm_release", {}).values()}
    assert releases, f"{env} installs no helm release"
    charts = {name: chart_source(PINNED[name]) for name in releases if name in PINNED}
    nodes = environment_nodes(plan, per_pool=1)
    system = [n for n in nodes if n["metadata"]["labels"].get(POOL_LABEL) == plan.cluster.system_pool.name]
    assert system, f"no system-pool node for {plan.cluster.system_pool.name}"
    cidr = f"127.{random.randint(64, 250)}.0.0/16"  # Services' ClusterIPs on loopback (release_controllers.py)
    with LocalCluster.start(tmp_path / "k8s", controllers=WORKLOAD_CONTROLLERS, service_cidr=cidr) as cluster:
        cluster.start_scheduler()
        cluster.start_kwok()
        cluster.create_nodes([n for n in nodes if n not in system])
        if "gke-accel-capacity" in releases:  # on GKE the ComputeClass CRD is built in
            cluster.kubectl("apply", "--server-side", "-f", str(COMPUTECLASS_CRD))
            wait_established(cluster, yaml.safe_load(COMPUTECLASS_CRD.read_text())["metadata"]["name"])
        config, report = local_stack().in_cluster_part(stack, cluster.kubeconfig, PROVIDER_VERSIONS, charts)
        local_stack().write(shipped_stacks / env, tmp_path / "tf", config)
        tf = Terraform(tmp_path / "tf")
        init = tf.run("init", "-input=false")
        assert init.returncode == 0, init.stdout + init.stderr
        yield cluster, tf, stack, config, report, system


@pytest.mark.parametrize("env", ENVS)
def test_the_stacks_in_cluster_half_applies_with_terraform_and_the_next_plan_is_empty(
    env: str, terraform_ready: None, shipped_stacks: Path, tmp_path: Path
) -> None:
    t0 = time.monotonic()
    with prepared(env, shipped_stacks, tmp_path) as (cluster, tf, stack, config, report, system):
        plan = load_environment(CONFIG / f"{env}.yaml")
        system_pool = plan.cluster.system_pool.name
        releases = {b["name"]: b for b in stack["resource"]["helm_release"].values()}
        count = sum(len(v) for v in config["resource"].values())
        work = tf.workdir
        t_apply = time.monotonic()
        log = work / "apply.log"
        with background(tf, log, "apply", "-auto-approve", "-input=false") as apply, contextlib.ExitStack() as running:
            def terraform_alive() -> None:
                if apply.poll() is not None:
                    raise AssertionError(f"terraform apply ended (exit {apply.returncode}):\n{log.read_text()[-6000:]}")

            for name in sorted(set(releases) & set(RUNS)):
                running.enter_context(run_release_controller(cluster, RUNS[name], releases[name]["namespace"],
                                                             tmp_path / name, check=terraform_alive))  # fmt: skip
            ready = time.monotonic() - t_apply
            cluster.create_nodes(system)  # the controllers answer: their pods may turn Ready now
            rc = apply.wait(timeout=900)
            out = log.read_text()
            assert rc == 0, f"terraform apply failed (exit {rc}):\n{out[-8000:]}"
            assert f"Apply complete! Resources: {count} added, 0 changed, 0 destroyed." in out, out[-3000:]
            applied = time.monotonic() - t_apply

            records = helm_records(cluster)
            for name in releases:
                [record] = records[name]  # one revision: no retry, no rollback
                assert record["labels"]["status"] == "deployed", f"{name}: {record['labels']}"

            # every object the stack created is one `gke-accel manifests` writes, and the reverse
            written = gke_accel(["manifests", "--config-dir", str(CONFIG), "--env", env, "--out", str(tmp_path / "m")])
            assert written == 0
            declared = [yaml.safe_load(f.read_text()) for f in sorted((tmp_path / "m" / env).glob("*.yaml"))]
            created = set()
            for resource_type, named in config["resource"].items():
                if resource_type.startswith("kubernetes_"):
                    for body in named.values():
                        meta = body["metadata"][0] if isinstance(body["metadata"], list) else body["metadata"]
                        created.add((kind_of(resource_type), meta.get("namespace") or "", meta["name"]))
            helm_installed = {key(o) for n in set(releases) - set(PINNED)  # the generated charts: what Helm sent
                              for o in yaml.safe_load_all(records[n][0]["manifest"]) if o}  # fmt: skip
            assert {key(o) for o in declared} == created | helm_installed
            problems, owners = [], set()
            for obj in declared:
                kind, namespace, name = key(obj)
                group, _, version = obj["apiVersion"].rpartition("/")
                resource = f"{kind.lower()}.{version}.{group}" if group else kind.lower()  # at the declared version
                stored = cluster.get(resource, name, namespace or None)
                want = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}
                if key(obj) in helm_installed and HELM_OWNER in want["metadata"].get("labels", {}):
                    # Helm labels what it installs with itself as the owner, whatever the chart says (below)
                    want = json.loads(json.dumps(want))
                    del want["metadata"]["labels"][HELM_OWNER]
                    owners.add(stored["metadata"]["labels"].get(HELM_OWNER))
                problems += [f"{kind} {namespace}/{name}{m}" for m in contained(want, stored)]
            assert problems == [], "\n".join(problems)
            # `gke-accel manifests` labels these app.kubernetes.io/managed-by=gke-accel; installed through a
            # generated chart, the server holds Helm's value (docs/e2e.md: a difference to know, not a failure)
            assert owners <= {"Helm"}, owners

            # the API server reaches each controller through its release's Service (server-side dry runs call
            # webhooks): Kueue's job webhook suspends a Job of a team namespace that names only its queue,
            # JobSet's defaulting webhook turns DNS hostnames on
            if "kueue" in releases:
                selector = kueue_configuration_of(releases["kueue"])["managedJobsNamespaceSelector"]
                team = selector["matchExpressions"][0]["values"][0]  # a namespace Kueue manages
                probe = json.loads(json.dumps(SUSPEND_PROBE))
                probe["metadata"]["namespace"] = team
                job = json.loads(cluster.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-",
                                                 stdin=json.dumps(probe)).stdout)  # fmt: skip
                assert job["spec"].get("suspend") is True, job["spec"]
            if "jobset" in releases:
                jobset = json.loads(cluster.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-",
                                                    stdin=json.dumps(DEFAULTING_PROBE)).stdout)  # fmt: skip
                assert jobset["spec"]["network"]["enableDNSHostnames"] is True, jobset["spec"]

            # the controllers' pods run on the system pool
            for name in set(releases) & set(PINNED):
                pods = cluster.get("pods", namespace=releases[name]["namespace"])["items"]
                assert pods and all(p["spec"].get("nodeName", "").startswith(f"{system_pool}-") for p in pods), name

            t_plan = time.monotonic()
            again = tf.run("plan", "-detailed-exitcode", "-input=false")
            drift = f"drift after apply (exit {again.returncode}):\n{again.stdout[-6000:]}{again.stderr}"
            assert again.returncode == 0, drift
            assert "No changes." in again.stdout
            print(f"\n{env}: {count} resources ({len(releases)} helm releases) applied in {applied:.1f} s "
                  f"(controllers ready after {ready:.1f} s), plan {time.monotonic() - t_plan:.1f} s, "
                  f"test {time.monotonic() - t0:.1f} s; stack pins {report['pinned']}, run with {report['built']}")


def test_without_kueue_answering_its_webhooks_the_queue_release_fails_and_is_rolled_back(
    terraform_ready: None, shipped_stacks: Path, tmp_path: Path
) -> None:
    """The rejected case: dev's apply with the system pool's nodes there from the start and no controller
    run, so the releases' pods turn Ready (kwok) while nothing answers the Kueue Service. The queue chart's
    objects are refused by Kueue's webhooks (failurePolicy Fail), the atomic release is rolled back and the
    apply fails: the webhooks the test above passes are really on the path."""
    with prepared("dev", shipped_stacks, tmp_path) as (cluster, tf, _, _, _, system):
        cluster.create_nodes(system)
        apply = tf.run("apply", "-auto-approve", "-input=false")
        out = apply.stdout + apply.stderr
        assert apply.returncode != 0, out[-3000:]
        assert 'failed calling webhook' in out and "kueue-webhook-service.kueue-system.svc" in out, out[-3000:]
        assert "helm_release.queues" in out, out[-3000:]
        records = helm_records(cluster)
        assert records["kueue"][0]["labels"]["status"] == "deployed"
        assert all(r["labels"]["status"] != "deployed" for r in records.get("gke-accel-queues", []))
