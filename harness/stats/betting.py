"""A test of ``mean(d) > 0`` valid for every distribution of a bounded ``d`` at every ``n`` (issue 27).

Testing by betting (Waudby-Smith and Ramdas 2023, "Estimating means of bounded random variables by
betting", JRSS B 86(1), section 3 and the predictable plug-in of section 5.1). The differences
``d_i = council_i - (1 + t) baseline_i`` of two scores declared on ``[0, S]`` lie in
``[lo, hi] = [-(1 + t) S, S]``, whatever the scorer does, so no assumption about their shape is needed.

**The capital.** For one ordering ``pi`` of the ``n`` cases, bet ``lambda_i`` on each case in turn:

    K^pi = prod_i (1 + lambda_i d_pi(i)),   0 <= lambda_i <= c / |lo|,   c = BET_CAP < 1,

where ``lambda_i`` depends only on the cases before ``i`` in that order (predictable). The rule for
``lambda_i`` (the predictable plug-in for a fixed ``n``, WSR eq. 26 with the variance of the earlier
cases) is ``lambda_i = min(sqrt(2 log(1/alpha) / (n s2_i)), c / |lo|)``, ``s2_i`` the mean of
``(d_j - dbar_{i-1})^2`` over the earlier cases and one prior pseudo-case of ``(|lo| / 2)^2``
(``PRIOR_CASES``), ``dbar_{i-1}`` the earlier cases' mean (0 before the first). The statistic is
the average over ``ORDERINGS`` orderings drawn from ``seed`` before the data are seen (the first is
the given order): ``E = mean_pi K^pi``.

**Proof of the level** (``H0: E[d] <= 0``, the cases independent draws from one population, which
is what "the mean" of the claim refers to). Each factor is positive: ``lambda_i d >= -c > -1``.
Given the earlier cases, ``E[1 + lambda_i d_pi(i) | earlier] = 1 + lambda_i E[d] <= 1``, because
``lambda_i >= 0`` is fixed by the earlier cases and ``d_pi(i)`` is independent of them; by the tower
property ``E[K^pi] <= 1`` for every fixed ordering (``K`` is a nonnegative supermartingale). The
orderings are drawn independently of the data, so ``E[E] = mean_pi E[K^pi] <= 1`` (an average of
e-values is an e-value). Markov's inequality then gives ``P(E >= 1/alpha) <= alpha E[E] <= alpha``
under every distribution of ``d`` on ``[lo, hi]``, at every ``n``: "supported" when
``E >= 1/alpha``, and ``p_greater = min(1, 1/E)`` is a valid p-value. No symmetry, no asymptotics,
no moment condition beyond the declared bounds. (Ville's inequality would even allow stopping early;
the verdict uses only the fixed ``n``.) "Refuted" is the mirror: the same capital on ``-d`` in
``[-hi, -lo]``, bets up to ``c / hi``, ``p_less = min(1, 1/E_less)``.

**Power.** With ``sigma`` the SD of ``d`` and ``mu`` its mean, the bets settle near
``lambda* = min(sqrt(2 L / (n sigma^2)), c / |lo|)``, ``L = log(1/alpha)``, and ``log K`` is a sum
of ``n`` terms of mean about ``lambda* mu - lambda*^2 (sigma^2 + mu^2) / 2`` and SD about
``lambda* sigma``: :mod:`harness.stats.power` turns that into the rule's power. Uncapped, this is a
z-test with critical value ``sqrt(2 L)`` (2.72 at 2.5%) instead of 1.96; the cap binds when the
spread of ``d`` is small against the declared range, which is the price of holding the level for
distributions the sample cannot show (a crash on one case in twenty). A sample of ``n`` equal
differences ``delta`` is supported by *no* valid test unless ``(|lo| / (|lo| + delta))^n <= alpha``
(the two-point world with mass ``delta / (|lo| + delta)`` at ``lo`` and the rest at ``delta`` has
mean 0 and shows no ``lo`` that often): at ``S = 10`` that is ``delta >= 5.1`` at ``n = 10`` and
``0.80`` at ``n = 55``.
"""

from __future__ import annotations

import math

import numpy as np

from harness.common.model import Frozen

