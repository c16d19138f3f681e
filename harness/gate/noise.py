"""The gate's rule for non-deterministic subjects: regress only beyond the run's own noise.

A subject sampled at temperature > 0 (or any run with repeats) gives a different answer, score and
pass/fail on every run even when nothing changed. The strict rule (any drop beyond the tolerance,
any newly failing case) then fails almost every unchanged run. This module holds the rule that
replaces it in noise-aware mode (:func:`harness.gate.baselines.compare`); deterministic runs
(temperature 0, replayed) keep the strict rule.

**Budget.** The whole comparison errs on an unchanged run with probability at most
:data:`GATE_ALPHA` (5%): the share :data:`CASE_SHARE` goes to the per-case tests, the rest to the
run-level tests. Within each part the level is shared by Tarone's Bonferroni rule (:func:`tarone_level`):
tests that cannot reach significance whatever their outcome (a single pass/fail flip at k = 1 has
p >= 0.5) take no share, so ``K`` is the number of tests that can, and each is run at ``alpha / K``.
Family-wise error <= alpha by Bonferroni over the ``K`` tests that can reject.

**Scores, per case** (:class:`ScoreNoise`). A run's value of a case is its true value plus noise of
SD ``sigma`` (per run; means over ``k`` repeats have SD ``sigma / sqrt(k)``). ``sigma^2`` is
estimated per subject and score from three sources pooled (a scaled-inverse-chi^2 posterior):

* a prior of ``PRIOR_DF`` degrees of freedom at ``sigma_0 = PRIOR_SD_FRACTION * scale`` (7.5% of the
  score's scale, 0.75 points on 0-10): the floor when the repeats agree (7,7,7 -> 6,6,6) and at k = 1;
* the repeats' within-case sums of squares of every case, both sides (``sum (k - 1) sd^2``);
* the between-run changes of every *other* case, ``d_j^2 / w_j`` with ``d_j = mean_current -
  mean_baseline`` and ``w_j = 1/k_b + 1/k_c`` (1 df each; a case's own change never widens its band).

``s_i^2 = (nu_0 sigma_0^2 + SS_within + sum_{j != i} d_j^2 / w_j) / (nu_0 + df_within + m - 1)``,
raised to the case's own within-case variance when that is larger (a case noisier than the rest
keeps its own spread). The case regresses when its drop exceeds ``tolerance + t_{1 - a, df} * s_i *
sqrt(w_i)`` with ``a`` its Tarone level and ``df`` the pooled degrees of freedom.

**Pass/fail, per case** (:func:`fisher_worse_p`). The case failed ``f_b`` of ``k_b`` baseline repeats
and ``f_c`` of ``k_c`` current ones; it regresses when the one-sided Fisher exact p of "the current
failure rate is higher" is at most its Tarone level. A binary score (``correct``, ``safety_passed``:
values 0 or 1) is tested the same way on its count of bad values.

**Run level** (:func:`run_level_test`, :func:`sign_test_worse_p`). Per subject, the one-sided sign
test on the per-case failure-rate changes (McNemar's exact test at k = 1), and per gated score a
paired test of "the subject's mean got worse" on the per-case means over the repeats: for a binary
score the same sign test on the cases whose mean changed, for every other score the one-sided
paired sign-flip test of the mean change (:func:`harness.stats.signflip.sign_flip_test`, exact up to
14 cases, 10,000 random sign patterns above). These tests have no tolerance: the tolerance is a
per-case allowance (one case may move that much by design), while a drop of the *mean* that the
noise cannot explain is a regression of the subject however small each case's share (issue 27: a
drop of 0.7 on every case, tolerance 0.5, was caught in 2.5% of runs by the Wilcoxon test beyond the
tolerance). **Validity:** under the null (nothing changed) the baseline's and the current run's
repeats of a case are exchangeable, so with equal repeats on both sides each case's change of
means is symmetric about 0 and independent across cases: the sign-flip test and the sign test are
exact (with unequal repeats they stay exact when the noise itself is symmetric). The smallest p a
test can reach (``0.5 ** m`` for ``m`` changed cases; ``1 / patterns`` for the Monte-Carlo
sign-flip) enters Tarone's rule, so tests that cannot reject take no share.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

import numpy as np

from harness.common.model import Frozen
from harness.stats import DECIMALS, RegressionTest, signflip
from harness.stats.cluster import t_quantile

#: The comparison's false-alarm budget on an unchanged run.
GATE_ALPHA = 0.05
#: The share of the budget spent on per-case tests (the rest on run-level tests).
CASE_SHARE = 0.7
#: The prior noise SD per run, as a share of the score's scale (0.075: 0.75 points on a 0-10 score).
PRIOR_SD_FRACTION = 0.075
#: The prior's weight in degrees of freedom.
PRIOR_DF = 10.0
#: Scores whose values are 0 or 1 and are tested as pass/fail counts in noise-aware mode.
BINARY_SCORES: frozenset[str] = frozenset({"correct", "safety_passed"})


def tarone_level(min_p_values: Sequence[float], alpha: float) -> float:
    """The per-test level ``alpha / K`` of Tarone's Bonferroni rule for discrete tests.

    ``K`` is the smallest ``k >= 1`` such that at most ``k`` tests have a smallest attainable p-value
    ``<= alpha / k``; the other tests cannot reject at that level and take no share of ``alpha``.
    With every test continuous (smallest p 0) this is Bonferroni over all of them.
    """
    ordered = sorted(min_p_values)
    n = len(ordered)
    for k in range(1, n + 1):
        if bisect.bisect_right(ordered, alpha / k) <= k:
            return alpha / k
    return alpha / max(n, 1)


def _hypergeom_pmf(x: int, total: int, bad: int, draws: int) -> float:
    return math.comb(bad, x) * math.comb(total - bad, draws - x) / math.comb(total, draws)


def fisher_worse_p(bad_base: int, k_base: int, bad_current: int, k_current: int) -> float:
    """One-sided Fisher exact p that the current bad rate exceeds the baseline's.

    Conditional on the ``F = bad_base + bad_current`` bad outcomes of the ``k_base + k_current``
    runs, the current run's count is hypergeometric under H0 (equal rates):
    ``p = P(X >= bad_current)``, ``X ~ Hypergeom(k_base + k_current, F, k_current)``.
    """
    total, bad = k_base + k_current, bad_base + bad_current
    top = min(bad, k_current)
    return min(1.0, math.fsum(_hypergeom_pmf(x, total, bad, k_current) for x in range(bad_current, top + 1)))


def fisher_min_p(bad_base: int, k_base: int, bad_current: int, k_current: int) -> float:
    """The smallest p :func:`fisher_worse_p` can give with these margins (1 when nothing failed)."""
    total, bad = k_base + k_current, bad_base + bad_current
    if bad == 0:
        return 1.0
    return _hypergeom_pmf(min(bad, k_current), total, bad, k_current)


def sign_test_worse_p(worse: int, better: int) -> float:
    """One-sided sign test: ``P(Bin(worse + better, 1/2) >= worse)`` (1 when both are 0)."""
    n = worse + better
    if n == 0:
        return 1.0
    return min(1.0, math.fsum(math.comb(n, x) for x in range(worse, n + 1)) / 2.0**n)


class CaseNoise(Frozen):
    """One case's values of one score on both sides, as the noise model sees them.

    Args:
        k_base, k_current: repeats with a value; mean_base, mean_current: their means;
        ss_within, df_within: the case's within-repeat sum of squares and its degrees of freedom
            (both sides together).
    """

    k_base: int
    k_current: int
    mean_base: float
    mean_current: float
    ss_within: float = 0.0
    df_within: int = 0

    @property
    def weight(self) -> float:
        """``w = 1/k_b + 1/k_c``: the variance of the change of means, in units of ``sigma^2``."""
        return 1.0 / self.k_base + 1.0 / self.k_current

    @property
    def between(self) -> float:
        """``d^2 / w``: the case's change as one degree of freedom of ``sigma^2``."""
        return (self.mean_current - self.mean_base) ** 2 / self.weight


