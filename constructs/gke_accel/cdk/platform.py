"""InClusterPlatform: priority classes, teams (namespace, quotas, limits, identity, access, network
policy), the NVIDIA driver installer DaemonSet(s) and checkpoint storage, in the environment stack.

Kubernetes objects come from ``model.k8s_manifests`` (the same manifests ``gke-accel manifests``
writes) and are declared as typed ``kubernetes_*_v1`` resources, through a kubernetes provider on the
cluster's one connection (``GkeCluster.connection``, cdk/connection.py: the endpoint
``control_plane_access`` chooses, credentials from the ``gke-gcloud-auth-plugin`` exec plugin at
plan/apply time, never stored in Terraform state).
"""

from __future__ import annotations

from typing import Any

from gke_accel.cdk._framework import Construct
from gke_accel.cdk._providers import (
    ServiceAccount,
    ServiceAccountIamMember,
    StorageBucket,
    StorageBucketIamMember,
    StorageBucketIamMemberCondition,
    bucket_structs,
)
from gke_accel.cdk.cluster import GkeCluster
from gke_accel.cdk.kubernetes_objects import typed_resource
from gke_accel.cdk.policy import skip_check
from gke_accel.model.environment.plan import EnvironmentPlan
from gke_accel.model.platform.manifests import WORKLOAD_KSA, platform_manifests
from gke_accel.model.platform.rules import checkpoint_bucket, team_namespace, team_service_account_id
from gke_accel.model.storage.bucket import bucket_options

CHECKPOINT_ROLE = "roles/storage.objectUser"

# Accepted findings on Google's driver installer DaemonSet, which this package reproduces as published.
_INSTALLER_SKIPS = {
    "CKV_K8S_29": "Google's installer manifest sets its security context per container (privileged), not per pod",
}


def checkpoint_bucket_name(plan: EnvironmentPlan) -> str:
    return checkpoint_bucket(plan.spec)


def object_id(manifest: dict[str, Any]) -> str:
    meta = manifest["metadata"]
    return "-".join(p for p in (manifest["kind"].lower(), meta.get("namespace", ""), meta["name"]) if p)


class InClusterPlatform(Construct):
    def __init__(self, scope: Construct, id: str, *, plan: EnvironmentPlan, cluster: GkeCluster) -> None:
        super().__init__(scope, id)
        spec = plan.spec
        # The cluster's one connection (cdk/connection.py), the same the Helm releases use.
        provider = cluster.connection.kubernetes_provider(self, "kubernetes")
        self.manifests = platform_manifests(plan)
        self.objects: dict[str, Any] = {}
        namespaces: dict[str, Any] = {}
        for manifest in self.manifests:
            ns = manifest["metadata"].get("namespace")
            extra: dict[str, Any] = {"provider": provider}
            if ns in namespaces:
                extra["depends_on"] = [namespaces[ns]]
            if manifest["kind"] == "DaemonSet":
                extra["wait_for_rollout"] = False  # GPU nodes may be scaled to zero
            resource = typed_resource(self, object_id(manifest), manifest, **extra)
            if manifest["kind"] == "Namespace":
                namespaces[manifest["metadata"]["name"]] = resource
            if manifest["kind"] == "DaemonSet":
                for check_id, reason in _INSTALLER_SKIPS.items():
                    skip_check(resource, check_id, reason)
            self.objects[object_id(manifest)] = resource

        self.bucket = None
        if spec.platform.checkpoints.enabled:
            self.bucket = self._checkpoint_bucket(plan, cluster)
        bucket = self.bucket
        for team in spec.teams:
            self._team_identity(plan, cluster, team.name, team_namespace(team.name, team.namespace), bucket)

    def namespaces(self) -> list[Any]:
        """The team Namespace resources (what namespaced objects of other constructs wait for)."""
        return [r for key, r in self.objects.items() if key.startswith("namespace-")]

    def _checkpoint_bucket(self, plan: EnvironmentPlan, cluster: GkeCluster) -> Any:
        opts = bucket_options(plan.spec.platform.checkpoints, plan.spec.region)  # model/storage/bucket.py
        s = bucket_structs
        rules = [
            s.StorageBucketLifecycleRule(
                action=s.StorageBucketLifecycleRuleAction(type="Delete"),
                condition=s.StorageBucketLifecycleRuleCondition(
                    age=r.age_days,
                    num_newer_versions=r.num_newer_versions,
                    days_since_noncurrent_time=r.days_since_noncurrent,
                    with_state="ARCHIVED" if r.noncurrent_only else None,
                ),
            )
            for r in opts.rules
        ]
        bucket = StorageBucket(
            self,
            "checkpoints",
            project=plan.spec.project_id,
            name=checkpoint_bucket_name(plan),
            location=opts.location,
            uniform_bucket_level_access=True,  # also what a hierarchical namespace requires
            public_access_prevention="enforced",
            hierarchical_namespace=s.StorageBucketHierarchicalNamespace(enabled=opts.hierarchical_namespace),
            soft_delete_policy=s.StorageBucketSoftDeletePolicy(retention_duration_seconds=opts.soft_delete_seconds),
            versioning=s.StorageBucketVersioning(enabled=opts.versioning),
            force_destroy=False,
            labels=cluster.labels,
            lifecycle_rule=rules or None,
        )
        skip_check(
            bucket,
            "CKV_GCP_62",
            "checkpoint reads and writes are audited with Cloud Audit Logs, not a separate access-log bucket",
        )
        if not opts.versioning:
            skip_check(
                bucket,
                "CKV_GCP_78",
                "a hierarchical-namespace bucket cannot be versioned; soft delete keeps deleted checkpoints",
            )
        return bucket

    def _team_identity(
        self, plan: EnvironmentPlan, cluster: GkeCluster, team: str, namespace: str, bucket: Any
    ) -> None:
        project = plan.spec.project_id
        account = ServiceAccount(
            self,
            f"{team}-gsa",
            project=project,
            account_id=team_service_account_id(team, plan.name),
            display_name=f"Workloads of team {team} ({plan.name})",
        )
        ServiceAccountIamMember(
            self,
            f"{team}-workload-identity",
            service_account_id=account.name,
            role="roles/iam.workloadIdentityUser",
            member=f"serviceAccount:{project}.svc.id.goog[{namespace}/{WORKLOAD_KSA}]",
            depends_on=[cluster.resource],  # the identity pool exists once the cluster does
        )
        if bucket is not None:
            prefix = f"projects/_/buckets/{checkpoint_bucket_name(plan)}/objects/{team}/"
            # a hierarchical bucket's directories are folders (their own resource names): the team's too
            folders = f"projects/_/buckets/{checkpoint_bucket_name(plan)}/folders/{team}/"
            folder_rule = (
                f' || resource.name.startsWith("{folders}")'
                if plan.spec.platform.checkpoints.hierarchical_namespace
                else ""
            )
            StorageBucketIamMember(
                self,
                f"{team}-checkpoints",
                bucket=bucket.name,
                role=CHECKPOINT_ROLE,
                member=account.member,
                condition=StorageBucketIamMemberCondition(
                    title=f"{team} prefix only",
                    description=f"Objects under {team}/ in the checkpoint bucket",
                    expression=(
                        f'resource.name.startsWith("{prefix}"){folder_rule} || '
                        f'api.getAttribute("storage.googleapis.com/objectListPrefix", "")'
                        f'.startsWith("{team}/")'
                    ),
                ),
            )
