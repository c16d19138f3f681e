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
observed SD of ``d``. A verdict that comes out ``insufficient_data`` or ``refuted`` states the
detectable improvement at its ``n``: "refuted" at a run that could only have detected a doubling
says little about a true +50%.
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


def score_detectable_ratio(
    n: int,
    mean_baseline: float,
    sd_difference: float,
    threshold: float = 0.15,
    confidence: float = 0.95,
    power: float = POWER,
) -> float | None:
    """The smallest true ratio supported with ``power`` at ``n`` pairs for scores whose ``d`` has SD
    ``sd_difference`` (``None`` when the baseline's mean is not positive or ``n < 2``)."""
    if n < 2 or mean_baseline <= 0 or not math.isfinite(sd_difference):
        return None
    return 1 + threshold + _z_sum(confidence, power) * sd_difference / (math.sqrt(n) * mean_baseline)


def score_n_needed(
    ratio: float,
    mean_baseline: float,
    sd_difference: float,
    threshold: float = 0.15,
    confidence: float = 0.95,
    power: float = POWER,
) -> int | None:
    """Pairs needed to support a true ``ratio`` for scores (``None`` when ``ratio <= 1 + threshold``)."""
    if ratio <= 1 + threshold or mean_baseline <= 0:
        return None
    return math.ceil((_z_sum(confidence, power) * sd_difference / ((ratio - 1 - threshold) * mean_baseline)) ** 2)
