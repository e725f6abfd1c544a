"""GkeCluster: a hardened GKE Standard cluster for accelerator workloads.

Secure by default: private nodes, master authorized networks, Workload Identity, Dataplane V2,
shielded nodes, Binary Authorization, a release channel with a maintenance window, a dedicated
least-privilege node service account, deletion protection. The default node pool is removed and
a small tainted system pool added; accelerator pools are added with TpuSlicePool / GpuNodePool.
"""

from __future__ import annotations

from typing import Any

from gke_accel.cdk._framework import Construct
from gke_accel.cdk._providers import ContainerCluster, cluster_structs
from gke_accel.cdk.cluster_security import ImagePolicy, SecretsKey, prevent_destroy
from gke_accel.cdk.connection import ClusterConnection
from gke_accel.cdk.lifecycle import apply_cluster_lifecycle, exclusion_blocks
from gke_accel.cdk.network import ClusterNetwork
from gke_accel.cdk.node_pool import NODE_OAUTH_SCOPES, AcceleratorNodePool
from gke_accel.cdk.node_service_account import NodeServiceAccount
from gke_accel.cdk.policy import skip_check
from gke_accel.model.cluster.plan import ClusterPlan, plan_cluster
from gke_accel.model.cluster.spec import ClusterSpec
from gke_accel.model.core.errors import IssueCollector
from gke_accel.model.core.names import check_project_id, check_region, claim_pool_name
from gke_accel.model.core.props import validated_props
from gke_accel.model.environment.plan import SYSTEM_POOL_NAME
from gke_accel.model.lifecycle.plan import DerivedExclusion
from gke_accel.model.pools.node_pool import NodePoolPlan
from gke_accel.model.security.images import allowed_image_patterns
from gke_accel.model.storage.restart import pool_restart
from gke_accel.model.storage.spec import RestartSpec


