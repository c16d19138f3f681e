"""Paired statistics: values worked by hand or checked against scipy on small samples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError
from scipy import stats as sps

from harness.stats import (
    PairedSample,
    evaluate_prediction,
    holm,
    mcnemar_exact,
    paired_bootstrap_ci,
    paired_regression_test,
    relative_improvement,
    relative_improvement_note,
    verdict_for,
    wilcoxon_signed_rank,
)

# scipy's documentation example for the Wilcoxon signed-rank test.
DOCS_D = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75]


def _subsets_with_rank_sum_at_most(n: int, bound: int) -> int:
    """How many subsets of ranks {1..n} sum to <= bound (the exact null distribution of W-)."""
    ways = [1] + [0] * bound
    for r in range(1, n + 1):
        for s in range(bound, r - 1, -1):
            ways[s] += ways[s - r]
    return sum(ways)


# --- relative improvement -------------------------------------------------------------------


def test_relative_improvement_is_ratio_of_means_minus_one():
    # means 3 and 1.5 -> 3 / 1.5 - 1 = 1.0 (the mean of per-pair ratios would also be 1.0 here) ...
    assert relative_improvement([2, 4], [1, 2]) == pytest.approx(1.0)
    # ... but here the ratio of means is 6 / 2.5 - 1 = 1.4 while the mean ratio is (1/4 + 11/1) / 2 - 1 = 4.625
    assert relative_improvement([1, 11], [4, 1]) == pytest.approx(1.4)
    assert relative_improvement([115, 115], [100, 100]) == pytest.approx(0.15)


def test_relative_improvement_drops_nan_pairs():
    assert relative_improvement([2, 4, math.nan, 9], [1, 2, 5, math.nan]) == pytest.approx(1.0)


def test_relative_improvement_zero_baseline_is_nan_with_reason():
    assert math.isnan(relative_improvement([1, 2], [0, 0]))
    assert "baseline mean is 0" in relative_improvement_note([0, 0])
    assert math.isnan(relative_improvement([1, 2], [-1, -1]))
    assert "negative" in relative_improvement_note([-1, -1])
    assert relative_improvement_note([1, 2]) == ""


def test_relative_improvement_vectorized_form_matches_scalar():
    x = np.array([[2.0, 4.0], [1.0, 1.0], [3.0, 3.0]])
    y = np.array([[1.0, 2.0], [0.0, 0.0], [2.0, 4.0]])
    out = relative_improvement(x, y, axis=-1)
    assert out[0] == pytest.approx(1.0)
    assert math.isnan(out[1])
    assert out[2] == pytest.approx(3 / 3 - 1)


# --- Wilcoxon -------------------------------------------------------------------------------


def test_wilcoxon_matches_scipy_docs_example_and_hand_count():
    res = wilcoxon_signed_rank(DOCS_D, [0] * len(DOCS_D))
    ref = sps.wilcoxon(DOCS_D)
    assert res.n == 15
    # negative differences -48 and -67 have ranks 10 and 14: W- = 24 = min(W+, W-)
    assert res.statistic == 24 == ref.statistic
    # exact two-sided p = 2 * #{subsets of 1..15 with sum <= 24} / 2**15 = 2 * 676 / 32768
    count = _subsets_with_rank_sum_at_most(15, 24)
    assert count == 676
    assert res.p_value == pytest.approx(2 * count / 2**15, abs=1e-15)
    assert res.p_value == pytest.approx(ref.pvalue, abs=1e-15)
    assert res.p_value == pytest.approx(0.041259765625, abs=1e-15)


def test_wilcoxon_one_sided_greater_halves_the_exact_p():
    res = wilcoxon_signed_rank(DOCS_D, [0] * len(DOCS_D), alternative="greater")
    assert res.p_value == pytest.approx(676 / 2**15, abs=1e-15)


def test_wilcoxon_pairs_are_differences_of_the_two_samples():
    council = [d + 100 for d in DOCS_D]
    res = wilcoxon_signed_rank(council, [100] * len(DOCS_D))
    assert res.p_value == pytest.approx(0.041259765625, abs=1e-15)


def test_wilcoxon_tiny_and_degenerate_samples_are_nan_not_errors():
    one = wilcoxon_signed_rank([1.0], [0.0])
    assert one.n == 1 and math.isnan(one.p_value) and "insufficient data" in one.note
    zeros = wilcoxon_signed_rank([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert math.isnan(zeros.p_value) and "all differences are zero" in zeros.note
    empty = wilcoxon_signed_rank([], [])
    assert empty.n == 0 and math.isnan(empty.p_value)
    dropped = wilcoxon_signed_rank([1.0, math.nan, 2.0], [0.5, 1.0, math.nan])
    assert dropped.n == 1 and "2 NaN pair(s) dropped" in dropped.note


@pytest.mark.parametrize("d", [
    [-0.15, -0.15, -0.15, 0.05, 0.05, 0.05, 0.05],  # ties
    [0.0, 0.0, 1.0, 2.0, 2.0, -1.0, 3.0, 4.0],  # zeros and ties
    [1.0, -2.0, 3.0, 4.0, 5.0, 6.0],  # neither: scipy's exact distribution
])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_wilcoxon_small_tied_samples_match_scipy(d, alternative):
    res = wilcoxon_signed_rank(d, [0.0] * len(d), alternative=alternative)
    ref = sps.wilcoxon(d, zero_method="pratt", alternative=alternative)
    assert res.statistic == pytest.approx(float(ref.statistic))
    assert res.p_value == pytest.approx(float(ref.pvalue), abs=1e-12)


def test_wilcoxon_length_mismatch_is_an_error():
    with pytest.raises(ValueError, match="equal length"):
        wilcoxon_signed_rank([1, 2], [1])


# --- McNemar --------------------------------------------------------------------------------


def _table(both: int, council_only: int, baseline_only: int, neither: int) -> tuple[list[bool], list[bool]]:
    c = [True] * both + [True] * council_only + [False] * baseline_only + [False] * neither
    b = [True] * both + [False] * council_only + [True] * baseline_only + [False] * neither
    return c, b


def test_mcnemar_exact_by_hand():
    # 2x2 table: both pass 10, council only 7, baseline only 1, both fail 2.
    # Discordant: b=7, c=1, n=8. P(X <= 1 | Bin(8, 1/2)) = (1 + 8) / 256, two-sided = 18/256.
    c, b = _table(10, 7, 1, 2)
    res = mcnemar_exact(c, b)
    assert (res.n, res.council_only, res.baseline_only) == (20, 7, 1)
    assert res.p_value == pytest.approx(18 / 256, abs=1e-15)
    assert res.p_value == pytest.approx(sps.binomtest(7, 8, 0.5).pvalue, abs=1e-15)


def test_mcnemar_symmetric_and_capped_at_one():
    # b=3, c=3: 2 * P(X <= 3 | Bin(6, 1/2)) = 2 * 42/64 > 1 -> 1.0
    c, b = _table(0, 3, 3, 0)
    assert mcnemar_exact(c, b).p_value == 1.0
    # b=0, c=5: 2 * (1/32) = 1/16
    c, b = _table(4, 0, 5, 0)
    assert mcnemar_exact(c, b).p_value == pytest.approx(1 / 16, abs=1e-15)


def test_mcnemar_degenerate():
    c, b = _table(5, 0, 0, 3)
    res = mcnemar_exact(c, b)
    assert res.p_value == 1.0 and "no discordant pairs" in res.note
    assert math.isnan(mcnemar_exact([], []).p_value)


# --- Holm -----------------------------------------------------------------------------------


def test_holm_by_hand():
    # sorted: 0.01*3 = 0.03; 0.03*2 = 0.06; 0.04*1 = 0.04 -> running max 0.06. Back in input order:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_holm_caps_at_one_and_skips_nan():
    assert holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])
    out = holm([0.02, math.nan, 0.04])  # m = 2: 0.02*2 = 0.04, 0.04*1 = 0.04
    assert out[0] == pytest.approx(0.04) and math.isnan(out[1]) and out[2] == pytest.approx(0.04)
    assert holm([]) == []
    assert holm([0.2]) == [0.2]


# --- bootstrap ------------------------------------------------------------------------------


def _synthetic(seed: int, n: int, ratio: float, noise: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(40, 60, n)
    council = base * ratio * rng.normal(1.0, noise, n)  # E[council] = ratio * E[base]
    return council, base


def test_bootstrap_ci_covers_known_ratio_and_is_reproducible():
    council, base = _synthetic(7, 100, 1.25, 0.1)
    ci = paired_bootstrap_ci(council, base, seed=3)
    assert ci.low < 0.25 < ci.high
    assert ci.high - ci.low < 0.1
    assert ci.low < relative_improvement(council, base) < ci.high
    assert paired_bootstrap_ci(council, base, seed=3) == ci
    assert paired_bootstrap_ci(council, base, seed=4) != ci


def test_bootstrap_coverage_is_close_to_nominal():
    covered = 0
    for seed in range(40):
        council, base = _synthetic(seed, 60, 1.2, 0.2)
        ci = paired_bootstrap_ci(council, base, n_resamples=2000, confidence=0.9, seed=seed, method="percentile")
        covered += ci.low < 0.2 < ci.high
    assert 32 <= covered <= 40  # nominal 36 of 40


def test_bootstrap_is_paired():
    # council = 1.2 * baseline exactly, baseline very spread out: pairing makes the ratio certain.
    base = np.random.default_rng(0).uniform(1, 100, 50)
    ci = paired_bootstrap_ci(base * 1.2, base, n_resamples=2000, method="percentile")
    assert ci.low == pytest.approx(0.2) and ci.high == pytest.approx(0.2)


def test_bootstrap_matches_scipy():
    council, base = _synthetic(1, 30, 1.1, 0.2)
    ci = paired_bootstrap_ci(council, base, n_resamples=999, seed=5)
    ref = sps.bootstrap((council, base), lambda x, y, axis: x.mean(axis) / y.mean(axis) - 1, paired=True,
                        n_resamples=999, rng=np.random.default_rng(5))
    assert ci.low == pytest.approx(ref.confidence_interval.low)
    assert ci.high == pytest.approx(ref.confidence_interval.high)


def test_bootstrap_degenerate_inputs_give_nan_with_reason():
    one = paired_bootstrap_ci([2.0], [1.0])
    assert math.isnan(one.low) and "insufficient data" in one.note
    flat = paired_bootstrap_ci([2.0, 2.0, 2.0], [1.0, 1.0, 1.0], n_resamples=500)  # BCa alone would be NaN
    assert flat.low == flat.high == 1.0 and "same value" in flat.note
    zero = paired_bootstrap_ci([2.0, 2.0, 2.0], [1.0, 0.0, 0.0], n_resamples=500)
    assert math.isnan(zero.high) and "undefined in" in zero.note


# --- verdicts -------------------------------------------------------------------------------


def test_verdict_rule():
    assert verdict_for(0.16, 0.30, 0.15) == "supported"
    assert verdict_for(0.01, 0.14, 0.15) == "refuted"
    assert verdict_for(0.10, 0.20, 0.15) == "inconclusive"
    assert verdict_for(0.15, 0.30, 0.15) == "inconclusive"  # strictly above the threshold
    assert verdict_for(math.nan, math.nan, 0.15) == "inconclusive"


def _sample(council, base, prefix="c") -> PairedSample:
    return PairedSample(council=tuple(council), baseline=tuple(base),
                        ids=tuple(f"{prefix}{i}" for i in range(len(council))))


def test_three_verdicts_from_data():
    families = {
        "better": _sample(*_synthetic(1, 100, 1.40, 0.05)),
        "same": _sample(*_synthetic(2, 100, 1.00, 0.05)),
        "borderline": _sample(*_synthetic(3, 20, 1.15, 0.3)),
    }
    report = evaluate_prediction(families, n_resamples=2000)
    v = {x.family: x for x in report.overall}
    assert v["better"].verdict == "supported" and v["better"].ci_low > 0.15
    assert v["same"].verdict == "refuted" and v["same"].ci_high < 0.15
    assert v["borderline"].verdict == "inconclusive"
    assert v["borderline"].ci_low <= 0.15 <= v["borderline"].ci_high
    # Holm across the three families of the scope
    assert [x.p_holm for x in report.overall] == pytest.approx(holm([x.wilcoxon_p for x in report.overall]))
    assert "supported" in v["better"].summary and "better:" in v["better"].summary
    assert v["better"].mcnemar_p is None


def test_evaluate_prediction_hand_values_and_mcnemar():
    c, b = _table(10, 7, 1, 2)
    sample = PairedSample(council=(3.0, 6.0) * 10, baseline=(2.0, 4.0) * 10, council_pass=tuple(c),
                          baseline_pass=tuple(b))
    (v,) = evaluate_prediction({"quality": sample}, n_resamples=500).overall
    assert (v.n, v.mean_council, v.mean_baseline) == (20, 4.5, 3.0)
    assert v.relative_improvement == pytest.approx(0.5)
    assert v.mcnemar_p == pytest.approx(18 / 256)
    assert v.p_holm == v.wilcoxon_p  # one family: Holm changes nothing
    # every pair has the same ratio 1.5, so every resample gives exactly 0.5
    assert v.ci_low == pytest.approx(0.5) and v.ci_high == pytest.approx(0.5)
    assert v.verdict == "supported"


def test_evaluate_prediction_per_category_and_tiny_samples():
    council, base = _synthetic(5, 40, 1.4, 0.05)
    families = {"q": _sample(council, base), "r": _sample(base, base)}
    by_category = {f"c{i}": ("math" if i < 30 else "logic") for i in range(39)}  # c39 uncategorized
    report = evaluate_prediction(families, by_category=by_category, n_resamples=500)
    assert sorted(report.by_category) == ["logic", "math", "uncategorized"]
    assert [v.n for v in report.by_category["math"]] == [30, 30]
    assert [v.n for v in report.by_category["logic"]] == [9, 9]
    tiny = {v.family: v for v in report.by_category["uncategorized"]}
    assert tiny["q"].n == 1 and tiny["q"].verdict == "inconclusive"
    assert math.isnan(tiny["q"].ci_low) and math.isnan(tiny["q"].wilcoxon_p) and math.isnan(tiny["q"].p_holm)
    assert "insufficient data" in tiny["q"].summary
    assert math.isnan(tiny["r"].wilcoxon_p)  # all differences zero
    math_v = {v.family: v for v in report.by_category["math"]}
    assert math_v["q"].verdict == "supported" and math_v["r"].verdict == "refuted"


def test_evaluate_prediction_errors_and_nan_pairs():
    with pytest.raises(ValueError, match="no challenge ids"):
        evaluate_prediction({"q": PairedSample(council=(1.0, 2.0), baseline=(1.0, 2.0))}, by_category={})
    with pytest.raises(ValidationError, match="baseline has 1 entries"):
        PairedSample(council=(1.0, 2.0), baseline=(1.0,))
    with pytest.raises(ValidationError, match="both council_pass and baseline_pass"):
        PairedSample(council=(1.0,), baseline=(1.0,), council_pass=(True,))
    (v,) = evaluate_prediction({"q": PairedSample(council=(2.0, math.nan, 4.0, 6.0), baseline=(1.0, 1.0, 2.0, 3.0))},
                               n_resamples=200).overall
    assert (v.n, v.n_dropped, v.mean_council) == (3, 1, 4.0)
    (z,) = evaluate_prediction({"z": PairedSample(council=(1.0, 2.0), baseline=(0.0, 0.0))}, n_resamples=200).overall
    assert math.isnan(z.relative_improvement) and z.verdict == "inconclusive" and "baseline mean is 0" in z.note


# --- regression gate test -------------------------------------------------------------------


def test_regression_test_consistent_drop_is_significant():
    # five cases each 0.2 worse, tolerance 0.05: d = -0.15 for all -> exact one-sided p = 1/2**5
    t = paired_regression_test([0.6] * 5, [0.8] * 5, tolerance=0.05)
    assert t.p_value == pytest.approx(1 / 32) and t.significant_drop and t.powered
    assert t.mean_change == pytest.approx(-0.2)


def test_regression_test_one_noisy_case_is_not_significant():
    # one of ten cases 0.2 worse: d = [-0.15, 0.05 x 9]; W+ = 45 of 55, far above the null mean 27.5
    t = paired_regression_test([0.6] + [0.8] * 9, [0.8] * 10, tolerance=0.05)
    assert not t.significant_drop and t.p_value > 0.5


def test_regression_test_drop_within_tolerance_and_too_few_cases():
    exact = paired_regression_test([0.75] * 6, [0.80] * 6, tolerance=0.05)  # drop == tolerance: ties
    assert math.isnan(exact.p_value) and not exact.significant_drop and "insufficient data" in exact.note
    four = paired_regression_test([0.6] * 4, [0.8] * 4, tolerance=0.05)  # best possible p = 1/16
    assert four.p_value == pytest.approx(1 / 16) and not four.powered and not four.significant_drop
    none = paired_regression_test([], [], tolerance=0.05)
    assert none.n == 0 and not none.significant_drop


def test_regression_test_lower_is_better():
    worse = paired_regression_test([0.5] * 5, [0.2] * 5, tolerance=0.05, higher_is_better=False)
    assert worse.significant_drop and worse.p_value == pytest.approx(1 / 32)
    better = paired_regression_test([0.1] * 5, [0.2] * 5, tolerance=0.05, higher_is_better=False)
    assert not better.significant_drop and better.p_value == pytest.approx(1.0)
