"""Config shape of the capacity ladder (``capacity:`` in ``config/<env>.yaml``).

``capacity`` maps an accelerator shape to its ladder; the shape is written as the Kueue flavors name
it: a TPU generation and topology (``v5e-2x4``) or a GPU model (``l4``, ``a100-80gb``). Rules:
``model/capacity/rules.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

WhenUnsatisfiable = Literal["DoNotScaleUp", "ScaleUpAnyway"]


@dataclass(frozen=True)
class LadderSpec:
    """The rungs of one shape, most preferred first. Each rung is one of:

    - ``reservation/<name>`` or ``reservation/projects/<project>/reservations/<name>`` (a shared
      reservation): the pools of this shape that consume that specific reservation;
    - ``on-demand``, ``flex-start`` or ``spot``: the pools of this shape with that consumption;
    - ``pool/<name>``: one pool by name.

    The environment gets a ComputeClass named after the shape whose ``priorities[]`` list each rung's
    node pools in this order, and (with ``queues:``) one Kueue flavor per rung in the same order.
    ``when_unsatisfiable`` is the class's behaviour when no rung can get nodes; set explicitly because
    GKE's default changed in 1.33. ``optimize_rule_priority`` turns on GKE's active migration back to
    a better rung when it has room again (evicts pods: leave off for jobs that do not checkpoint).
    """

    rungs: tuple[str, ...] = ()
    when_unsatisfiable: WhenUnsatisfiable = "DoNotScaleUp"
    optimize_rule_priority: bool = False
