"""Record a policy-scan exception on the resource it concerns, with its reason.

The skip is written into the resource's ``//`` comment block in the synthesized JSON (Terraform
ignores it), so a reviewer sees it next to the resource and ``gke-accel scan`` honours it.
"""

from __future__ import annotations

from typing import Any

from gke_accel.policy.scan import SKIP_KEY


def skip_check(resource: Any, check_id: str, reason: str) -> None:
    """Mark ``check_id`` as accepted for ``resource`` (a cdktf resource) because of ``reason``."""
    resource.add_override(f"//.{SKIP_KEY}.{check_id}", reason)
