"""The noise-aware gate's pieces worked by hand (harness/gate/noise.py), and an empty baseline."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from scipy import stats as sps

from harness.gate.baselines import Baseline, baseline_from_results, compare
from harness.gate.noise import (
    CaseNoise,
    ScoreNoise,
    case_noise,
    fisher_min_p,
    fisher_worse_p,
    sign_test_worse_p,
    tarone_level,
)
from harness.run.result import CaseResult

WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def test_fisher_one_sided_by_hand_and_against_scipy():
    # 0 of 3 failed, then 3 of 3: the only table this extreme of C(6, 3) = 20 -> 1/20
    assert fisher_worse_p(0, 3, 3, 3) == pytest.approx(1 / 20)
    assert fisher_min_p(0, 3, 3, 3) == pytest.approx(1 / 20)
    # k = 1: one flip is p = 1/2 whatever happens: no single flip can ever be "beyond noise"
    assert fisher_worse_p(0, 1, 1, 1) == pytest.approx(0.5) and fisher_min_p(0, 1, 1, 1) == pytest.approx(0.5)
    assert fisher_worse_p(1, 1, 1, 1) == 1.0 and fisher_min_p(1, 1, 1, 1) == 1.0
    assert fisher_worse_p(0, 5, 0, 5) == 1.0 and fisher_min_p(0, 5, 0, 5) == 1.0
    for table in ((1, 5, 4, 5), (0, 5, 5, 5), (2, 3, 1, 5), (3, 10, 8, 10)):
        fb, kb, fc, kc = table
        want = sps.fisher_exact([[fc, kc - fc], [fb, kb - fb]], alternative="greater").pvalue
        assert fisher_worse_p(*table) == pytest.approx(want, rel=1e-9), table


def test_sign_test_by_hand():
    assert sign_test_worse_p(5, 0) == pytest.approx(1 / 32)
    assert sign_test_worse_p(4, 1) == pytest.approx(6 / 32)
    assert sign_test_worse_p(0, 0) == 1.0
    assert sign_test_worse_p(0, 3) == 1.0


def test_tarone_level_gives_untestable_tests_no_share():
    assert tarone_level([0.0] * 5, 0.05) == pytest.approx(0.01)  # all continuous: Bonferroni over 5
    # five continuous tests and twenty k = 1 flips (smallest p 0.5): the flips cannot reject, K = 5
    assert tarone_level([0.0] * 5 + [0.5] * 20, 0.05) == pytest.approx(0.01)
    # two tests that could reach 0.004: K = 2 would need both <= 0.025 (yes, 2 <= 2)
    assert tarone_level([0.004, 0.004, 0.5], 0.05) == pytest.approx(0.025)
    assert tarone_level([], 0.05) == pytest.approx(0.05)


def test_score_noise_band_by_hand():
    # five cases at k = 1 on a 0-10 score: prior sd 0.75 (10 df); the other cases' changes d = 1, -1, 0, 2
    cases = [case_noise([8.0], [2.0]), *(case_noise([5.0], [5.0 + d]) for d in (1.0, -1.0, 0.0, 2.0))]
    noise = ScoreNoise.of(cases, scale=10.0)
    assert (noise.prior_sd, noise.df_within, noise.m) == (0.75, 0, 5)
    # d^2 / w with w = 2: 18 (the collapse) + 0.5 + 0.5 + 0 + 2
    assert noise.between_sum == pytest.approx(21.0)
    assert noise.df == 14
    # the collapsed case's own change is left out: (10 * 0.5625 + 3) / 14
    s = math.sqrt((10 * 0.5625 + 3.0) / 14)
    assert noise.sd(cases[0]) == pytest.approx(s)
    band = sps.t.ppf(1 - 0.007, 14) * s * math.sqrt(2)
    assert noise.band(cases[0], 0.007) == pytest.approx(band)
    # a case with its own larger spread keeps it: repeats 3, 9, 6 against 6, 6, 6
    wide = case_noise([6.0, 6.0, 6.0], [3.0, 9.0, 6.0])
    assert (wide.k_base, wide.k_current, wide.df_within, wide.ss_within) == (3, 3, 4, 18.0)
    assert ScoreNoise.of([wide, *cases[1:]], 10.0).sd(wide) == pytest.approx(math.sqrt(18.0 / 4))
    assert CaseNoise(k_base=1, k_current=4, mean_base=1, mean_current=1).weight == pytest.approx(1.25)


def _res(case: str, status: str = "passed", **scores: float) -> CaseResult:
    return CaseResult(case_id=case, dataset="sim", subject="council", status=status, scores=scores)  # type: ignore[arg-type]


def test_an_empty_baseline_never_passes():
    empty = Baseline(dataset="sim", created_at=WHEN, entries=())
    for noisy in (False, True):
        cmp = compare([_res("c1", rubric_composite=8.0)], empty, 0.5, noise_aware=noisy)
        assert cmp.verdict == "incomplete" and cmp.exit_code == 3  # never "pass"
        (reason,) = cmp.reasons
        assert reason.kind == "empty_baseline" and "holds no entries" in reason.message
        assert cmp.counts()["empty_baseline"] == 1


def test_repeated_failures_beyond_noise_are_named_and_one_flip_is_within_noise():
    base = baseline_from_results(
        "sim",
        [_res(f"c{i}", correct=1.0) for i in range(4)],
        {},
        created_at=WHEN,
        repeats=[_res(f"c{i}", correct=1.0) for i in range(4) for _ in range(4)],
    )
    assert [(e.runs, e.failures) for e in base.entries] == [(5, 0)] * 4
    # c0 fails all five runs (Fisher p = 1/252 <= 0.035 / 8); c1 fails once (p = 0.5)
    first = [
        _res("c0", "failed", correct=0.0),
        _res("c1", "failed", correct=0.0),
        *(_res(f"c{i}", correct=1.0) for i in (2, 3)),
    ]
    extra = [_res("c0", "failed", correct=0.0) for _ in range(4)]
    extra += [_res(f"c{i}", correct=1.0) for i in (1, 2, 3) for _ in range(4)]
    cmp = compare(first, base, 0.05, ["correct"], repeats=extra)
    assert cmp.noise_aware and cmp.case_level == pytest.approx(0.035 / 2)  # K = 2: c0's status and its score
    kinds = sorted((r.kind, r.case_id) for r in cmp.reasons)
    assert kinds == [("newly_failing", "c0"), ("score_drop", "c0")]
    assert [c.case_id for c in cmp.cases if c.within_noise] == ["c1"]
    assert [c.case_id for c in cmp.cases if c.status == "regressed"] == ["c0"]
    newly = next(r for r in cmp.reasons if r.kind == "newly_failing")
    assert "failed 5/5 run(s) (baseline 0/5), Fisher p=0.00397" in newly.message


def test_an_errored_case_is_not_sampling_noise() -> None:
    """An errored result (an endpoint or engine error: no answer at all) is not a sampled outcome: in
    noise-aware mode it keeps the strict rule, so a baselined pass that now errors is ``newly_failing``
    (at k = 1 a pass -> fail flip alone has Fisher p = 0.5 and is within noise; an error must not be)."""
    from datetime import UTC, datetime

    from harness.gate.baselines import baseline_from_results, compare
    from harness.run.result import CaseResult

    def res(case_id: str, status: str, score: float) -> CaseResult:
        return CaseResult(
            case_id=case_id,
            dataset="sim",
            subject="council",
            status=status,  # type: ignore[arg-type]
            scores={} if status == "error" else {"rubric_composite": score},
            error="HTTP 400" if status == "error" else None,
        )

    base = baseline_from_results(
        "sim",
        [res(f"c{i}", "passed", 7.0) for i in range(3)],
        {"run_id": "b"},
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    current = [res("c0", "error", 0.0), res("c1", "failed", 7.0), res("c2", "passed", 7.0)]
    cmp = compare(current, base, {"rubric_composite": 0.5}, ["rubric_composite"], noise_aware=True)
    kinds = {(r.case_id, r.kind) for r in cmp.reasons}
    assert ("c0", "newly_failing") in kinds  # errored: strict rule
    assert ("c1", "newly_failing") not in kinds  # a plain flip at k = 1 stays within noise
    assert cmp.exit_code == 1


def test_run_level_sign_flip_test_is_exact_by_enumeration():
    """Five cases' drops: the one-sided p is the share of the 32 sign patterns whose flipped sum is at
    least the observed one (exact under the null's exchangeability), with no tolerance subtracted."""
    import itertools

    from harness.gate.noise import run_level_test

    base, cur = [7.0, 6.0, 8.0, 5.0, 6.5], [6.0, 5.5, 6.0, 5.5, 5.0]
    drops = [b - c for b, c in zip(base, cur, strict=True)]
    hits = sum(
        sum(s * d for s, d in zip(signs, drops, strict=True)) >= sum(drops) - 1e-12
        for signs in itertools.product((1, -1), repeat=5)
    )
    test = run_level_test(cur, base, alpha=0.05, higher_is_better=True, binary=False)
    assert test.p_value == pytest.approx(hits / 32) and hits == 3
    assert test.tolerance == 0.0 and test.mean_change == pytest.approx(-0.9)
    assert test.significant_drop == (hits / 32 <= 0.05)
    # lower-is-better: the same numbers are an improvement; only flipping all five signs reaches it
    assert run_level_test(cur, base, alpha=0.05, higher_is_better=False, binary=False).p_value == pytest.approx(31 / 32)


def test_run_level_binary_test_is_the_sign_test_and_tarone_knows_its_floor():
    from harness.gate.noise import run_level_min_p, run_level_test, sign_test_worse_p

    base, cur = [1.0] * 8 + [0.0, 1.0], [0.0] * 6 + [1.0] * 2 + [1.0, 1.0]
    test = run_level_test(cur, base, alpha=0.05, higher_is_better=True, binary=True)
    assert test.p_value == pytest.approx(sign_test_worse_p(6, 1)) == pytest.approx(8 / 128)
    assert run_level_min_p([c - b for b, c in zip(base, cur, strict=True)], binary=True) == 0.5**7
    assert run_level_min_p([0.1] * 20, binary=False) == pytest.approx(1 / 10_001)  # Monte-Carlo sign-flip
    assert run_level_min_p([0.1] * 6 + [0.0] * 4, binary=False) == 0.5**6


def _result(case_id: str, score: float) -> CaseResult:
    return CaseResult(
        case_id=case_id, dataset="sim", subject="council", status="passed", scores={"rubric_composite": score}
    )


def test_noise_aware_run_level_catches_a_uniform_drop_inside_the_tolerance():
    """Noise-aware mode: 20 cases each 0.3 lower (inside the tolerance 0.5, within every case's band):
    the mean got worse beyond any noise (sign-flip p ~ 1e-4), so the run fails with an aggregate reason;
    the strict mode's Wilcoxon test beyond the tolerance does not see it."""
    base_results = [_result(f"c{i}", 6.0 + (i % 3)) for i in range(20)]
    cur_results = [_result(f"c{i}", 5.7 + (i % 3)) for i in range(20)]
    base = baseline_from_results("sim", base_results, {"run_id": "b"}, created_at=WHEN)
    noisy = compare(cur_results, base, {"rubric_composite": 0.5}, ["rubric_composite"], noise_aware=True)
    (reason,) = [r for r in noisy.reasons if r.kind == "aggregate"]
    assert reason.score == "rubric_composite" and "sign-flip test of the mean change" in reason.detail
    assert noisy.exit_code == 1
    strict = compare(cur_results, base, {"rubric_composite": 0.5}, ["rubric_composite"], noise_aware=False)
    assert strict.exit_code == 0
