"""Power of the >15% verdict, before and after a run (issue 27, item 4).

The verdict is a one-sided test of ``mean(d) > 0``, ``d = council - (1 + t) x baseline``, at level
``a = (1 - confidence) / 2``. With ``n`` pairs, ``d``'s SD ``sigma_d`` and the baseline's mean
``mu_b``, a true ratio ``R`` of means gives ``mean(d) = (R - 1 - t) mu_b`` and, by the normal
approximation of the test statistic, power

    power(R) = Phi(sqrt(n) (R - 1 - t) mu_b / sigma_d - z_{1-a}).

The **detectable improvement** at ``n`` is the smallest true ``R - 1`` found with 80% power:
``R = 1 + t + (z_{1-a} + z_{0.8}) sigma_d / (sqrt(n) mu_b)`` (``sigma_d`` taken at that ``R``
for a binary endpoint, solved by bisection); the **n needed** for a true ratio ``R`` is
``ceil(((z_{1-a} + z_{0.8}) sigma_d / ((R - 1 - t) mu_b))^2)``.

For a binary endpoint (a base rate ``p`` and the council's ``R p``, the two arms' outcomes
independent) ``sigma_d^2 = R p (1 - R p) + (1 + t)^2 p (1 - p)``; for scores ``sigma_d`` is the
observed SD of ``d``. A verdict that comes out ``insufficient_data``, ``inconclusive`` or ``refuted`` states the
detectable improvement at its ``n``: "refuted" at a run that could only have detected a doubling
says little about a true +50%.

**Scores with a declared scale** ``[0, S]``: the verdict also needs the betting test of
:mod:`harness.stats.betting` to reject, and that test is the stricter one. Its bets settle near
``lambda* = min(sqrt(2 L / (n sigma_d^2)), c / ((1 + t) S))``, ``L = log(1/a)``, ``c`` its cap; by
the second-order expansion ``E log(1 + lambda d) = lambda mu - lambda^2 (sigma_d^2 + mu^2) / 2`` and
the normal approximation of the sum of ``n`` such logs (SD ``lambda sigma_d`` each),

    power_bet(R) = Phi((n (lambda* mu - lambda*^2 (sigma_d^2 + mu^2) / 2) - L) / (sqrt(n) lambda* sigma_d)),

``mu = (R - 1 - t) mu_b`` (uncapped: ``Phi(sqrt(n) mu / sigma_d - sqrt(2 L))``, a z-test at 2.72
instead of 1.96 for ``a`` = 2.5%). The rule's power is taken as the smaller of this and the
t-approximation above (the rule rejects only where every test does); the detectable improvement is
the smallest ``R`` with that power >= 80% (bisection, the council's mean at most ``S``), the n needed
the smallest ``n`` (doubling, then bisection). Checked against the rule itself by seeded simulation
(``tests/stats/test_power.py``).
"""

from __future__ import annotations

import math
from statistics import NormalDist

#: The power at which the detectable improvement is stated.
POWER = 0.8
_Z = NormalDist()


def _z_sum(confidence: float, power: float) -> float:
    return _Z.inv_cdf(1.0 - (1.0 - confidence) / 2.0) + _Z.inv_cdf(power)


def binary_sd(base_rate: float, ratio: float, threshold: float) -> float:
    """SD of ``d`` for independent 0/1 outcomes with rates ``ratio * base_rate`` and ``base_rate``."""
    pc = min(ratio * base_rate, 1.0)
    return math.sqrt(pc * (1 - pc) + (1 + threshold) ** 2 * base_rate * (1 - base_rate))


def binary_power(n: int, base_rate: float, ratio: float, threshold: float = 0.15, confidence: float = 0.95) -> float:
    """Normal-approximation power of the verdict for a binary endpoint (module docstring)."""
    mean = (ratio - 1 - threshold) * base_rate
    sd = binary_sd(base_rate, ratio, threshold)
    return _Z.cdf(math.sqrt(n) * mean / sd - _Z.inv_cdf(1.0 - (1.0 - confidence) / 2.0))


def binary_n_needed(
    ratio: float, base_rate: float, threshold: float = 0.15, confidence: float = 0.95, power: float = POWER
) -> int | None:
    """Pairs needed to support a true ``ratio`` with ``power`` (``None`` when ``ratio <= 1 + threshold``
    or the council's rate would exceed 1)."""
    if ratio <= 1 + threshold or ratio * base_rate > 1 or base_rate <= 0:
        return None
    sd = binary_sd(base_rate, ratio, threshold)
    return math.ceil((_z_sum(confidence, power) * sd / ((ratio - 1 - threshold) * base_rate)) ** 2)


