"""FastRestart: the Artifact Registry repository that image streaming serves the training images
from, in the environment's region (model/storage/restart.py). The pools' own settings (gcfs_config,
secondary boot disks) are rendered by AcceleratorNodePool."""

from __future__ import annotations

from gke_accel.cdk._framework import Construct
from gke_accel.cdk._providers import ArtifactRegistryRepository
from gke_accel.cdk.policy import skip_check
from gke_accel.model.environment.plan import EnvironmentPlan


class FastRestart(Construct):
    def __init__(self, scope: Construct, id: str, *, plan: EnvironmentPlan, labels: dict[str, str]) -> None:
        super().__init__(scope, id)
        spec = plan.spec
        self.repository = None
        if spec.restart.registry.create:
            self.repository = ArtifactRegistryRepository(
                self,
                "images",
                project=spec.project_id,
                location=spec.region,
                repository_id=spec.restart.registry.repository,
                format="DOCKER",
                description=f"Training and serving images of {spec.environment} (image streaming serves them)",
                labels=labels,
            )
            skip_check(
                self.repository,
                "CKV_GCP_84",
                "images are built from the source repository, not secrets; Google-managed encryption at rest",
            )
