"""Keys people write in the wrong place, and where they belong: the parser's unknown-key message
says so instead of a "did you mean" guess (``reservation: my-res`` on a pool is not a typo of any
pool field; it belongs under ``consumption``)."""

from __future__ import annotations

# key -> (a field the mapping must have for the hint to apply, the hint)
MISPLACED: dict[str, tuple[str, str]] = {
    "reservation": (
        "consumption",
        "reservations go under consumption: {type: reservation, affinity: specific, reservation: NAME}",
    ),
    "spot": ("consumption", "Spot VMs are a consumption option: consumption: spot"),
    "preemptible": ("consumption", "preemptible VMs are replaced by Spot VMs: consumption: spot"),
    "flex_start": ("consumption", "flex-start is a consumption option: consumption: flex-start"),
    "gpus": ("gpus_per_node", "did you mean 'gpus_per_node'? (gpu is the GPU model, e.g. h100)"),
    "gpu_count": ("gpus_per_node", "did you mean 'gpus_per_node'?"),
    "zone": ("zones", "did you mean 'zones'? (a GPU pool takes a list: zones: [us-central1-a])"),
    "zones": ("zone", "did you mean 'zone'? (a TPU slice pool sits in one zone: zone: us-central1-a)"),
}


def misplaced_hint(key: str, fields: list[str]) -> str | None:
    """The hint for ``key`` in a mapping with ``fields``, or None when the key is not a known misplacement."""
    entry = MISPLACED.get(key)
    return entry[1] if entry and entry[0] in fields else None
