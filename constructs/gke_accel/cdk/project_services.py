"""ProjectServices: the Google APIs an environment uses, enabled in its project before anything else.

Each API is one ``google_project_service`` with ``disable_on_destroy = false``: destroying an
environment never turns off an API that other things in the project may use. Every Google resource
of the stack depends on them, so a fresh project works on the first ``deploy``.
"""

from __future__ import annotations

from collections.abc import Sequence

from gke_accel.cdk._framework import Construct, TerraformResource
from gke_accel.cdk._providers import ProjectService
from gke_accel.model.environment.deploy_needs import ProjectService as ServiceNeed


class ProjectServices(Construct):
    """Props: ``project``, ``services`` (from ``gke_accel.model.environment.deploy_needs.required_services``)."""

    def __init__(self, scope: Construct, id: str, *, project: str, services: Sequence[ServiceNeed]) -> None:
        super().__init__(scope, id)
        self.services = [
            ProjectService(
                self,
                need.name.split(".")[0],
                project=project,
                service=need.name,
                disable_on_destroy=False,
                disable_dependent_services=False,
            )
            for need in services
        ]

    def required_by_everything_in(self, scope: Construct) -> None:
        """Make every other Google resource under ``scope`` wait until the APIs are enabled."""
        own = {id(s) for s in self.services}
        # Bare addresses: Terraform refuses an interpolation ("${...}", what ``fqn`` renders) in depends_on.
        addresses = [f"{s.terraform_resource_type}.{s.friendly_unique_id}" for s in self.services]
        for node in scope.node.find_all():
            if (
                isinstance(node, TerraformResource)
                and id(node) not in own
                and node.terraform_resource_type.startswith("google_")
            ):
                node.depends_on = [*(node.depends_on or []), *addresses]
