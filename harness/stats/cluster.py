"""Session-clustered statistics: in a bias store the independent unit is the session, not the record.

Every reviewer of a session scores the same few answers, so a per-answer quality effect makes
the records of one session move together: 12 records of 3 reviewers x 4 candidates carry far
less information than 12 independent scores. Everything here treats sessions as the units:

* :func:`clustered_mean` -- a weighted mean of one value per session, ``xbar = sum w_i x_i / sum w_i``,
  with the cluster-robust standard error ``se^2 = k/(k-1) * sum w_i^2 (x_i - xbar)^2 / (sum w_i)^2``
  over ``k`` sessions (for equal weights exactly ``sd/sqrt(k)``, the one-sample t standard error),
  never below an optional model-based floor, and a Student-t interval and two-sided p-value with
  ``k - 1`` degrees of freedom. Undefined (``None``) for fewer than 2 sessions.
* :func:`resampled_means` -- the Bayesian bootstrap over sessions (Rubin 1981): each resample
  gives every session an independent Exp(1) weight (normalized, a Dirichlet(1, ..., 1) draw),
  drawn from Exp(1) quantized to 65,536 equally likely levels (:data:`EXP_LEVELS`, see there);
  statistics are recomputed from weighted per-session sums and
  summarized by percentiles (:func:`percentile_interval`). A weighted mean of scores on 1-10 is
  always inside 1-10, a variance is never negative: the intervals stay in range by construction.
* :func:`equal_means_test` -- the cluster-robust Wald test that G group means are equal (e.g.
  the mean score at each display position): ``m_g = sum_s S_sg / sum_s C_sg`` from per-session
  sums ``S`` and counts ``C``; session influences ``u_sg = (S_sg - m_g C_sg) / C_g``; covariance
  ``V = k/(k-1) sum_s u_s u_s'``; contrasts of the first ``q = G-1`` groups against the last,
  ``W = d' (L V L')^-1 d``, referred to ``F(q, k-q)`` after Hotelling's scaling
  ``F = W (k-q) / (q (k-1))``. Undefined when ``k <= q`` or the covariance is singular.
* :func:`anomaly_min_sessions` -- with ``n`` values, no value can lie more than ``(n-1)/sqrt(n)``
  sample standard deviations from their mean, so a ``|z| > c`` rule needs the smallest ``n``
  with ``(n-1)/sqrt(n) > c`` (9 for c = 2.5).

Student t and F probabilities come from the regularized incomplete beta function
(:func:`betainc`, a continued fraction in pure Python; t quantiles by safeguarded Newton steps):
about 1e-12 relative to ``scipy.special``, with nothing to import for a command that reads one file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

_BOOTSTRAP_CELLS = 4_000_000  # resamples x sessions per chunk (memory bound)


def _exp_levels(bits: int = 16) -> np.ndarray:
    """Exp(1) on ``2**bits`` equally likely levels: level ``i`` is the mean of Exp(1) over its
    ``i``-th quantile bin ``[q_i, q_{i+1})``, ``q_i = -log(1 - i/L)``, which is
    ``L * ((q_i + 1) e^{-q_i} - (q_{i+1} + 1) e^{-q_{i+1}})`` (the last bin's upper term is 0)."""
    n = 1 << bits
    i = np.arange(n + 1, dtype=np.float64)
    tail = 1.0 - i / n  # e^{-q_i}
    q = -np.log(np.where(tail > 0, tail, 1.0))
    upper = np.where(tail > 0, (q + 1.0) * tail, 0.0)  # (q_i + 1) e^{-q_i}, 0 at q = infinity
    return (n * (upper[:-1] - upper[1:])).astype(np.float32)


#: The bootstrap's session weights: Exp(1) quantized to 65,536 equally likely levels (each the
#: conditional mean of its quantile bin, :func:`_exp_levels`), drawn as uniform 16-bit integers and
#: looked up. The levels have mean 1 exactly (to float32 rounding) and variance 0.99998 (Exp(1): 1;
#: the within-bin variance is lost, mostly from the top bin, whose level is 1 + ln 65536 = 12.09),
#: so the resampled means have the exact Bayesian bootstrap's spread to 1e-5, far inside the
#: Monte Carlo error of 1,000 resamples (``tests/bias/test_bias_bootstrap_weights.py`` compares
#: both by a seeded simulation). A table lookup costs about half of numpy's ziggurat sampler, the
#: bulk of the audit's time.
EXP_LEVELS = _exp_levels()


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    """The process's native thread pools, found once (finding them walks the loaded libraries)."""
    return ThreadpoolController()


def one_blas_thread() -> Any:
    """A context in which numpy's BLAS runs on one thread (the product's summation order, and its speed
    on a loaded machine, then do not depend on the thread count)."""
    return _blas().limit(limits=1, user_api="blas")


_TINY = 1e-300
_CF_STEPS = 100_000


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (modified Lentz; Numerical Recipes 6.4), to double precision."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _CF_STEPS):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < 4e-16:
            return h
    raise ArithmeticError(f"incomplete beta fraction did not converge (a={a}, b={b}, x={x})")


def _stirling_tail(z: float) -> float:
    """``ln Gamma(z) - ((z - 1/2) ln z - z + ln(2 pi)/2)`` for ``z >= 30`` (the Stirling series to ``z^-7``)."""
    z2 = z * z
    return (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * z2)) / z2) / z2) / z


