"""synth's lifecycle section: each pool's role (and where it came from) and how GKE may upgrade it."""

from __future__ import annotations

from gke_accel.model import EnvironmentPlan
from gke_accel.tables import MAX_WIDTH, render_table


def synth_section(plan: EnvironmentPlan) -> str:
    life = plan.lifecycle
    if life is None or not life.pools:
        return ""
    c = plan.spec.cluster
    m = c.maintenance
    held = [e.name for e in m.exclusions] + ([life.exclusion.name] if life.exclusion else [])
    b = m.disruption_budget
    budget = "GKE default (minor 30 days, patch 24 hours)"
    if b is not None and (b.minor_interval_days is not None or b.patch_interval_hours is not None):
        minor = f"{b.minor_interval_days} days" if b.minor_interval_days is not None else "30 days (default)"
        patch = f"{b.patch_interval_hours} hours" if b.patch_interval_hours is not None else "24 hours (default)"
        budget = f"minor {minor}, patch {patch}"
    title = (
        f"  lifecycle (posture {life.posture}, channel {c.release_channel}): exclusions "
        f"{', '.join(held) or 'none'}; disruption budget {budget}"
    )
    if life.exclusion is not None:
        title += (
            f"\n    {life.exclusion.name}: {life.exclusion.scope} from {life.exclusion.start_time} until end of "
            "support (holds every pool's node upgrades; control-plane patches continue)"
        )
    rows = []
    for name, p in life.pools.items():
        source = {"config": "set", "teams": "from teams", "default": "no role"}[p.role_source]
        rows.append([name, f"{p.role} ({source})", p.describe(), "on" if _repair(plan, name) else "off (GKE requires)"])
    return render_table(["pool", "role", "upgrades", "auto-repair"], rows, title, max_width=MAX_WIDTH)


def _repair(plan: EnvironmentPlan, name: str) -> bool:
    return all(p.auto_repair for p in plan.pools if p.name == name or p.name.startswith(f"{name}-s"))
