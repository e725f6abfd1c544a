"""GKE's documented limits and defaults for maintenance, upgrades and disruption (one place; cited).

- Exclusion scopes (container v1 ``MaintenanceExclusionOptions.Scope``): NO_UPGRADES blocks every
  upgrade; NO_MINOR_UPGRADES allows patches; NO_MINOR_OR_NODE_UPGRADES allows control-plane patches only.
- "Maintenance windows and exclusions" (GKE docs): a NO_UPGRADES exclusion is short (30 days in the
  page as long documented; 90 days since the 2026 change that also added per-node-pool exclusions, per
  two secondary write-ups, not GKE's own page: gke-accel rejects only what exceeds 90), at most 3 of
  them per cluster; the other two scopes may last until the version's end of support
  (``end_time_behavior: UNTIL_END_OF_SUPPORT``, then no ``end_time``).
- google provider 8.0.0 schema (``terraform providers schema``): ``maintenance_exclusion`` is a set of at
  most 20 blocks; ``disruption_budget`` has ``minor_version_disruption_interval`` and
  ``patch_version_disruption_interval`` (durations such as ``"2592000s"``).
- "Control the frequency of disruption from auto-upgrades" (cluster disruption budget, GKE docs): by
  default GKE waits 24 hours between patch upgrades and 30 days between minor upgrades.
- "Configure node upgrade strategies": surge (max_surge/max_unavailable, one of them > 0) or blue-green;
  flex-start nodes get short-lived upgrades chosen by GKE; autoscaled blue-green needs
  1.34.0-gke.2201000. COMPACT placement cannot use blue-green (catalog-facts.md C3, cluster-toolkit).
"""

from __future__ import annotations

NO_UPGRADES_MAX_DAYS = 90
NO_UPGRADES_MAX_COUNT = 3
PROVIDER_MAX_EXCLUSIONS = 20
DEFAULT_PATCH_INTERVAL_HOURS = 24
DEFAULT_MINOR_INTERVAL_DAYS = 30
# A minor version's standard support (GKE versioning and support): about 14 months; a scoped
# exclusion without UNTIL_END_OF_SUPPORT may not outlast it. gke-accel checks 14 months = 426 days.
STANDARD_SUPPORT_DAYS = 426
EXTENDED_SUPPORT_DAYS = 730  # Extended channel: up to 24 months on one minor (GKE extended support)
