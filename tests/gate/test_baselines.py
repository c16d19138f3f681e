"""Baseline store and the comparison used as the CI regression gate."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.common.errors import ConfigError, StoreError
from harness.common.fsutil import atomic_write_text
from harness.common.model import Frozen
from harness.gate.baselines import (
    Baseline,
    BaselineEntry,
    ReviewVerdict,
    baseline_from_results,
    baseline_path,
    compare,
    load_baseline,
    resolve_tolerances,
    write_baseline,
)
from harness.run.result import CaseResult

WHEN = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def result(case_id: str, status: str = "passed", subject: str = "council", **scores: float) -> CaseResult:
    return CaseResult(case_id=case_id, dataset="golden", subject=subject, status=status, scores=scores)


def base_of(*results: CaseResult) -> Baseline:
    return baseline_from_results("golden", results, {"run_id": "r1"}, created_at=WHEN)


def only(comparison, case_id="q1"):
    (delta,) = [c for c in comparison.cases if c.case_id == case_id]
    return delta


# --- comparison -----------------------------------------------------------------------------


def test_drop_beyond_tolerance_regresses_and_fails():
    baseline = base_of(result("q1", consensus_strength=0.80))
    cmp = compare([result("q1", consensus_strength=0.68)], baseline)
    delta = only(cmp)
    assert delta.status == "regressed"
    assert delta.reasons == ("consensus_strength dropped 0.120 > tolerance 0.05",)
    (sd,) = delta.scores
    assert sd.change == pytest.approx(-0.12) and sd.worse_by == pytest.approx(0.12) and sd.status == "regressed"
    assert cmp.exit_code == 1
    assert cmp.failures == ("case q1 [council]: consensus_strength 0.800 -> 0.680, worse by 0.120 > tolerance 0.05",)
    (reason,) = cmp.reasons
    assert (
        reason.kind,
        reason.case_id,
        reason.subject,
        reason.score,
        reason.baseline,
        reason.current,
        reason.tolerance,
    ) == ("score_drop", "q1", "council", "consensus_strength", 0.8, 0.68, 0.05)


def test_drop_within_tolerance_is_unchanged():
    baseline = base_of(result("q1", consensus_strength=0.80), result("q2", consensus_strength=0.80))
    # q1 drops by exactly the tolerance (0.80 - 0.75 is 0.05000000000000004 in floats), q2 by 0.03
    cmp = compare([result("q1", consensus_strength=0.75), result("q2", consensus_strength=0.77)], baseline)
    assert [c.status for c in cmp.cases] == ["unchanged", "unchanged"]
    assert cmp.exit_code == 0 and cmp.failures == ()


def test_improvement():
    baseline = base_of(result("q1", consensus_strength=0.70, deliberation_depth=0.5))
    cmp = compare([result("q1", consensus_strength=0.80, deliberation_depth=0.5)], baseline)
    delta = only(cmp)
    assert delta.status == "improved"
    assert delta.reasons == ("consensus_strength rose 0.100 (improved)",)
    assert cmp.exit_code == 0


def test_newly_failing_and_newly_passing():
    baseline = base_of(result("q1", consensus_strength=0.8), result("q2", "failed", consensus_strength=0.8))
    cmp = compare([result("q1", "failed", consensus_strength=0.8), result("q2", consensus_strength=0.8)], baseline)
    q1, q2 = only(cmp, "q1"), only(cmp, "q2")
    assert q1.status == "regressed" and q1.failing
    assert q1.reasons == ("newly failing (baseline passed, now failed)",)
    assert q2.status == "improved" and not q2.failing
    assert q2.reasons == ("newly passing (baseline failed, now passed)",)
    assert cmp.exit_code == 1 and cmp.failures == ("case q1 [council]: newly failed (baseline passed)",)


def test_failing_in_both_runs_still_fails_the_gate():
    baseline = base_of(result("q1", "failed", consensus_strength=0.8))
    cmp = compare([result("q1", "failed", consensus_strength=0.8)], baseline)
    assert only(cmp).status == "unchanged" and cmp.exit_code == 1


def test_lower_is_better_score():
    baseline = base_of(result("q1", hallucination_risk=0.20), result("q2", hallucination_risk=0.35))
    cmp = compare([result("q1", hallucination_risk=0.35), result("q2", hallucination_risk=0.20)], baseline)
    q1, q2 = only(cmp, "q1"), only(cmp, "q2")
    assert q1.status == "regressed"
    assert q1.reasons == ("hallucination_risk rose 0.150 > tolerance 0.05 (lower is better)",)
    assert q1.scores[0].worse_by == pytest.approx(0.15)
    assert q2.status == "improved"
    assert q2.reasons == ("hallucination_risk dropped 0.150 (improved) (lower is better)",)
    assert cmp.exit_code == 1
    assert not cmp.aggregates["council:hallucination_risk"].higher_is_better


def test_one_large_drop_among_many_cases_fails_and_a_consistent_drop_also_fails_the_paired_test():
    scores = [0.8] * 10
    baseline = base_of(*(result(f"q{i}", consensus_strength=s) for i, s in enumerate(scores)))
    noisy = [result("q0", consensus_strength=0.6)] + [result(f"q{i}", consensus_strength=0.8) for i in range(1, 10)]
    cmp = compare(noisy, baseline)
    assert only(cmp, "q0").status == "regressed"
    assert not cmp.aggregates["council:consensus_strength"].significant_drop  # the paired test never excuses it
    assert cmp.exit_code == 1
    assert [(r.kind, r.case_id) for r in cmp.reasons] == [("score_drop", "q0")]
    # six cases 0.2 worse: d = [-0.15 x 6, +0.05 x 4], tied ranks 7.5 x 6 and 2.5 x 4, observed W+ = 10.
    # Sign flips with W+ <= 10: no large positive (2**4 = 16 ways) or one large and at most one small
    # positive (6 * 5 = 30 ways): p = 46 / 2**10
    drop = [result(f"q{i}", consensus_strength=0.6 if i < 6 else 0.8) for i in range(10)]
    cmp = compare(drop, baseline)
    test = cmp.aggregates["council:consensus_strength"]
    assert test.n == 10 and test.statistic == 10.0
    assert test.p_value == pytest.approx(46 / 1024) and test.significant_drop
    assert cmp.exit_code == 1
    assert [r.kind for r in cmp.reasons] == ["score_drop"] * 6 + ["aggregate"]
    assert cmp.failures[-1].startswith("[council] consensus_strength: paired test over 10 case(s): a drop beyond")


def test_awaiting_review_is_not_failing():
    baseline = base_of(result("q1", consensus_strength=0.8))
    cmp = compare([result("q1", "awaiting_review", consensus_strength=0.8)], baseline)
    assert not only(cmp).failing and only(cmp).status == "unchanged" and cmp.exit_code == 0


def test_new_and_missing_cases():
    baseline = base_of(result("q1", consensus_strength=0.8), result("q2", consensus_strength=0.8))
    cmp = compare([result("q1", consensus_strength=0.8), result("q3", consensus_strength=0.1)], baseline)
    assert only(cmp, "q2").status == "missing" and only(cmp, "q3").status == "new"
    assert only(cmp, "q3").scores[0].status == "new"
    # a baselined case missing from the run: the run is incomplete (exit 3), never a pass
    assert cmp.verdict == "incomplete" and cmp.exit_code == 3
    assert cmp.failures == ("case q2 [council]: baselined case has no result in this run (baseline passed)",)
    cmp = compare(
        [
            result("q1", consensus_strength=0.8),
            result("q2", consensus_strength=0.8),
            result("q3", consensus_strength=0.1),
        ],
        baseline,
    )
    assert cmp.exit_code == 0  # a new case alone is not a regression
    cmp = compare(
        [result("q1", consensus_strength=0.8), result("q2", consensus_strength=0.8), result("q3", "error")], baseline
    )
    assert cmp.exit_code == 1 and cmp.failures == ("case q3 [council]: errored",)


def test_missing_score_regresses():
    baseline = base_of(result("q1", consensus_strength=0.8, deliberation_depth=0.6))
    cmp = compare([result("q1", consensus_strength=0.8)], baseline)
    assert only(cmp).status == "regressed"
    assert only(cmp).reasons == ("deliberation_depth missing from the run (baseline 0.600)",)
    assert cmp.exit_code == 1


def test_tolerances_per_score_and_gated_subset():
    baseline = base_of(result("q1", consensus_strength=0.8, deliberation_depth=0.6))
    run = [result("q1", consensus_strength=0.7, deliberation_depth=0.4)]
    cmp = compare(run, baseline, tolerances={"consensus_strength": 0.15}, default_tolerance=0.25)
    assert cmp.tolerances == {"consensus_strength": 0.15, "deliberation_depth": 0.25}
    assert only(cmp).status == "unchanged" and cmp.exit_code == 0
    cmp = compare(run, baseline, tolerances=0.15)
    assert only(cmp).reasons == ("deliberation_depth dropped 0.200 > tolerance 0.15",)
    cmp = compare(run, baseline, gated_scores=["consensus_strength"], tolerances=0.15)
    assert cmp.gated_scores == ("consensus_strength",) and cmp.exit_code == 0
    with pytest.raises(ConfigError, match="tolerance for consensus_strength"):
        resolve_tolerances(["consensus_strength"], {"consensus_strength": -0.1})


def test_results_of_other_datasets_are_ignored_and_duplicates_rejected():
    baseline = base_of(result("q1", consensus_strength=0.8))
    other = CaseResult(case_id="q1", dataset="other", subject="council", status="failed")
    assert compare([result("q1", consensus_strength=0.8), other], baseline).exit_code == 0
    with pytest.raises(StoreError, match="two results for case 'q1'"):
        compare([result("q1"), result("q1")], baseline)


# --- baseline from results ------------------------------------------------------------------


class _Manifest(Frozen):
    run_id: str
    when: datetime


def test_baseline_from_results_keeps_gated_finite_scores():
    results = [
        CaseResult(
            case_id="q1",
            dataset="golden",
            subject="council",
            category="math",
            status="passed",
            scores={"consensus_strength": 0.8, "deliberation_depth": float("nan"), "x": 1.0},
        ),
        CaseResult(
            case_id="q1",
            dataset="golden",
            subject="single",
            evaluation_mode="expert_review",
            status="awaiting_review",
            scores={"consensus_strength": 0.5},
        ),
        CaseResult(case_id="q9", dataset="other", subject="council", status="passed"),
    ]
    b = baseline_from_results(
        "golden",
        results,
        _Manifest(run_id="r1", when=WHEN),
        gated=["consensus_strength", "deliberation_depth"],
        created_at=WHEN,
    )
    assert b.manifest == {"run_id": "r1", "when": "2025-01-02T03:04:05Z"}
    assert [(e.case_id, e.subject, e.status) for e in b.entries] == [
        ("q1", "council", "passed"),
        ("q1", "single", "awaiting_review"),
    ]
    assert b.entries[0].scores == {"consensus_strength": 0.8}
    assert b.entries[0].category == "math" and b.entries[1].evaluation_mode == "expert_review"


# --- store ----------------------------------------------------------------------------------


def test_write_and_load_round_trip_with_review(tmp_path: Path):
    review = ReviewVerdict(verdict="pass", note="correct, cites the source", who="ana", when=WHEN)
    entry = BaselineEntry(
        case_id="q1",
        subject="council",
        evaluation_mode="expert_review",
        status="awaiting_review",
        scores={"consensus_strength": 0.8},
        review=review,
    )
    b = Baseline(dataset="golden", created_at=WHEN, manifest={"run_id": "r1"}, entries=(entry,))
    path = baseline_path("golden", tmp_path / "baselines")
    write_baseline(path, b)
    assert path == tmp_path / "baselines" / "golden.json"
    assert load_baseline(path) == b
    assert json.loads(path.read_text())["entries"][0]["review"]["who"] == "ana"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_atomic_write_keeps_old_file_on_serialization_failure(tmp_path: Path):
    path = tmp_path / "golden.json"
    good = base_of(result("q1", consensus_strength=0.8))
    write_baseline(path, good)
    os.chmod(path, 0o640)
    before = path.read_bytes()
    bad = Baseline(dataset="golden", created_at=WHEN, manifest={"x": object()})
    with pytest.raises(StoreError, match="cannot serialize") as err:
        write_baseline(path, bad)
    assert str(path) in str(err.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["golden.json"]
    write_baseline(path, good)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # a rewrite keeps the file's permissions


def test_atomic_write_failure_midway_leaves_no_temp_file(tmp_path: Path):
    path = tmp_path / "golden.json"
    path.write_text("old contents")
    # the text encodes fine up to the lone surrogate, so the temp file exists when the write fails
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "x" * 100_000 + "\ud800")
    assert path.read_text() == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["golden.json"]


def test_malformed_baseline_names_the_file(tmp_path: Path):
    path = tmp_path / "golden.json"
    path.write_text('{\n  "schema_version": 1,\n  "dataset": "golden",,\n}')
    with pytest.raises(StoreError) as err:
        load_baseline(path)
    assert str(err.value).startswith(f"{path}:3: not valid JSON")


def test_wrong_schema_names_the_file_and_field(tmp_path: Path):
    path = tmp_path / "golden.json"
    path.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "dataset": "golden",
                "created_at": "2025-01-02T00:00:00Z",
                "entries": [{"case_id": "q1", "subject": "council", "status": "maybe"}],
            }
        )
    )
    with pytest.raises(StoreError) as err:
        load_baseline(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: not a valid baseline: entries.0.status:") and "'passed'" in msg
    path.write_text(json.dumps({"schema_version": 7, "dataset": "golden"}))
    with pytest.raises(StoreError, match="schema_version is 7, this harness reads 1 or 2"):
        load_baseline(path)
    path.write_text("[]")
    with pytest.raises(StoreError, match="expected a JSON object"):
        load_baseline(path)
    entry = {"case_id": "q1", "subject": "council", "status": "passed"}
    path.write_text(
        json.dumps(
            {"schema_version": 1, "dataset": "golden", "created_at": "2025-01-02T00:00:00Z", "entries": [entry, entry]}
        )
    )
    with pytest.raises(StoreError, match="duplicate entry for case 'q1'"):
        load_baseline(path)
    with pytest.raises(StoreError, match="no baseline file here") as err:
        load_baseline(tmp_path / "absent.json")
    assert "absent.json" in str(err.value)


def test_baseline_path_rejects_path_like_names():
    with pytest.raises(ConfigError):
        baseline_path("../etc")


def test_version_1_files_still_load_and_spreads_round_trip(tmp_path: Path):
    path = tmp_path / "golden.json"
    path.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "dataset": "golden",
                "created_at": "2025-01-02T00:00:00Z",
                "manifest": {"run_id": "old"},
                "entries": [
                    {"case_id": "q1", "subject": "council", "status": "passed", "scores": {"consensus_strength": 0.8}}
                ],
            }
        )
    )
    old = load_baseline(path)
    assert old.schema_version == 1 and old.entries[0].spread == {}
    assert old.entries[0].scores == {"consensus_strength": 0.8}
    assert compare([result("q1", consensus_strength=0.7)], old).exit_code == 1
    # a run with repeats: the baseline keeps the mean and the spread of the three values
    first = result("q1", consensus_strength=0.6)
    extra = [result("q1", consensus_strength=0.8), result("q1", consensus_strength=1.0)]
    b = baseline_from_results("golden", [first], {"run_id": "r"}, created_at=WHEN, repeats=extra)
    (entry,) = b.entries
    assert entry.scores == {"consensus_strength": pytest.approx(0.8)}
    spread = entry.spread["consensus_strength"]
    assert (spread.k, spread.low, spread.high) == (3, 0.6, 1.0)
    assert spread.mean == pytest.approx(0.8) and spread.sd == pytest.approx(0.2)  # sqrt((0.04 + 0 + 0.04) / 2)
    write_baseline(path, b)
    assert load_baseline(path) == b and json.loads(path.read_text())["schema_version"] == 2
