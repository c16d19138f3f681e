"""Seeded simulations that measure the error rates of the >15% verdict (issue 11, item 7).

Each test draws many synthetic runs from a known truth and counts verdicts; the asserted bounds are
the design's rates plus a Monte-Carlo margin of 3 standard errors of the estimated rate. The data
are the two kinds the harness decides on: binary correctness (council and baseline correlated through
a shared case difficulty) and a continuous rubric score in [0, 1] (Beta marginals, Gaussian copula).
At "the boundary" the council's expected score is exactly 1.15 x the baseline's.

Measured rates (seed 11, printed with ``-s``) are quoted in the tests' messages and in the report.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from harness.stats import PairedSample, evaluate_prediction
from harness.stats.signflip import difference_scores, sign_flip_test


def _margin(rate: float, reps: int) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / reps)


def _correlated_normals(rng: np.random.Generator, shape: tuple[int, int], rho: float) -> tuple[np.ndarray, np.ndarray]:
    shared = rng.normal(size=shape)
    return (
        math.sqrt(rho) * shared + math.sqrt(1 - rho) * rng.normal(size=shape),
        math.sqrt(rho) * shared + math.sqrt(1 - rho) * rng.normal(size=shape),
    )


def _binary(
    rng: np.random.Generator, shape: tuple[int, int], p_base: float, ratio: float, rho: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """``reps x n`` paired 0/1 scores with P(baseline right) = p_base, P(council right) = ratio * p_base."""
    zb, zc = _correlated_normals(rng, shape, rho)
    base = (zb < sps.norm.ppf(p_base)).astype(float)
    council = (zc < sps.norm.ppf(min(p_base * ratio, 1.0))).astype(float)
    return council, base


def _rubric(
    rng: np.random.Generator, shape: tuple[int, int], ratio: float, rho: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """``reps x n`` scores in [0, 1]: baseline Beta(2, 3) (mean 0.4), council Beta(a, 5 - a) (mean 0.4 * ratio)."""
    zb, zc = _correlated_normals(rng, shape, rho)
    a = 5 * 0.4 * ratio
    return sps.beta.ppf(sps.norm.cdf(zc), a, 5 - a), sps.beta.ppf(sps.norm.cdf(zb), 2, 3)


def _rate(verdict: str, council: np.ndarray, base: np.ndarray) -> float:
    """The share of the simulated runs (rows) whose verdict is ``verdict``."""
    return sum(_verdict(c, b) == verdict for c, b in zip(council, base, strict=True)) / len(council)


def _verdict(council: np.ndarray, base: np.ndarray) -> str:
    (v,) = evaluate_prediction(
        {"q": PairedSample(council=tuple(council), baseline=tuple(base))}, n_resamples=2000
    ).overall
    return v.verdict


@pytest.mark.parametrize("n", [10, 20, 30])
def test_boundary_false_supported_at_most_2_5_percent(n):
    """True improvement exactly 15%: "supported" must come out at most 2.5% of the time (+ margin)."""
    rng = np.random.default_rng(11 + n)
    reps = 1200
    rates = {
        "binary p=0.4": _rate("supported", *_binary(rng, (reps, n), 0.4, 1.15)),
        "rubric": _rate("supported", *_rubric(rng, (reps, n), 1.15)),
    }
    print(f"boundary n={n}: false supported {rates}")
    for name, rate in rates.items():
        assert rate <= 0.025 + _margin(0.025, reps), f"{name} at n={n}: {rate:.3%} false supported"


def test_family_wise_false_supported_across_eight_categories():
    """A true +15% in all 8 categories: P(any category "supported") <= 5% (+ margin) with the adjustment.

    Without it (every category at the unadjusted 95%) the same simulation gives far more, which shows
    the test can fail.
    """
    rng = np.random.default_rng(23)
    reps, per_category = 300, 15
    cats = {f"c{i}": f"cat{i // per_category}" for i in range(8 * per_category)}
    any_adjusted = any_unadjusted = 0
    for council, base in zip(*_rubric(rng, (reps, 8 * per_category), 1.15), strict=True):
        sample = PairedSample(council=tuple(council), baseline=tuple(base), ids=tuple(cats))
        report = evaluate_prediction({"rubric_composite": sample}, by_category=cats, n_resamples=2000)
        any_adjusted += any(v.verdict == "supported" for vs in report.by_category.values() for v in vs)
        any_unadjusted += any(
            sign_flip_test(
                difference_scores(council[i : i + per_category], base[i : i + per_category], 0.15), n_resamples=2000
            ).low
            > 0
            for i in range(0, 8 * per_category, per_category)
        )
    adjusted, unadjusted = any_adjusted / reps, any_unadjusted / reps
    print(f"family-wise false supported over 8 categories: adjusted {adjusted:.3%}, unadjusted {unadjusted:.3%}")
    assert adjusted <= 0.05 + _margin(0.05, reps)
    assert unadjusted > 0.10


def test_power_sanity():
    """A true +60% at n=30 on the rubric score is "supported" most of the time; so is issue 11's +300%."""
    rng = np.random.default_rng(5)
    reps = 200
    rubric = _rate("supported", *_rubric(rng, (reps, 30), 1.6))
    correct = _rate("supported", *_binary(rng, (reps, 55), 0.1, 3.5, rho=0.3))
    print(f"power: rubric +60% n=30 {rubric:.1%}; correctness 10% -> 35% n=55 {correct:.1%}")
    assert rubric >= 0.8
    assert correct >= 0.8


