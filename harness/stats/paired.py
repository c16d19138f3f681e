"""Paired tests on per-case scores: the regression gate's one-sided Wilcoxon test and the tools the
>15% verdict shows beside its decision (:mod:`harness.stats.verdicts`).

* :func:`paired_arrays` drops pairs where either score is NaN and counts them;
* :func:`relative_improvement` is the ratio of means minus one, ``mean(council) / mean(baseline) - 1``,
  defined only when the baseline mean is > 0 (:func:`relative_improvement_note` says why not);
* :func:`wilcoxon_signed_rank`: Wilcoxon's signed-rank test with Pratt's zero handling (exact by
  permutation up to 13 pairs with ties or zeros);
* :func:`mcnemar_exact`: McNemar's exact test on binary outcomes (a two-sided binomial test on the
  discordant pairs);
* :func:`holm`: Holm's step-down adjustment;
* :func:`paired_regression_test`: is the current run worse than the baseline by more than the
  tolerance, beyond noise (one-sided Wilcoxon on ``d = improvement + tolerance``).

Conventions: anything that cannot be computed is NaN with a ``note`` saying why, never an
exception. scipy is imported by the functions that use it, so importing :mod:`harness.stats` stays light.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Literal

import numpy as np

from harness.common.model import Frozen

#: Wilcoxon's handling of zero differences (ties between the paired scores). ``"pratt"`` ranks the
#: zeros with the others and then drops their ranks (Pratt 1959): ties count as evidence of "no
#: difference", which is more conservative than dropping them before ranking (``"wilcox"``) when
#: many challenges are tied, as they are on coarse 0-10 or 0-100 ratings. With no zeros both agree.
ZERO_METHOD: Literal["pratt"] = "pratt"

#: Differences are rounded to this many decimals before testing so that float noise such as
#: ``0.8 - 0.75 - 0.05 = -4e-17`` counts as an exact tie.
DECIMALS = 12

ArrayLike = Sequence[float] | np.ndarray


def paired_arrays(council: ArrayLike, baseline: ArrayLike) -> tuple[np.ndarray, np.ndarray, int]:
    """The two score arrays with every pair containing a NaN removed.

    Args:
        council: per-challenge scores of the council (or of the current run).
        baseline: per-challenge scores of the baseline, same order and length.

    Returns:
        ``(council, baseline, n_dropped)`` as float arrays.
    """
    x = np.asarray(council, dtype=float).ravel()
    y = np.asarray(baseline, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"paired samples must have equal length, got {x.size} and {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    return x[keep], y[keep], int(x.size - keep.sum())


def relative_improvement(council: ArrayLike, baseline: ArrayLike, *, axis: int | None = None) -> float | np.ndarray:
    """``mean(council) / mean(baseline) - 1``: seed 002's ratio of means, minus one.

    A value of ``0.15`` means the council's average is 15% above the baseline's. The ratio only has
    that meaning for a positive baseline mean: when ``mean(baseline) <= 0`` the result is NaN (see
    :func:`relative_improvement_note` for the reason in words). NaN pairs are dropped first.

    Args:
        council: per-challenge scores of the council.
        baseline: per-challenge scores of the single model, paired with ``council``.
        axis: ``None`` for plain 1-d samples (returns a float); an axis index when called by
            ``scipy.stats.bootstrap`` on a batch of resamples (returns an array, NaN where undefined).
    """
    if axis is None:
        x, y, _ = paired_arrays(council, baseline)
        if x.size == 0:
            return math.nan
        mean_b = float(y.mean())
        return math.nan if mean_b <= 0 else float(x.mean()) / mean_b - 1.0
    mean_c = np.mean(council, axis=axis)
    mean_b = np.mean(baseline, axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mean_b > 0, mean_c / np.where(mean_b > 0, mean_b, 1.0) - 1.0, np.nan)


def relative_improvement_note(baseline: ArrayLike) -> str:
    """Why :func:`relative_improvement` is undefined for this baseline sample ("" when it is defined)."""
    y = np.asarray(baseline, dtype=float)
    y = y[~np.isnan(y)]
    if y.size == 0:
        return "no paired scores"
    mean_b = float(y.mean())
    if mean_b == 0:
        return "baseline mean is 0: the relative improvement is undefined"
    if mean_b < 0:
        return f"baseline mean is negative ({mean_b:.3g}): a ratio of means has no meaning"
    return ""


def _signed_rank(d: np.ndarray, alternative: str) -> tuple[float, float]:
    """``scipy.stats.wilcoxon(d, zero_method="pratt", alternative=alternative)`` as ``(statistic, p)``.

    For 13 or fewer differences with ties or zeros, scipy runs an exact sign-flip permutation test
    with an unvectorized statistic (seconds per call on a busy CI core). The same test is run here
    through ``scipy.stats.permutation_test`` with a vectorized statistic (the sum of the positive
    ranks; ranks of ``|d|`` do not change under sign flips), which gives the same p-value in
    milliseconds. Every other case goes to ``scipy.stats.wilcoxon`` itself.
    """
    from scipy import stats as sps

    absd = np.abs(d)
    if d.size <= 13 and ((d == 0).any() or np.unique(absd).size < d.size):
        ranks = sps.rankdata(absd)

        def r_plus(x: np.ndarray, axis: int = -1) -> np.ndarray:
            return np.sum(np.where(x > 0, ranks, 0.0), axis=axis)

        p = sps.permutation_test(
            (d,), r_plus, permutation_type="samples", alternative=alternative, n_resamples=np.inf, vectorized=True
        ).pvalue
        plus, minus = float(ranks[d > 0].sum()), float(ranks[d < 0].sum())
        return (min(plus, minus) if alternative == "two-sided" else plus), float(p)
    res = sps.wilcoxon(d, zero_method=ZERO_METHOD, alternative=alternative)
    return float(res.statistic), float(res.pvalue)


class PairedTest(Frozen):
    """The outcome of a paired significance test.

    Args:
        test: the test's name.
        n: pairs used (after dropping NaN pairs).
        statistic: the test statistic (NaN when not computed).
        p_value: NaN when the test is undefined for these data (see ``note``).
        note: why the p-value is NaN, or other caveats ("" when all is well).
    """

    test: str
    n: int
    statistic: float
    p_value: float
    note: str = ""


def wilcoxon_signed_rank(
    council: ArrayLike,
    baseline: ArrayLike,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
) -> PairedTest:
    """Wilcoxon signed-rank test on ``council - baseline`` (``scipy.stats.wilcoxon``, zero_method ``pratt``).

    Args:
        council: per-challenge scores of the council.
        baseline: per-challenge scores of the baseline, paired. NaN pairs are dropped.
        alternative: ``"greater"`` tests whether the council's scores tend to be higher.

    Fewer than 2 pairs, or all differences zero, give a NaN p-value with a note: the test is
    undefined there (scipy would return 1.0 with a warning on all-zero differences).
    """
    x, y, dropped = paired_arrays(council, baseline)
    d = np.round(x - y, DECIMALS)
    prefix = f"{dropped} NaN pair(s) dropped; " if dropped else ""
    if d.size < 2:
        return PairedTest(
            test="wilcoxon",
            n=int(d.size),
            statistic=math.nan,
            p_value=math.nan,
            note=f"{prefix}insufficient data: {d.size} pair(s), Wilcoxon needs at least 2",
        )
    if not d.any():
        return PairedTest(
            test="wilcoxon",
            n=int(d.size),
            statistic=math.nan,
            p_value=math.nan,
            note=f"{prefix}all differences are zero: Wilcoxon is undefined",
        )
    statistic, p = _signed_rank(d, alternative)
    return PairedTest(test="wilcoxon", n=int(d.size), statistic=statistic, p_value=p, note=prefix.removesuffix("; "))


class McNemarResult(Frozen):
    """McNemar's exact test on paired pass/fail outcomes.

    Args:
        n: pairs.
        council_only: pairs where the council passed and the baseline failed (``b``).
        baseline_only: pairs where the baseline passed and the council failed (``c``).
        p_value: two-sided exact p; NaN with no pairs; 1.0 with no discordant pairs.
        note: caveats ("" when all is well).
    """

    n: int
    council_only: int
    baseline_only: int
    p_value: float
    note: str = ""


def mcnemar_exact(council_pass: Sequence[bool], baseline_pass: Sequence[bool]) -> McNemarResult:
    """McNemar's exact test: a two-sided binomial test of ``b`` successes in ``b + c`` trials at p = 1/2.

    Only the discordant pairs carry information: under "no difference" each is equally likely to go
    either way. Computed with ``scipy.stats.binomtest(b, b + c, 0.5)``, whose two-sided p-value for
    p = 1/2 equals ``min(1, 2 * P(X <= min(b, c)))``.

    Args:
        council_pass: per challenge, whether the council passed.
        baseline_pass: per challenge, whether the baseline passed, same order and length.
    """
    from scipy import stats as sps

    if len(council_pass) != len(baseline_pass):
        raise ValueError(f"paired pass/fail must have equal length, got {len(council_pass)} and {len(baseline_pass)}")
    b = sum(1 for c, s in zip(council_pass, baseline_pass, strict=True) if c and not s)
    c = sum(1 for cp, s in zip(council_pass, baseline_pass, strict=True) if s and not cp)
    n = len(council_pass)
    if n == 0:
        return McNemarResult(n=0, council_only=0, baseline_only=0, p_value=math.nan, note="insufficient data: no pairs")
    if b + c == 0:
        return McNemarResult(
            n=n, council_only=0, baseline_only=0, p_value=1.0, note="no discordant pairs: no evidence of a difference"
        )
    p = float(sps.binomtest(b, b + c, 0.5, alternative="two-sided").pvalue)
    return McNemarResult(n=n, council_only=b, baseline_only=c, p_value=p)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (family-wise error rate), in the input order.

    Sort the ``m`` p-values ascending, multiply the i-th smallest (i from 0) by ``m - i``, carry the
    running maximum forward so adjusted values never decrease, and cap at 1. NaN p-values (tests
    that could not be run) are left NaN and do not count towards ``m``. scipy has no Holm
    (``false_discovery_control`` is Benjamini-Hochberg/Yekutieli), hence this function.

    Args:
        p_values: one raw p-value per hypothesis.
    """
    indexed = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    m = len(indexed)
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


