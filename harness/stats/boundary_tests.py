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

**Scores** keep the sign-flip interval (:mod:`harness.stats.signflip`): exact under symmetric
differences. Its error under skew is measured, not bounded (README, "The >15% verdict"): no test of
a mean is valid over every distribution of unbounded scores (Bahadur and Savage 1956), and the two
bounded alternatives tried (the bootstrap-t, and a betting test on the score's bounds) either kept
the excess or had no power at n = 55 (issue 27).
"""

from __future__ import annotations

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
