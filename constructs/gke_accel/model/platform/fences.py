"""The Kueue priority fence: a ValidatingAdmissionPolicy (and its binding) that lets a team use only
its own priority classes, through the pod ``priorityClassName`` and through Kueue's
``kueue.x-k8s.io/priority-class`` label alike, and makes the two agree.

Why: the zero-pod ResourceQuota (``model/teams/manifests.py``) refuses *pods* of a class the team may
not use, but Kueue orders and preempts *workloads* by the label (or, without it, by the pod
template's PriorityClass) before any pod exists. Without this policy a team limited to
``training, batch`` could label a Job ``inference`` and preempt others in its ClusterQueue and,
with ``preempt_when_borrowing``, across the cohort.

One policy holds the table namespace -> allowed classes; one binding selects the team namespaces.
Kubernetes serves ``admissionregistration.k8s.io/v1`` policies from 1.30
(https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/); expressions
use CEL optionals (``.?``, ``orValue``) and ``join`` from the Kubernetes CEL libraries
(https://kubernetes.io/docs/reference/using-api/cel/).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from gke_accel.model.platform.spec import PlatformSpec
from gke_accel.model.teams.plan import TeamPlan
from gke_accel.model.teams.queue import PRIORITY_LABEL

Manifest = dict[str, Any]
API = "admissionregistration.k8s.io/v1"
POLICY_NAME = "gke-accel-kueue-priority"
MANAGED_BY = {"app.kubernetes.io/managed-by": "gke-accel"}
# What a team member may create (model/teams/tenancy.py) that carries a pod template or is a pod.
MATCHED = (
    ("", ("pods",)),
    ("batch", ("jobs", "cronjobs")),
    ("apps", ("deployments", "statefulsets", "replicasets")),
    ("jobset.x-k8s.io", ("jobsets",)),
)


class _Spec(Protocol):
    @property
    def platform(self) -> PlatformSpec: ...


class FencedPlan(Protocol):
    """What ``priority_fence`` reads of an environment plan (``EnvironmentPlan`` has it)."""

    @property
    def spec(self) -> _Spec: ...

    @property
    def teams(self) -> Sequence[TeamPlan]: ...


def team_classes(teams: Sequence[TeamPlan]) -> dict[str, list[str]]:
    """Team namespace -> the priority classes its workloads may use (all defined ones when the team
    lists none)."""
    return {t.namespace: list(t.priority_classes) for t in teams}


def allowed_classes(plan: FencedPlan) -> dict[str, list[str]]:
    """``team_classes`` of an environment plan."""
    return team_classes(plan.teams)


def _cel_string(text: str) -> str:
    assert "'" not in text and "\\" not in text, text  # DNS labels only
    return f"'{text}'"


def _cel_list(items: list[str]) -> str:
    return "[" + ", ".join(_cel_string(i) for i in items) + "]"


def _variables(table: dict[str, list[str]], default_class: str) -> list[dict[str, str]]:
    entries = ", ".join(f"{_cel_string(ns)}: {_cel_list(classes)}" for ns, classes in sorted(table.items()))
    label, default = _cel_string(PRIORITY_LABEL), _cel_string(default_class)
    has_label = f"has(o.metadata) && has(o.metadata.labels) && {label} in o.metadata.labels"
    return [
        {"name": "allowed", "expression": f"{{{entries}}}[?request.namespace].orValue([])"},
        {
            # Every pod template of the object (the object itself for a Pod).
            "name": "templates",
            "expression": (
                "object.kind == 'Pod' ? [object] : "
                "object.kind == 'CronJob' ? [object.spec.jobTemplate.spec.template] : "
                "object.kind == 'JobSet' ? object.spec.?replicatedJobs.orValue([]).map(r, r.template.spec.template) : "
                "[object.spec.template]"
            ),
        },
        {
            # The pod priority class of each template: no priorityClassName gets the global default.
            "name": "classes",
            "expression": f"variables.templates.map(t, t.spec.?priorityClassName.orValue({default}))",
        },
        {
            # Every Kueue priority label: on the object, its job templates and its pod templates.
            "name": "labels",
            "expression": (
                "([object] + variables.templates + "
                "(object.kind == 'CronJob' ? [object.spec.jobTemplate] : []) + "
                "(object.kind == 'JobSet' ? object.spec.?replicatedJobs.orValue([]).map(r, r.template) : []))"
                f".filter(o, {has_label}).map(o, o.metadata.labels[{label}])"
            ),
        },
    ]


def _validations() -> list[dict[str, str]]:
    allowed = "variables.allowed.join(', ')"
    return [
        {
            "expression": "variables.labels.all(l, l in variables.allowed)",
            "messageExpression": (
                f"'{PRIORITY_LABEL} ' + variables.labels.filter(l, !(l in variables.allowed)).join(', ') + "
                f"' is not a priority class namespace ' + request.namespace + ' may use (' + {allowed} + ')'"
            ),
            "reason": "Forbidden",
        },
        {
            "expression": "variables.classes.all(c, c in variables.allowed)",
            "messageExpression": (
                "'priorityClassName ' + variables.classes.filter(c, !(c in variables.allowed)).join(', ') + "
                f"' is not a priority class namespace ' + request.namespace + ' may use (' + {allowed} + ')'"
            ),
            "reason": "Forbidden",
        },
        {
            "expression": "variables.labels.all(l, variables.classes.all(c, c == l))",
            "messageExpression": (
                f"'{PRIORITY_LABEL} (' + variables.labels.join(', ') + ') must name the same class as the pods\\' "
                "priorityClassName (' + variables.classes.join(', ') + '): Kueue orders and preempts by the label, "
                "the scheduler by the class'"
            ),
            "reason": "Invalid",
        },
    ]


def priority_fence(plan: FencedPlan) -> list[Manifest]:
    """``fence_objects`` of an environment plan."""
    return fence_objects(plan.teams, plan.spec.platform.priority_classes.training.name)


def fence_objects(teams: Sequence[TeamPlan], default_class: str) -> list[Manifest]:
    """The policy and its binding, or nothing when the environment has no Kueue (the label then
    means nothing and the pod classes are fenced by the ResourceQuota alone) or no team.
    ``default_class``: the global default PriorityClass (what a pod without one gets)."""
    if not teams or any(t.queue is None for t in teams):
        return []
    table = team_classes(teams)
    # `scope: "*"` is the server's default, written out: resourceRules is a list kubectl replaces
    # whole, so a defaulted field in it would show as a change on every apply (docs/platform.md).
    rules = [
        {"apiGroups": [group], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"], "resources": list(res),
         "scope": "*"}
        for group, res in MATCHED
    ]  # fmt: skip
    policy = {
        "apiVersion": API,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": POLICY_NAME, "labels": dict(MANAGED_BY)},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": rules},
            "variables": _variables(table, default_class),
            "validations": _validations(),
        },
    }
    binding = {
        "apiVersion": API,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": POLICY_NAME, "labels": dict(MANAGED_BY)},
        "spec": {
            "policyName": POLICY_NAME,
            "validationActions": ["Deny"],
            "matchResources": {
                "namespaceSelector": {
                    "matchExpressions": [
                        {"key": "kubernetes.io/metadata.name", "operator": "In", "values": sorted(table)}
                    ]
                }
            },
        },
    }
    return [policy, binding]
