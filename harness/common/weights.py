"""The one check for weight sets (rubric, heuristic quality, similarity): finite, non-negative, sum to 1."""

from __future__ import annotations

import math
from collections.abc import Mapping

TOLERANCE = 0.001


def check_weights(values: Mapping[str, float], what: str = "weights") -> None:
    """Raise ``ValueError`` naming the bad entries unless every weight is finite and non-negative and
    they sum to 1 within :data:`TOLERANCE`.

    Args:
        values: weight name -> weight.
        what: how the message names the set (``weights``, ``heuristic quality weights``, ...).
    """
    bad = [k for k, v in values.items() if not math.isfinite(v) or v < 0]
    if bad:
        raise ValueError(f"{what} must be finite and non-negative; bad: {bad}")
    total = sum(values.values())
    if abs(total - 1.0) > TOLERANCE:
        raise ValueError(f"{what} must sum to 1 (within {TOLERANCE}), they sum to {total:.4f}")
