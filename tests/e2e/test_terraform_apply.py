"""The ``kubernetes_*`` resources of each synthesized stack, applied with real Terraform and the
kubernetes provider (built from the Go module proxy) to an empty local cluster; the next plan is empty
(the server stores exactly what the stack declares, so ``terraform plan`` shows no drift)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from terraform_k8s import PROVIDER_VERSION, Terraform, kubernetes_part, provider_binary, terraform_command

from gke_accel.twin.cluster import LocalCluster
from require import require_or_skip

ENVS = ("dev", "staging", "prod")


@pytest.fixture(scope="module")
def terraform_ready() -> None:
    if provider_binary() is None:
        require_or_skip(
            f"hashicorp/kubernetes {PROVIDER_VERSION} is not in the provider mirror: run KUBERNETES_VERSION=3.2.1 "
            "KUBERNETES_MODULE_VERSION=... tools/terraform/build_providers.sh --only kubernetes (make e2e does)"
        )
    if terraform_command() is None:
        require_or_skip("no terraform command: run tools/terraform/install_terraform_shim.sh .venv (make e2e does)")


def test_kubernetes_part_refuses_references_outside_it(tmp_path: Path) -> None:
    stack = {"resource": {"kubernetes_namespace_v1": {"a": {"metadata": {"name": "${google_project.p.id}"}}}}}
    with pytest.raises(ValueError, match="google_project"):
        kubernetes_part(stack, tmp_path / "kubeconfig")


@pytest.mark.parametrize("env", ENVS)
def test_stack_kubernetes_resources_apply_and_the_next_plan_is_empty(
    env: str,
    terraform_ready: None,
    shipped_stacks: Path,
    fresh_cluster: Callable[[], LocalCluster],
    tmp_path: Path,
) -> None:
    stack = json.loads((shipped_stacks / env / "cdk.tf.json").read_text())
    cluster = fresh_cluster()
    config = kubernetes_part(stack, cluster.kubeconfig)
    count = sum(len(v) for v in config["resource"].values())
    assert count >= 10
    (tmp_path / "main.tf.json").write_text(json.dumps(config, indent=1))
    tf = Terraform(tmp_path)

    init = tf.run("init", "-input=false")
    assert init.returncode == 0, init.stdout + init.stderr
    apply = tf.run("apply", "-auto-approve", "-input=false")
    assert apply.returncode == 0, apply.stdout[-4000:] + apply.stderr
    assert f"Apply complete! Resources: {count} added, 0 changed, 0 destroyed." in apply.stdout

    plan = tf.run("plan", "-detailed-exitcode", "-input=false")
    assert plan.returncode == 0, f"drift after apply (exit {plan.returncode}):\n{plan.stdout[-6000:]}{plan.stderr}"
    assert "No changes." in plan.stdout
    # what Terraform created is really there
    namespaces = {n["metadata"]["name"] for n in cluster.get("namespace")["items"]}
    metas = [b["metadata"] for b in config["resource"].get("kubernetes_namespace_v1", {}).values()]
    declared = {(m[0] if isinstance(m, list) else m)["name"] for m in metas}
    assert declared and declared <= namespaces
