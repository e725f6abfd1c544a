"""EnvironmentStack: the cluster and its accelerator pools for one validated environment."""

from __future__ import annotations

from gke_accel.cdk import GkeCluster
from gke_accel.cdk._framework import Construct, GcsBackend, LocalBackend, TerraformOutput, TerraformStack
from gke_accel.cdk._providers import GoogleProvider
from gke_accel.cdk.accelerator_pools import PlannedPools
from gke_accel.cdk.capacity import ComputeClasses
from gke_accel.cdk.cluster_security import prevent_destroy
from gke_accel.cdk.fences import PriorityFence
from gke_accel.cdk.fleet import FleetManager
from gke_accel.cdk.observability import Observability
from gke_accel.cdk.platform import InClusterPlatform
from gke_accel.cdk.project_services import ProjectServices
from gke_accel.cdk.queues import QueueControllers
from gke_accel.cdk.restart import FastRestart
from gke_accel.model import EnvironmentPlan
from gke_accel.model.cluster.controllers import controller_placement
from gke_accel.model.environment.deploy_needs import required_services
from gke_accel.model.environment.objects import cluster_objects
from gke_accel.model.queues.install import jobset_reasons

# Local state (backend type local) lives beside the synth output, never inside it, so regenerating or
# cleaning cdktf.out cannot lose it: the stack runs in <outdir>/stacks/<env>/, the state file is
# <outdir>/../terraform-state/<env>.tfstate (the repository root's terraform-state/ for cdktf.out).
LOCAL_STATE_DIR = "terraform-state"


class EnvironmentStack(TerraformStack):
    def __init__(self, scope: Construct, plan: EnvironmentPlan) -> None:
        super().__init__(scope, plan.name)
        spec = plan.spec
        self.plan = plan
        labels = {**spec.labels, "environment": spec.environment, "managed-by": "gke-accel"}
        if spec.backend.type == "gcs":
            GcsBackend(self, bucket=spec.backend.bucket or "", prefix=plan.state_prefix)
        else:
            LocalBackend(self, path=f"../../../{LOCAL_STATE_DIR}/{spec.environment}.tfstate")
        # Bill API quota to the project: budgets and quota preferences need a quota project when
        # applied with user credentials.
        project = spec.project_id
        GoogleProvider(
            self, "google", project=project, region=spec.region, user_project_override=True, billing_project=project
        )
        self.services = ProjectServices(self, "apis", project=spec.project_id, services=required_services(plan))
        self.cluster = GkeCluster(
            self,
            "cluster",
            project=spec.project_id,
            project_number=spec.project_number,
            region=spec.region,
            spec=spec.cluster,
            plan=plan.cluster,  # planned once, by the environment root
            labels=labels,
            protect=plan.prevent_destroy,
            training_exclusion=plan.lifecycle.exclusion if plan.lifecycle else None,
            restart=spec.restart,
        )
        self.restart = FastRestart(self, "restart", plan=plan, labels=labels)
        ladders = plan.ladders
        # every in-cluster object, from the function `manifests` and `verify` use too; the platform's
        # and the queues' objects are rendered by InClusterPlatform and QueueControllers from the same
        # model functions (tests/synth/test_cluster_objects.py holds them to it)
        objects = cluster_objects(plan)
        # the plan's pools, as planned (ladders and lifecycle applied once, by the environment root):
        # one construct per declared pool, ``tpu-<name>``/``gpu-<name>``, one node pool per slice
        self.pools = [
            PlannedPools(self, declared.construct_id, cluster=self.cluster, plans=plan.pools_of(declared))
            for declared in plan.declared_pools
        ]
        # general-purpose pools for CPU-only pods (model/pools/cpu_pool.py), planned with the environment
        self.cpu_pools = [self.cluster.node_pool(self, f"cpu-{p.name}", p) for p in plan.cpu_pools]
        self.platform = InClusterPlatform(self, "platform", plan=plan, cluster=self.cluster)
        queues = plan.queues
        jobset = bool(jobset_reasons(plan.pools, queues))  # multi-host slices, multi-node GPU pools, Kueue
        self.queues = (
            QueueControllers(
                self,
                "queues",
                plan=queues,
                jobset=jobset,
                classes=spec.platform.priority_classes,
                cluster=self.cluster,
                placement=controller_placement(plan.cluster),
                after=self.platform.namespaces(),
            )
            if queues is not None or jobset or ladders
            else None
        )
        # the ladders' ComputeClasses, through the same Helm provider (QueueControllers holds it)
        self.compute_classes = (
            ComputeClasses(
                self,
                "capacity",
                manifests=objects.compute_classes,
                provider=self.queues.provider,
                cluster=self.cluster,
            )
            if ladders and self.queues is not None
            else None
        )
        # the fence is about Kueue's priority label: only where Kueue is installed
        kueue = self.queues is not None and self.queues.kueue is not None
        self.fences = None
        if kueue and self.queues:
            self.fences = PriorityFence(self, "fences", manifests=objects.fence, queues=self.queues)
        # a fleet manager's MultiKueue objects (model/fleet), after Kueue
        self.fleet = None
        if objects.fleet and self.queues is not None and self.queues.kueue is not None:
            self.fleet = FleetManager(self, "fleet", manifests=objects.fleet, queues=self.queues)
        # production: the cluster (above), accelerator pools, checkpoint bucket; like the system pool, CPU pools
        # hold no scarce capacity and are replaced freely (a new machine type is a new pool)
        if plan.prevent_destroy:
            pools = [p.resource for group in self.pools for p in group.pools]
            prevent_destroy([*pools, *([self.platform.bucket] if self.platform.bucket is not None else [])])
        self.observability = Observability(self, "observability", plan=plan, cluster=self.cluster)
        TerraformOutput(self, "cluster_name", value=self.cluster.name)
        TerraformOutput(self, "cluster_location", value=self.cluster.location)
        TerraformOutput(self, "node_service_account", value=self.cluster.node_service_account)
        self.services.required_by_everything_in(self)