class RegressionTest(Frozen):
    """Is the current run worse than the baseline by more than the tolerance, beyond noise?

    Args:
        n: pairs used; n_dropped: NaN pairs dropped.
        tolerance: allowed drop on the score's own scale; alpha: significance level.
        higher_is_better: the score's direction.
        mean_change: ``mean(current - baseline)`` on the score's scale (sign not adjusted).
        statistic, p_value: one-sided Wilcoxon signed-rank on ``d = improvement + tolerance``
            (alternative: ``d`` tends to be negative); NaN when undefined (see ``note``). The
            noise-aware gate's run-level test (:func:`harness.gate.noise.run_level_test`) fills
            the same record from its own test, named in ``method``.
        powered: whether any outcome could reach ``alpha`` with this many non-tied pairs: the
            smallest exact one-sided p is ``0.5 ** n_nonzero``, so fewer than 5 pairs can never be
            significant at 0.05 (the gate's per-case tolerance rule applies at every n regardless).
        significant_drop: ``p_value < alpha``.
        note: caveats ("" when all is well).
        method: the test in words.
    """

    n: int
    n_dropped: int = 0
    tolerance: float
    alpha: float
    higher_is_better: bool
    mean_change: float
    statistic: float
    p_value: float
    powered: bool
    significant_drop: bool
    note: str = ""
    method: str = "Wilcoxon signed-rank beyond the tolerance"


