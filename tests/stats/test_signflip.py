"""The paired sign-flip test and its interval, against a brute-force enumeration and hand-worked values.

The reference here never calls the code under test: it enumerates every sign vector with
``itertools.product`` and applies the definition of the one-sided p-value,
``p(mu) = #{s: sum(s * (d - mu)) >= sum(d - mu)} / 2**n``, and of the interval, ``{mu: p(mu) > a}``
from below and the mirror image from above.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from harness.stats.signflip import (
    EXACT_MAX_PAIRS,
    difference_scores,
    method_name,
    ratio_interval,
    sign_flip_test,
)


def _brute_p(d: np.ndarray, mu: float) -> float:
    e = d - mu
    observed = e.sum()
    hits = sum(1 for s in itertools.product((1.0, -1.0), repeat=d.size) if np.dot(s, e) >= observed - 1e-9)
    return hits / 2**d.size


def _brute_low(d: np.ndarray, a: float) -> float:
    """The smallest candidate mu with p(mu) > a; candidates are every subset mean (where p can jump)."""
    candidates = sorted(
        {round(float(np.mean(c)), 9) for r in range(1, d.size + 1) for c in itertools.combinations(d, r)}
    )
    return next(mu for mu in candidates if _brute_p(d, mu) > a)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_p_value_and_interval_match_brute_force(seed):
    d = np.round(np.random.default_rng(seed).normal(0.3, 1.0, 8), 3)
    res = sign_flip_test(d, confidence=0.8)  # a = 0.1: 2**8 * 0.1 = 25.6 -> the 26th smallest subset mean
    assert res.p_value == pytest.approx(_brute_p(d, 0.0))
    assert res.low == pytest.approx(_brute_low(d, 0.1), abs=1e-9)
    assert res.high == pytest.approx(-_brute_low(-d, 0.1), abs=1e-9)
    assert res.n_patterns == 256 and res.method == "exact paired sign-flip test (256 sign patterns)"
    # the rule "low > 0 exactly when p(0) <= a"
    assert (res.low > 0) == (res.p_value <= 0.1)


def test_hand_worked_p_value():
    # nine +1 and one -1: the flip sets with sum <= 0 are {} , {-1}, and {-1, one of the nine +1}: 11 of 1024
    res = sign_flip_test([1.0] * 9 + [-1.0])
    assert res.p_value == pytest.approx(11 / 1024)
    assert res.n_informative == 10 and res.mean == pytest.approx(0.8)
    # 95%: a * N = 0.025 * 1024 = 25.6 -> k = 25. Subset means <= 0: 11 patterns (counting the empty one),
    # so the 26th smallest is > 0: the interval's low end is above 0, as p = 11/1024 <= 0.025 says.
    assert res.low > 0


def test_unreachable_level_gives_infinite_bounds():
    # five pairs: 2**5 = 32 patterns, 0.025 * 32 < 1 -> no 95% bound exists
    res = sign_flip_test([1.0] * 5)
    assert res.low == -math.inf and res.high == math.inf and res.p_value == pytest.approx(1 / 32)


def test_monte_carlo_is_reproducible_and_close_to_exact():
    d = np.random.default_rng(4).normal(0.2, 1.0, EXACT_MAX_PAIRS + 6)
    a = sign_flip_test(d, seed=3)
    assert a == sign_flip_test(d, seed=3)
    assert a != sign_flip_test(d, seed=4)
    assert a.method == method_name(d.size, 10_000, 3) and "Monte-Carlo" in a.method and a.n_patterns == 10_001
    # two seeds agree within Monte-Carlo error (the sd of a p-value from 10,000 patterns is <= 0.005)
    assert abs(a.p_value - sign_flip_test(d, seed=4).p_value) < 0.03


def test_difference_scores_round_float_noise_to_ties():
    assert difference_scores([1.15], [1.0], 0.15).tolist() == [0.0]
    assert difference_scores([0.0, 1.0], [1.0, 0.0], 0.15).tolist() == [-1.15, 1.0]


def test_ratio_interval_agrees_with_the_difference_test():
    rng = np.random.default_rng(7)
    for _ in range(20):
        b = rng.uniform(0, 1, 12)
        c = b * rng.uniform(0.8, 1.6) + rng.normal(0, 0.1, 12)
        low, high, _ = ratio_interval(c, b)
        test = sign_flip_test(difference_scores(c, b, 0.15))
        assert (low > 1.15) == (test.low > 0)
        assert (high < 1.15) == (test.high < 0)


def test_ratio_interval_unbounded_and_undefined_cases():
    # baseline 0 almost everywhere: the data cannot bound the ratio from above
    low, high, note = ratio_interval([1.0] * 20, [1.0] + [0.0] * 19)
    assert high == math.inf and "from above" in note and low > 1
    low, high, note = ratio_interval([1.0, 2.0], [-1.0, 1.0])
    assert math.isnan(low) and "negative" in note


def test_bad_input_is_an_error():
    with pytest.raises(ValueError, match="at least one pair"):
        sign_flip_test([])
    with pytest.raises(ValueError, match="NaN"):
        sign_flip_test([1.0, math.nan])
