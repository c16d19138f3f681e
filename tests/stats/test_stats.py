"""Paired statistics: values worked by hand or checked against scipy on small samples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError
from scipy import stats as sps

from harness.stats import (
    MIN_INFORMATIVE_PAIRS,
    PairedSample,
    evaluate_prediction,
    holm,
    mcnemar_exact,
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


@pytest.mark.parametrize(
    "d",
    [
        [-0.15, -0.15, -0.15, 0.05, 0.05, 0.05, 0.05],  # ties
        [0.0, 0.0, 1.0, 2.0, 2.0, -1.0, 3.0, 4.0],  # zeros and ties
        [1.0, -2.0, 3.0, 4.0, 5.0, 6.0],  # neither: scipy's exact distribution
    ],
)
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


# --- the >15% verdict (difference form, sign-flip interval) -----------------------------------


def test_verdict_rule_precedence():
    assert verdict_for(0.01, 0.30) == "supported"
    assert verdict_for(-0.30, -0.01) == "refuted"
    assert verdict_for(-0.10, 0.10) == "inconclusive"
    assert verdict_for(0.0, 0.30) == "inconclusive"  # strictly above 0
    assert verdict_for(math.nan, math.nan) == "inconclusive"
    assert verdict_for(0.5, 0.9, n_informative=MIN_INFORMATIVE_PAIRS - 1) == "insufficient_data"
    assert verdict_for(0.5, 0.9, n_informative=MIN_INFORMATIVE_PAIRS) == "supported"


def _sample(council, base, prefix="c") -> PairedSample:
    return PairedSample(
        council=tuple(council), baseline=tuple(base), ids=tuple(f"{prefix}{i}" for i in range(len(council)))
    )


def _binary(n_right: int, n_total: int, offset: int = 0) -> list[float]:
    return [1.0 if offset <= i < offset + n_right else 0.0 for i in range(n_total)]


def test_weak_baseline_on_correctness_is_supported():
    # issue 11: council 20/55 vs baseline 5/55 (+300%) was "inconclusive" because the ratio was undefined
    # in some bootstrap resamples. Baseline right on cases 0-4, council on 0-19:
    # d = 5 x (1 - 1.15) + 15 x 1 + 35 x 0 -> mean = (15 - 0.75) / 55 = 0.2590909...
    council, base = _binary(20, 55), _binary(5, 55)
    (v,) = evaluate_prediction({"correct": _sample(council, base)}).overall
    assert (v.role, v.n, v.n_informative) == ("primary", 55, 20)
    assert v.mean_difference == pytest.approx(14.25 / 55)
    assert v.relative_improvement == pytest.approx(3.0)
    assert v.diff_low > 0 and v.verdict == "supported"
    assert v.ci_low > 0.15  # the ratio interval agrees with the verdict
    assert "Monte-Carlo paired sign-flip" in v.method
    # McNemar on the 0/1 values: 15 council-only, 0 baseline-only -> 2 * 2**-15
    assert v.mcnemar_p == pytest.approx(2 / 2**15)
    assert v.summary.startswith(
        "council vs single model on correctness: +300.0% (n=55), better by more than 15%: supported ("
    )


def test_better_baseline_on_correctness_is_refuted():
    # council 2/55 (cases 0-1) vs baseline 8/55 (cases 2-9): d = 2 x 1 + 8 x (-1.15) -> mean = -7.2 / 55
    council, base = _binary(2, 55), _binary(8, 55, offset=2)
    (v,) = evaluate_prediction({"correct": _sample(council, base)}).overall
    assert v.n_informative == 10
    assert v.mean_difference == pytest.approx(-7.2 / 55)
    # the sign-flip interval lies below 0, but it assumes symmetric differences; the exact test on the
    # discordant pairs (issue 27) gives sup_u P(T <= -7.2) = P(Bin(10, 1.15/2.15) <= 2) = 0.0341 at u = 0
    assert v.diff_high < 0 and v.verdict == "inconclusive"
    assert "exact unconditional test on the discordant pairs (2 council only, 8 baseline only, 0 both" in v.method
    assert v.relative_improvement == pytest.approx(2 / 8 - 1)
    # council 1/55 vs baseline 9/55: P(Bin(10, 1.15/2.15) <= 1) = 0.00592 <= 0.025: refuted
    (v,) = evaluate_prediction({"correct": _sample(_binary(1, 55), _binary(9, 55, offset=1))}).overall
    assert v.verdict == "refuted"
    q = 1.15 / 2.15
    assert (1 - q) ** 10 + 10 * q * (1 - q) ** 9 == pytest.approx(0.0059228, abs=1e-7)


def test_exact_interval_by_hand():
    # ten pairs, council 2, baseline 1: d = 0.85 everywhere. Every non-empty subset mean is 0.85, so the
    # interval is [0.85, 0.85]; the only sign pattern with sum >= the observed one is "no flip": p = 1/1024.
    (v,) = evaluate_prediction({"q": _sample([2.0] * 10, [1.0] * 10)}).overall
    assert (v.diff_low, v.diff_high) == (pytest.approx(0.85), pytest.approx(0.85))
    assert v.p_value == pytest.approx(1 / 1024)
    assert v.method.startswith("exact paired sign-flip test (1024 sign patterns) and skewness-corrected t-test")
    assert (v.ci_low, v.ci_high) == (pytest.approx(1.0), pytest.approx(1.0))  # ratio 2 in every subset
    assert v.verdict == "supported" and v.mcnemar_p is None  # not a binary family


def test_tiny_samples_are_insufficient_data_with_the_reason():
    # issue 11's counter-examples: n=2 with council = 2 x baseline, and 3 identical pairs
    (two,) = evaluate_prediction({"q": _sample([2.0, 4.0], [1.0, 2.0])}).overall
    assert two.verdict == "insufficient_data"
    assert "only 2 informative pair(s)" in two.reason and f"at least {MIN_INFORMATIVE_PAIRS}" in two.reason
    assert "insufficient data (only 2 informative" in two.summary
    (same,) = evaluate_prediction({"q": _sample([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])}).overall
    assert same.verdict == "insufficient_data" and same.n_informative == 3  # d = -0.15 on each
    # pairs where both scores are 0 carry no evidence: 9 informative of 40
    council, base = _binary(9, 40), [0.0] * 40
    (sparse,) = evaluate_prediction({"correct": _sample(council, base)}).overall
    assert (sparse.n, sparse.n_informative, sparse.verdict) == (40, 9, "insufficient_data")


def test_primary_first_and_secondaries_bonferroni_adjusted():
    rng = np.random.default_rng(3)
    base = rng.uniform(4, 6, 40)
    families = {
        "rubric_composite": _sample(base * 1.5, base),
        "correct": _sample(_binary(20, 40), _binary(4, 40)),
        "heuristic_quality": _sample(base, base),
    }
    by_category = {f"c{i}": ("math" if i < 20 else "logic") for i in range(40)}
    report = evaluate_prediction(families, by_category=by_category, primary="correct", primary_reason="configured")
    assert [v.family for v in report.overall] == ["correct", "rubric_composite", "heuristic_quality"]
    assert [v.role for v in report.overall] == ["primary", "secondary", "secondary"]
    assert report.headline is not None and report.headline.family == "correct"
    # secondary verdicts with >= 10 informative pairs: 2 overall + rubric and heuristic in each of 2
    # categories (20 pairs each) + correct in "math" (cases 0-19: council right on 20, baseline on 4 -> 20
    # informative) but not in "logic" (council and baseline both wrong on cases 20-39 -> 0 informative)
    assert report.n_secondary == 2 + 4 + 1
    assert report.secondary_confidence == pytest.approx(1 - 0.05 / 7)
    assert report.headline.confidence == 0.95
    assert all(v.confidence == pytest.approx(1 - 0.05 / 7) for v in report.overall[1:])
    logic = {v.family: v for v in report.by_category["logic"]}
    assert logic["correct"].verdict == "insufficient_data"
    assert all(v.role == "secondary" for vs in report.by_category.values() for v in vs)
    assert {v.verdict for v in report.by_category["math"] if v.family == "rubric_composite"} == {"supported"}


def test_one_category_gives_no_per_category_verdicts_and_missing_primary_is_explained():
    families = {"rubric_composite": _sample([2.0] * 12, [1.0] * 12)}
    report = evaluate_prediction(families, by_category={f"c{i}": "facts" for i in range(12)}, primary="correct")
    assert report.by_category == {}
    head = report.headline
    assert head is not None and head.family == "correct" and head.verdict == "insufficient_data"
    assert head.reason == "no case has a correct score for both subjects"
    assert report.overall[1].role == "secondary"


def test_judge_giving_everyone_the_same_score_is_warned():
    (v,) = evaluate_prediction({"rubric_composite": _sample([0.7] * 12, [0.7] * 12)}).overall
    assert "same rubric_composite score (0.7)" in v.warning
    (ok,) = evaluate_prediction({"rubric_composite": _sample([0.7] * 11 + [0.8], [0.7] * 12)}).overall
    assert ok.warning == ""


def test_evaluate_prediction_errors_and_nan_pairs():
    with pytest.raises(ValueError, match="no case ids"):
        evaluate_prediction({"q": PairedSample(council=(1.0, 2.0), baseline=(1.0, 2.0))}, by_category={})
    with pytest.raises(ValidationError, match="baseline has 1 entries"):
        PairedSample(council=(1.0, 2.0), baseline=(1.0,))
    council = [2.0, math.nan] + [3.0] * 10
    (v,) = evaluate_prediction({"q": PairedSample(council=tuple(council), baseline=(1.0,) * 12)}).overall
    assert (v.n, v.n_dropped, v.mean_council) == (11, 1, pytest.approx(32 / 11))
    assert "1 NaN pair(s) dropped" in v.note
    # a zero baseline: the ratio is undefined but the difference form still decides
    (z,) = evaluate_prediction({"z": PairedSample(council=(1.0,) * 12, baseline=(0.0,) * 12)}).overall
    assert math.isnan(z.relative_improvement) and z.verdict == "supported" and "baseline mean is 0" in z.note


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


def test_exact_binary_test_takes_the_supremum_over_the_nuisance():
    """5 council-only and 5 both-right pairs (N = 10): P(T >= T_obs) on the boundary
    q10 - 1.15 q01 - 0.15 q11 = 0 is largest at u = q11 ~ 0.1, not at u = 0; the p-value is that
    supremum, recomputed here by brute force over every trinomial table (issue 27)."""
    import numpy as np
    from scipy.stats import multinomial

    from harness.stats.boundary_tests import GRID, binary_boundary_test

    obs = 5 - 0.15 * 5
    by_u = []
    for u in np.linspace(0, 1 / 1.15, GRID):
        q01 = (1 - 1.15 * u) / 2.15
        q = [1 - u - q01, q01, u]
        by_u.append(
            sum(
                multinomial.pmf([a, b, 10 - a - b], 10, q)
                for a in range(11)
                for b in range(11 - a)
                if round(a - 1.15 * b - 0.15 * (10 - a - b), 9) >= round(obs, 9)
            )
        )
    test = binary_boundary_test(np.array([1.0] * 10), np.array([0.0] * 5 + [1.0] * 5), 0.15)
    assert (test.n10, test.n01, test.n11) == (5, 0, 5)
    assert test.p_greater == pytest.approx(max(by_u), abs=1e-6)
    assert max(by_u) > by_u[0] + 0.015  # 0.103 against 0.084 at u = 0


def test_hall_transform_is_the_stated_polynomial_and_monotone():
    """``G(T) = T + a T^2 + a^2 T^3 / 3 + a / 2`` with ``a = g / (3 sqrt(n))`` (Hall 1992); its
    derivative ``(1 + a T)^2`` is never negative, so ``G`` is non-decreasing in ``T``."""
    from harness.stats.boundary_tests import hall_transform

    a = -2.0 / (3 * math.sqrt(20))
    assert hall_transform(2.5, -2.0, 20) == pytest.approx(2.5 + a * 6.25 + a * a * 15.625 / 3 + a / 2, abs=1e-12)
    assert hall_transform(1.7, 0.0, 20) == 1.7
    grid = np.linspace(-20, 20, 4001)
    for g in (-3.0, -0.5, 0.5, 3.0):
        values = np.array([hall_transform(t, g, 12) for t in grid])
        assert np.all(np.diff(values) >= -1e-12)


def test_skewness_corrected_t_from_its_definition():
    """T, the skewness (central moments with divisor n) and the p-values of G(T) against t_{n-1},
    recomputed from the definitions; a symmetric sample has g = 0 and gives the plain one-sided t-test."""
    from scipy import stats as sps

    from harness.stats.boundary_tests import score_boundary_test

    d = np.array([2.55, 3.4, 2.4, 2.1, 3.4, 3.55, -4.6, 3.4, 2.1, 3.4, 2.1, 2.25])
    n, mean, sd = d.size, d.mean(), d.std(ddof=1)
    g = np.mean((d - mean) ** 3) / np.mean((d - mean) ** 2) ** 1.5
    t = math.sqrt(n) * mean / sd
    a = g / (3 * math.sqrt(n))
    big_g = t + a * t**2 + a**2 * t**3 / 3 + a / 2
    test = score_boundary_test(d)
    assert (test.t, test.skewness, test.corrected) == pytest.approx((t, g, big_g), abs=1e-12)
    assert test.p_greater == pytest.approx(sps.t.sf(big_g, n - 1), abs=1e-12)
    assert test.p_less == pytest.approx(sps.t.cdf(big_g, n - 1), abs=1e-12)
    assert g < 0 and big_g < t  # one large negative difference: the correction lowers T
    sym = np.array([-2.0, -1.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 4.5, 5.5, 6.0, 7.0])
    sym = np.concatenate([sym, 2 * np.median(sym) - sym])  # symmetric about its median
    plain = sps.ttest_1samp(sym, 0.0, alternative="greater").pvalue
    assert score_boundary_test(sym).skewness == pytest.approx(0.0, abs=1e-12)
    assert score_boundary_test(sym).p_greater == pytest.approx(plain, abs=1e-12)


def test_score_verdict_needs_both_the_sign_flip_and_the_skew_corrected_t():
    """11 of 12 cases far better and one crash (council 0): the exact sign-flip test alone supports
    (p = 0.0054), the skewness-corrected t does not (p = 0.129), so the verdict is inconclusive; without
    the crash both reject and the verdict is supported."""
    council = [6.0, 8, 7, 9, 8, 7, 0, 8, 9, 8, 9, 8]
    baseline = [3.0, 4, 4, 6, 4, 3, 4, 4, 6, 4, 6, 5]
    (v,) = evaluate_prediction(
        {"rubric_composite": PairedSample(council=tuple(council), baseline=tuple(baseline))}
    ).overall
    assert v.diff_low > 0  # the sign-flip interval alone would say supported
    assert v.verdict == "inconclusive"
    assert "both must reject" in v.method and v.p_value == pytest.approx(0.1292, abs=1e-4)
    council[6] = 7.0
    (v,) = evaluate_prediction(
        {"rubric_composite": PairedSample(council=tuple(council), baseline=tuple(baseline))}
    ).overall
    assert v.verdict == "supported"
