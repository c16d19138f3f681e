"""Seeded simulations of the regression gate: it catches every large regression of issue 11, and it
keeps its false-alarm rate at or below 5% (plus the Monte-Carlo margin) under symmetric noise.

Each test runs in well under 10 s. The measured rates are printed (``pytest -s``) so that they can
be quoted; the assertions use the Monte-Carlo margin ``3 * sqrt(0.05 * 0.95 / runs)``.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest

from harness.gate.baselines import Baseline, baseline_from_results, compare
from harness.run.result import CaseResult

WHEN = datetime(2025, 1, 2, tzinfo=UTC)
RUNS = 200
MARGIN = 3 * math.sqrt(0.05 * 0.95 / RUNS)  # 0.046 at 200 runs


def res(case: str, subject: str = "council", status: str = "passed", **scores: float) -> CaseResult:
    return CaseResult(case_id=case, dataset="sim", subject=subject, status=status, scores=scores)


def baseline(results: list[CaseResult], repeats: list[CaseResult] | None = None) -> Baseline:
    return baseline_from_results("sim", results, {"run_id": "base"}, created_at=WHEN, repeats=repeats or [])


# --- the counter-examples of issue 11 ---------------------------------------------------------


def test_one_rubric_score_falling_8_to_2_in_5_cases_fails_naming_the_case():
    before = [res(f"c{i}", rubric_accuracy=8.0) for i in range(5)]
    after = [res(f"c{i}", rubric_accuracy=2.0 if i == 3 else 8.0) for i in range(5)]
    cmp = compare(after, baseline(before), {"rubric_accuracy": 0.5})
    assert cmp.exit_code == 1
    (reason,) = cmp.reasons
    assert (reason.kind, reason.case_id, reason.subject, reason.score) == (
        "score_drop",
        "c3",
        "council",
        "rubric_accuracy",
    )
    assert (reason.baseline, reason.current, reason.tolerance) == (8.0, 2.0, 0.5)
    assert reason.message == "case c3 [council]: rubric_accuracy 8.000 -> 2.000, worse by 6.000 > tolerance 0.5"


@pytest.mark.parametrize(
    ("n", "k", "before", "after", "tol"),
    [
        (10, 5, 0.8, 0.0, 0.05),  # 10 cases with 5 collapsing 0.8 -> 0
        (30, 10, 0.9, 0.4, 0.05),  # 30 cases with 10 dropping 0.5
        (100, 1, 0.8, 0.7, 0.05),  # one case of a hundred
    ],
)
def test_a_minority_of_large_drops_fails_whatever_n(n, k, before, after, tol):
    base = baseline([res(f"c{i}", consensus_strength=before) for i in range(n)])
    run = [res(f"c{i}", consensus_strength=after if i < k else before) for i in range(n)]
    cmp = compare(run, base, tol)
    assert cmp.exit_code == 1
    assert sorted(r.case_id for r in cmp.reasons if r.kind == "score_drop") == sorted(f"c{i}" for i in range(k))


def test_subjects_are_never_pooled():
    # the council drops in 2 of 6 cases while the baseline subject improves in every case: pooled,
    # the improvements would hide the drops; per subject they cannot
    names = [f"c{i}" for i in range(6)]
    base = baseline([res(c, s, consensus_strength=0.6) for c in names for s in ("council", "baseline")])
    run = [res(c, "council", consensus_strength=0.3 if i < 2 else 0.6) for i, c in enumerate(names)]
    run += [res(c, "baseline", consensus_strength=0.9) for c in names]
    cmp = compare(run, base, 0.05)
    assert cmp.exit_code == 1
    assert {(r.case_id, r.subject) for r in cmp.reasons} == {("c0", "council"), ("c1", "council")}
    assert set(cmp.aggregates) == {"baseline:consensus_strength", "council:consensus_strength"}
    assert cmp.aggregates["council:consensus_strength"].n == 6


def test_adding_a_case_never_makes_a_failing_gate_pass():
    """Monotonicity over 150 seeded random datasets: the 4-vs-5 case of issue 11 and its kin."""
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(150):
        n = int(rng.integers(1, 9))
        base_vals = rng.uniform(0, 1, n + 1).round(2)
        new_vals = (base_vals + rng.normal(0, 0.08, n + 1)).clip(0, 1).round(2)
        base = baseline([res(f"c{i}", consensus_strength=float(v)) for i, v in enumerate(base_vals)])
        small_base = baseline([res(f"c{i}", consensus_strength=float(v)) for i, v in enumerate(base_vals[:n])])
        run = [res(f"c{i}", consensus_strength=float(v)) for i, v in enumerate(new_vals)]
        smaller = compare(run[:n], small_base, 0.05)
        if smaller.exit_code:
            checked += 1
            assert compare(run, base, 0.05).exit_code == 1
    assert checked > 25  # the property was exercised on many failing gates


def test_4_vs_5_cases_both_fail():
    for n in (4, 5):
        base = baseline([res(f"c{i}", rubric_accuracy=8.0) for i in range(n)])
        run = [res(f"c{i}", rubric_accuracy=2.0 if i == 0 else 8.0) for i in range(n)]
        assert compare(run, base, {"rubric_accuracy": 0.5}).exit_code == 1


def test_newly_failing_missing_and_unreadable_are_regressions():
    base = baseline([res(f"c{i}", consensus_strength=0.8) for i in range(4)])
    run = [res("c0", consensus_strength=0.8), res("c1", status="failed", consensus_strength=0.8)]
    cmp = compare(run, base, 0.05, unreadable=["results.jsonl:3"])
    kinds = sorted((r.kind, r.case_id or r.line) for r in cmp.reasons)
    assert kinds == [("missing", "c2"), ("missing", "c3"), ("newly_failing", "c1"), ("unreadable", "results.jsonl:3")]
    counts = cmp.counts()
    assert (counts["missing"], counts["unreadable"], counts["newly_failing"], counts["reasons"]) == (2, 1, 1, 4)


# --- false alarms under symmetric noise --------------------------------------------------------


@pytest.mark.parametrize("n", [5, 10, 30])
def test_false_alarm_rate_under_symmetric_noise_within_tolerance(n, capsys):
    """Scores on a 0.01 grid move by symmetric noise of at most the tolerance (both directions,
    the boundary included, where float subtraction is inexact): the gate must not fire."""
    rng = np.random.default_rng(1000 + n)
    tol = 0.05
    alarms = 0
    for _ in range(RUNS):
        base_vals = rng.integers(10, 90, n) / 100
        steps = rng.integers(-5, 6, n)  # -0.05 .. +0.05, symmetric, on the grid
        base = baseline([res(f"c{i}", consensus_strength=float(v)) for i, v in enumerate(base_vals)])
        run = [
            res(f"c{i}", consensus_strength=float(v + s / 100))
            for i, (v, s) in enumerate(zip(base_vals, steps, strict=True))
        ]
        alarms += compare(run, base, tol).exit_code
    rate = alarms / RUNS
    with capsys.disabled():
        print(f"\n[gate false alarms] n={n}, symmetric noise within tolerance: {alarms}/{RUNS} = {rate:.3f}")
    assert rate <= 0.05 + MARGIN


def _noisy_run(
    rng: np.random.Generator, means: np.ndarray, sd: float, k: int, shift: np.ndarray | None = None
) -> tuple[list[CaseResult], list[CaseResult]]:
    """k repeats of every case: pass 0 and the extra passes."""
    shift = np.zeros_like(means) if shift is None else shift
    draws = means[:, None] + shift[:, None] + rng.normal(0, sd, (means.size, k))
    first = [res(f"c{i}", rubric_accuracy=float(draws[i, 0])) for i in range(means.size)]
    extra = [res(f"c{i}", rubric_accuracy=float(draws[i, j])) for i in range(means.size) for j in range(1, k)]
    return first, extra


@pytest.mark.parametrize(("n", "k"), [(10, 3), (10, 5)])
def test_noise_aware_mode_false_alarm_rate_under_sampling_noise(n, k, capsys):
    """Temperature > 0: every score is the case's true value plus N(0, 1) on a 1-10 scale, far more
    than the tolerance 0.5. With repeats the gate compares means and allows the noise band; the
    family-wise false-alarm rate stays within 5% + margin. Without repeats the plain rule would
    fire on most runs (measured and printed for contrast)."""
    rng = np.random.default_rng(2000 + 10 * n + k)
    tol, sd = 0.5, 1.0
    aware = plain = 0
    runs = 120
    for _ in range(runs):
        means = rng.uniform(3, 8, n)
        b0, bx = _noisy_run(rng, means, sd, k)
        c0, cx = _noisy_run(rng, means, sd, k)
        aware += compare(c0, baseline(b0, bx), {"rubric_accuracy": tol}, repeats=cx).exit_code
        plain += compare(c0, baseline(b0), {"rubric_accuracy": tol}).exit_code
    margin = 3 * math.sqrt(0.05 * 0.95 / runs)
    with capsys.disabled():
        print(
            f"\n[noise-aware gate] n={n}, k={k}: false alarms {aware}/{runs} = {aware / runs:.3f}; "
            f"plain rule on the same noise: {plain}/{runs} = {plain / runs:.3f}"
        )
    assert aware / runs <= 0.05 + margin


def test_noise_aware_mode_still_catches_the_8_to_2_drop(capsys):
    rng = np.random.default_rng(7)
    caught = 0
    runs = 100
    for _ in range(runs):
        means = np.full(5, 8.0)
        b0, bx = _noisy_run(rng, means, 1.0, 5)
        c0, cx = _noisy_run(rng, means, 1.0, 5, shift=np.array([0.0, 0.0, 0.0, -6.0, 0.0]))
        cmp = compare(c0, baseline(b0, bx), {"rubric_accuracy": 0.5}, repeats=cx)
        caught += any(r.kind == "score_drop" and r.case_id == "c3" for r in cmp.reasons)
    with capsys.disabled():
        print(f"\n[noise-aware gate] 8 -> 2 in 1 of 5 cases, k=5, sd 1: caught {caught}/{runs}")
    assert caught / runs >= 0.95


def test_repeats_that_agree_get_the_pooled_floor_and_strict_mode_keeps_the_plain_rule():
    """Repeats that agree on both sides (8,8,8 -> 7.4,7.4,7.4) no longer mean "no noise": the band
    has the prior's floor (issue 27), so a 0.6 drop is within noise; the strict (deterministic) mode
    keeps the plain tolerance rule on the same data, and an 8 -> 2 collapse fails either way."""
    b0 = [res(f"c{i}", rubric_composite=8.0) for i in range(5)]
    bx = [res(f"c{i}", rubric_composite=8.0) for i in range(5) for _ in range(2)]
    base = baseline(b0, bx)
    assert base.entries[0].spread["rubric_composite"].k == 3 and base.entries[0].spread["rubric_composite"].sd == 0
    assert base.entries[0].runs == 3 and base.entries[0].failures == 0
    for drop, flagged in ((0.6, False), (6.0, True)):
        c0 = [res(f"c{i}", rubric_composite=8.0 - drop if i == 0 else 8.0) for i in range(5)]
        cx = [res(f"c{i}", rubric_composite=8.0 - drop if i == 0 else 8.0) for i in range(5) for _ in range(2)]
        aware = compare(c0, base, {"rubric_composite": 0.5}, repeats=cx)
        assert aware.noise_aware and [r.case_id for r in aware.reasons] == (["c0"] if flagged else [])
        (delta,) = aware.cases[0].scores
        assert delta.allowed is not None and delta.allowed > 1.0  # tolerance + the prior's floor
        assert aware.cases[0].within_noise is not flagged
        strict = compare(c0, base, {"rubric_composite": 0.5}, repeats=cx, noise_aware=False)
        assert not strict.noise_aware and [r.case_id for r in strict.reasons] == ["c0"]
        assert strict.reasons[0].allowed == 0.5
