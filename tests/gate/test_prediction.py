"""From a run's results to the verdicts: primary endpoint, console lines, summary.json, measurement artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.gate.artifacts import arm_artifacts
from harness.gate.prediction import (
    INSUFFICIENT_DATA_EXPLAINED,
    prediction_from_results,
    verdict_lines,
    write_verdicts,
)
from harness.gate.verdict_plan import default_primary
from harness.metrics.correctness import CorrectnessResult
from harness.metrics.extraction import Extraction
from harness.records.transcript import CallRecord
from harness.run.result import CaseResult
from harness.stats.artifacts import ArmArtifacts, artifact_warning
from tests.builders import result


def _result(
    i: int,
    subject: str,
    correct: float | None,
    rubric: float,
    *,
    finish: str | None = "stop",
    extracted: str | None = "1",
) -> CaseResult:
    stage = "stage3" if subject == "council" else "baseline"
    calls = (CallRecord(stage=stage, member="m", model="m", finish_reason=finish),)
    scores = {"rubric_composite": rubric}
    correctness = None
    if correct is not None:
        scores["correct"] = correct
        correctness = CorrectnessResult(
            correct=bool(correct),
            expected_display="1",
            extraction=Extraction(value=extracted, method="answer_cue", detail="-"),
            detail="-",
        )
    return result(
        f"c{i:02d}",
        subject,
        query=f"q{i}",
        transcript_fields={"answers": (), "calls": calls},
        scores=scores,
        correctness=correctness,
    )


def _run(n: int, with_expected: int) -> list[CaseResult]:
    out = []
    for i in range(n):
        expected = i < with_expected
        out.append(_result(i, "council", (1.0 if i % 2 == 0 else 0.0) if expected else None, 8.0 + (i % 3)))
        out.append(_result(i, "baseline", (1.0 if i % 4 == 0 else 0.0) if expected else None, 4.0 + (i % 2)))
    return out


def test_default_primary_needs_ten_cases_with_expected():
    assert default_primary(_run(12, 10))[0] == "correct"
    assert default_primary(_run(12, 9)) == (
        "rubric_composite",
        "default: 9 case(s) have an expected answer (fewer than 10), so the rubric score decides",
    )


def test_configured_primary_wins_and_leads_the_console_lines():
    report = prediction_from_results(_run(30, 30), primary_endpoint="rubric_composite")
    assert report is not None and report.headline is not None
    assert (report.headline.family, report.primary_reason) == ("rubric_composite", "configured (primary_endpoint)")
    lines = verdict_lines(report)
    assert lines[0].startswith("primary endpoint: council vs single model on rubric score: +")
    assert lines[0].split(" (mean(")[0].endswith("better by more than 15%: supported")
    assert lines[1].startswith("measurement: council: truncated final answers 0/30 (0%)")
    assert lines[2].startswith("secondary (exploratory, 0.95 interval): council vs single model on correctness:")


def test_score_verdicts_use_the_scale_their_scorer_declares():
    """rubric_composite is declared 0-10 (its scorer's ScoreSpec): its verdict also needs the betting test on
    the bounds 0-10 imply; the arms' verdicts read the same plan."""
    from harness.gate.arm_verdicts import arm_verdicts
    from harness.gate.verdict_plan import verdict_plan

    plan = verdict_plan(_run(30, 30), primary_endpoint="rubric_composite")
    assert plan.scales["rubric_composite"] == (0.0, 10.0) and plan.scales["correct"] == (0.0, 1.0)
    report = prediction_from_results(_run(30, 30), primary_endpoint="rubric_composite")
    assert report is not None and report.headline is not None
    assert "betting test on the declared scale 0-10" in report.headline.method
    (arm,) = arm_verdicts(plan, _run(30, 30))
    assert "betting test on the declared scale 0-10" in arm.verdict.method


def test_insufficient_primary_is_explained_in_one_sentence():
    report = prediction_from_results(_run(8, 8))  # 8 cases: fewer than 10 pairs of any kind
    assert report is not None and report.headline is not None
    assert report.headline.family == "rubric_composite" and report.headline.verdict == "insufficient_data"
    lines = verdict_lines(report)
    assert "better by more than 15%: insufficient data (only 8 informative pair(s)" in lines[0]
    assert lines[1] == INSUFFICIENT_DATA_EXPLAINED
    assert INSUFFICIENT_DATA_EXPLAINED.startswith("insufficient data means fewer than 10 cases")


def test_same_score_for_everyone_gives_a_warning_line():
    results = [_result(i, s, None, 7.0) for i in range(12) for s in ("council", "baseline")]
    lines = verdict_lines(prediction_from_results(results))
    assert (
        "warning: every answer of both subjects got the same rubric_composite score (7): the scorer or judge "
        "may not be discriminating"
    ) in lines


def test_summary_json_holds_every_verdict_as_a_record(tmp_path: Path):
    report = prediction_from_results(_run(30, 30))
    (tmp_path / "summary.json").write_text('{"gate": {"status": "pass"}}')
    write_verdicts(tmp_path, report)
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["gate"] == {"status": "pass"}  # another section is kept
    v = data["verdicts"]
    assert (v["primary"], v["min_informative_pairs"], v["threshold"]) == ("correct", 10, 0.15)
    assert v["rule"].startswith("fewer than 10 informative pairs: insufficient_data; else supported when")
    assert [(r["family"], r["scope"], r["role"]) for r in v["records"]] == [
        ("correct", "overall", "primary"),
        ("rubric_composite", "overall", "secondary"),
    ]
    primary = v["records"][0]
    # council right on even cases (15 of 30), baseline on multiples of 4 (8 of 30)
    assert (primary["n"], primary["mean_council"], primary["mean_baseline"]) == (30, 0.5, pytest.approx(8 / 30))
    assert primary["difference"] == pytest.approx(0.5 - 1.15 * 8 / 30)
    assert set(primary) >= {
        "effect",
        "effect_low",
        "effect_high",
        "difference_low",
        "difference_high",
        "confidence",
        "method",
        "verdict",
        "reason",
        "sentence",
        "mcnemar_p",
    }
    assert v["records"][1]["mcnemar_p"] is None  # not a 0/1 family
    assert [a["subject"] for a in v["arms"]] == ["council", "baseline"]


def test_arm_artifacts_count_truncation_and_extraction_failures():
    results = [
        _result(i, "baseline", 0.0, 5.0, finish="length" if i < 3 else "stop", extracted=None if i < 2 else "1")
        for i in range(20)
    ]
    results += [_result(20, "baseline", 0.0, 5.0, finish=None)]  # a row written before finish reasons existed
    arm = arm_artifacts(results, "baseline")
    assert (arm.final_calls, arm.truncated, arm.unknown_finish, arm.checked, arm.extraction_failed) == (20, 3, 1, 21, 2)
    assert arm.truncation_rate == pytest.approx(0.15)


def test_artifact_warning_only_beyond_five_points():
    same = [
        ArmArtifacts(subject="council", final_calls=100, truncated=5),
        ArmArtifacts(subject="baseline", final_calls=100, truncated=10),
    ]
    assert artifact_warning(same) == ""  # exactly 5 points apart
    apart = [
        ArmArtifacts(subject="council", final_calls=100, truncated=5, checked=50, extraction_failed=0),
        ArmArtifacts(subject="baseline", final_calls=100, truncated=11, checked=50, extraction_failed=1),
    ]
    assert artifact_warning(apart) == (
        "the arms differ by more than 5% points in truncated final answers: baseline "
        "11% vs council 5%: the verdict may reflect the measurement, not the answers"
    )


def test_unknown_primary_endpoint_is_a_config_error_naming_the_choices():
    from harness.common.errors import ConfigError
    from harness.config import load_settings

    with pytest.raises(
        ConfigError,
        match="primary_endpoint.*expected one of correct, heuristic_quality, rubric_composite.*got 'accuracy'",
    ):
        load_settings(primary_endpoint="accuracy")
    assert load_settings(primary_endpoint="rubric_composite").primary_endpoint == "rubric_composite"
