"""The paired difference of two subjects on one score, with its sign-flip interval.

``d_i = treatment_i - control_i`` over the cases scored (finite) for both
(:func:`harness.gate.verdict_plan.paired_families`, or a run's plan:
:meth:`harness.gate.verdict_plan.VerdictPlan.pair`), optionally only those in ``keys``
(``dataset::case id``); the mean of ``d`` and its interval at ``confidence`` from
:func:`harness.stats.signflip.sign_flip_test`. With no informative pair (every ``d_i = 0``) the
interval is ``[0, 0]``; with no pair at all the mean and interval are NaN.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from harness.common.model import Frozen
from harness.gate.verdict_plan import paired_families
from harness.run.result import CaseResult
from harness.stats import PairedSample
from harness.stats.signflip import difference_scores, sign_flip_test


class PairedDifference(Frozen):
    """``mean(treatment - control)`` over ``n`` pairs (``n_informative`` of them non-zero) and its interval."""

    n: int
    n_informative: int
    mean: float
    low: float
    high: float
    confidence: float


def paired_difference(
    results: Sequence[CaseResult],
    treatment: str,
    control: str,
    family: str,
    keys: Collection[str] | None = None,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> PairedDifference:
    """The :class:`PairedDifference` of ``treatment`` over ``control`` on ``family`` (module docstring)."""
    samples, _ = paired_families(results, treatment, control, families=(family,))
    return sample_difference(samples.get(family), keys, confidence, n_resamples, seed)


def sample_difference(
    sample: PairedSample | None,
    keys: Collection[str] | None = None,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> PairedDifference:
    """The :class:`PairedDifference` of an already paired sample (``council`` = treatment, ``baseline`` =
    control; ``None``: no pair), optionally only the pairs whose id is in ``keys``."""
    pairs = (
        []
        if sample is None
        else [
            (t, c)
            for t, c, k in zip(sample.council, sample.baseline, sample.ids or (), strict=True)
            if keys is None or k in keys
        ]
    )
    if not pairs:
        return PairedDifference(n=0, n_informative=0, mean=math.nan, low=math.nan, high=math.nan, confidence=confidence)
    d = difference_scores([t for t, _ in pairs], [c for _, c in pairs], 0.0)
    if not d.any():
        low = high = 0.0
    else:
        test = sign_flip_test(d, confidence=confidence, n_resamples=n_resamples, seed=seed)
        low, high = test.low, test.high
    return PairedDifference(
        n=int(d.size),
        n_informative=int((d != 0).sum()),
        mean=float(d.mean()),
        low=low,
        high=high,
        confidence=confidence,
    )