def paired_regression_test(
    current: ArrayLike,
    baseline: ArrayLike,
    tolerance: float,
    alpha: float = 0.05,
    higher_is_better: bool = True,
) -> RegressionTest:
    """One-sided paired test that the current run dropped by more than ``tolerance``.

    With ``improvement = current - baseline`` (negated for lower-is-better scores), tests
    H0: the median of ``d = improvement + tolerance`` is >= 0 against H1: it is < 0, by
    Wilcoxon signed-rank (zero_method ``pratt``; ``d`` rounded to 12 decimals, so a drop of exactly
    the tolerance is a tie, not a regression). A few noisy cases that drop do not make it
    significant; a consistent drop across cases does.

    Args:
        current: per-case scores of the current run.
        baseline: per-case scores of the baseline, paired. NaN pairs are dropped.
        tolerance: the allowed drop, absolute, on the score's own scale (>= 0).
        alpha: significance level for ``significant_drop``.
        higher_is_better: the score's direction (``harness.records.score_spec.higher_is_better``).
    """
    x, y, dropped = paired_arrays(current, baseline)
    sign = 1.0 if higher_is_better else -1.0
    d = np.round(sign * (x - y) + tolerance, DECIMALS)
    n_nonzero = int(np.count_nonzero(d))
    notes = [f"{dropped} NaN pair(s) dropped"] if dropped else []
    powered = bool(0.5**n_nonzero < alpha)
    test = partial(
        RegressionTest,
        n=int(x.size),
        n_dropped=dropped,
        tolerance=tolerance,
        alpha=alpha,
        higher_is_better=higher_is_better,
        mean_change=float((x - y).mean()) if x.size else math.nan,
        powered=powered,
    )
    if n_nonzero == 0:
        reason = "no pairs" if x.size == 0 else "every pair changed by exactly the tolerance"
        return test(
            statistic=math.nan,
            p_value=math.nan,
            significant_drop=False,
            note="; ".join([*notes, f"insufficient data: {reason}"]),
        )
    statistic, p = _signed_rank(d, "less")
    if not powered:
        notes.append(f"{n_nonzero} informative pair(s) cannot reach alpha={alpha:g}")
    return test(statistic=statistic, p_value=p, significant_drop=bool(p < alpha), note="; ".join(notes))