class GkeCluster(Construct):
    """Props: ``project``, ``region``, ``spec`` (a ClusterSpec), ``labels`` (GCP resource labels),
    ``protect`` (``lifecycle.prevent_destroy`` on the cluster and its Secrets key: production),
    ``plan`` (the ``ClusterPlan`` an environment root already made of ``spec``: rendered as it is, not
    planned again; default: planned here, with the same checks and messages as a config file).

    Raises ConfigError at construction, listing every mistake in ``spec``.

    ``connection`` (a ClusterConnection) is how every in-cluster provider reaches the API server:
    ``connection.kubernetes_provider(scope, id)`` / ``connection.helm_provider(scope, id)``.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        project: str,
        region: str,
        spec: ClusterSpec,
        labels: dict[str, str] | None = None,
        protect: bool = False,
        project_number: str | None = None,
        training_exclusion: DerivedExclusion | None = None,
        restart: RestartSpec | None = None,
        plan: ClusterPlan | None = None,
    ) -> None:
        super().__init__(scope, id)
        if plan is None:
            # The same checks and messages as a config file: props re-parsed, project and region checked.
            spec = validated_props(ClusterSpec, spec, "cluster")
            issues = IssueCollector()
            check_project_id(project, "project", issues)
            check_region(region, "region", issues)
            plan = plan_cluster(spec, region=region, issues=issues)
            issues.raise_if_any()
        self.plan: ClusterPlan = plan
        self._pool_names: dict[str, str] = {SYSTEM_POOL_NAME: "cluster.system_pool"}
        self.project = project
        self.region = region
        self.restart = restart or RestartSpec()  # image streaming / preloads of its accelerator pools
        self.labels = {**(labels or {}), **spec.labels}
        s = cluster_structs
        network = ClusterNetwork(self, "network", project=project, region=region, name=spec.name, spec=spec.network)
        nodes_sa = NodeServiceAccount(self, "node-sa", project=project, account_id=self.plan.node_service_account_id)
        self.node_service_account: str = nodes_sa.email
        m = spec.maintenance
        nap = spec.auto_provisioning
        autoscaling = None
        if nap.enabled:
            limits = [
                s.ContainerClusterClusterAutoscalingResourceLimits(resource_type="cpu", minimum=0, maximum=nap.max_cpu),
                s.ContainerClusterClusterAutoscalingResourceLimits(
                    resource_type="memory", minimum=0, maximum=nap.max_memory_gb
                ),
            ]
            limits += [
                s.ContainerClusterClusterAutoscalingResourceLimits(resource_type=kind, minimum=0, maximum=n)
                for kind, n in self.plan.nap_limits.items()
            ]
            autoscaling = s.ContainerClusterClusterAutoscaling(
                enabled=True,
                resource_limits=limits,
                autoscaling_profile="OPTIMIZE_UTILIZATION",
                auto_provisioning_locations=list(self.plan.node_zones) or None,
                auto_provisioning_defaults=s.ContainerClusterClusterAutoscalingAutoProvisioningDefaults(
                    service_account=self.node_service_account,
                    oauth_scopes=NODE_OAUTH_SCOPES,
                    management=s.ContainerClusterClusterAutoscalingAutoProvisioningDefaultsManagement(
                        auto_repair=True, auto_upgrade=True
                    ),
                    shielded_instance_config=s.ContainerClusterClusterAutoscalingAutoProvisioningDefaultsShieldedInstanceConfig(
                        enable_secure_boot=True, enable_integrity_monitoring=True
                    ),
                ),
            )
        binauthz_mode = spec.binary_authorization.mode or "audit"
        if binauthz_mode != "disabled":
            patterns = allowed_image_patterns(spec.binary_authorization, project=project, region=region)
            self.image_policy = ImagePolicy(
                self, "image-policy", project=project, mode=binauthz_mode, patterns=patterns
            )
        se = spec.secrets_encryption
        key_name, key_grants = (se.key if se.mode == "key" else None), []
        if se.mode == "create":
            key = SecretsKey(
                self,
                "secrets-key",
                project=project,
                region=region,
                cluster_name=spec.name,
                rotation_days=se.rotation_days,
                protect=protect,
                labels=self.labels,
                project_number=project_number,
            )
            key_name, key_grants = key.key_name, [key.grant]
        self.resource = ContainerCluster(
            self,
            "cluster",
            project=project,
            name=spec.name,
            location=spec.location,
            node_locations=list(spec.node_zones) or None,
            deletion_protection=spec.deletion_protection,
            resource_labels=self.labels,
            network=network.network,
            subnetwork=network.subnetwork,
            networking_mode="VPC_NATIVE",
            ip_allocation_policy=s.ContainerClusterIpAllocationPolicy(
                cluster_secondary_range_name=network.pods_range_name,
                services_secondary_range_name=network.services_range_name,
            ),
            datapath_provider="ADVANCED_DATAPATH",
            remove_default_node_pool=True,
            initial_node_count=1,
            min_master_version=spec.min_master_version,
            release_channel=s.ContainerClusterReleaseChannel(channel=spec.release_channel),
            maintenance_policy=s.ContainerClusterMaintenancePolicy(
                recurring_window=s.ContainerClusterMaintenancePolicyRecurringWindow(
                    start_time=m.start_time, end_time=m.end_time, recurrence=m.recurrence
                ),
                maintenance_exclusion=(
                    [
                        s.ContainerClusterMaintenancePolicyMaintenanceExclusion(
                            exclusion_name=e.name,
                            start_time=e.start_time,
                            end_time=e.end_time,
                            exclusion_options=s.ContainerClusterMaintenancePolicyMaintenanceExclusionExclusionOptions(
                                scope=e.scope
                            ),
                        )
                        for e in m.exclusions
                    ]
                    or None
                )
                if exclusion_blocks(m, training_exclusion) is None  # else written whole by cdk/lifecycle.py
                else None,
            ),
            private_cluster_config=s.ContainerClusterPrivateClusterConfig(
                enable_private_nodes=True,
                enable_private_endpoint=spec.private_endpoint,
                master_ipv4_cidr_block=spec.network.master_cidr,
                master_global_access_config=s.ContainerClusterPrivateClusterConfigMasterGlobalAccessConfig(
                    enabled=True
                ),
            ),
            master_authorized_networks_config=s.ContainerClusterMasterAuthorizedNetworksConfig(
                cidr_blocks=[
                    s.ContainerClusterMasterAuthorizedNetworksConfigCidrBlocks(cidr_block=n.cidr, display_name=n.name)
                    for n in spec.master_authorized_networks
                ],
            ),
            # The DNS-based endpoint (IAM-authorized) is how Terraform reaches the cluster unless
            # control_plane_access is "ip": model/cluster/access.py.
            control_plane_endpoints_config=s.ContainerClusterControlPlaneEndpointsConfig(
                dns_endpoint_config=s.ContainerClusterControlPlaneEndpointsConfigDnsEndpointConfig(
                    allow_external_traffic=spec.control_plane_access == "dns"
                )
            ),
            master_auth=s.ContainerClusterMasterAuth(
                client_certificate_config=s.ContainerClusterMasterAuthClientCertificateConfig(
                    issue_client_certificate=False
                )
            ),
            workload_identity_config=s.ContainerClusterWorkloadIdentityConfig(workload_pool=f"{project}.svc.id.goog"),
            enable_shielded_nodes=True,
            enable_intranode_visibility=True,
            enable_legacy_abac=False,
            binary_authorization=s.ContainerClusterBinaryAuthorization(
                evaluation_mode="DISABLED" if binauthz_mode == "disabled" else "PROJECT_SINGLETON_POLICY_ENFORCE"
            ),
            database_encryption=s.ContainerClusterDatabaseEncryption(state="ENCRYPTED", key_name=key_name)
            if key_name
            else None,
            depends_on=key_grants or None,
            authenticator_groups_config=None
            if spec.rbac_security_group is None
            else s.ContainerClusterAuthenticatorGroupsConfig(security_group=spec.rbac_security_group),
            # Workload vulnerability scanning off: GKE retired both tiers (docs/security.md, code review R2).
            security_posture_config=s.ContainerClusterSecurityPostureConfig(
                mode=self.plan.security_posture_mode, vulnerability_mode="VULNERABILITY_DISABLED"
            ),
            addons_config=s.ContainerClusterAddonsConfig(
                gcs_fuse_csi_driver_config=s.ContainerClusterAddonsConfigGcsFuseCsiDriverConfig(enabled=True),
                http_load_balancing=s.ContainerClusterAddonsConfigHttpLoadBalancing(disabled=False),
                horizontal_pod_autoscaling=s.ContainerClusterAddonsConfigHorizontalPodAutoscaling(disabled=False),
            ),
            logging_config=s.ContainerClusterLoggingConfig(enable_components=["SYSTEM_COMPONENTS", "WORKLOADS"]),
            monitoring_config=s.ContainerClusterMonitoringConfig(
                enable_components=["SYSTEM_COMPONENTS", "DCGM"],
                managed_prometheus=s.ContainerClusterMonitoringConfigManagedPrometheus(enabled=True),
            ),
            cluster_autoscaling=autoscaling,
        )
        apply_cluster_lifecycle(self.resource, m, training_exclusion)  # docs/lifecycle.md
        skip_check(self.resource, "CKV_GCP_12", "Dataplane V2 (ADVANCED_DATAPATH) enforces NetworkPolicy natively")
        skip_check(
            self.resource,
            "CKV_GCP_69",
            "the default node pool is removed; every node pool sets workload_metadata_config GKE_METADATA",
        )
        if protect:
            prevent_destroy([self.resource])
        if spec.deletion_protection_reason:
            # Plan review and auditors read why deletion protection is off next to the resource.
            self.resource.add_override("//.deletion_protection_reason", spec.deletion_protection_reason)
        if spec.rbac_security_group is None:
            skip_check(self.resource, "CKV_GCP_65", "no rbac_security_group configured for Google Groups in RBAC")
        self.name: str = self.resource.name
        self.location: str = spec.location
        # The one connection every in-cluster provider (kubernetes, helm) takes: cdk/connection.py.
        self.connection = ClusterConnection.of_cluster(self.resource, spec.control_plane_access)
        self.system_pool = self.node_pool(self, "system-pool", self.plan.system_pool)

    def ready_for_controllers(self) -> list[Any]:
        """What an in-cluster release waits for: the cluster and the system pool its controllers are
        pinned to (model/cluster/controllers.py); an atomic Helm release created while the pool is
        still being made would time out and roll back (code review R11)."""
        return [self.resource, self.system_pool.resource]

    def claim_pool_name(self, name: str, path: str, issues: IssueCollector) -> None:
        """Pool names are unique per cluster, and ``system`` is taken (as in a config file)."""
        claim_pool_name(self._pool_names, name, path, issues)

    def node_pool(self, scope: Construct, id: str, plan: NodePoolPlan) -> AcceleratorNodePool:
        """Render a validated node pool plan as a pool of this cluster, under ``scope``."""
        return AcceleratorNodePool(
            scope,
            id,
            plan=plan,
            project=self.project,
            region=self.region,
            cluster=self.resource.id,
            location=self.location,
            service_account=self.node_service_account,
            resource_labels=self.labels,
            restart=pool_restart(self.restart, plan),
        )
