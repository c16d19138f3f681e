"""The bias audit's bootstrap weights: Exp(1) quantized to 65,536 levels behaves like exact Exp(1).

:func:`harness.stats.cluster.resampled_means` draws each session's Bayesian-bootstrap weight from
:data:`harness.stats.cluster.EXP_LEVELS` (the conditional means of Exp(1) over 65,536 equally
likely quantile bins) instead of numpy's ziggurat sampler. These tests check the table against
its definition and then, by a seeded simulation, that the intervals it gives are those of the
exact Bayesian bootstrap: the same coverage of a known mean, and endpoints that differ from the
exact bootstrap's by no more than two exact bootstraps with different seeds differ from each other.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate

from harness.stats.cluster import EXP_LEVELS, percentile_interval, resampled_means

WORLDS = 400
SESSIONS = 30
RESAMPLES = 2000
TRUE_MEANS = np.array([5.0, 6.5])


def test_levels_are_the_conditional_means_of_exp1_over_equal_probability_bins() -> None:
    n = EXP_LEVELS.size
    assert n == 65536
    assert EXP_LEVELS.dtype == np.float32
    assert np.all(np.diff(EXP_LEVELS) > 0)  # strictly increasing, all positive
    assert EXP_LEVELS[0] > 0
    # bin i covers quantiles [i/n, (i+1)/n): E[X | bin] = n * integral of x e^-x over the bin
    for i in (0, 1, 12345, n // 2, n - 2):
        lo, hi = -math.log1p(-i / n), -math.log1p(-(i + 1) / n)
        value = n * integrate.quad(lambda x: x * math.exp(-x), lo, hi, epsabs=0, epsrel=1e-12)[0]
        assert abs(float(EXP_LEVELS[i]) - value) <= 2e-6 * max(1.0, value)
    # the top bin: E[X | X > q] = q + 1 (memoryless), q = ln n
    assert abs(float(EXP_LEVELS[-1]) - (math.log(n) + 1.0)) < 1e-5
    levels = EXP_LEVELS.astype(np.float64)
    assert abs(levels.mean() - 1.0) < 1e-6  # Exp(1) has mean 1 ...
    assert 0.9999 < levels.var() < 1.0  # ... and variance 1, less the within-bin variance (~1.6e-5)


def _world(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per-session sums and counts of two groups: 1-4 records per (session, group), a session effect
    shared by both groups (clustering), skewed record noise (Gamma), true group means TRUE_MEANS."""
    counts = rng.integers(1, 5, size=(SESSIONS, 2)).astype(np.float64)
    effect = rng.normal(0.0, 0.8, size=(SESSIONS, 1))
    noise_sum = rng.gamma(shape=counts * 0.5, scale=2.0) - counts  # mean 0 per record, right-skewed
    sums = counts * (TRUE_MEANS + effect) + noise_sum
    return sums, counts


def _exact_means(sums: np.ndarray, counts: np.ndarray, seed: int) -> np.ndarray:
    """The exact Bayesian bootstrap (Exp(1) weights from numpy's sampler), in float64."""
    w = np.random.default_rng(seed).standard_exponential((RESAMPLES, sums.shape[0]))
    return (w @ sums) / (w @ counts)


def test_quantized_weights_give_the_exact_bayesian_bootstraps_intervals() -> None:
    rng = np.random.default_rng(20261126)
    covered = {"quantized": 0, "exact": 0}
    gap_quantized_exact: list[float] = []
    gap_exact_exact: list[float] = []
    for world in range(WORLDS):
        sums, counts = _world(rng)
        quantized = percentile_interval(resampled_means(sums, counts, RESAMPLES, seed=world))
        exact = percentile_interval(_exact_means(sums, counts, seed=10_000 + world))
        exact_again = percentile_interval(_exact_means(sums, counts, seed=20_000 + world))
        for name, (lo, hi) in (("quantized", quantized), ("exact", exact)):
            covered[name] += int(np.all((lo <= TRUE_MEANS) & (TRUE_MEANS <= hi)))
        width = exact[1] - exact[0]
        gap_quantized_exact.append(
            float(np.mean(np.abs(np.concatenate(quantized) - np.concatenate(exact)) / np.concatenate([width, width])))
        )
        gap_exact_exact.append(
            float(np.mean(np.abs(np.concatenate(exact_again) - np.concatenate(exact)) / np.concatenate([width, width])))
        )
    rate = {k: v / WORLDS for k, v in covered.items()}
    qe, ee = float(np.mean(gap_quantized_exact)), float(np.mean(gap_exact_exact))
    print(
        f"\njoint coverage of both means over {WORLDS} worlds: quantized {rate['quantized']:.3f}, "
        f"exact {rate['exact']:.3f}; endpoint gap / width: quantized vs exact {qe:.4f}, exact vs exact {ee:.4f}"
    )
    # the same worlds: the two bootstraps cover the true means equally often (within 2 points) ...
    assert abs(rate["quantized"] - rate["exact"]) <= 0.02
    # ... near the nominal 0.95^2 of two 95% intervals (the percentile bootstrap under-covers a little at 30 sessions)
    assert 0.82 <= rate["quantized"] <= 0.95
    # ... and their endpoints differ by Monte Carlo noise only: no more than two exact runs differ
    assert qe <= 1.15 * ee


def test_percentile_interval_equals_numpys_linear_quantiles_with_nans_left_out() -> None:
    """The one-sort percentile interval gives numpy's ``nanquantile`` (method "linear") exactly;
    columns with fewer than two finite values get NaN; infinities count as missing."""
    rng = np.random.default_rng(3)
    for trial in range(200):
        rows, cols = int(rng.integers(2, 1200)), int(rng.integers(1, 6))
        x = rng.normal(size=(rows, cols)) * rng.uniform(0.1, 100.0)
        if trial % 2:
            x[rng.random((rows, cols)) < rng.uniform(0.0, 0.95)] = np.nan
            x[rng.random((rows, cols)) < 0.01] = np.inf
        confidence = float(rng.choice([0.5, 0.9, 0.95, 0.99]))
        lo, hi = percentile_interval(x, confidence)
        alpha = (1.0 - confidence) / 2.0
        finite = np.where(np.isfinite(x), x, np.nan)
        enough = np.isfinite(x).sum(axis=0) >= 2
        expected = np.full((2, cols), np.nan)
        if enough.any():
            expected[:, enough] = np.nanquantile(finite[:, enough], [alpha, 1.0 - alpha], axis=0)
        np.testing.assert_array_equal(lo, expected[0])
        np.testing.assert_array_equal(hi, expected[1])
    lo, hi = percentile_interval(np.array([[1.0, np.nan], [3.0, 2.0], [11.0, np.nan]]), 0.5, 2.0, 10.0)
    np.testing.assert_array_equal(lo, [2.0, np.nan])  # 1 + 0.25 * 2 = 1.5, clipped to the lower bound 2
    np.testing.assert_array_equal(hi, [7.0, np.nan])  # 3 + 0.5 * 8 = 7; one finite value: no interval
