"""Rules for ``capacity:``: every rung resolves to pools of the ladder's shape, reservation rungs name
the reservation (and its project when it is shared), no pool serves two rungs or classes, nothing GKE
refuses, and the GKE version gates of what the class uses. All mistakes at once, each naming the
field, the bad value and what is valid.

GKE facts (GKE "About custom ComputeClasses", read 2026-12-02): custom ComputeClasses need GKE
1.30.3-gke.1451000 on Standard; consuming reservations through a class 1.31.1-gke.2105000; a
``flexStart`` rule cannot also set ``spot``; queued provisioning nodes come only through a
ProvisioningRequest, which a class rule does not create.
"""

from __future__ import annotations

from collections.abc import Sequence

from gke_accel.model.capacity.ladder import (
    CONSUMPTION_RUNGS,
    POOL_PREFIX,
    RESERVATION_PREFIX,
    LadderPlan,
    RungPlan,
    pools_of_shape,
    reservation_short,
    rung_slug,
    spec_pool_of,
)
from gke_accel.model.capacity.spec import LadderSpec
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.names import DNS_LABEL
from gke_accel.model.core.versions import pin_reaches
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.pools.shape_name import shape_name

COMPUTE_CLASS_MIN_GKE = "1.30.3-gke.1451000"
RESERVATION_RULE_MIN_GKE = "1.31.1-gke.2105000"
RUNG_FORMS = [
    "reservation/<name>",
    "reservation/projects/<project>/reservations/<name>",
    *CONSUMPTION_RUNGS,
    "pool/<name>",
]


def _version_gate(pin: str | None, needed: str, what: str, path: str, issues: IssueCollector) -> None:
    if pin is None or pin == "latest":
        return
    if pin_reaches(pin, needed) is False:
        issues.bad(
            "cluster.min_master_version",
            pin,
            f"is older than GKE {needed}, the first version with {what} (used by {path})",
            f">= {needed}",
        )


def _reservation_pools(
    name: str, candidates: Sequence[NodePoolPlan], project: str, path: str, issues: IssueCollector
) -> list[NodePoolPlan]:
    own = f"projects/{project}/reservations/"
    found: list[NodePoolPlan] = []
    for pool in candidates:
        have = pool.reservation.name if pool.reservation is not None else None
        if have is None or pool.reservation is None or pool.reservation.consume != "SPECIFIC_RESERVATION":
            continue
        if have == name or have == own + name or own + have == name:
            found.append(pool)
        elif "/" not in name and reservation_short(have) == name:
            issues.bad(
                path,
                f"{RESERVATION_PREFIX}{name}",
                f"names a shared reservation without its project: pool {pool.name} consumes {have}",
                f"{RESERVATION_PREFIX}{have}",
            )
            return []
    return found


def _resolve(
    text: str,
    shape: str,
    pools: Sequence[NodePoolPlan],
    declared: Sequence[str],
    project: str,
    path: str,
    issues: IssueCollector,
) -> list[NodePoolPlan] | None:
    """The pools behind one rung, or None (an issue was added)."""
    of_shape = pools_of_shape(shape, pools)
    if "spot" in text and "flex" in text:
        issues.bad(
            path,
            text,
            "combines flex-start and Spot, which GKE refuses in one priority rule",
            "two rungs: flex-start, spot",
        )
        return None
    if text == "queued":
        issues.bad(
            path,
            text,
            "cannot be a rung: queued-provisioning nodes come only through a ProvisioningRequest (Kueue's "
            "admission check), a ComputeClass rule never scales them up",
            "flex-start (nodes for pending pods), or keep the queued pool out of the ladder",
        )
        return None
    if text == "reservation" or text == RESERVATION_PREFIX:
        issues.bad(path, text, "does not name the reservation", "reservation/<name> (a pool consuming it exists)")
        return None
    if text.startswith(RESERVATION_PREFIX):
        name = text.removeprefix(RESERVATION_PREFIX)
        before = len(issues.issues)
        found = _reservation_pools(name, of_shape, project, path, issues)
        if len(issues.issues) > before:
            return None
        if not found:
            have = sorted(
                f"{RESERVATION_PREFIX}{p.reservation.name}"
                for p in of_shape
                if p.reservation is not None and p.reservation.name
            )
            issues.bad(
                path, text, f"is consumed by no {shape} pool", have or "a pool with consumption type reservation"
            )
            return None
        return found
    if text.startswith(POOL_PREFIX):
        name = text.removeprefix(POOL_PREFIX)
        if name not in declared:
            issues.bad(path, text, "names no pool of this environment", [f"{POOL_PREFIX}{n}" for n in declared])
            return None
        mine = [p for p in pools if spec_pool_of(p.name, declared) == name]
        wrong = sorted({shape_name(p) for p in mine if shape_name(p) != shape})
        if wrong:
            issues.bad(
                path,
                text,
                f"is a {', '.join(wrong)} pool, not {shape}: the shapes of a ladder agree",
                sorted(f"{POOL_PREFIX}{n}" for n in {spec_pool_of(p.name, declared) for p in of_shape} if n),
            )
            return None
        return mine
    if text in CONSUMPTION_RUNGS:
        found = [p for p in of_shape if p.consumption == text]
        if not found:
            offered = sorted({p.consumption for p in of_shape})
            issues.bad(path, text, f"is offered by no {shape} pool (they offer {', '.join(offered)})", RUNG_FORMS)
            return None
        return found
    issues.bad(path, text, "is not a rung", RUNG_FORMS)
    return None