def binary_detectable_ratio(
    n: int, base_rate: float, threshold: float = 0.15, confidence: float = 0.95, power: float = POWER
) -> float | None:
    """The smallest true ratio supported with ``power`` at ``n`` pairs (``None`` when even a council
    that is always right would not reach it)."""
    if n <= 0 or not 0 < base_rate < 1:
        return None
    top = 1.0 / base_rate
    if binary_power(n, base_rate, top, threshold, confidence) < power:
        return None
    lo, hi = 1.0 + threshold, top
    for _ in range(60):
        mid = (lo + hi) / 2
        if binary_power(n, base_rate, mid, threshold, confidence) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def betting_power(n: int, mean_difference: float, sd_difference: float, low: float, confidence: float = 0.95) -> float:
    """Approximate power of the betting test (:mod:`harness.stats.betting`) for ``d`` of mean
    ``mean_difference`` and SD ``sd_difference`` bounded below by ``low < 0`` (module docstring)."""
    from harness.stats.betting import BET_CAP

    if n < 1 or not sd_difference > 0:
        return 1.0 if mean_difference > 0 and n >= 1 else 0.0
    budget = math.log(2.0 / (1.0 - confidence))
    lam = min(math.sqrt(2.0 * budget / (n * sd_difference**2)), BET_CAP / abs(low))
    drift = n * (lam * mean_difference - lam * lam * (sd_difference**2 + mean_difference**2) / 2.0)
    return _Z.cdf((drift - budget) / (math.sqrt(n) * lam * sd_difference))


def score_power(
    n: int,
    mean_baseline: float,
    sd_difference: float,
    ratio: float,
    threshold: float = 0.15,
    confidence: float = 0.95,
    scale: float | None = None,
) -> float:
    """Approximate power of the score verdict at a true ``ratio``: the t-approximation, and with a declared
    ``scale`` (scores on ``[0, scale]``) the smaller of it and :func:`betting_power` (module docstring)."""
    mean = (ratio - 1 - threshold) * mean_baseline
    plain = _Z.cdf(math.sqrt(n) * mean / sd_difference - _Z.inv_cdf(1.0 - (1.0 - confidence) / 2.0))
    if scale is None:
        return plain
    return min(plain, betting_power(n, mean, sd_difference, -(1.0 + threshold) * scale, confidence))


def score_detectable_ratio(
    n: int,
    mean_baseline: float,
    sd_difference: float,
    threshold: float = 0.15,
    confidence: float = 0.95,
    power: float = POWER,
    scale: float | None = None,
) -> float | None:
    """The smallest true ratio supported with ``power`` at ``n`` pairs for scores whose ``d`` has SD
    ``sd_difference`` (``None`` when the baseline's mean is not positive, ``n < 2``, or, with a declared
    ``scale``, when even a council at the top of the scale would not reach it)."""
    if n < 2 or mean_baseline <= 0 or not math.isfinite(sd_difference):
        return None
    if scale is None:
        return 1 + threshold + _z_sum(confidence, power) * sd_difference / (math.sqrt(n) * mean_baseline)
    if not sd_difference > 0:
        return 1 + threshold
    top = scale / mean_baseline
    if top <= 1 + threshold or score_power(n, mean_baseline, sd_difference, top, threshold, confidence, scale) < power:
        return None
    lo, hi = 1.0 + threshold, top
    for _ in range(60):
        mid = (lo + hi) / 2
        if score_power(n, mean_baseline, sd_difference, mid, threshold, confidence, scale) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def score_n_needed(
    ratio: float,
    mean_baseline: float,
    sd_difference: float,
    threshold: float = 0.15,
    confidence: float = 0.95,
    power: float = POWER,
    scale: float | None = None,
) -> int | None:
    """Pairs needed to support a true ``ratio`` for scores (``None`` when ``ratio <= 1 + threshold``, or with a
    declared ``scale`` when the council's mean would exceed it)."""
    if ratio <= 1 + threshold or mean_baseline <= 0:
        return None
    if scale is None:
        return math.ceil((_z_sum(confidence, power) * sd_difference / ((ratio - 1 - threshold) * mean_baseline)) ** 2)
    if ratio * mean_baseline > scale:
        return None

    def enough(n: int) -> bool:
        return score_power(n, mean_baseline, sd_difference, ratio, threshold, confidence, scale) >= power

    hi = 2
    while not enough(hi):
        hi *= 2
        if hi > 10**9:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi
