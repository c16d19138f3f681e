"""Tests of ``mean(council - (1 + t) x baseline) > 0`` that keep their level without symmetry (issue 27).

The paired sign-flip test (:mod:`harness.stats.signflip`) is exact when the differences are
symmetric about their centre under H0. Binary differences (0, 1, -(1 + t), -t) and skewed or
zero-inflated scores are not, and its error at the boundary rose to 2.9-5.5% in such worlds. The
verdict therefore decides with:

**Binary endpoints: an exact unconditional test on the discordant structure**
(:func:`binary_boundary_test`). Given the ``N`` informative pairs (every pair but (0, 0)), the
counts ``(n10, n01, n11)`` (council right only, baseline right only, both right) are trinomial with
probabilities ``(q10, q01, q11)``, and ``mean(d) > 0`` exactly when
``q10 - (1 + t) q01 - t q11 > 0``. The statistic is ``T = n10 - (1 + t) n01 - t n11``; the p-value of
H0 "not more than ``t`` better" is ``sup P_q(T >= T_obs)`` over the boundary
``q10 - (1 + t) q01 - t q11 = 0``, a one-parameter family (``q11 = u`` in ``[0, 1/(1 + t)]``,
``q01 = (1 - (1 + t) u) / (2 + t)``, ``q10 = 1 - u - q01``), evaluated exactly on a grid of
``GRID`` values of ``u`` by enumerating every table. Conditioning on ``N`` (the pairs (0, 0) carry no
information on the sign of the mean) keeps it exact; the supremum makes it valid whatever the
nuisance ``u``. "Refuted" uses ``sup P_q(T <= T_obs)`` likewise.

**Scores: the sign-flip test and the skewness-corrected t-test must both reject**
(:func:`score_boundary_test`). With ``d_i = council_i - (1 + t) baseline_i``, ``n`` pairs, mean
``dbar``, SD ``s`` (``ddof = 1``) and sample skewness ``g = m3 / m2^(3/2)`` (central moments with
divisor ``n``), the studentised mean ``T = sqrt(n) dbar / s`` has the Edgeworth expansion
``P(T <= x) = Phi(x) + n^(-1/2) (gamma / 6) (2 x^2 + 1) phi(x) + O(1/n)`` (Hall 1992, *The
Bootstrap and Edgeworth Expansion*, eq. 2.55): a skewed ``d`` shifts the t-test's one-sided error by
``O(n^(-1/2))``. Hall's monotone transformation (Hall 1992, JRSS B 54, "On the removal of skewness
by transformation") removes that term: with ``a = g / (3 sqrt(n))``,

    G(T) = T + a T^2 + a^2 T^3 / 3 + a / 2 = ((1 + a T)^3 - 1) / (3 a) + a / 2,

which is non-decreasing in ``T`` and satisfies ``P(G <= x) = Phi(x) + O(1/n)``. ``G`` is referred to
Student's ``t_{n-1}`` (exact for normal ``d``, where ``g`` is near 0; the same ``O(1/n)`` otherwise):
``p_greater = P(t_{n-1} >= G)``, ``p_less = P(t_{n-1} <= G)``. A ``d`` with no spread has
``p_greater`` 0 when it is positive (1 otherwise), and ``p_less`` the mirror.

The verdict says "supported" only when **both** this test and the sign-flip test
(:mod:`harness.stats.signflip`) reject at the level (likewise "refuted"), and, for a family whose
scale is declared, the betting test of :mod:`harness.stats.betting` as well: the rejection set is the
intersection, so in every world ``P(reject) <= min(P_sign-flip(reject), P_skew-t(reject), P_bet(reject))``,
and the betting test's level is proved for every distribution on the declared scale. What follows
is about these two tests alone (a family without a declared scale).
**Proved:** the level holds exactly whenever ``d`` is symmetric under H0 (the sign-flip test is
exact). **Asymptotic:** under skew, the one-sided error of the corrected t is ``level + O(1/n)``
instead of ``level + O(n^(-1/2))`` (bounded scores have every moment; the expansion also assumes a
non-lattice studentised mean). **Measured, not proved:** the rates at n = 10-100 in the blind worlds
(docs/statistics.md). **Impossible for any rule:** rare large values in one direction that the
sample happens not to contain. When the council scores 0 on 10% of cases, a sample of 20 has no zero
with probability ``0.9^20 = 12.2%``, and such a sample is a draw from the world without crashes,
where the council is truly about 28% better; so *any* test's false "supported" at that boundary is
at least 12.2% times its power against the crash-free world, and keeping it at 2.5% needs that
power to be at most 20.5% (docs/statistics.md gives the measured figures). No test of a mean is
valid over every distribution with unbounded support either (Bahadur and Savage 1956); the
harness's scores are bounded.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from harness.common.model import Frozen

#: Values of the nuisance parameter ``u = q11`` on the H0 boundary at which the exact p is evaluated.
GRID = 101


class BinaryBoundaryTest(Frozen):
    """The exact unconditional test of :func:`binary_boundary_test`.

    Args:
        n10, n01, n11: pairs where only the council, only the baseline, or both are right.
        p_greater: sup-p of "not more than ``threshold`` better" (small: supported).
        p_less: sup-p of "at least ``threshold`` better" (small: refuted).
    """

    n10: int
    n01: int
    n11: int
    p_greater: float
    p_less: float


@lru_cache(maxsize=64)
def _boundary(n: int, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Every table's statistic ``T`` (sorted) and, per grid value of ``u``, the cumulative
    probability of the tables in that order: ``cum[g, j] = P_{u_g}(T <= sorted_T[j])``."""
    from scipy.special import gammaln, xlogy

    a, b = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = a + b <= n
    a, b = a[keep].astype(float), b[keep].astype(float)
    c = n - a - b
    coef = gammaln(n + 1) - gammaln(a + 1) - gammaln(b + 1) - gammaln(c + 1)
    r = 1.0 + threshold
    stat = np.round(a - r * b - threshold * c, 9)
    order = np.argsort(stat, kind="stable")
    u = np.linspace(0.0, 1.0 / r, GRID)[:, None]
    q01 = (1.0 - r * u) / (2.0 + threshold)
    q10 = 1.0 - u - q01
    prob = np.exp(coef + xlogy(a, q10) + xlogy(b, q01) + xlogy(c, u))
    cum = np.cumsum(prob[:, order], axis=1).astype(np.float32)  # 2 MB at n = 100
    cum.setflags(write=False)
    sorted_stat = stat[order]
    sorted_stat.setflags(write=False)
    return sorted_stat, cum


def binary_boundary_test(council: np.ndarray, baseline: np.ndarray, threshold: float) -> BinaryBoundaryTest:
    """The exact test of the module docstring on paired 0/1 outcomes (``council``, ``baseline``)."""
    c = np.asarray(council, dtype=float) == 1.0
    b = np.asarray(baseline, dtype=float) == 1.0
    n10, n01, n11 = int(np.sum(c & ~b)), int(np.sum(~c & b)), int(np.sum(c & b))
    n = n10 + n01 + n11
    if n == 0:
        return BinaryBoundaryTest(n10=0, n01=0, n11=0, p_greater=1.0, p_less=1.0)
    stat, cum = _boundary(n, float(threshold))
    observed = round(n10 - (1.0 + threshold) * n01 - threshold * n11, 9)
    below = int(np.searchsorted(stat, observed, side="left"))  # tables with T < observed
    upto = int(np.searchsorted(stat, observed, side="right"))  # tables with T <= observed
    total = cum[:, -1].astype(float)
    greater = float(np.max(total - (cum[:, below - 1] if below > 0 else 0.0)))
    less = float(np.max(cum[:, upto - 1])) if upto > 0 else 0.0
    return BinaryBoundaryTest(
        n10=n10, n01=n01, n11=n11, p_greater=min(1.0, max(greater, 0.0)), p_less=min(1.0, max(less, 0.0))
    )


class ScoreBoundaryTest(Frozen):
    """The skewness-corrected t-test of :func:`score_boundary_test`.

    Args:
        n: pairs; t: the studentised mean ``T``; skewness: the sample skewness ``g``;
        corrected: Hall's ``G(T)``; p_greater: ``P(t_{n-1} >= G)`` (small: supported);
        p_less: ``P(t_{n-1} <= G)`` (small: refuted).
    """

    n: int
    t: float
    skewness: float
    corrected: float
    p_greater: float
    p_less: float


def hall_transform(t: float, skewness: float, n: int) -> float:
    """Hall's monotone skewness correction ``G(T) = T + a T^2 + a^2 T^3 / 3 + a / 2``,
    ``a = skewness / (3 sqrt(n))`` (module docstring)."""
    a = skewness / (3.0 * math.sqrt(n))
    return t + a * t * t + a * a * t**3 / 3.0 + a / 2.0


def score_boundary_test(d: np.ndarray) -> ScoreBoundaryTest:
    """The skewness-corrected one-sided t-tests of ``mean(d) > 0`` and ``< 0`` (module docstring).

    ``d``: the differences ``council - (1 + t) baseline``, at least 2, no NaN.
    """
    from scipy.stats import t as student

    d = np.asarray(d, dtype=float).ravel()
    n = int(d.size)
    if n < 2:
        raise ValueError("the skewness-corrected t-test needs at least 2 pairs")
    mean = float(d.mean())
    centred = d - mean
    m2 = float(np.mean(centred**2))
    sd = float(d.std(ddof=1))
    if m2 <= 0 or sd <= 0:
        up = 0.0 if mean > 0 else 1.0
        down = 0.0 if mean < 0 else 1.0
        stat = math.copysign(math.inf, mean) if mean else 0.0
        return ScoreBoundaryTest(n=n, t=stat, skewness=0.0, corrected=stat, p_greater=up, p_less=down)
    skew = float(np.mean(centred**3)) / m2**1.5
    t = math.sqrt(n) * mean / sd
    g = hall_transform(t, skew, n)
    return ScoreBoundaryTest(
        n=n,
        t=t,
        skewness=skew,
        corrected=g,
        p_greater=float(student.sf(g, n - 1)),
        p_less=float(student.cdf(g, n - 1)),
    )