def _lgamma_ratio(a: float, b: float) -> float:
    """``ln Gamma(a + b) - ln Gamma(a)`` without the cancellation of two large ``lgamma`` values when ``a`` is large:
    ``(a - 1/2) log1p(b/a) + b ln(a + b) - b`` plus the difference of the Stirling tails."""
    if a < 30.0:
        return math.lgamma(a + b) - math.lgamma(a)
    return (a - 0.5) * math.log1p(b / a) + b * math.log(a + b) - b + _stirling_tail(a + b) - _stirling_tail(a)


def betainc(a: float, b: float, x: float, y: float | None = None) -> float:
    """The regularized incomplete beta function ``I_x(a, b)``.

    ``I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * cf(a, b, x)`` with the continued fraction ``cf`` of
    :func:`_beta_fraction` when ``x < (a+1)/(a+b+2)`` (where it converges fast), else
    ``1 - I_{1-x}(b, a)``; ``B`` from ``math.lgamma``. Agrees with ``scipy.special.betainc`` to about
    1e-12 relative at the degrees of freedom a bias store gives (tested), in pure Python: no
    ``scipy.special`` or ``mpmath`` to import for a command that reads one file.

    Args:
        a: first shape parameter (> 0).
        b: second shape parameter (> 0).
        x: the point, in [0, 1].
        y: ``1 - x`` when the caller knows it without rounding (e.g. ``t^2 / (df + t^2)``).
    """
    y = 1.0 - x if y is None else y
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_x = math.log1p(-y) if y < 0.5 else math.log(x)
    log_y = math.log1p(-x) if x < 0.5 else math.log(y)
    big, small = max(a, b), min(a, b)
    log_front = _lgamma_ratio(big, small) - math.lgamma(small) + a * log_x + b * log_y
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, y) / b


def _t_upper(t: float, df: float) -> float:
    """``P(T_df > t)`` for ``t >= 0``: ``I_{df/(df+t^2)}(df/2, 1/2) / 2`` (regularized incomplete beta)."""
    tt = t * t
    return 0.5 * betainc(df / 2.0, 0.5, df / (df + tt), tt / (df + tt))


def _t_density(t: float, df: float) -> float:
    """Student's t density with ``df`` degrees of freedom at ``t``."""
    return math.exp(
        math.lgamma((df + 1.0) / 2.0)
        - math.lgamma(df / 2.0)
        - 0.5 * math.log(df * math.pi)
        - (df + 1.0) / 2.0 * math.log1p(t * t / df)
    )


@lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t with ``df`` degrees of freedom (cached: reports ask for few distinct ones).

    The root of ``P(T > t) = 1 - p``: bracketed (the t quantile lies beyond the normal one), then
    Newton steps on the density kept inside the bracket (bisection when a step would leave it),
    to double precision.

    Args:
        p: the probability, in (0, 1).
        df: degrees of freedom (> 0).
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    target = 1.0 - p
    lo = NormalDist().inv_cdf(p)
    hi = max(2.0 * lo, 1.0)
    while _t_upper(hi, df) > target:
        lo, hi = hi, 2.0 * hi
    t = lo
    for _ in range(200):
        f = _t_upper(t, df) - target
        if f == 0.0:
            return t
        if f > 0.0:
            lo = t
        else:
            hi = t
        new = t + f / _t_density(t, df)
        if not lo < new < hi:
            new = 0.5 * (lo + hi)
        if abs(new - t) <= 1e-15 * abs(new):
            return new
        t = new
    return t


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value of a t statistic: ``2 * P(T_df > |t|)``."""
    return min(1.0, 2.0 * _t_upper(abs(t), df))


def f_survival(f: float, df1: float, df2: float) -> float:
    """``P(F_{df1,df2} > f)`` = ``I_{df2/(df2+df1 f)}(df2/2, df1/2)`` (regularized incomplete beta)."""
    if f <= 0:
        return 1.0
    return betainc(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * f), df1 * f / (df2 + df1 * f))


@dataclass(frozen=True, slots=True)
class ClusteredMean:
    """A weighted mean over sessions with its cluster-robust interval (see :func:`clustered_mean`)."""

    mean: float
    se: float
    lower: float
    upper: float
    p_value: float
    sessions: int


def clustered_mean(
    values: np.ndarray, weights: np.ndarray, confidence: float = 0.95, se_floor: float = 0.0
) -> ClusteredMean | None:
    """Weighted mean of one value per session, cluster-robust SE, t-interval with k-1 df.

    Args:
        values: one value per session.
        weights: one non-negative weight per session.
        confidence: the interval's coverage.
        se_floor: a lower bound for the standard error (e.g. the model-based SE that treats
            records as independent, which the true SE cannot be below).

    Returns:
        The mean, SE, interval and the p-value of ``mean == 0``; ``None`` for fewer than 2 sessions.
    """
    k = int(values.size)
    if k < 2:
        return None
    total = float(weights.sum())
    mean = float(np.dot(weights, values) / total)
    resid = weights * (values - mean)
    se = max(math.sqrt(k / (k - 1) * float(np.dot(resid, resid))) / total, se_floor)
    if se <= 0:
        return ClusteredMean(mean=mean, se=0.0, lower=mean, upper=mean, p_value=0.0 if mean else 1.0, sessions=k)
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, k - 1) * se
    return ClusteredMean(
        mean=mean, se=se, lower=mean - half, upper=mean + half, p_value=t_two_sided_p(mean / se, k - 1), sessions=k
    )


def session_sums(
    session: np.ndarray, group: np.ndarray, values: np.ndarray, sessions: int, groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per-session, per-group sums of ``values`` and counts: two ``sessions x groups`` arrays.

    Args:
        session: session index per record.
        group: group index per record (0..groups-1).
        values: the value per record.
        sessions: number of sessions.
        groups: number of groups.
    """
    cell = session * groups + group
    size = sessions * groups
    sums = np.bincount(cell, weights=values, minlength=size).reshape(sessions, groups)
    counts = np.bincount(cell, minlength=size).reshape(sessions, groups).astype(np.float64)
    return sums, counts


