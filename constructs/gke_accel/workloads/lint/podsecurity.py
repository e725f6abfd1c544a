"""The Pod Security Standards a team namespace enforces (``pod-security.kubernetes.io/enforce`` on
the Namespace the platform declares), checked on a pod template the way PodSecurity admission does:
``baseline`` (no host namespaces, privileged containers, host paths or ports, extra capabilities) and
``restricted`` (also non-root, RuntimeDefault seccomp, no privilege escalation, capabilities drop
ALL, only ephemeral/projected/CSI/PVC-style volumes)."""

from __future__ import annotations

from typing import Any

from gke_accel.workloads.manifests import Obj, as_dict, as_list, containers, init_containers

ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"
RESTRICTED_VOLUMES = {
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
}
BASELINE_CAPABILITIES = {
    "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
    "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
}  # fmt: skip


def _baseline(pod: Obj) -> list[str]:
    out = [f"spec.{k}: true" for k in ("hostNetwork", "hostPID", "hostIPC") if pod.get(k)]
    out += [
        f"volume {as_dict(v).get('name')}: hostPath" for v in as_list(pod.get("volumes")) if "hostPath" in as_dict(v)
    ]
    for c in containers(pod) + init_containers(pod):
        sc = as_dict(c.get("securityContext"))
        name = c.get("name")
        if sc.get("privileged"):
            out.append(f"container {name}: privileged")
        added = set(as_list(as_dict(sc.get("capabilities")).get("add"))) - BASELINE_CAPABILITIES
        if added:
            out.append(f"container {name}: adds capabilities {sorted(added)}")
        if any(as_dict(p).get("hostPort") for p in as_list(c.get("ports"))):
            out.append(f"container {name}: hostPort")
    return out


def _restricted(pod: Obj) -> list[str]:
    out = []
    psc = as_dict(pod.get("securityContext"))
    for v in as_list(pod.get("volumes")):
        kinds = set(as_dict(v)) - {"name"}
        if not kinds <= RESTRICTED_VOLUMES:
            out.append(f"volume {as_dict(v).get('name')}: {', '.join(sorted(kinds - RESTRICTED_VOLUMES))}")
    for c in containers(pod) + init_containers(pod):
        sc = as_dict(c.get("securityContext"))
        name = c.get("name")
        if sc.get("allowPrivilegeEscalation") is not False:
            out.append(f"container {name}: allowPrivilegeEscalation must be false")
        caps = as_dict(sc.get("capabilities"))
        if "ALL" not in as_list(caps.get("drop")):
            out.append(f"container {name}: capabilities must drop ALL")
        if set(as_list(caps.get("add"))) - {"NET_BIND_SERVICE"}:
            out.append(f"container {name}: may add only NET_BIND_SERVICE")
        if not sc.get("runAsNonRoot", psc.get("runAsNonRoot")):
            out.append(f"container {name}: runAsNonRoot must be true")
        if sc.get("runAsUser", psc.get("runAsUser")) == 0:
            out.append(f"container {name}: runAsUser 0")
        seccomp = as_dict(sc.get("seccompProfile") or psc.get("seccompProfile")).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            out.append(f"container {name}: seccompProfile.type must be RuntimeDefault")
    return out


def violations(pod: Obj, level: str) -> list[str]:
    """What PodSecurity admission at ``level`` (privileged, baseline, restricted) refuses in ``pod``."""
    if level == "baseline":
        return _baseline(pod)
    if level == "restricted":
        return _baseline(pod) + _restricted(pod)
    return []


def enforced_levels(manifests: list[dict[str, Any]]) -> dict[str, str]:
    """Namespace -> enforced Pod Security level, from the Namespace objects the platform declares."""
    return {
        m["metadata"]["name"]: m["metadata"].get("labels", {})[ENFORCE_LABEL]
        for m in manifests
        if m["kind"] == "Namespace" and ENFORCE_LABEL in m["metadata"].get("labels", {})
    }