class ScoreNoise(Frozen):
    """The noise model of one score of one subject over the ``m`` cases compared (module docstring).

    Args:
        prior_sd: ``sigma_0``; prior_df: ``nu_0``.
        ss_within, df_within: the within-repeat sums of squares and degrees of freedom of every case.
        between_sum: ``sum d_j^2 / w_j`` over every case; m: the number of cases.
    """

    prior_sd: float
    prior_df: float = PRIOR_DF
    ss_within: float
    df_within: int
    between_sum: float
    m: int

    @classmethod
    def of(cls, cases: Sequence[CaseNoise], scale: float) -> ScoreNoise:
        return cls(
            prior_sd=PRIOR_SD_FRACTION * scale,
            ss_within=math.fsum(c.ss_within for c in cases),
            df_within=sum(c.df_within for c in cases),
            between_sum=math.fsum(c.between for c in cases),
            m=len(cases),
        )

    @property
    def df(self) -> float:
        """Degrees of freedom of each case's noise SD: prior + within + the other cases' changes."""
        return self.prior_df + self.df_within + max(self.m - 1, 0)

    def sd(self, case: CaseNoise) -> float:
        """``s_i``: the per-run noise SD for ``case``, its own change left out (module docstring)."""
        other = max(self.between_sum - case.between, 0.0)
        pooled = (self.prior_df * self.prior_sd**2 + self.ss_within + other) / self.df
        own = case.ss_within / case.df_within if case.df_within > 0 else 0.0
        return math.sqrt(max(pooled, own))

    def band(self, case: CaseNoise, level: float) -> float:
        """The drop beyond the tolerance that noise explains at one-sided ``level``: ``t * s_i * sqrt(w_i)``."""
        return t_quantile(1.0 - level, self.df) * self.sd(case) * math.sqrt(case.weight)


