"""AcceleratorNodePool: renders one validated ``NodePoolPlan`` as a ``google_container_node_pool``
(plus a workload policy for tpu7x multi-host slices). It decides nothing about hardware; the plan
already holds every derived value."""

from __future__ import annotations

from typing import Any

from gke_accel.cdk._framework import Construct, TerraformResource
from gke_accel.cdk._providers import ComputeResourcePolicy, ContainerNodePool, pool_structs
from gke_accel.cdk.lifecycle import apply_host_maintenance, role_labels, upgrade_settings
from gke_accel.cdk.policy import skip_check
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.storage.restart import PRELOAD_MODE, PoolRestart

NODE_OAUTH_SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]


def secure_node_config_args(
    *, service_account: str, labels: dict[str, str], resource_labels: dict[str, str]
) -> dict[str, Any]:
    """Node settings every pool shares: dedicated service account, Workload Identity metadata
    server, shielded VM with secure boot, legacy metadata endpoints off."""
    return {
        "service_account": service_account,
        "oauth_scopes": NODE_OAUTH_SCOPES,
        "labels": labels,
        "resource_labels": resource_labels,
        "metadata": {"disable-legacy-endpoints": "true"},
        "workload_metadata_config": pool_structs.ContainerNodePoolNodeConfigWorkloadMetadataConfig(mode="GKE_METADATA"),
        "shielded_instance_config": pool_structs.ContainerNodePoolNodeConfigShieldedInstanceConfig(
            enable_secure_boot=True, enable_integrity_monitoring=True
        ),
    }


class AcceleratorNodePool(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        plan: NodePoolPlan,
        project: str,
        region: str,
        cluster: str,
        location: str,
        service_account: str,
        resource_labels: dict[str, str],
        restart: PoolRestart | None = None,
    ) -> None:
        super().__init__(scope, id)
        self.plan = plan
        s = pool_structs
        guest = None
        if plan.guest_accelerator is not None:
            g = plan.guest_accelerator
            guest = [
                s.ContainerNodePoolNodeConfigGuestAccelerator(
                    type=g.type,
                    count=g.count,
                    gpu_partition_size=g.partition_size,
                    gpu_driver_installation_config=s.ContainerNodePoolNodeConfigGuestAcceleratorGpuDriverInstallationConfig(
                        gpu_driver_version=g.driver_version
                    ),
                    gpu_sharing_config=None
                    if g.sharing is None
                    else s.ContainerNodePoolNodeConfigGuestAcceleratorGpuSharingConfig(
                        gpu_sharing_strategy=g.sharing.strategy, max_shared_clients_per_gpu=g.sharing.max_shared_clients
                    ),
                )
            ]
        reservation = None
        if plan.reservation is not None:
            r = plan.reservation
            reservation = s.ContainerNodePoolNodeConfigReservationAffinity(
                consume_reservation_type=r.consume,
                key="compute.googleapis.com/reservation-name" if r.name else None,
                values=[r.name] if r.name else None,
            )
        node_config = s.ContainerNodePoolNodeConfig(
            machine_type=plan.machine_type,
            image_type=plan.image_type,
            disk_size_gb=plan.disk_size_gb,
            disk_type=plan.disk_type,
            spot=plan.spot or None,
            flex_start=plan.flex_start or None,
            max_run_duration=f"{plan.max_run_duration_seconds}s" if plan.max_run_duration_seconds else None,
            guest_accelerator=guest,
            reservation_affinity=reservation,
            taint=[s.ContainerNodePoolNodeConfigTaint(key=t.key, value=t.value, effect=t.effect) for t in plan.taints],
            # restart fast (model/storage/restart.py): stream the image, or read it from a preloaded disk
            gcfs_config=s.ContainerNodePoolNodeConfigGcfsConfig(enabled=True)
            if restart is not None and restart.image_streaming
            else None,
            secondary_boot_disks=[
                s.ContainerNodePoolNodeConfigSecondaryBootDisks(
                    disk_image=restart.preload_disk_image, mode=PRELOAD_MODE
                )
            ]
            if restart is not None and restart.preload_disk_image
            else None,
            **secure_node_config_args(
                service_account=service_account, labels=role_labels(plan), resource_labels=resource_labels
            ),
        )
        placement = None
        if plan.placement is not None:
            p = plan.placement
            policy_name = None
            if p.workload_policy:
                policy = ComputeResourcePolicy(
                    self,
                    "workload-policy",
                    project=project,
                    region=region,
                    name=f"{plan.name}-wp",
                    workload_policy={"type": "HIGH_THROUGHPUT", "accelerator_topology": p.tpu_topology},
                )
                policy_name = policy.name
            # tpu7x takes a workload policy instead of COMPACT; the schema still requires `type`,
            # so it is sent empty (GKE rejects COMPACT there).
            placement = s.ContainerNodePoolPlacementPolicy(
                type="COMPACT" if p.compact else "", policy_name=policy_name, tpu_topology=p.tpu_topology
            )
        autoscaling = None
        if plan.autoscaling is not None:
            a = plan.autoscaling
            if a.per_zone:
                autoscaling = s.ContainerNodePoolAutoscaling(
                    min_node_count=a.min_nodes, max_node_count=a.max_nodes, location_policy=a.location_policy
                )
            else:
                autoscaling = s.ContainerNodePoolAutoscaling(
                    total_min_node_count=a.min_nodes,
                    total_max_node_count=a.max_nodes,
                    location_policy=a.location_policy,
                )
        self.resource = ContainerNodePool(
            self,
            "pool",
            project=project,
            cluster=cluster,
            location=location,
            name=plan.name,
            node_locations=list(plan.zones) or None,
            node_count=plan.node_count,
            initial_node_count=plan.initial_node_count,
            autoscaling=autoscaling,
            management=s.ContainerNodePoolManagement(auto_repair=plan.auto_repair, auto_upgrade=True),
            node_config=node_config,
            placement_policy=placement,
            queued_provisioning=s.ContainerNodePoolQueuedProvisioning(enabled=True) if plan.queued else None,
            upgrade_settings=upgrade_settings(plan.lifecycle)
            if plan.lifecycle is not None
            else s.ContainerNodePoolUpgradeSettings(strategy="SURGE", max_surge=1, max_unavailable=0)
            if plan.kind == "gpu"
            else None,
        )
        apply_host_maintenance(self.resource, plan.lifecycle)
        shape = plan.slice_shape()
        if shape is not None:
            # A change of shape replaces the pool (same name, so an unchanged pool keeps it): a
            # terraform_data holding the shape, and replace_triggered_by on the pool. Written as an
            # override because cdktf renders replaceTriggeredBy as "${...}", which Terraform rejects.
            self.shape = TerraformResource(self, "slice-shape", terraform_resource_type="terraform_data")
            self.shape.add_override("triggers_replace", shape)
            self.resource.add_override(
                "lifecycle.replace_triggered_by", [f"terraform_data.{self.shape.friendly_unique_id}"]
            )
        if not plan.auto_repair:
            skip_check(
                self.resource, "CKV_GCP_9", "flex-start and queued-provisioning pools must run without auto-repair"
            )
        if not plan.image_type.startswith("COS"):
            skip_check(self.resource, "CKV_GCP_22", f"{plan.image_type} chosen in config for this pool's driver needs")
