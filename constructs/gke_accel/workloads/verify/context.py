"""Does the kubeconfig context belong to the environment's cluster? GKE's
``gcloud container clusters get-credentials`` names contexts ``gke_<project>_<location>_<cluster>``
(https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl). A context with
another GKE name is another cluster: refused, so dev's plan is never compared with prod's cluster.
A context renamed by hand is matched by its server against the GKE-named contexts of the kubeconfig;
when nothing tells, verify says so and goes on."""

from __future__ import annotations

import re

from gke_accel.workloads.verify._model import EnvironmentPlan
from gke_accel.workloads.verify.state import CheckRow

GKE_CONTEXT = re.compile(r"^gke_(?P<project>[^_]+)_(?P<location>[^_]+)_(?P<cluster>.+)$")


def expected_context(plan: EnvironmentPlan) -> str:
    c = plan.spec.cluster
    return f"gke_{plan.spec.project_id}_{c.location}_{c.name}"


def get_credentials(plan: EnvironmentPlan) -> str:
    """The command that adds the environment's context (through the DNS endpoint: docs/deploy.md)."""
    c = plan.spec.cluster
    return (
        f"gcloud container clusters get-credentials {c.name} --location {c.location} "
        f"--project {plan.spec.project_id} --dns-endpoint"
    )


def context_row(plan: EnvironmentPlan, context: str, server: str, servers: dict[str, str]) -> CheckRow | str:
    """An ok/warn row, or the reason to refuse (a string) when the context is another cluster's."""
    want = expected_context(plan)
    if context == want:
        return CheckRow("context", context, "ok", f"is {plan.name}'s cluster {plan.spec.cluster.name}")
    other = GKE_CONTEXT.match(context)
    if other:
        return (
            f"context {context} is cluster {other['cluster']} in project {other['project']} ({other['location']}), "
            f"not {plan.name}'s {plan.spec.cluster.name} ({want}); run: {get_credentials(plan)}"
        )
    same = sorted(n for n, s in servers.items() if s == server and n != context and GKE_CONTEXT.match(n))
    if want in same:
        return CheckRow("context", context, "ok", f"has the server of {want}")
    if same:
        return (
            f"context {context} has the server of {same[0]}, not of {plan.name}'s cluster ({want}); "
            f"run: {get_credentials(plan)}"
        )
    return CheckRow(
        "context",
        context or "(current)",
        "warn",
        f"cannot tell whether {server} is {plan.name}'s cluster {plan.spec.cluster.name}; expected context {want}",
    )
