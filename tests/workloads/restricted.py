"""The checks of the Kubernetes ``restricted`` Pod Security Standard (baseline + restricted), as a
test helper for generated pods. The e2e tier proves the same with the API server's PodSecurity
admission; this runs in milliseconds."""

from __future__ import annotations

from typing import Any

ALLOWED_VOLUMES = {
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
}


def restricted_violations(pod: dict[str, Any]) -> list[str]:
    out = []
    psc = pod.get("securityContext") or {}
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(key):
            out.append(key)
    for vol in pod.get("volumes") or []:
        kinds = set(vol) - {"name"}
        if not kinds <= ALLOWED_VOLUMES:
            out.append(f"volume {vol['name']}: {kinds}")
    containers = (pod.get("containers") or []) + (pod.get("initContainers") or [])
    for c in containers:
        sc = c.get("securityContext") or {}
        name = c.get("name")
        if sc.get("privileged"):
            out.append(f"{name}: privileged")
        if sc.get("allowPrivilegeEscalation") is not False:
            out.append(f"{name}: allowPrivilegeEscalation must be false")
        caps = sc.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or []):
            out.append(f"{name}: capabilities must drop ALL")
        if set(caps.get("add") or []) - {"NET_BIND_SERVICE"}:
            out.append(f"{name}: adds capabilities")
        if not (sc.get("runAsNonRoot") or psc.get("runAsNonRoot")):
            out.append(f"{name}: runAsNonRoot")
        if sc.get("runAsUser", psc.get("runAsUser")) == 0:
            out.append(f"{name}: runAsUser 0")
        seccomp = (sc.get("seccompProfile") or psc.get("seccompProfile") or {}).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            out.append(f"{name}: seccompProfile")
        if any(p.get("hostPort") for p in c.get("ports") or []):
            out.append(f"{name}: hostPort")
    return out
