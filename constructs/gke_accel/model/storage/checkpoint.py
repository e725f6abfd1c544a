"""Checkpoint size, the time to write one, and the checkpoint interval that keeps lost work within a
budget. Pure arithmetic on the memory model (workloads/size/memory.py) and a write throughput.

- size: what a restart needs back, the weights in their stored format plus the optimizer state
  (``catalog/sizing.yaml``: AdamW 12 bytes per trainable parameter with the fp32 master copy);
  gradients and activations are recomputed, not saved.
- write time: size / aggregate write throughput. Cloud Storage publishes no ingress (write) bandwidth
  per bucket; its bandwidth quotas ("Quotas & limits", storage/quotas#bandwidth) are on egress
  (restores) per project and region. The throughput is therefore the caller's number (what the
  slice's VMs and GCS FUSE achieve, measured), not a default.
- interval: with one interruption per run of length R and a blocking write of w seconds every T,
  the lost share is w / T (time spent writing) + T / R (work redone after the interruption, at most
  one interval). It is smallest at T = sqrt(w R), where it is 2 sqrt(w / R); k interruptions make
  it T = sqrt(w R / k) and 2 sqrt(k w / R) (the first-order optimum of Young, "A first order
  approximation to the optimum checkpoint interval", CACM 17(9), 1974, with R / k as the mean time
  between interruptions).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

GB = 1e9  # throughput in GB/s (decimal), as network and storage throughput is quoted


@dataclass(frozen=True)
class CheckpointPlan:
    size_bytes: float
    write_gbps: float | None  # aggregate GB/s, None: unknown
    run_hours: float
    interruptions: float
    budget: float  # the share of the run that may be lost (0.05 = 5%)

    @property
    def write_seconds(self) -> float | None:
        return None if self.write_gbps is None else self.size_bytes / (self.write_gbps * GB)

    @property
    def interval_seconds(self) -> float | None:
        w = self.write_seconds
        return None if w is None else math.sqrt(w * self.run_hours * 3600 / self.interruptions)

    @property
    def lost_share(self) -> float | None:
        """Share of the run spent writing checkpoints plus redoing work, at the recommended interval."""
        w = self.write_seconds
        return None if w is None else 2 * math.sqrt(self.interruptions * w / (self.run_hours * 3600))

    @property
    def lost_budget_text(self) -> str:
        return f"{self.budget:.0%}" if round(self.budget * 100, 6).is_integer() else f"{self.budget:.1%}"

    @property
    def within_budget(self) -> bool | None:
        share = self.lost_share
        return None if share is None else share <= self.budget + 1e-12


def checkpoint_bytes(terms: dict[str, float]) -> float:
    """Bytes of one checkpoint from the memory model's terms: weights and optimizer state."""
    return terms.get("weights", 0.0) + terms.get("optimizer", 0.0)