def resampled_means(sums: np.ndarray, counts: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Group means under Bayesian-bootstrap session weights: ``(W @ sums) / (W @ counts)`` per resample.

    ``W`` holds i.i.d. Exp(1) weights (:data:`EXP_LEVELS`), one per (resample, session), in
    single precision, drawn in chunks from ``numpy.random.default_rng(seed)``: the same seed gives
    the same resamples to every caller, so figures computed in separate calls share their
    resamples. Pass the sums of several figures side by side to draw the weights once.

    The product runs on one BLAS thread (``threadpoolctl``): a multi-threaded single-precision
    product sums in an order that depends on the thread count, so results would shift slightly
    between machines, and at this size (1,000 x 1,000 weights times a few columns) the threads
    cost about 5x the CPU of one thread under load. Drawing the weights is most of the time here.

    Args:
        sums: ``sessions x groups`` per-session sums.
        counts: ``sessions x groups`` per-session counts.
        resamples: number of resamples.
        seed: the random seed.

    Returns:
        ``resamples x groups`` means (NaN where a group has no records).
    """
    sessions, groups = sums.shape
    out = np.empty((resamples, groups))
    rng = np.random.default_rng(seed)
    chunk = max(1, _BOOTSTRAP_CELLS // max(1, sessions))
    both = np.hstack([sums, counts]).astype(np.float32)
    with one_blas_thread():
        for first in range(0, resamples, chunk):
            rows = min(chunk, resamples - first)
            weights = EXP_LEVELS[rng.integers(0, EXP_LEVELS.size, (rows, sessions), dtype=np.uint16)]
            part = (weights @ both).astype(np.float64)
            num, den = part[:, :groups], part[:, groups:]
            view = out[first : first + rows]
            np.divide(num, den, out=view, where=den > 0)
            view[den <= 0] = np.nan
    return out


def percentile_interval(
    samples: np.ndarray,
    confidence: float = 0.95,
    lower_bound: float | None = None,
    upper_bound: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval per column of ``samples`` (NaNs ignored), clipped to the quantity's range.

    Args:
        samples: ``resamples x quantities`` (or one quantity as a 1-D array).
        confidence: the interval's coverage.
        lower_bound: the smallest value the quantity can take (``None``: unbounded).
        upper_bound: the largest value the quantity can take.

    Returns:
        Lower and upper bounds per column (NaN where a column has no finite sample).
    """
    alpha = (1.0 - confidence) / 2.0
    data = samples.reshape(samples.shape[0], -1)
    finite = np.isfinite(data)
    if not finite.all():
        data = np.where(finite, data, np.nan)
    # numpy's default ("linear", Hyndman-Fan type 7) quantiles of each column's finite values, from
    # one sort (NaNs sort last); np.quantile gives the same numbers but imports numpy.ma on first use
    ordered = np.sort(data, axis=0)
    m = finite.sum(axis=0)
    enough = m >= 2
    lo = np.full(data.shape[1], np.nan)
    hi = np.full(data.shape[1], np.nan)
    if enough.any():
        cols = np.flatnonzero(enough)
        last = m[cols] - 1
        for q, out in ((alpha, lo), (1.0 - alpha, hi)):
            h = q * last
            below = np.floor(h).astype(np.int64)
            above = np.minimum(below + 1, last)
            t = h - below
            a, b = ordered[below, cols], ordered[above, cols]
            diff = b - a
            out[cols] = np.where(t >= 0.5, b - diff * (1.0 - t), a + diff * t)  # numpy's _lerp
    if lower_bound is not None or upper_bound is not None:
        lo = np.clip(lo, lower_bound, upper_bound)
        hi = np.clip(hi, lower_bound, upper_bound)
    return lo, hi


@dataclass(frozen=True, slots=True)
class EqualMeansTest:
    """The cluster-robust Wald test of equal group means (see :func:`equal_means_test`)."""

    f: float
    df1: int
    df2: int
    p_value: float


def equal_means_test(sums: np.ndarray, counts: np.ndarray) -> EqualMeansTest | None:
    """Cluster-robust Wald test that all group means are equal, as an F test over sessions.

    Args:
        sums: ``sessions x groups`` per-session sums.
        counts: ``sessions x groups`` per-session counts.

    Returns:
        The test, or ``None`` with fewer sessions than groups, an empty group or a singular covariance.
    """
    k, g = sums.shape
    q = g - 1
    totals = counts.sum(axis=0)
    if q < 1 or k <= q or (totals <= 0).any():
        return None
    means = sums.sum(axis=0) / totals
    u = (sums - means * counts) / totals
    cov = k / (k - 1) * (u.T @ u)
    contrast = np.hstack([np.eye(q), -np.ones((q, 1))])
    d = contrast @ means
    v = contrast @ cov @ contrast.T
    if np.linalg.matrix_rank(v) < q:
        return None
    wald = float(d @ np.linalg.solve(v, d))
    f = wald * (k - q) / (q * (k - 1))
    return EqualMeansTest(f=f, df1=q, df2=k - q, p_value=f_survival(f, q, k - q))


def anomaly_min_sessions(z_threshold: float) -> int:
    """The fewest sessions at which some session can lie more than ``z_threshold`` sample SDs from the mean.

    With ``n`` values the largest possible ``|z|`` is ``(n-1)/sqrt(n)``; this is the smallest
    ``n >= 3`` where that exceeds the threshold (9 for 2.5, 6 for 2.0).

    Args:
        z_threshold: the anomaly cut-off.
    """
    n = 3
    while (n - 1) / math.sqrt(n) <= z_threshold:
        n += 1
    return n


def grubbs_critical_z(n: int, alpha: float = 0.05) -> float:
    """Grubbs' two-sided critical value: the |z| beyond which a value of ``n`` is an outlier at ``alpha``.

    ``G = (n - 1) / sqrt(n) * sqrt(t^2 / (n - 2 + t^2))`` with ``t`` the upper ``alpha / (2 n)``
    quantile of Student's t with ``n - 2`` df (Grubbs 1969). Under normal values the chance that
    *any* of the ``n`` lies beyond ``G`` sample SDs from their mean is at most ``alpha`` at every
    ``n``, where a fixed cut-off (2.5) fires more often the more values there are.

    Args:
        n: the number of values (>= 3).
        alpha: the family-wise level.
    """
    if n < 3:
        raise ValueError(f"Grubbs' test needs at least 3 values, got {n}")
    t = t_quantile(1.0 - alpha / (2.0 * n), n - 2)
    return (n - 1) / math.sqrt(n) * math.sqrt(t * t / (n - 2 + t * t))
