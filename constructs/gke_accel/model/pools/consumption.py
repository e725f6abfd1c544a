"""Consumption options and their exclusions (catalog-facts section 7, rules C5-C12)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from gke_accel.model.core.errors import ConfigIssue, IssueCollector
from gke_accel.model.pools.node_pool import Reservation
from gke_accel.model.pools.spec import ConsumptionSpec

MAX_FLEX_RUN_SECONDS = 7 * 24 * 3600  # flex-start VMs run for up to 7 days
_NAME = r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"
RESERVATION = re.compile(rf"{_NAME}|projects/[a-z][-a-z0-9]{{4,28}}[a-z0-9]/reservations/{_NAME}")


@dataclass(frozen=True)
class ConsumptionPlan:
    spot: bool
    flex_start: bool
    queued: bool
    reservation: Reservation | None
    auto_repair: bool
    location_policy: Literal["BALANCED", "ANY"]
    max_run_duration_seconds: int | None


def plan_consumption(spec: ConsumptionSpec, path: str, issues: IssueCollector) -> ConsumptionPlan:
    kind = spec.type
    if kind != "reservation":
        if spec.affinity is not None:
            issues.bad(
                f"{path}.affinity", spec.affinity, f"is only used with type 'reservation', not {kind!r}", "leave it out"
            )
        if spec.reservation is not None:
            why = (
                "Spot VMs cannot consume reservations" if kind == "spot" else f"type {kind!r} cannot use a reservation"
            )
            issues.bad(f"{path}.reservation", spec.reservation, f"is not allowed: {why}", "leave it out")
    if spec.max_run_duration_seconds is not None:
        if kind not in ("flex-start", "queued"):
            issues.bad(
                f"{path}.max_run_duration_seconds",
                spec.max_run_duration_seconds,
                f"is only used with type 'flex-start' or 'queued', not {kind!r}",
            )
        elif not 0 < spec.max_run_duration_seconds <= MAX_FLEX_RUN_SECONDS:
            issues.bad(
                f"{path}.max_run_duration_seconds",
                spec.max_run_duration_seconds,
                "is out of range",
                f"1 to {MAX_FLEX_RUN_SECONDS} (7 days)",
            )

    reservation: Reservation | None = None
    if kind == "reservation":
        affinity = spec.affinity or ("specific" if spec.reservation else "any")
        if affinity == "specific":
            if not spec.reservation:
                issues.add(
                    ConfigIssue(
                        f"{path}.reservation",
                        "is required with affinity 'specific' (exactly one reservation name)",
                        "a reservation name or projects/<p>/reservations/<name>",
                    )
                )
            elif not RESERVATION.fullmatch(spec.reservation):
                issues.bad(
                    f"{path}.reservation",
                    spec.reservation,
                    "is not a reservation name",
                    "a Compute Engine name, or projects/<project>/reservations/<name>",
                )
            reservation = Reservation("SPECIFIC_RESERVATION", spec.reservation)
        else:
            if spec.reservation:
                issues.bad(
                    f"{path}.reservation", spec.reservation, f"is only used with affinity 'specific', not {affinity!r}"
                )
            reservation = Reservation("ANY_RESERVATION" if affinity == "any" else "NO_RESERVATION")
    elif kind in ("spot", "queued", "flex-start"):
        reservation = Reservation("NO_RESERVATION")

    elastic = kind in ("spot", "queued", "flex-start")
    return ConsumptionPlan(
        spot=kind == "spot",
        # GKE "Run a large-scale workload with flex-start with queued provisioning" (how-to/provisioningrequest):
        # "you have to add the --flex-start and --enable-queued-provisioning flags when you create the node pool"
        flex_start=kind in ("flex-start", "queued"),
        queued=kind == "queued",
        reservation=reservation,
        auto_repair=kind not in ("queued", "flex-start"),
        location_policy="ANY" if elastic else "BALANCED",
        max_run_duration_seconds=spec.max_run_duration_seconds,
    )
