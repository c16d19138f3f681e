"""Power before and after a run (harness/stats/power.py, ``council-harness plan``, the verdict lines)."""

from __future__ import annotations

import math

import pytest
from scipy import stats as sps

from harness.cli.plan import plan_lines
from harness.stats import PairedSample, evaluate_prediction
from harness.stats.power import (
    binary_detectable_ratio,
    binary_n_needed,
    binary_power,
    score_detectable_ratio,
    score_n_needed,
)


def _by_hand_power(n: int, p: float, ratio: float) -> float:
    sd = math.sqrt(ratio * p * (1 - ratio * p) + 1.15**2 * p * (1 - p))
    return float(sps.norm.cdf(math.sqrt(n) * (ratio - 1.15) * p / sd - sps.norm.ppf(0.975)))


def test_binary_power_and_cases_needed_by_hand():
    # issue 27: at 55 cases and a 10% base rate a true +50% is supported ~6% of the time, a doubling ~20%
    assert binary_power(55, 0.1, 1.5) == pytest.approx(_by_hand_power(55, 0.1, 1.5)) == pytest.approx(0.0753, abs=1e-4)
    assert binary_power(55, 0.1, 2.0) == pytest.approx(0.2217, abs=1e-4)
    # n = ceil(((z_.975 + z_.8) sd / ((R - 1.15) p))^2)
    for ratio, want in ((1.5, 1580), (2.0, 304)):
        assert binary_n_needed(ratio, 0.1) == want
        assert binary_power(want, 0.1, ratio) >= 0.8 > binary_power(want - 1, 0.1, ratio)
    assert binary_n_needed(1.15, 0.1) is None and binary_n_needed(20.0, 0.1) is None
    ratio = binary_detectable_ratio(55, 0.1)
    assert ratio is not None and binary_power(55, 0.1, ratio) == pytest.approx(0.8, abs=1e-6)
    assert ratio == pytest.approx(3.3596, abs=1e-3)
    assert binary_detectable_ratio(5, 0.5) is None  # even an always-right council: 5 cases are too few


def test_score_power_by_hand():
    # sd(d) = 2, baseline mean 5, n = 55: R = 1.15 + (1.95996 + 0.84162) * 2 / (sqrt(55) * 5) = 1.30113
    assert score_detectable_ratio(55, 5.0, 2.0) == pytest.approx(1.15 + 2.80158 * 2 / (math.sqrt(55) * 5), abs=1e-4)
    assert score_n_needed(1.3, 5.0, 2.0) == math.ceil((2.80158 * 2 / (0.15 * 5)) ** 2)
    assert score_detectable_ratio(1, 5.0, 2.0) is None and score_detectable_ratio(10, 0.0, 2.0) is None


def test_plan_states_the_detectable_improvement_and_the_cases_needed():
    lines = plan_lines(55, 0.1)
    assert lines[1] == (
        "  detectable: a true improvement of +236% or more is supported with 80% power; smaller "
        "ones mostly come out insufficient_data or inconclusive"
    )
    assert "  true +50%: power 8% at 55 cases; 1580 cases for 80%" in lines
    assert "  true +100%: power 22% at 55 cases; 304 cases for 80%" in lines
    assert plan_lines(3, 0.5)[1].startswith("  detectable: no true improvement is supported with 80% power")


def test_insufficient_and_refuted_verdicts_state_the_detectable_effect():
    # 55 cases, baseline right on 9, council on 1: refuted by the exact test; the sentence says what n=55
    # could have detected at this base rate
    council = [1.0] + [0.0] * 54
    baseline = [0.0] + [1.0] * 9 + [0.0] * 45
    (v,) = evaluate_prediction({"correct": PairedSample(council=tuple(council), baseline=tuple(baseline))}).overall
    assert v.verdict == "refuted"
    want = binary_detectable_ratio(55, 9 / 55)
    assert want is not None and v.detectable == pytest.approx(want - 1)
    assert (
        f"at n=55 only a true improvement of +{100 * (want - 1):.1f}% or more is detectable with 80% power" in v.summary
    )
    few = PairedSample(council=(1.0, 1.0, 0.0), baseline=(0.0, 0.0, 1.0))
    (v,) = evaluate_prediction({"correct": few}).overall
    assert v.verdict == "insufficient_data" and "at n=3 no true improvement is detectable with 80% power" in v.summary
