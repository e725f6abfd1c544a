"""One lint finding: the rule, how bad it is, where, what is wrong and what to write instead."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]

# Rule codes (docs/workloads.md lists them with an example each).
RULES = {
    "resource-name": "accelerator resource names GKE nodes advertise",
    "extended-limits": "accelerator requests equal their limits",
    "quantity": "resource quantities the API server accepts (its grammar, >= 0, whole for accelerators)",
    "no-pool": "node selectors and affinity match a pool",
    "tolerations": "the pool's taints are tolerated",
    "flavor": "Kueue can admit the pod on a flavor of its team's ClusterQueue (its nodeTaints, nodeLabels, quota)",
    "gpu-count": "GPUs per pod fit on one node of a pool",
    "tpu-chips": "TPU chips per pod match the chips of one TPU VM",
    "multi-host": "a multi-host slice gets one pod per VM, Indexed, with DNS for its peers",
    "slices": "no more slices than the environment has",
    "capacity": "pods at once fit the pools at their maximum size",
    "node-size": "cpu and memory per pod fit a node",
    "limit-range": "a request without a limit is within the namespace LimitRange's default limit",
    "node-fit": "a pod leaves GKE's DaemonSets and the kernel their share of a node",
    "quota": "requests stay within the team's quota",
    "priority": "the priority class exists and the team may use it",
    "pod-security": "pods pass the Pod Security level the team namespace enforces",
    "queue-label": "the Kueue queue label where the environment uses Kueue",
    "priority-label": "the Kueue priority label names the pods' priority class (the admission policy)",
    "namespace": "the workload runs in a team namespace",
    "retry": "preemption and eviction are not counted as application failures",
    "tpu-selectors": "TPU pods select accelerator and topology",
    "dws": "what queued provisioning and flex-start capacity need (queue label, run duration)",
    "ladder": "a pod of a capacity ladder's shape selects its ComputeClass and pins no rung",
    "elastic": "a resizable workload (kueue.x-k8s.io/elastic-job) is a Job Kueue can resize",
}


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: Severity
    path: str  # field path inside the workload
    message: str
    hint: str = ""

    def render(self) -> str:
        tail = f"\n        fix: {self.hint}" if self.hint else ""
        return f"  {self.severity:<7} [{self.rule}] {self.path}: {self.message}{tail}"

    def to_dict(self) -> dict[str, str]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
            "hint": self.hint,
        }
