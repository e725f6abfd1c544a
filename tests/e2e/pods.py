"""What a test pod needs to pass the team namespaces' Pod Security level (``restricted``)."""

from __future__ import annotations

from typing import Any

# A container securityContext that Pod Security ``restricted`` admits.
RESTRICTED: dict[str, Any] = {
    "runAsNonRoot": True,
    "runAsUser": 65532,
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}
