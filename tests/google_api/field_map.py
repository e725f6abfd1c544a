"""The hand-written, reviewed map from the Terraform attributes of ``google_container_cluster`` and
``google_container_node_pool`` that carry an enum-like value to the GKE API field the google provider
sends it as. Only the mapping is ours; the valid values, their deprecation and the provider's
attributes come from Google's documents (``google_values.py``).

A synthesized enum-like string (``UPPER_CASE``) at a path missing here fails the check: a new field
must be mapped (or explained) before it ships. Paths are dotted Terraform block paths without list
indexes, after the resource type.

Kinds of entries:
- ``Api(schema, property)``: the value must be in the discovery document's ``enum`` of that property
  (or of its ``items``), not marked in ``enumDeprecated``, and the property must not be ``deprecated``
  unless the value is one of ``deprecated_field_values`` (a reviewed exception, with its reason).
- ``ProviderOnly(reason)``: a Terraform-only choice the provider translates (no API enum); the value
  must be named in the attribute's description in the provider schema.
- ``Documented(values, source)``: an API string without an enum; the values Google's page lists.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Api:
    schema: str
    prop: str
    deprecated_field_values: frozenset[str] = frozenset()
    why: str = ""


@dataclass(frozen=True)
class ProviderOnly:
    reason: str


@dataclass(frozen=True)
class Documented:
    values: frozenset[str]
    source: str


Entry = Api | ProviderOnly | Documented

CLUSTER = "google_container_cluster"
POOL = "google_container_node_pool"

# The provider sends SecurityPostureConfig.vulnerabilityMode; the API deprecates the field because
# both scanning tiers are gone. VULNERABILITY_DISABLED is its one current value and says so explicitly
# (an existing cluster created with VULNERABILITY_BASIC is turned off, not left as it was).
_VULNERABILITY_OFF = frozenset({"VULNERABILITY_DISABLED"})

FIELD_MAP: dict[tuple[str, str], Entry] = {
    (CLUSTER, "binary_authorization.evaluation_mode"): Api("BinaryAuthorization", "evaluationMode"),
    (CLUSTER, "cluster_autoscaling.autoscaling_profile"): Api("ClusterAutoscaling", "autoscalingProfile"),
    (CLUSTER, "database_encryption.state"): Api("DatabaseEncryption", "state"),
    (CLUSTER, "datapath_provider"): Api("NetworkConfig", "datapathProvider"),
    (CLUSTER, "logging_config.enable_components"): Api("LoggingComponentConfig", "enableComponents"),
    (CLUSTER, "monitoring_config.enable_components"): Api("MonitoringComponentConfig", "enableComponents"),
    (CLUSTER, "maintenance_policy.maintenance_exclusion.exclusion_options.scope"): Api(
        "MaintenanceExclusionOptions", "scope"
    ),
    (CLUSTER, "maintenance_policy.maintenance_exclusion.exclusion_options.end_time_behavior"): Api(
        "MaintenanceExclusionOptions", "endTimeBehavior"
    ),
    (CLUSTER, "release_channel.channel"): Api("ReleaseChannel", "channel"),
    (CLUSTER, "security_posture_config.mode"): Api("SecurityPostureConfig", "mode"),
    (CLUSTER, "security_posture_config.vulnerability_mode"): Api(
        "SecurityPostureConfig",
        "vulnerabilityMode",
        deprecated_field_values=_VULNERABILITY_OFF,
        why="the field is deprecated because scanning is retired; DISABLED turns it off explicitly",
    ),
    (CLUSTER, "networking_mode"): ProviderOnly(
        "VPC_NATIVE/ROUTES is the provider's name for IPAllocationPolicy.useIpAliases (a boolean in the API)"
    ),
    (POOL, "autoscaling.location_policy"): Api("NodePoolAutoscaling", "locationPolicy"),
    (POOL, "node_config.guest_accelerator.gpu_driver_installation_config.gpu_driver_version"): Api(
        "GPUDriverInstallationConfig", "gpuDriverVersion"
    ),
    (POOL, "node_config.guest_accelerator.gpu_sharing_config.gpu_sharing_strategy"): Api(
        "GPUSharingConfig", "gpuSharingStrategy"
    ),
    (POOL, "node_config.image_type"): Documented(
        # NodeConfig.imageType is a string; its description sends the reader to this page, which lists
        # the Linux node images: Container-Optimized OS with containerd and Ubuntu with containerd.
        frozenset({"COS_CONTAINERD", "UBUNTU_CONTAINERD"}),
        "https://cloud.google.com/kubernetes-engine/docs/concepts/node-images",
    ),
    (POOL, "node_config.reservation_affinity.consume_reservation_type"): Api(
        "ReservationAffinity", "consumeReservationType"
    ),
    (POOL, "node_config.taint.effect"): Api("NodeTaint", "effect"),
    (POOL, "node_config.workload_metadata_config.mode"): Api("WorkloadMetadataConfig", "mode"),
    (POOL, "placement_policy.type"): Api("PlacementPolicy", "type"),
    (POOL, "upgrade_settings.strategy"): Api("UpgradeSettings", "strategy"),
}
