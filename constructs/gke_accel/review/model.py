"""The review as data: what changes per stack, what that does to capacity, quotas, cost and policy.

Plain dataclasses, no rendering and no I/O: ``diff.py`` and ``compare.py`` build them,
``render.py`` turns them into Markdown and JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Action = Literal["create", "update", "replace", "delete"]
StackStatus = Literal["unchanged", "changed", "added", "removed", "error"]

EXIT_NO_CHANGES, EXIT_ERROR, EXIT_CHANGES, EXIT_DESTRUCTIVE = 0, 1, 2, 3

# Rendering order inside a stack: destructive first, then adds, then in-place changes.
ACTION_ORDER: dict[Action, int] = {"delete": 0, "replace": 1, "create": 2, "update": 3}


@dataclass(frozen=True)
class AttributeChange:
    path: str  # "node_config.machine_type", "node_config.guest_accelerator[0].count"
    before: Any  # None when absent
    after: Any
    effect: str | None = None  # see rules.Effect; None is an ordinary in-place update

    @property
    def forces_replacement(self) -> bool:
        return self.effect in ("force_new", "identity", "not_updatable", "replace_trigger")


@dataclass(frozen=True)
class ResourceChange:
    rtype: str
    logical_id: str
    action: Action
    name: str = ""  # the resource's own name attribute, for people
    attributes: tuple[AttributeChange, ...] = ()
    accelerator_pool: bool = False
    recreates_nodes: bool = False  # an in-place update that drains and recreates every node
    previous_logical_id: str = ""  # a delete + create of the same name paired into a replace
    skips_added: tuple[str, ...] = ()  # checkov checks newly skipped with a reason
    skips_removed: tuple[str, ...] = ()

    @property
    def address(self) -> str:
        return f"{self.rtype}.{self.logical_id}"

    @property
    def removes_nodes(self) -> bool:
        """Updated in place, but the nodes in a zone taken out of the pool are deleted."""
        return self.action == "update" and any(a.effect == "removes_nodes" for a in self.attributes)

    @property
    def destructive(self) -> bool:
        """Destroys something: a delete, a replace, recreating every node of an accelerator pool, or
        removing a zone (and its nodes) from one. ``terraform_data`` holds no infrastructure."""
        if self.rtype == "terraform_data":
            return False
        if self.action in ("delete", "replace"):
            return True
        return self.accelerator_pool and (self.recreates_nodes or self.removes_nodes)

    @property
    def replaced_by(self) -> list[AttributeChange]:
        return [a for a in self.attributes if a.forces_replacement]

    @property
    def warning(self) -> str:
        """Why a reviewer should care, in one line ("" when nothing special)."""
        if self.rtype == "google_container_cluster" and self.action in ("delete", "replace"):
            verb = "destroyed" if self.action == "delete" else "recreated"
            return f"the cluster is {verb}: every node pool and every workload on it goes with it"
        if self.rtype == "google_container_node_pool" and self.removes_nodes:
            return "the nodes in the removed zone(s) are deleted; the other zones keep theirs"
        if self.rtype == "google_container_node_pool" and self.destructive:
            if self.accelerator_pool:
                return "accelerator pool: the jobs on it lose their nodes"
            if self.action in ("delete", "replace"):
                return "the pods on this pool lose their nodes"
        if self.recreates_nodes:
            return "every node is drained and recreated (node upgrade)"
        return ""


@dataclass(frozen=True)
class BlockChange:
    """A top-level block other than ``resource``: the backend, a provider configuration, a variable,
    an output, a data source, locals or the provider requirements."""

    kind: str  # backend | provider | required_providers | variable | output | data | locals
    name: str
    action: Action  # create | update | delete
    attributes: tuple[AttributeChange, ...] = ()
    high_risk: bool = False
    explanation: str = ""

    @property
    def label(self) -> str:
        return f"{self.kind} `{self.name}`" if self.name else self.kind


@dataclass(frozen=True)
class SafetyItem:
    """A change that loses data or protection, or that Terraform will refuse: one sentence on the
    consequence and one on what to do instead."""

    kind: str  # deletion-protection-off | namespace-removed | bucket-replaced | cluster-refused | ...
    subject: str  # what it is about, for people
    consequence: str
    instead: str


@dataclass(frozen=True)
class CapacityLine:
    """Accelerators of one kind in one environment, at the pools' smallest and largest size."""

    resource: str  # nvidia.com/gpu | google.com/tpu
    accelerator: str
    chips_min: int
    chips_max: int
    quota_total: int | None = None  # sum of team quotas, when the capacity table exists
    team_quotas: dict[str, int] = field(default_factory=dict)
    over_committed: bool | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.resource, self.accelerator)


