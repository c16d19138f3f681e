"""Correlation and trend statistics: Fisher's z, correlation and mean intervals, a least-squares trend.

* **Fisher z** (:func:`fisher_z`): ``arctanh(r)`` with r clipped to +-0.9999 (``R_CLIP``);
  :func:`correlation_ci` is ``tanh(z +- z_crit / sqrt(n-3))`` for ``n`` independent pairs.
* :func:`mean_t_interval`: ``mean +- t_{n-1} * sd/sqrt(n)`` (sd with n-1).
* :func:`linear_trend`: least-squares slope with its t-interval (``stderr * t_{n-2}``) and p-value.

Student t quantiles and probabilities come from :mod:`harness.stats.cluster` (mpmath, light to import).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from harness.stats.cluster import t_quantile, t_two_sided_p

#: Correlations are clipped to +-R_CLIP before the z-transform (``arctanh(1)`` is infinite).
R_CLIP = 0.9999


def fisher_z(r: float) -> float:
    """Fisher's z-transform ``arctanh(r)``, with r clipped to +-0.9999.

    Args:
        r: a correlation coefficient in [-1, 1].
    """
    return float(fisher_z_array(np.asarray(r, dtype=np.float64)))


def fisher_z_array(r: np.ndarray) -> np.ndarray:
    """:func:`fisher_z` of every element of an array.

    Args:
        r: correlation coefficients in [-1, 1].
    """
    return np.arctanh(np.clip(r, -R_CLIP, R_CLIP))


def fisher_z_inverse(z: float) -> float:
    """The inverse transform ``tanh(z)``.

    Args:
        z: a Fisher z value.
    """
    return float(np.tanh(z))


def z_critical(confidence: float = 0.95) -> float:
    """Two-sided standard-normal critical value, ``Phi^-1(1 - (1-confidence)/2)`` (1.96 at 0.95).

    Args:
        confidence: the interval's coverage, in (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def correlation_ci(r: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of a Pearson r from ``n`` pairs: ``tanh(arctanh(r) +- z_crit/sqrt(n-3))``.

    Args:
        r: the correlation.
        n: the number of pairs (more than 3).
        confidence: the interval's coverage.
    """
    if n <= 3:
        raise ValueError(f"a correlation interval needs more than 3 pairs, got {n}")
    z = fisher_z(r)
    half = z_critical(confidence) / math.sqrt(n - 3)
    return fisher_z_inverse(z - half), fisher_z_inverse(z + half)


def mean_t_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """t-interval of a mean of independent values: ``mean +- t_{n-1} * sd/sqrt(n)``; ``None`` for n < 2.

    Args:
        values: the sample.
        confidence: the interval's coverage.
    """
    n = len(values)
    if n < 2:
        return None
    return _t_interval(float(np.mean(values)), float(np.std(values, ddof=1)), n, confidence)


def _t_interval(mean: float, sd: float, n: int, confidence: float) -> tuple[float, float] | None:
    if n < 2:
        return None
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


def linear_trend(
    times: np.ndarray, values: np.ndarray, confidence: float = 0.95
) -> tuple[float, float, float, float] | None:
    """Least-squares slope of ``values`` on ``times`` (days) with its t-interval and p-value.

    ``slope = Sxy / Sxx``; ``stderr = sqrt(SSres / (n-2) / Sxx)``; interval ``slope +- t_{n-2} stderr``;
    two-sided t p-value of ``slope / stderr`` (as ``scipy.stats.linregress``).

    Args:
        times: session times in days.
        values: the per-session metric.
        confidence: the interval's coverage.

    Returns:
        ``(slope, ci_lower, ci_upper, p_value)``, or ``None`` with fewer than 3 points, one distinct
        time or constant values.
    """
    x = np.asarray(times, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    dx = x - x.mean()
    dy = y - y.mean()
    sxx = float(dx @ dx)
    slope = float(dx @ dy) / sxx
    resid = dy - slope * dx
    df = x.size - 2
    stderr = math.sqrt(max(float(resid @ resid), 0.0) / df / sxx)
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, df) * stderr
    p = t_two_sided_p(slope / stderr, df) if stderr > 0 else 0.0
    return slope, slope - half, slope + half, p
