"""Noise-aware gating for sampled models: the spread of a case's k repeats, which the gate reads.

The repeats themselves are run by :mod:`harness.run.repeats` (the gate decides; it runs no case).

With ``repeats: k`` (config) or ``--repeats K`` (``council-harness run``), a run makes k passes over
its cases. Pass 0 is the ordinary run (``results.jsonl``, the configured ``seed``); pass
r = 1 .. k-1 runs with ``seed + r * REPEAT_SEED_STRIDE`` (every member's, judge's and shuffle's
seed moves with it, and so do the cache keys, so a repeat is never a cache hit of another) and is
its own run folder ``repeats/r<r>/`` inside the run folder (manifest + ``results.jsonl``;
``--resume`` completes it). Reports and the >15% verdict read pass 0 only; the gate reads every
pass.

A baseline taken from such a run stores, per case, subject and gated score, the spread of the k
values (:class:`ScoreSpread`: k, mean, sample SD, min, max) and their mean as the score, and how
many of the k passes failed. The comparison is then noise-aware (:mod:`harness.gate.noise`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.common.model import Frozen


class ScoreSpread(Frozen):
    """The values of one gated score over k repeats of one case.

    Args:
        k: repeats with a finite value; mean, sd: their mean and sample SD (0 when k = 1);
        low, high: the smallest and largest value.
    """

    k: int
    mean: float
    sd: float
    low: float
    high: float


def spread_of(values: Sequence[float]) -> ScoreSpread | None:
    """The spread of the finite ``values`` (``None`` when there is none)."""
    vals = [float(v) for v in values if v is not None and math.isfinite(v)]
    if not vals:
        return None
    k = len(vals)
    if min(vals) == max(vals):  # exactly no spread (deterministic repeats), free of rounding
        return ScoreSpread(k=k, mean=vals[0], sd=0.0, low=vals[0], high=vals[0])
    mean = math.fsum(vals) / k
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in vals) / (k - 1)) if k > 1 else 0.0
    return ScoreSpread(k=k, mean=mean, sd=sd, low=min(vals), high=max(vals))
