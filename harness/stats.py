"""Paired statistics: the ">15% better" verdict (seed 002, prediction 1) and the regression-gate test.

Seed 002 states the prediction as ``average_quality_consensus > 1.15 x average_quality_single_model``,
so the effect size here is the **ratio of means** minus one (:func:`relative_improvement`), not the
mean of per-challenge ratios (which explodes on challenges where the single model scored near 0).
Its uncertainty comes from a paired bootstrap over challenges (scipy's ``bootstrap(paired=True)``,
BCa by default), and the verdict compares the whole confidence interval with the threshold:

* ``supported`` when ``ci_low > threshold``;
* ``refuted`` when ``ci_high < threshold``;
* ``inconclusive`` otherwise, including every case where the interval is undefined.

The p-values answer a different question, "is there any paired difference at all?": Wilcoxon
signed-rank on the per-challenge scores, McNemar's exact test on paired pass/fail, and the Holm
step-down correction of the Wilcoxon p-values across score families. They are reported beside the
verdict; they do not decide it.

Conventions: pairs where either score is NaN are dropped and counted (``n_dropped``); anything that
cannot be computed (too few pairs, zero baseline mean, all differences zero) is NaN with a ``note``
saying why, never an exception.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

import numpy as np
from pydantic import model_validator
from scipy import stats as sps

from harness.model import Frozen

#: Wilcoxon's handling of zero differences (ties between the paired scores). ``"pratt"`` ranks the
#: zeros with the others and then drops their ranks (Pratt 1959): ties count as evidence of "no
#: difference", which is more conservative than dropping them before ranking (``"wilcox"``) when
#: many challenges are tied, as they are on coarse 0-10 or 0-100 ratings. With no zeros both agree.
ZERO_METHOD: Literal["pratt"] = "pratt"

#: Differences are rounded to this many decimals before testing so that float noise such as
#: ``0.8 - 0.75 - 0.05 = -4e-17`` counts as an exact tie.
DECIMALS = 12

Verdict = Literal["supported", "refuted", "inconclusive"]
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


def relative_improvement(
    council: ArrayLike, baseline: ArrayLike, *, axis: int | None = None
) -> float | np.ndarray:
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


class BootstrapCI(Frozen):
    """A bootstrap confidence interval.

    Args:
        low, high: the interval (NaN when it cannot be computed).
        confidence: its level, e.g. 0.95.
        method: ``"BCa"`` or ``"percentile"`` (scipy's names).
        n_resamples: bootstrap resamples drawn.
        seed: the seed of the generator, so the interval can be reproduced.
        note: why the interval is NaN or may be unreliable ("" when all is well).
    """

    low: float
    high: float
    confidence: float
    method: str
    n_resamples: int
    seed: int
    note: str = ""


def paired_bootstrap_ci(
    council: ArrayLike,
    baseline: ArrayLike,
    stat: Callable[..., float | np.ndarray] = relative_improvement,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    method: Literal["BCa", "percentile"] = "BCa",
) -> BootstrapCI:
    """Confidence interval of ``stat(council, baseline)`` by resampling challenges jointly.

    Uses ``scipy.stats.bootstrap(..., paired=True)``: each resample draws challenge indices with
    replacement and keeps each challenge's two scores together.

    Args:
        council: per-challenge scores of the council.
        baseline: per-challenge scores of the baseline, paired with ``council``. NaN pairs are dropped.
        stat: the statistic of the two samples; vectorized when it accepts an ``axis`` keyword
            (as :func:`relative_improvement` does), called once per resample otherwise.
        n_resamples: number of bootstrap resamples.
        confidence: two-sided confidence level in (0, 1).
        seed: seed of ``numpy.random.default_rng``; the same seed gives the same interval.
        method: ``"BCa"`` (bias-corrected and accelerated, scipy's default) or ``"percentile"``.
    """
    x, y, dropped = paired_arrays(council, baseline)
    notes = [f"{dropped} NaN pair(s) dropped"] if dropped else []

    def result(low: float, high: float, note: str = "") -> BootstrapCI:
        return BootstrapCI(
            low=low, high=high, confidence=confidence, method=method, n_resamples=n_resamples, seed=seed,
            note="; ".join([*notes, note] if note else notes),
        )

    if x.size < 2:
        return result(math.nan, math.nan, f"insufficient data: {x.size} pair(s), the bootstrap needs at least 2")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = sps.bootstrap(
            (x, y), stat, paired=True, n_resamples=n_resamples, confidence_level=confidence, method=method,
            rng=np.random.default_rng(seed),
        )
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    dist = np.asarray(res.bootstrap_distribution, dtype=float)
    undefined = int((~np.isfinite(dist)).sum())
    if undefined:
        return result(math.nan, math.nan, f"the statistic is undefined in {undefined} of {dist.size} resamples")
    if np.ptp(dist) <= 1e-12 * max(1.0, float(np.abs(dist).max())):
        # e.g. council = k * baseline on every challenge: every resample gives k - 1 (BCa would be NaN)
        value = float(np.median(dist))
        return result(value, value, "every resample gives the same value: the interval is a point")
    if math.isnan(low) or math.isnan(high):
        scipy_says = [str(w.message).split(".")[0] for w in caught if issubclass(w.category, sps.DegenerateDataWarning)]
        return result(math.nan, math.nan, scipy_says[0] if scipy_says else "the interval is undefined")
    return result(low, high)


def _signed_rank(d: np.ndarray, alternative: str) -> tuple[float, float]:
    """``scipy.stats.wilcoxon(d, zero_method="pratt", alternative=alternative)`` as ``(statistic, p)``.

    For 13 or fewer differences with ties or zeros, scipy runs an exact sign-flip permutation test
    with an unvectorized statistic (seconds per call on a busy CI core). The same test is run here
    through ``scipy.stats.permutation_test`` with a vectorized statistic (the sum of the positive
    ranks; ranks of ``|d|`` do not change under sign flips), which gives the same p-value in
    milliseconds. Every other case goes to ``scipy.stats.wilcoxon`` itself.
    """
    absd = np.abs(d)
    if d.size <= 13 and ((d == 0).any() or np.unique(absd).size < d.size):
        ranks = sps.rankdata(absd)

        def r_plus(x: np.ndarray, axis: int = -1) -> np.ndarray:
            return np.sum(np.where(x > 0, ranks, 0.0), axis=axis)

        p = sps.permutation_test((d,), r_plus, permutation_type="samples", alternative=alternative,
                                 n_resamples=np.inf, vectorized=True).pvalue
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
        return PairedTest(test="wilcoxon", n=int(d.size), statistic=math.nan, p_value=math.nan,
                          note=f"{prefix}insufficient data: {d.size} pair(s), Wilcoxon needs at least 2")
    if not d.any():
        return PairedTest(test="wilcoxon", n=int(d.size), statistic=math.nan, p_value=math.nan,
                          note=f"{prefix}all differences are zero: Wilcoxon is undefined")
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
    if len(council_pass) != len(baseline_pass):
        raise ValueError(f"paired pass/fail must have equal length, got {len(council_pass)} and {len(baseline_pass)}")
    b = sum(1 for c, s in zip(council_pass, baseline_pass, strict=True) if c and not s)
    c = sum(1 for cp, s in zip(council_pass, baseline_pass, strict=True) if s and not cp)
    n = len(council_pass)
    if n == 0:
        return McNemarResult(n=0, council_only=0, baseline_only=0, p_value=math.nan, note="insufficient data: no pairs")
    if b + c == 0:
        return McNemarResult(n=n, council_only=0, baseline_only=0, p_value=1.0,
                             note="no discordant pairs: no evidence of a difference")
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


class PairedSample(Frozen):
    """Paired per-challenge scores of one score family.

    Args:
        council: the council's score per challenge.
        baseline: the single-model baseline's score per challenge, same order.
        ids: challenge ids in the same order (needed for per-category verdicts).
        council_pass, baseline_pass: optional paired pass/fail outcomes, for McNemar's test.
    """

    council: tuple[float, ...]
    baseline: tuple[float, ...]
    ids: tuple[str, ...] | None = None
    council_pass: tuple[bool, ...] | None = None
    baseline_pass: tuple[bool, ...] | None = None

    @model_validator(mode="after")
    def _same_length(self) -> PairedSample:
        n = len(self.council)
        for name in ("baseline", "ids", "council_pass", "baseline_pass"):
            value = getattr(self, name)
            if value is not None and len(value) != n:
                raise ValueError(f"{name} has {len(value)} entries, council has {n}: paired samples must align")
        if (self.council_pass is None) != (self.baseline_pass is None):
            raise ValueError("give both council_pass and baseline_pass, or neither")
        return self

    def subset(self, indices: Sequence[int]) -> PairedSample:
        """The sample restricted to the given positions."""

        def pick(values: tuple | None) -> tuple | None:
            return None if values is None else tuple(values[i] for i in indices)

        return PairedSample(
            council=pick(self.council), baseline=pick(self.baseline), ids=pick(self.ids),
            council_pass=pick(self.council_pass), baseline_pass=pick(self.baseline_pass),
        )


class PredictionVerdict(Frozen):
    """The ">threshold better" verdict for one score family in one scope (overall or a category).

    Args:
        family: the score family's name.
        n: pairs used; n_dropped: NaN pairs dropped.
        mean_council, mean_baseline: the two means.
        relative_improvement: ``mean_council / mean_baseline - 1``.
        ci_low, ci_high: its paired bootstrap interval; confidence: the interval's level.
        wilcoxon_p: two-sided Wilcoxon signed-rank p-value; p_holm: the same after Holm across the
            families of this scope.
        mcnemar_p: McNemar's exact p on pass/fail, ``None`` when pass/fail was not given.
        threshold: the relative improvement the prediction claims (0.15 = 15%).
        verdict: ``supported`` (ci_low > threshold), ``refuted`` (ci_high < threshold), else
            ``inconclusive``.
        note: why something is NaN ("" when all is well).
        summary: one line for people.
    """

    family: str
    n: int
    n_dropped: int = 0
    mean_council: float
    mean_baseline: float
    relative_improvement: float
    ci_low: float
    ci_high: float
    confidence: float = 0.95
    wilcoxon_p: float
    p_holm: float
    mcnemar_p: float | None = None
    threshold: float = 0.15
    verdict: Verdict
    note: str = ""
    summary: str


class PredictionReport(Frozen):
    """Verdicts overall and per category.

    Args:
        threshold, confidence, n_resamples, seed: the settings used (for reproduction).
        overall: one verdict per family over every challenge.
        by_category: category -> one verdict per family over that category's challenges.
    """

    threshold: float
    confidence: float
    n_resamples: int
    seed: int
    overall: tuple[PredictionVerdict, ...]
    by_category: dict[str, tuple[PredictionVerdict, ...]] = {}


def verdict_for(ci_low: float, ci_high: float, threshold: float) -> Verdict:
    """``supported`` when ``ci_low > threshold``, ``refuted`` when ``ci_high < threshold``, else ``inconclusive``.

    NaN bounds compare false, so an undefined interval is ``inconclusive``.
    """
    if ci_low > threshold:
        return "supported"
    if ci_high < threshold:
        return "refuted"
    return "inconclusive"


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:+.1%}"


def _p(x: float | None) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.3g}"


def _verdicts_for_scope(
    families: Mapping[str, PairedSample], threshold: float, confidence: float, n_resamples: int, seed: int,
    method: Literal["BCa", "percentile"],
) -> tuple[PredictionVerdict, ...]:
    partial: list[dict] = []
    for family, sample in families.items():
        x, y, dropped = paired_arrays(sample.council, sample.baseline)
        ri = relative_improvement(x, y)
        ci = paired_bootstrap_ci(x, y, n_resamples=n_resamples, confidence=confidence, seed=seed, method=method)
        wil = wilcoxon_signed_rank(x, y)
        mc = None
        if sample.council_pass is not None and sample.baseline_pass is not None:
            mc = mcnemar_exact(sample.council_pass, sample.baseline_pass).p_value
        notes = [f"{dropped} NaN pair(s) dropped"] if dropped else []
        notes += [n for n in (relative_improvement_note(y) if x.size else "no paired scores", ci.note, wil.note) if n]
        partial.append(dict(
            family=family, n=int(x.size), n_dropped=dropped,
            mean_council=float(x.mean()) if x.size else math.nan,
            mean_baseline=float(y.mean()) if y.size else math.nan,
            relative_improvement=ri, ci_low=ci.low, ci_high=ci.high, confidence=confidence,
            wilcoxon_p=wil.p_value, mcnemar_p=mc, threshold=threshold,
            verdict=verdict_for(ci.low, ci.high, threshold),
            note="; ".join(dict.fromkeys(notes)),
        ))
    adjusted = holm([p["wilcoxon_p"] for p in partial])
    out = []
    for p, p_holm in zip(partial, adjusted, strict=True):
        summary = (
            f"{p['family']}: council {_pct(p['relative_improvement'])} vs baseline "
            f"({confidence:.0%} CI {_pct(p['ci_low'])} to {_pct(p['ci_high'])}, n={p['n']}) -> {p['verdict']} "
            f"(threshold {_pct(threshold)}); Wilcoxon p={_p(p['wilcoxon_p'])}, Holm p={_p(p_holm)}"
            + (f", McNemar p={_p(p['mcnemar_p'])}" if p["mcnemar_p"] is not None else "")
            + (f" [{p['note']}]" if p["note"] else "")
        )
        out.append(PredictionVerdict(**p, p_holm=p_holm, summary=summary))
    return tuple(out)


UNCATEGORIZED = "uncategorized"


def evaluate_prediction(
    families: Mapping[str, PairedSample],
    threshold: float = 0.15,
    by_category: Mapping[str, str] | None = None,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    method: Literal["BCa", "percentile"] = "BCa",
) -> PredictionReport:
    """Test "the council is more than ``threshold`` better than the single model" per score family.

    Args:
        families: score family name -> its paired per-challenge scores (higher is better).
        threshold: the claimed relative improvement (seed 002: 0.15).
        by_category: challenge id -> category; when given, every category also gets its verdicts
            (challenges missing from the mapping go to ``"uncategorized"``). Requires ``ids``.
        confidence: bootstrap confidence level.
        n_resamples: bootstrap resamples per family and scope.
        seed: bootstrap seed (the same for every family and scope).
        method: bootstrap interval method, ``"BCa"`` or ``"percentile"``.

    Holm's correction runs across the families within each scope (overall, each category).
    """
    args = (threshold, confidence, n_resamples, seed, method)
    overall = _verdicts_for_scope(families, *args)
    per_category: dict[str, tuple[PredictionVerdict, ...]] = {}
    if by_category is not None:
        groups: dict[str, dict[str, list[int]]] = {}
        for family, sample in families.items():
            if sample.ids is None:
                raise ValueError(f"family {family!r} has no challenge ids: per-category verdicts need them")
            for i, cid in enumerate(sample.ids):
                groups.setdefault(by_category.get(cid, UNCATEGORIZED), {}).setdefault(family, []).append(i)
        for category in sorted(groups):
            scoped = {f: families[f].subset(idx) for f, idx in groups[category].items()}
            per_category[category] = _verdicts_for_scope(scoped, *args)
    return PredictionReport(
        threshold=threshold, confidence=confidence, n_resamples=n_resamples, seed=seed, overall=overall,
        by_category=per_category,
    )


class RegressionTest(Frozen):
    """Is the current run worse than the baseline by more than the tolerance, beyond noise?

    Args:
        n: pairs used; n_dropped: NaN pairs dropped.
        tolerance: allowed drop on the score's own scale; alpha: significance level.
        higher_is_better: the score's direction.
        mean_change: ``mean(current - baseline)`` on the score's scale (sign not adjusted).
        statistic, p_value: one-sided Wilcoxon signed-rank on ``d = improvement + tolerance``
            (alternative: ``d`` tends to be negative); NaN when undefined (see ``note``).
        powered: whether any outcome could reach ``alpha`` with this many non-tied pairs: the
            smallest exact one-sided p is ``0.5 ** n_nonzero``, so fewer than 5 pairs can never be
            significant at 0.05 (callers then fall back to per-case tolerances).
        significant_drop: ``p_value < alpha``.
        note: caveats ("" when all is well).
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
        higher_is_better: the score's direction (``harness.scores.higher_is_better``).
    """
    x, y, dropped = paired_arrays(current, baseline)
    sign = 1.0 if higher_is_better else -1.0
    d = np.round(sign * (x - y) + tolerance, DECIMALS)
    n_nonzero = int(np.count_nonzero(d))
    notes = [f"{dropped} NaN pair(s) dropped"] if dropped else []
    common = dict(
        n=int(x.size), n_dropped=dropped, tolerance=tolerance, alpha=alpha, higher_is_better=higher_is_better,
        mean_change=float((x - y).mean()) if x.size else math.nan, powered=bool(0.5**n_nonzero < alpha),
    )
    if n_nonzero == 0:
        reason = "no pairs" if x.size == 0 else "every pair changed by exactly the tolerance"
        return RegressionTest(**common, statistic=math.nan, p_value=math.nan, significant_drop=False,
                              note="; ".join([*notes, f"insufficient data: {reason}"]))
    statistic, p = _signed_rank(d, "less")
    if not common["powered"]:
        notes.append(f"{n_nonzero} informative pair(s) cannot reach alpha={alpha:g}")
    return RegressionTest(**common, statistic=statistic, p_value=p, significant_drop=bool(p < alpha),
                          note="; ".join(notes))
