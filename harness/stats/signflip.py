"""The paired sign-flip test of "council > (1 + threshold) x baseline" in the difference form.

Seed 002's prediction ``mean(council) > (1 + t) * mean(baseline)`` is, over paired cases, the same
statement as ``mean(d) > 0`` with ``d_i = council_i - (1 + t) * baseline_i``
(:func:`difference_scores`). Unlike the ratio of means, this difference is defined for every sample,
including a baseline that scores 0 everywhere.

**Test.** H0: the ``d_i`` are symmetric about ``mu`` (the council is exactly ``mu`` above
``(1 + t)`` times the baseline); H1: they are centred above ``mu``. Under H0 each ``d_i - mu`` is as
likely to have either sign, so the statistic ``sum(d_i - mu)`` is referred to its distribution over
sign patterns (Fisher's paired randomization test). Flipping the signs of a set ``F`` of pairs gives
a statistic at least as large as the observed one exactly when ``F`` is empty or
``mean(d_i for i in F) <= mu``, so the one-sided p-value is

    p(mu) = #{patterns F: F empty or mean_F(d) <= mu} / N.

With ``n <= EXACT_MAX_PAIRS`` all ``N = 2**n`` patterns are enumerated (the exact test); above,
``n_resamples`` uniformly random patterns from ``numpy.random.default_rng(seed)`` plus the observed
one (``N = n_resamples + 1``: a Monte-Carlo p-value that is itself a valid p-value).

**Interval.** ``p(mu)`` never decreases in ``mu``, so inverting the test gives the interval in closed
form: with ``a = (1 - confidence) / 2`` and ``k = floor(a * N)``, the lower bound is the ``k``-th
smallest (0-based) of the subset means (the empty pattern counting as ``-inf``) and the upper bound the
``k``-th largest (the empty pattern as ``+inf``). ``low > 0`` exactly when ``p(0) <= a``. A bound is
infinite when the level cannot be reached with ``N`` patterns (``a * N < 1``, e.g. ``n = 5`` at 95%).
Subset means are rounded to ``DECIMALS`` so that float noise never decides a verdict.

**Ratio interval (effect size).** The same inversion applied to ``council - r * baseline`` over
``r`` gives an interval for the ratio of means ``r`` (a Fieller-type interval), defined when every
baseline score is >= 0: the set of ``r`` whose difference test is not rejected. It is consistent with
the verdict: ``low > 0`` for ``r = 1 + t`` exactly when the ratio interval's low end is above ``1 + t``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from harness.common.model import Frozen

#: Enumerate every sign pattern up to this many pairs (2**14 = 16384 patterns); Monte-Carlo above.
EXACT_MAX_PAIRS = 14

#: Subset means and differences are rounded to this many decimals (as :data:`harness.stats.DECIMALS`).
DECIMALS = 12

ArrayLike = Sequence[float] | np.ndarray


def difference_scores(council: ArrayLike, baseline: ArrayLike, threshold: float) -> np.ndarray:
    """``d_i = council_i - (1 + threshold) * baseline_i``, rounded to :data:`DECIMALS` (a tie is exactly 0)."""
    c = np.asarray(council, dtype=float).ravel()
    b = np.asarray(baseline, dtype=float).ravel()
    return np.round(c - (1.0 + threshold) * b, DECIMALS)


#: Pattern matrices up to this many cells are cached as float (fast sums); larger ones as bool (1 byte a
#: cell), converted in chunks of rows by :func:`_subset_sums`.
_FLOAT_CELLS = 4_000_000


@lru_cache(maxsize=4)
def _patterns(n: int, n_resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Sign patterns as a read-only ``N x n`` 0/1 matrix (1 = flipped; row 0 is the empty pattern) and its row sums."""
    if n <= EXACT_MAX_PAIRS:
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        flips = ((codes >> np.arange(n, dtype=np.int64)) & 1).astype(bool)
    else:
        rng = np.random.default_rng(seed)
        flips = np.vstack([np.zeros((1, n), dtype=bool), rng.random((n_resamples, n)) < 0.5])
    sizes = flips.sum(axis=1)
    if flips.size <= _FLOAT_CELLS:
        flips = flips.astype(float)
    flips.setflags(write=False)
    sizes.setflags(write=False)
    return flips, sizes


def is_exact(n: int) -> bool:
    """Whether :func:`sign_flip_test` enumerates every pattern for ``n`` pairs."""
    return n <= EXACT_MAX_PAIRS


def method_name(n: int, n_resamples: int, seed: int) -> str:
    """The interval method in words, as shown in the report and summary.json."""
    if is_exact(n):
        return f"exact paired sign-flip test ({2**n} sign patterns)"
    return f"Monte-Carlo paired sign-flip test ({n_resamples} random sign patterns, seed {seed})"


#: Rows of sign patterns converted to float at a time (bounds the temporary memory for large ``n``).
_CHUNK_ROWS = 4096