#: ``c``: the largest bet as a share of ``1 / |lo|``; each factor stays >= ``1 - c`` > 0.
BET_CAP = 0.95

#: Orderings of the cases whose capitals are averaged (the first is the given order).
ORDERINGS = 64

#: Weight, in cases, of the prior guess ``(|lo| / 2)^2`` of ``d``'s variance before any case is seen.
PRIOR_CASES = 1.0


class BettingTest(Frozen):
    """The betting test of the module docstring.

    Args:
        n: pairs; low, high: the declared bounds of ``d``; alpha: the one-sided level the bets use.
        e_greater, e_less: the averaged capitals against "not more than" / "at least" the threshold.
        p_greater, p_less: ``min(1, 1/e)`` (small: supported / refuted).
    """

    n: int
    low: float
    high: float
    alpha: float
    e_greater: float
    e_less: float
    p_greater: float
    p_less: float


def _orderings(n: int, count: int, seed: int) -> np.ndarray:
    """``count`` orderings of ``n`` cases drawn from ``seed`` (the first is the identity)."""
    rng = np.random.default_rng(seed)
    orders = np.argsort(rng.random((count, n)), axis=1)
    orders[0] = np.arange(n)
    return orders


def log_capital(d: np.ndarray, bound: float, alpha: float, orders: np.ndarray, cap: float = BET_CAP) -> float:
    """``log mean_pi K^pi`` for bets on ``d`` (each ``>= -bound``) with the predictable plug-in rule."""
    x = np.asarray(d, dtype=float)[orders] / bound  # in [-1, ...]: lambda is in units of 1 / bound
    count, n = x.shape
    seen = np.arange(n, dtype=float)  # cases before position i
    before = np.cumsum(x, axis=1) - x
    before_sq = np.cumsum(x * x, axis=1) - x * x
    mean = np.divide(before, seen, out=np.zeros_like(before), where=seen > 0)
    # spread of the earlier cases about their mean, plus the prior pseudo-case (|lo| / 2)^2 = 1/4
    var = (before_sq - seen * mean * mean + PRIOR_CASES * 0.25) / (seen + PRIOR_CASES)
    lam = np.minimum(np.sqrt(2.0 * math.log(1.0 / alpha) / (n * np.maximum(var, 1e-12))), cap)
    logs = np.sum(np.log1p(lam * x), axis=1)
    top = float(np.max(logs))
    return top + math.log(float(np.mean(np.exp(logs - top))))


def betting_test(
    d: np.ndarray, low: float, high: float, alpha: float, seed: int = 0, orderings: int = ORDERINGS
) -> BettingTest:
    """Both one-sided betting tests of ``mean(d)`` against 0 for ``d`` in ``[low, high]`` (``low < 0 < high``).

    Raises ValueError when a value lies outside the bounds (the level would not hold) or the bounds
    do not straddle 0.
    """
    d = np.asarray(d, dtype=float).ravel()
    if not low < 0 < high:
        raise ValueError(f"the bounds of d must straddle 0, got [{low:g}, {high:g}]")
    if d.size and (float(d.min()) < low - 1e-9 or float(d.max()) > high + 1e-9):
        raise ValueError(f"a difference lies outside its declared bounds [{low:g}, {high:g}]")
    n = int(d.size)
    if n == 0:
        return BettingTest(n=0, low=low, high=high, alpha=alpha, e_greater=1.0, e_less=1.0, p_greater=1.0, p_less=1.0)
    orders = _orderings(n, orderings, seed)
    up = math.exp(min(log_capital(d, -low, alpha, orders), 700.0))
    down = math.exp(min(log_capital(-d, high, alpha, orders), 700.0))
    return BettingTest(
        n=n,
        low=low,
        high=high,
        alpha=alpha,
        e_greater=up,
        e_less=down,
        p_greater=min(1.0, 1.0 / up),
        p_less=min(1.0, 1.0 / down),
    )


def difference_bounds(scale: tuple[float, float], threshold: float) -> tuple[float, float]:
    """The bounds of ``council - (1 + threshold) baseline`` for two scores on ``scale = (a, b)``."""
    a, b = scale
    return a - (1.0 + threshold) * b, b - (1.0 + threshold) * a