def plan_ladders(
    capacity: dict[str, LadderSpec],
    pools: Sequence[NodePoolPlan],
    declared: Sequence[str],
    *,
    project: str,
    min_master_version: str | None,
    issues: IssueCollector,
) -> tuple[LadderPlan, ...]:
    """The ladders of ``capacity:`` over the environment's derived ``pools`` (``declared``: the pool
    names of the config); every mistake goes to ``issues``."""
    shapes = sorted({shape_name(p) for p in pools if p.kind != "system"})
    owner: dict[str, str] = {}  # derived pool -> the rung path that took it
    ladders: list[LadderPlan] = []
    if capacity:
        _version_gate(min_master_version, COMPUTE_CLASS_MIN_GKE, "custom ComputeClasses", "capacity", issues)
    for shape, ladder in capacity.items():
        base = f"capacity.{shape}"
        if shape not in shapes:
            issues.bad(base, shape, "is not the shape of any pool of this environment", shapes or "add a pool first")
            continue
        if not DNS_LABEL.fullmatch(shape):
            issues.bad(base, shape, "cannot name a ComputeClass", "a DNS label")
            continue
        if not ladder.rungs:
            issues.bad(
                f"{base}.rungs", [], "is empty", "at least one rung, most preferred first: " + ", ".join(RUNG_FORMS)
            )
            continue
        rungs: list[RungPlan] = []
        slugs: set[str] = set()
        for i, text in enumerate(ladder.rungs):
            path = f"{base}.rungs[{i}]"
            slug = rung_slug(text)
            if slug in slugs:
                issues.bad(path, text, "appears twice in the ladder", "each rung once")
                continue
            found = _resolve(text, shape, pools, declared, project, path, issues)
            if found is None:
                continue
            if len(f"{shape}-{slug}") > 63:
                issues.bad(
                    path, text, "makes a flavor name longer than 63 characters", "a shorter reservation or pool name"
                )
                continue
            if text.startswith(RESERVATION_PREFIX):
                _version_gate(
                    min_master_version, RESERVATION_RULE_MIN_GKE, "reservations in ComputeClasses", path, issues
                )
            taken = [p.name for p in found if p.name in owner]
            if taken:
                issues.bad(
                    path,
                    text,
                    f"takes pool(s) {', '.join(taken)} already behind {owner[taken[0]]}: GKE associates a node "
                    "pool with one ComputeClass, and a flavor with one rung",
                    "each pool behind one rung",
                )
                continue
            for p in found:
                owner[p.name] = path
            slugs.add(slug)
            rungs.append(RungPlan(text, slug, tuple(p.name for p in found), found[0].consumption))
        left = [p.name for p in pools_of_shape(shape, pools) if p.name not in owner]
        if left:
            issues.warn(
                base,
                f"pools {', '.join(left)} have shape {shape} but serve no rung: workloads of the class never use them",
            )
        if ladder.optimize_rule_priority and any(r.consumption == "flex-start" for r in rungs):
            issues.warn(
                f"{base}.optimize_rule_priority",
                "active migration evicts pods from flex-start and Spot nodes as soon as a better rung has room",
            )
        ladders.append(LadderPlan(shape, tuple(rungs), ladder.when_unsatisfiable, ladder.optimize_rule_priority))
    return tuple(ladders)