@dataclass(frozen=True)
class EnvironmentFacts:
    """What the model says about one environment at one revision."""

    capacity: tuple[CapacityLine, ...] = ()
    quotas_known: bool = False  # gke_accel.model.platform.capacity was importable
    cost: dict[str, Any] | None = None  # EnvironmentCost.to_dict(), when the cost model exists
    notes: tuple[str, ...] = ()  # an optional model that failed
    queues: dict[str, str] = field(default_factory=dict)  # team -> its Kueue queue in words (docs/queues.md)
    production: bool | None = None  # the config's ``production`` (None: a revision without it)
    ladders: dict[str, tuple[str, ...]] = field(default_factory=dict)  # shape -> rungs (docs/capacity.md)


@dataclass(frozen=True)
class WorkloadChange:
    """A workload a team would submit (``workload new`` for a team and accelerator, or an example)
    that schedules on the base and not on the head, or lands on other pools or capacity kinds."""

    team: str  # "" for an example outside any team's namespace
    workload: str  # how to recreate it: "workload new --team serving --accelerator l4 --kind deployment"
    before: str  # "l4-serve (on-demand)"
    after: str  # "does not schedule", or the pools it lands on now
    reason: str  # one line: lint's first error, or what moved
    untouched: bool = False  # the team's own config (spec, queue entry) is the same on both sides


@dataclass(frozen=True)
class PolicyChange:
    stack: str
    check_id: str
    resource: str
    title: str


@dataclass
class StackReview:
    name: str
    status: StackStatus
    changes: list[ResourceChange] = field(default_factory=list)
    before: EnvironmentFacts | None = None
    after: EnvironmentFacts | None = None
    new_findings: list[PolicyChange] = field(default_factory=list)
    resolved_findings: list[PolicyChange] = field(default_factory=list)
    error: str = ""  # why this stack could not be compared (broken base or head config)
    blocks: list[BlockChange] = field(default_factory=list)  # backend, providers, variables, outputs, data
    safety: list[SafetyItem] = field(default_factory=list)
    workloads: list[WorkloadChange] = field(default_factory=list)  # review/workloads.py
    touched_teams: tuple[str, ...] | None = None  # teams whose own config changed (None: not compared)
    replay: Any = None  # replay.ReplaySection: the queue replay of base and head (None: not asked)

    def count(self, action: Action) -> int:
        return sum(1 for c in self.changes if c.action == action)

    @property
    def destructive(self) -> list[ResourceChange]:
        return [c for c in self.changes if c.destructive]

    @property
    def facts_changed(self) -> bool:
        return self.before is not None and self.after is not None and self.before != self.after

    @property
    def has_changes(self) -> bool:
        return (
            bool(self.changes)
            or bool(self.blocks)
            or bool(self.safety)
            or bool(self.workloads)
            or self.facts_changed
            or self.status in ("added", "removed", "error")
        )

    def ordered_changes(self) -> list[ResourceChange]:
        return sorted(self.changes, key=lambda c: (not c.destructive, ACTION_ORDER[c.action], c.address))


@dataclass
class Review:
    base_ref: str
    head_ref: str
    stacks: list[StackReview] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # how the base was built, what was unavailable
    errors: list[str] = field(default_factory=list)  # the head could not be built: exit 1
    policy_checked: bool = False

    @property
    def has_changes(self) -> bool:
        return any(s.has_changes for s in self.stacks)

    @property
    def destructive(self) -> list[tuple[str, ResourceChange]]:
        return [(s.name, c) for s in self.stacks for c in s.destructive]

    @property
    def workloads(self) -> list[tuple[str, WorkloadChange]]:
        return [(s.name, w) for s in self.stacks for w in s.workloads]

    @property
    def safety(self) -> list[tuple[str, SafetyItem]]:
        return [(s.name, item) for s in self.stacks for item in s.safety]

    def exit_code(self, *, fail_on_destroy: bool = False) -> int:
        """0 no changes, 2 changes, 1 error; 3 with ``fail_on_destroy`` when something is destroyed
        or a safety item applies (protection off, data at risk, state or provider target moves)."""
        if self.errors:
            return EXIT_ERROR
        if fail_on_destroy and (self.destructive or self.safety):
            return EXIT_DESTRUCTIVE
        return EXIT_CHANGES if self.has_changes else EXIT_NO_CHANGES
