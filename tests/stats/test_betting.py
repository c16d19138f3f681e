"""The betting test of ``mean(d) > 0`` for bounded ``d`` (:mod:`harness.stats.betting`) and its place in the
score verdict."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.stats import PairedSample, evaluate_prediction
from harness.stats.betting import betting_test, difference_bounds

ALPHA = 0.025


def _reference_capital(d: list[float], bound: float, alpha: float, cap: float) -> float:
    """The capital of one ordering (the given one), by the module docstring's definition, with plain loops."""
    n = len(d)
    x = [v / bound for v in d]
    capital = 1.0
    for i in range(n):
        earlier = x[:i]
        mean = sum(earlier) / i if i else 0.0
        spread = sum((v - mean) ** 2 for v in earlier)
        var = (spread + 0.25) / (i + 1)  # one prior pseudo-case of (|lo| / 2)^2, in units of |lo|
        lam = min(math.sqrt(2 * math.log(1 / alpha) / (n * var)), cap)
        capital *= 1 + lam * x[i]
    return capital


def test_capital_by_hand_both_sides():
    rng = np.random.default_rng(4)
    d = list(rng.uniform(-11.5, 10.0, 100))  # spread wide enough that the plug-in bets stay below the cap
    t = betting_test(np.array(d), -11.5, 10.0, ALPHA, orderings=1)
    assert t.e_greater == pytest.approx(_reference_capital(d, 11.5, ALPHA, 0.95), rel=1e-9)
    assert t.e_less == pytest.approx(_reference_capital([-v for v in d], 10.0, ALPHA, 0.95), rel=1e-9)
    assert t.p_greater == pytest.approx(min(1.0, 1.0 / t.e_greater)) and t.p_less == min(1.0, 1.0 / t.e_less)
    # averaged over orderings: the first is the given order, the rest a seeded draw; the same call is reproducible
    many = betting_test(np.array(d), -11.5, 10.0, ALPHA)
    assert many == betting_test(np.array(d), -11.5, 10.0, ALPHA)
    assert many.e_greater != t.e_greater


def test_capital_stays_positive_at_the_bounds():
    """A case at the lower bound (council 0, baseline 10) costs at most the share ``c`` of the capital."""
    d = np.array([5.0] * 20 + [-11.5] * 3)
    t = betting_test(d, -11.5, 10.0, ALPHA)
    assert math.isfinite(t.e_greater) and 0 < t.e_greater
    t = betting_test(-d[::-1] * 10 / 11.5, -11.5, 10.0, ALPHA)  # the mirror side at its own bound (+10)
    assert math.isfinite(t.e_less) and 0 < t.e_less


def test_bounds_are_checked():
    assert difference_bounds((0.0, 10.0), 0.15) == pytest.approx((-11.5, 10.0))
    with pytest.raises(ValueError, match="outside its declared bounds"):
        betting_test(np.array([1.0, 12.0]), -11.5, 10.0, ALPHA)
    with pytest.raises(ValueError, match="straddle 0"):
        betting_test(np.array([1.0]), 0.5, 10.0, ALPHA)


@pytest.mark.parametrize("n", [10, 30, 55])
@pytest.mark.parametrize("delta", [0.8, 3.0])
def test_level_in_the_two_point_worlds(n, delta):
    """The hardest worlds for a bounded mean: ``d`` is the lower bound with probability ``delta / (|lo| +
    delta)`` and ``delta`` otherwise (mean exactly 0): a sample without the bound looks clearly positive.
    The proof gives <= 2.5% at every n; asserted with 3 Monte-Carlo SE (1,000 samples), and the mirror
    (the upper bound, for "refuted")."""
    reps, lo, hi = 1000, -11.5, 10.0
    rng = np.random.default_rng(n + int(10 * delta))
    up = rng.random((reps, n)) < delta / (-lo + delta)
    down = rng.random((reps, n)) < delta / (hi + delta)
    sup = np.mean([betting_test(np.where(r, lo, delta), lo, hi, ALPHA).p_greater <= ALPHA for r in up])
    ref = np.mean([betting_test(np.where(r, hi, -delta), lo, hi, ALPHA).p_less <= ALPHA for r in down])
    print(f"two-point n={n} delta={delta}: supported {sup:.1%}, refuted {ref:.1%}")
    limit = ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
    assert sup <= limit and ref <= limit


def _verdict(council, baseline, scales=None, family="rubric_composite"):
    sample = PairedSample(council=tuple(map(float, council)), baseline=tuple(map(float, baseline)))
    (v,) = evaluate_prediction({family: sample}, n_resamples=2000, scales=scales).overall
    return v


def _better(cases: int) -> tuple[list[float], list[float]]:
    """Baseline 4 / 5 / 6 in turn; the council 2 or 3 points better on every case (+50%)."""
    baseline = [4.0, 5.0, 6.0] * (cases // 3)
    return [b + 2 + i % 2 for i, b in enumerate(baseline)], baseline


def test_verdict_needs_the_betting_test_on_a_declared_scale():
    """18 cases, every one 2-3 points better (+50%): the sign-flip and the skewness-corrected t both reject
    (the old rule: supported), but on 0-10 the betting test cannot: 18 such cases are also what a world with
    rare crashes (council 0, baseline 10) shows most of the time. At 54 cases it rejects too."""
    council, baseline = _better(18)
    old = _verdict(council, baseline)
    new = _verdict(council, baseline, {"rubric_composite": (0.0, 10.0)})
    assert old.verdict == "supported" and "no declared scale for rubric_composite" in old.note
    assert new.verdict == "inconclusive" and "all three must reject" in new.method and new.note == ""
    e = betting_test(np.array(council) - 1.15 * np.array(baseline), -11.5, 10.0, ALPHA)
    assert 1 < e.e_greater < 1 / ALPHA and new.p_value == pytest.approx(1 / e.e_greater)
    assert _verdict(*_better(54), {"rubric_composite": (0.0, 10.0)}).verdict == "supported"


def test_verdict_refutes_with_the_mirror_betting_test():
    council, baseline = [3.0] * 30 + [4.0] * 25, [6.0] * 55
    v = _verdict(council, baseline, {"rubric_composite": (0.0, 10.0)})
    e = betting_test(np.array(council) - 1.15 * np.array(baseline), -11.5, 10.0, ALPHA)
    assert v.verdict == "refuted" and e.e_less >= 1 / ALPHA


def test_values_outside_the_declared_scale_keep_the_old_rule_and_say_so():
    council, baseline = _better(18)
    v = _verdict([2 * c for c in council], [2 * b for b in baseline], {"rubric_composite": (0.0, 10.0)})
    assert v.verdict == "supported" and "all three" not in v.method
    assert "outside its declared scale 0-10" in v.note and "level is not guaranteed" in v.note
