"""Kubernetes resource quantities (``500m``, ``16Gi``, ``2``) as the API server parses them.

The grammar is apimachinery's ``resource.Quantity`` (k8s.io/apimachinery/pkg/api/resource/quantity.go):
``<signedNumber><suffix>``, a number ``digits``, ``digits.digits``, ``digits.`` or ``.digits`` with an
optional sign, and a suffix that is binary SI (Ki Mi Gi Ti Pi Ei), decimal SI (n u m "" k M G T P E) or a
decimal exponent (``e``/``E`` and a signed integer). ``UnmarshalJSON`` strips the quotes of a string and
surrounding spaces and parses a JSON number's text the same way, so ``4`` and ``"4"`` are one quantity,
``null`` is zero, and ``true``, a list or a mapping is refused. Validation then requires every container
quantity to be >= 0 and an extended resource's (``nvidia.com/gpu``, ``google.com/tpu``) to be whole
(pkg/apis/core/validation/validation.go ``ValidateResourceQuantityValue``: "must be greater than or equal
to 0", "must be an integer"). NaN and infinity are no quantity (JSON has neither).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

_SUFFIX = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("0.001"),
    "k": Decimal(10) ** 3,
    "M": Decimal(10) ** 6,
    "G": Decimal(10) ** 9,
    "T": Decimal(10) ** 12,
    "P": Decimal(10) ** 15,
    "E": Decimal(10) ** 18,
    "Ki": Decimal(2) ** 10,
    "Mi": Decimal(2) ** 20,
    "Gi": Decimal(2) ** 30,
    "Ti": Decimal(2) ** 40,
    "Pi": Decimal(2) ** 50,
    "Ei": Decimal(2) ** 60,
}
_QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?:(?P<exp>[eE][+-]?[0-9]{1,6})|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$"
)
# The API server's own words for a quantity it cannot parse (quantity.go ``ErrFormatWrong``)
FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
NEGATIVE = "must be greater than or equal to 0"
NOT_INTEGER = "must be an integer"
MAX_MAGNITUDE = 60  # decimal digits before the point: beyond any resource (and Decimal's arithmetic stays exact)


def _text(value: object) -> str | None:
    """The text the API server parses, or None when the JSON value cannot be a quantity."""
    if isinstance(value, bool | list | dict):
        return None
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, int | str):
        return str(value).strip()
    return None


def parse_quantity(value: object) -> Decimal | None:
    """The quantity's value, or None when the API server would not parse it (``null`` is zero)."""
    if value is None:
        return Decimal(0)
    text = _text(value)
    match = _QUANTITY.match(text) if text is not None and len(text) <= 100 else None
    if not match:
        return None
    try:
        number = Decimal(match["number"])
        if match["exp"]:
            number = number.scaleb(int(match["exp"][1:]))
        else:
            number *= _SUFFIX[match["suffix"] or ""]
    except (InvalidOperation, ArithmeticError):
        return None
    if not number.is_finite() or (number and number.adjusted() > MAX_MAGNITUDE):
        return None
    return number


def is_extended(name: str) -> bool:
    """An extended resource (a domain-prefixed name outside kubernetes.io, e.g. nvidia.com/gpu): whole only."""
    return "/" in name and not name.split("/", 1)[0].endswith("kubernetes.io") and not name.startswith("requests.")


def quantity_problem(name: str, value: object) -> str | None:
    """What the API server says about ``value`` for resource ``name`` in a container; None when it accepts it."""
    number = parse_quantity(value)
    if number is None:
        return FORMAT_WRONG
    if number < 0:
        return NEGATIVE
    if is_extended(name) and number != number.to_integral_value():
        return NOT_INTEGER
    return None


def show(value: Decimal) -> str:
    return f"{value.normalize():f}"
