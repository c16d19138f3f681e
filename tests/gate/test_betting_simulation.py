"""Seeded simulations of the score verdict in the worlds where its level failed before the betting test.

The worlds are the worst cells of the second blind set (``bench/worlds2``, scored in
``bench/worlds2/scores``), rebuilt here from their description: paired 0-10 (or capped 0-100) scores
at a true ratio of exactly 1.15 (the claim's boundary), the two arms sharing one uniform with
probability ``coupling`` (a hard case is hard for both), the council 0 on a share ``zeros`` of the
cases (a crash), and the council's law a mixture chosen so that its mean is exactly 1.15 x the
baseline's. In each, the rule without the betting test (no declared scale: the sign-flip and the
skewness-corrected t) errs far above 2.5%, and the rule with it (the declared scale) stays within
2.5% + 3 Monte-Carlo SE, as its proof says it must (:mod:`harness.stats.betting`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as sps

from harness.stats import PairedSample, evaluate_prediction

RUNS = 400
LIMIT = 0.025 + 3 * math.sqrt(0.025 * 0.975 / RUNS)  # 4.84%

Ppf = Callable[[np.ndarray], np.ndarray]


def _discrete(pmf: list[float] | np.ndarray, support: np.ndarray | None = None) -> tuple[Ppf, float]:
    """The quantile function and mean of a law on ``support`` (default 0..10)."""
    p = np.asarray(pmf, dtype=float) / np.sum(pmf)
    s = np.arange(p.size, dtype=float) if support is None else support
    cdf = np.cumsum(p)
    cdf[-1] = 1.0
    return (lambda u: s[np.searchsorted(cdf, u, side="left")]), float(p @ s)


def _mixed_to(pmf: np.ndarray, mean: float) -> np.ndarray:
    """``pmf`` mixed with a point mass at 10 so that its mean is ``mean``."""
    own = float(pmf @ np.arange(11))
    w = (mean - own) / (10.0 - own)
    assert 0 <= w <= 1
    return (1 - w) * pmf + w * np.eye(11)[10]


def _pairs(
    rng: np.random.Generator, n: int, baseline: Ppf, council: Ppf, coupling: float, zeros: float
) -> tuple[np.ndarray, np.ndarray]:
    u_b = rng.random((RUNS, n))
    u_c = np.where(rng.random((RUNS, n)) < coupling, u_b, rng.random((RUNS, n)))
    c = np.where(rng.random((RUNS, n)) < zeros, 0.0, council(u_c))
    return c, baseline(u_b)


def ceiling_mild(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Baseline Binomial(10, 0.72); the council 0 on 10% of cases, else Binomial(10, 0.72) mixed with 10s."""
    pmf = sps.binom.pmf(np.arange(11), 10, 0.72)
    base, mean = _discrete(pmf)
    council, _ = _discrete(_mixed_to(pmf, 1.15 * mean / 0.9))
    return _pairs(rng, n, base, council, 0.9, 0.1)


def zero_inflated_mid(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Baseline Binomial(10, 0.45); the council 0 on 20% of cases, else Binomial(10, 0.45) mixed with
    Binomial(10, 0.95)."""
    pmf = sps.binom.pmf(np.arange(11), 10, 0.45)
    high = sps.binom.pmf(np.arange(11), 10, 0.95)
    base, mean = _discrete(pmf)
    target = 1.15 * mean / 0.8
    w = (target - mean) / (9.5 - mean)
    council, _ = _discrete((1 - w) * pmf + w * high)
    return _pairs(rng, n, base, council, 0.9, 0.2)


def outlier_bimodal(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Baseline 0 / 1 / 2 with probabilities .35 / .35 / .22 and 10 with .08 (a rare perfect score); the
    council the same law mixed with 10s."""
    pmf = np.array([0.35, 0.35, 0.22] + [0.0] * 7 + [0.08])
    base, mean = _discrete(pmf)
    council, _ = _discrete(_mixed_to(pmf, 1.15 * mean))
    return _pairs(rng, n, base, council, 0.9, 0.0)


def _capped_mean(mu: float, sigma: float = 1.2, cap: float = 100.0) -> float:
    lc = math.log(cap)
    return math.exp(mu + sigma**2 / 2) * sps.norm.cdf((lc - mu - sigma**2) / sigma) + cap * sps.norm.sf(
        (lc - mu) / sigma
    )


def capped_lognormal(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Scores on 0-100: baseline min(exp(1.5 + 1.2 Z), 100), the council the same with the log-mean solved
    so that its mean is exactly 1.15 x the baseline's."""
    target = 1.15 * _capped_mean(1.5)
    mu_c = optimize.brentq(lambda m: _capped_mean(m) - target, -10, 10, xtol=1e-14)

    def law(mu: float) -> Ppf:
        return lambda u: np.minimum(np.exp(mu + 1.2 * sps.norm.ppf(np.clip(u, 1e-300, 1 - 1e-16))), 100.0)

    return _pairs(rng, n, law(1.5), law(mu_c), 0.9, 0.0)


def _rates(council: np.ndarray, base: np.ndarray, scale: tuple[float, float] | None) -> tuple[float, float]:
    """(false "supported", false "refuted") shares of the runs (rows) under the rule with ``scale``."""
    verdicts = []
    for c, b in zip(council, base, strict=True):
        (v,) = evaluate_prediction(
            {"rubric_composite": PairedSample(council=tuple(c), baseline=tuple(b))},
            n_resamples=2000,
            scales=None if scale is None else {"rubric_composite": scale},
        ).overall
        verdicts.append(v.verdict)
    return verdicts.count("supported") / RUNS, verdicts.count("refuted") / RUNS


@pytest.mark.parametrize(
    ("world", "n", "scale", "side"),
    [
        (capped_lognormal, 10, (0.0, 100.0), 0),
        (ceiling_mild, 10, (0.0, 10.0), 0),
        (zero_inflated_mid, 10, (0.0, 10.0), 0),
        (outlier_bimodal, 20, (0.0, 10.0), 1),
    ],
    ids=["capped-lognormal-n10", "ceiling-crash-n10", "zero-inflated-n10", "outlier-n20-refuted"],
)
def test_betting_test_holds_the_level_where_the_old_rule_did_not(world, n, scale, side):
    """At the boundary: the old rule's false "supported" (or, for rare perfect scores, false "refuted")
    exceeds 2.5% + 3 SE; with the declared scale the betting test holds it. Measured (400 runs, these
    seeds): see the printed rates (``-s``)."""
    council, base = world(np.random.default_rng(27 + n), n)
    old = _rates(council, base, None)[side]
    new = _rates(council, base, scale)[side]
    name = ("false supported", "false refuted")[side]
    print(f"{world.__name__} n={n}: {name} without the betting test {old:.1%}, with it {new:.1%}")
    assert old > LIMIT  # the world is hard: the rule without the betting test fails it
    assert new <= LIMIT
