"""Cross-model calibration report (seed 001 section 2.2) from hand-made council transcripts."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
import yaml

from harness.bias.aggregate import ConfidenceTier
from harness.config import RubricWeights
from harness.records.transcript import Answer, Ballot, Review, Transcript
from harness.run.runs import load_run
from harness.tier2.calibration import (
    CouncilSession,
    calibration_report,
    correlation_words,
    council_sessions,
    self_preference,
)
from tests.builders import result, run_folder

LABELS = {"Response A": "m1", "Response B": "m2", "Response C": "m3"}
TEXTS = {"m1": "a" * 10, "m2": "b" * 20, "m3": "c" * 40}
WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def full(value: float) -> dict[str, float]:
    """All five rubric dimensions at one value."""
    return {d: value for d in ("accuracy", "relevance", "completeness", "conciseness", "clarity")}


def review(
    reviewer: str, shown: str, ranking: str, scores: dict[str, dict[str, float]] | None = None, **extra: object
) -> Review:
    """A review by ``reviewer`` that saw the labels ``shown`` (e.g. ``"CAB"``) and ranked ``ranking``."""
    ballot = Ballot(
        ranking=tuple(f"Response {c}" for c in ranking),
        scores={f"Response {k}": v for k, v in (scores or {}).items()},
        method="json_fenced" if scores else "final_ranking",
        **extra,
    )  # type: ignore[arg-type]
    return Review(
        reviewer=reviewer,
        model=f"model-{reviewer}",
        raw_text="FINAL RANKING: ...",
        ballot=ballot,
        presentation_order=tuple(f"Response {c}" for c in shown),
        shuffle_seed=1,
    )


def calibration_transcript(query: str = "What is 2+2?") -> Transcript:
    """The worked example of these tests.

    m1 saw A,B,C, ranked A>B>C (itself first) and scored B full(8) -> 8.0, C full(2) -> 2.0 (ceiling 4);
    its self-score of A is excluded. m2 saw B,C,A, ranked C>B>A and scored C full(10) -> 10, A full(2) -> 2.
    m3 saw C,A,B and ranked C>A>B (itself first), no scores: cleaned A>B -> A 10, B 1.
    Given: m1 (8+2)/2 = 5.0, m2 (10+2)/2 = 6.0, m3 (10+1)/2 = 5.5 (median 5.5).
    Received: m1 (2+10)/2 = 6.0, m2 (8+1)/2 = 4.5, m3 (2+10)/2 = 6.0.
    """
    return Transcript(
        subject="council",
        query=query,
        answers=tuple(Answer(member=m, model=f"model-{m}", text=t) for m, t in TEXTS.items()),
        label_to_member=LABELS,
        reviews=(
            review("m1", "ABC", "ABC", {"A": full(10), "B": full(8), "C": full(2)}),
            review("m2", "BCA", "CBA", {"C": full(10), "A": full(2)}),
            review("m3", "CAB", "CAB"),
        ),
        final_answer="4",
    )


def session(transcript: Transcript, i: int = 0) -> CouncilSession:
    return CouncilSession(session_id=f"s{i}", timestamp=WHEN, transcript=transcript, weights=RubricWeights())


def test_given_received_delta_and_self_preference_by_hand():
    report = calibration_report([session(calibration_transcript())])
    by = {m.member: m for m in report.models}
    assert [m.member for m in report.models] == ["m1", "m2", "m3"]
    assert (by["m1"].mean_score_given, by["m2"].mean_score_given, by["m3"].mean_score_given) == (5.0, 6.0, 5.5)
    assert (by["m1"].mean_score_received, by["m2"].mean_score_received, by["m3"].mean_score_received) == (6.0, 4.5, 6.0)
    assert (by["m1"].calibration_delta, by["m2"].calibration_delta, by["m3"].calibration_delta) == (-1.0, 1.5, -0.5)
    assert (by["m1"].self_preference_rate, by["m2"].self_preference_rate, by["m3"].self_preference_rate) == (
        1.0,
        0.0,
        1.0,
    )
    assert by["m1"].self_preference_chance == 0.333
    assert (by["m1"].scores_given, by["m1"].scores_received, by["m1"].ballots) == (2, 2, 1)
    assert by["m2"].model == "model-m2"
    assert report.median_score_given == 5.5
    assert (by["m1"].deviation_from_median, by["m2"].deviation_from_median) == (-0.5, 0.5)
    assert report.session_count == 1
    assert report.confidence_level == ConfidenceTier.INSUFFICIENT
    # one ballot each is too few for a self-preference note; 0.5 from the median is enough for a calibration note
    assert report.recommendations[:2] == (
        "m1 scores 0.5 points below median; consider calibration weight",
        "m2 scores 0.5 points above median; consider calibration weight",
    )


def test_position_bias_and_length_notes_by_hand():
    report = calibration_report([session(calibration_transcript())])
    # position 2 got 8, 10, 10 (mean 28/3); position 3 got 2, 2, 1 (mean 5/3); sample variance = (23/3)^2 / 2
    pb = report.position_bias
    assert pb is not None and pb.variance == pytest.approx((23 / 3) ** 2 / 2)
    assert pb.detected is True
    notes = report.notes()
    assert f"Position bias detected (variance: {(23 / 3) ** 2 / 2:.2f})" in notes
    assert (
        "Position bias: mean scores differ by display position (variance 29.39); check that presentation "
        "order is shuffled" in report.recommendations
    )
    # (length, score) pairs: (20,8) (40,2) (40,10) (10,2) (10,10) (20,1): r = 0.034, below 0.3
    r = float(np.corrcoef([20, 40, 40, 10, 10, 20], [8, 2, 10, 2, 10, 1])[0, 1])
    lc = report.length_correlation
    assert lc is not None and lc.point_estimate == pytest.approx(r)
    assert "Length correlation: r=0.03 (acceptable)" in notes
    assert not any(rec.startswith("Cross-session length bias") for rec in report.recommendations)


def test_self_preference_recommendation_needs_three_ballots():
    report = calibration_report([session(calibration_transcript(), i) for i in range(3)])
    assert report.session_count == 3
    by = {m.member: m for m in report.models}
    assert (by["m1"].ballots, by["m1"].self_preference_rate) == (3, 1.0)
    assert (
        "m1 ranks its own answer first in 100% of 3 ballots (chance 33%); possible self-preference"
        in report.recommendations
    )
    assert (
        "m3 ranks its own answer first in 100% of 3 ballots (chance 33%); possible self-preference"
        in report.recommendations
    )
    assert not any(rec.startswith("m2 ranks") for rec in report.recommendations)


def test_self_preference_skips_unusable_ballots():
    t = calibration_transcript().model_copy(
        update={
            "reviews": (
                review("m1", "ABC", "ABC"),
                review("m1", "BC", "BC"),  # own answer not shown: not counted
                review("m2", "ABC", "", abstained=True),  # abstained: not counted
                review("m3", "ABC", "CAB"),
            )
        }
    )
    prefs = self_preference(t)
    assert (prefs["m1"].first, prefs["m1"].ballots) == (1, 1)
    assert "m2" not in prefs
    assert (prefs["m3"].first, prefs["m3"].ballots) == (1, 1)


def test_cross_session_length_bias_recommendation():
    # every reviewer ranks the longer answer first: pairs (40,10) (20,1) (40,10) (10,1) (20,10) (10,1)
    t = calibration_transcript().model_copy(
        update={
            "reviews": (
                review("m1", "ABC", "CB"),
                review("m2", "BCA", "CA"),
                review("m3", "CAB", "BA"),
            )
        }
    )
    report = calibration_report([session(t, i) for i in range(3)])
    r = float(np.corrcoef([40, 20, 40, 10, 20, 10], [10, 1, 10, 1, 10, 1])[0, 1])
    lc = report.length_correlation
    assert lc is not None
    assert lc.point_estimate == pytest.approx(r)
    # three identical sessions: no spread between sessions, so the SE is its floor, the record-level
    # 1 / sqrt(3 * (6 - 3)) = 1/3, with Student's t for 3 - 1 = 2 sessions' degrees of freedom (4.302653)
    lo, hi = math.tanh(math.atanh(r) - 4.302653 / 3), math.tanh(math.atanh(r) + 4.302653 / 3)
    assert correlation_words(r) == "strong positive correlation"
    assert (
        f"Cross-session length bias: r={r:.2f} (strong positive correlation; 95% CI {lo:.2f}..{hi:.2f}, "
        "3 sessions)" in report.recommendations
    )
    assert correlation_words(0.42) == "moderate positive correlation"
    assert correlation_words(-0.2) == "weak negative correlation"


def test_seed_yaml_shape_round_trips():
    report = calibration_report([session(calibration_transcript())])
    data = yaml.safe_load(report.to_yaml())
    assert data == report.seed_dict()
    body = data["calibration_report"]
    assert list(body) == ["session_count", "confidence_level", "models", "recommendations"]
    assert body["confidence_level"] == "insufficient_data"
    assert body["models"]["m3"] == {
        "model": "model-m3",
        "mean_score_given": 5.5,
        "mean_score_received": 6.0,
        "calibration_delta": -0.5,
        "self_preference_rate": 1.0,
    }


def test_council_sessions_from_runs_use_manifest_weights_and_subject(tmp_path: Path):
    weights = {"accuracy": 1.0, "relevance": 0.0, "completeness": 0.0, "conciseness": 0.0, "clarity": 0.0}
    results = [
        result("q1", transcript=calibration_transcript()),
        result("q1", "baseline", answer="4", transcript_fields={"answers": ()}),
    ]
    run = run_folder(
        tmp_path,
        "r1",
        results,
        datasets=(),
        subjects=(),
        started_at="2026-01-02T03:04:05Z",
        finished_at=None,
        config={"weights": weights},
    )
    sessions = council_sessions([load_run(run)])
    assert [s.session_id for s in sessions] == ["r1/d/q1/council"]
    assert sessions[0].timestamp == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert sessions[0].weights.accuracy == 1.0
    assert council_sessions([load_run(tmp_path / "r1")], subject="baseline") == []