def test_clearly_worse_council_is_refuted():
    """A council 30% worse than the baseline (n=30, rubric) is "refuted" most of the time, never "supported"."""
    rng = np.random.default_rng(9)
    council, base = _rubric(rng, (200, 30), 0.7)
    refuted, supported = _rate("refuted", council, base), _rate("supported", council, base)
    print(f"true -30% n=30: refuted {refuted:.1%}, supported {supported:.1%}")
    assert refuted >= 0.8 and supported == 0


def _binary_verdict(council: np.ndarray, base: np.ndarray) -> str:
    (v,) = evaluate_prediction(
        {"correct": PairedSample(council=tuple(council), baseline=tuple(base))}, n_resamples=200
    ).overall
    return v.verdict


@pytest.mark.parametrize(("n", "p_base", "rho"), [(100, 0.1, 0.0), (30, 0.4, 0.5), (55, 0.3, 0.0)])
def test_binary_boundary_keeps_its_level_without_symmetry(n, p_base, rho):
    """``correct`` at a true ratio of exactly 1.15 (issue 27: the sign-flip gave 2.93% [2.70, 3.17] at n = 100
    and a 10% base rate): the exact test on the discordant pairs keeps both sides at 2.5% (+ margin)."""
    rng = np.random.default_rng(int(1000 * p_base) + n)
    reps = 1500
    council, base = _binary(rng, (reps, n), p_base, 1.15, rho=rho)
    verdicts = [_binary_verdict(c, b) for c, b in zip(council, base, strict=True)]
    supported, refuted = verdicts.count("supported") / reps, verdicts.count("refuted") / reps
    print(
        f"binary boundary n={n} base={p_base} rho={rho}: false supported {supported:.3%}, false refuted {refuted:.3%}"
    )
    assert supported <= 0.025 + _margin(0.025, reps) and refuted <= 0.025 + _margin(0.025, reps)


def test_binary_exact_test_power():
    """The exact test still supports a true +250% (10% -> 35%) at n = 55 in most runs (printed beside the
    normal-approximation power of harness.stats.power)."""
    from harness.stats.power import binary_power

    rng = np.random.default_rng(6)
    reps = 300
    council, base = _binary(rng, (reps, 55), 0.1, 3.5, rho=0.0)
    rate = sum(_binary_verdict(c, b) == "supported" for c, b in zip(council, base, strict=True)) / reps
    print(
        f"binary exact test, 10% -> 35% at n=55: supported {rate:.1%} (normal approx. {binary_power(55, 0.1, 3.5):.1%})"
    )
    assert rate >= 0.6


def _zero_inflated(rng: np.random.Generator, reps: int, n: int, zeros: float) -> tuple[np.ndarray, np.ndarray]:
    """0-10 scores at a true ratio of exactly 1.15: baseline Binomial(10, 0.5); the council, comonotone with
    it (a hard case is hard for both), Binomial(10, 0.575 / (1 - zeros)), then 0 on a share ``zeros`` of the
    cases (a crash or the safety cap): its mean is exactly 1.15 x 5."""
    u = rng.random((reps, n))
    base = sps.binom.ppf(u, 10, 0.5)
    council = sps.binom.ppf(u, 10, 0.575 / (1 - zeros))
    council[rng.random((reps, n)) < zeros] = 0.0
    return council, base


@pytest.mark.parametrize(("n", "zeros"), [(30, 0.3), (55, 0.2)])
def test_skewed_scores_keep_the_level_where_the_sign_flip_does_not(n, zeros):
    """Zero-inflated 0-10 scores at the boundary: the differences are skewed (a few large negative ones), so
    the sign-flip test alone is not exact. Measured on these seeds (1,000 runs each): the sign-flip alone
    gives 2.8% (n = 30, 30% zeros) and 5.5% (n = 55, 20% zeros) false "supported"; the rule (sign-flip and
    the skewness-corrected t both reject) 0.4% and 0.8%. Asserted at 2.5% + 3 Monte-Carlo SE (3.98%),
    which the sign-flip alone exceeds at n = 55."""
    rng = np.random.default_rng(5 + n)
    reps = 1000
    council, base = _zero_inflated(rng, reps, n, zeros)
    rate = _rate("supported", council, base)
    print(f"zero-inflated scores n={n}, {zeros:.0%} zeros: false supported {rate:.2%}")
    assert rate <= 0.025 + _margin(0.025, reps)