def _subset_sums(values: np.ndarray, flips: np.ndarray) -> np.ndarray:
    """``sum(values[i] for i in F)`` for every pattern ``F`` (row of ``flips``)."""
    if flips.dtype == float:
        return flips @ values
    return np.concatenate(
        [flips[i : i + _CHUNK_ROWS].astype(float) @ values for i in range(0, flips.shape[0], _CHUNK_ROWS)]
    )


class SignFlipResult(Frozen):
    """A sign-flip test and interval of ``mean(d)``.

    Args:
        n: pairs; n_informative: pairs with ``d != 0``.
        mean: ``mean(d)``.
        low, high: the interval of the centre of ``d`` at ``confidence`` (``-inf``/``inf`` when the level
            cannot be reached with this many patterns).
        confidence: two-sided level of ``[low, high]``; each side errs with probability ``(1 - confidence) / 2``.
        p_value: one-sided p of H0 ``centre <= 0`` against ``centre > 0``.
        method: :func:`method_name`.
        n_patterns: sign patterns used (``N``).
    """

    n: int
    n_informative: int
    mean: float
    low: float
    high: float
    confidence: float
    p_value: float
    method: str
    n_patterns: int


def _k(confidence: float, n_patterns: int) -> int:
    return math.floor((1.0 - confidence) / 2.0 * n_patterns + 1e-9)


def sign_flip_test(d: ArrayLike, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0) -> SignFlipResult:
    """The paired sign-flip test and interval of the centre of ``d`` (see the module docstring).

    Args:
        d: the per-pair differences (:func:`difference_scores`); no NaN.
        confidence: two-sided level of the interval, in (0, 1).
        n_resamples: random sign patterns when ``n > EXACT_MAX_PAIRS``.
        seed: seed of those patterns (the same seed gives the same interval).
    """
    d = np.asarray(d, dtype=float).ravel()
    if d.size == 0:
        raise ValueError("the sign-flip test needs at least one pair")
    if np.isnan(d).any():
        raise ValueError("the sign-flip test got NaN differences: drop NaN pairs first")
    flips, sizes = _patterns(d.size, n_resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.round(_subset_sums(d, flips) / np.where(sizes > 0, sizes, 1), DECIMALS)
    means[sizes == 0] = -math.inf  # only row 0, except by chance in the Monte-Carlo patterns
    n_patterns = int(flips.shape[0])
    k = _k(confidence, n_patterns)
    low = float(np.partition(means, k)[k]) if k < n_patterns else math.inf
    means_hi = means.copy()
    means_hi[sizes == 0] = math.inf
    high = float(-np.partition(-means_hi, k)[k]) if k < n_patterns else -math.inf
    p = float(np.count_nonzero(means <= 0.0)) / n_patterns
    return SignFlipResult(
        n=int(d.size),
        n_informative=int(np.count_nonzero(d)),
        mean=float(d.mean()),
        low=low,
        high=high,
        confidence=confidence,
        p_value=p,
        method=method_name(d.size, n_resamples, seed),
        n_patterns=n_patterns,
    )


def ratio_interval(
    council: ArrayLike,
    baseline: ArrayLike,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> tuple[float, float, str]:
    """The interval of ``mean(council) / mean(baseline)`` that inverts the sign-flip test over the ratio.

    For a pattern ``F`` with subset sums ``C_F`` and ``B_F > 0``, ``mean_F(council - r * baseline) <= 0``
    exactly when ``r >= C_F / B_F``; patterns with ``B_F = 0`` do not depend on ``r``. So the lower end
    is an order statistic of the ratios ``C_F / B_F`` (shifted by the patterns that are always counted),
    and the upper end likewise: no search is needed.

    Returns ``(low, high, note)``: NaN bounds with a note when a baseline score is negative (the test
    is then not monotone in the ratio); ``-inf``/``inf`` for an end the data cannot bound.
    """
    c = np.asarray(council, dtype=float).ravel()
    b = np.asarray(baseline, dtype=float).ravel()
    if c.size == 0:
        return math.nan, math.nan, "no paired scores"
    if (b < 0).any():
        return math.nan, math.nan, "a baseline score is negative: the ratio interval is undefined"
    flips, sizes = _patterns(c.size, n_resamples, seed)
    nonempty = sizes > 0
    sums_c, sums_b = _subset_sums(c, flips)[nonempty], _subset_sums(b, flips)[nonempty]
    k = _k(confidence, int(flips.shape[0]))
    pos = sums_b > 0
    ratios = np.sort(sums_c[pos] / sums_b[pos])
    always_low = 1 + int(np.count_nonzero(~pos & (sums_c <= 0)))  # counted below every r (with the empty one)
    always_high = 1 + int(np.count_nonzero(~pos & (sums_c >= 0)))
    notes = []
    i = k - always_low  # need #{ratios <= r} > i
    if i < 0:
        low = -math.inf
        notes.append("the data cannot bound the ratio from below")
    elif i >= ratios.size:
        low = math.inf
    else:
        low = float(ratios[i])
    j = k - always_high
    if j < 0:
        high = math.inf
        notes.append("the data cannot bound the ratio from above")
    elif j >= ratios.size:
        high = -math.inf
    else:
        high = float(ratios[::-1][j])
    return low, high, "; ".join(notes)