def case_noise(
    base: Sequence[float], current: Sequence[float], base_spread: tuple[int, float] | None = None
) -> CaseNoise:
    """:class:`CaseNoise` from the repeat values of both sides (each non-empty).

    ``base_spread = (k, sd)`` stands for the baseline's ``k`` values when only their mean
    (``base[0]``) and sample SD were stored (a baseline's :class:`~harness.gate.repeats.ScoreSpread`).
    """

    def ss(values: Sequence[float]) -> float:
        mean = math.fsum(values) / len(values)
        return math.fsum((v - mean) ** 2 for v in values)

    k_base, ss_base = (
        (len(base), ss(base)) if base_spread is None else (base_spread[0], (base_spread[0] - 1) * base_spread[1] ** 2)
    )
    mean_base = math.fsum(base) / len(base)
    return CaseNoise(
        k_base=k_base,
        k_current=len(current),
        mean_base=mean_base,
        mean_current=math.fsum(current) / len(current),
        ss_within=ss_base + ss(current),
        df_within=k_base - 1 + len(current) - 1,
    )


def run_level_min_p(changes: Sequence[float], binary: bool) -> float:
    """The smallest p :func:`run_level_test` can reach with these per-case changes (Tarone's rule):
    ``0.5 ** m`` for ``m`` changed cases, at least ``1 / patterns`` for the Monte-Carlo sign-flip."""
    m = sum(1 for c in changes if round(c, DECIMALS) != 0)
    if binary or signflip.is_exact(len(changes)):
        return 0.5**m
    return max(0.5**m, 1.0 / (RUN_LEVEL_PATTERNS + 1))


#: Random sign patterns of the run-level sign-flip test above 14 cases (seed 0: reproducible).
RUN_LEVEL_PATTERNS = 10_000


def run_level_test(
    current: Sequence[float], baseline: Sequence[float], alpha: float, higher_is_better: bool, binary: bool
) -> RegressionTest:
    """The run-level test of the module docstring: did the subject's mean on this score get worse?

    ``current``, ``baseline``: per-case means over the repeats, paired. A binary score: the
    one-sided sign test over the cases whose mean changed; else the one-sided paired sign-flip test
    of ``mean(drop) > 0``. ``significant_drop`` when ``p <= alpha``.
    """
    sign = 1.0 if higher_is_better else -1.0
    drop = np.round(sign * (np.asarray(baseline, dtype=float) - np.asarray(current, dtype=float)), DECIMALS)
    n, changed = int(drop.size), int(np.count_nonzero(drop))
    if binary:
        worse, better = int(np.sum(drop > 0)), int(np.sum(drop < 0))
        p, method = sign_test_worse_p(worse, better), f"sign test ({worse} case(s) worse, {better} better)"
    elif changed == 0:
        p, method = 1.0, "paired sign-flip test of the mean change"
    else:
        test = signflip.sign_flip_test(drop, confidence=0.95, n_resamples=RUN_LEVEL_PATTERNS, seed=0)
        p, method = test.p_value, f"paired sign-flip test of the mean change ({test.n_patterns} sign patterns)"
    min_p = run_level_min_p(list(drop), binary)
    return RegressionTest(
        n=n,
        tolerance=0.0,
        alpha=alpha,
        higher_is_better=higher_is_better,
        mean_change=float(-sign * drop.mean()) if n else math.nan,
        statistic=float(drop.mean()) if n else math.nan,
        p_value=p,
        powered=min_p <= alpha,
        significant_drop=bool(n and p <= alpha),
        note="" if min_p <= alpha else f"{changed} changed case(s) cannot reach alpha={alpha:.3g}",
        method=method,
    )
