"""Per-session bias audit: pair scores, length correlation, position bias, calibration, risk."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from harness.bias.audit import (
    audit_session,
    length_score_correlation,
    overall_risk,
    pair_scores,
    position_variance,
    ranking_score,
    rubric_score,
)
from harness.records.transcript import Ballot, Review, Transcript
from tests.builders import transcript

LABELS = {"Response A": "m1", "Response B": "m2", "Response C": "m3"}
TEXTS = {"m1": "x" * 10, "m2": "y" * 20, "m3": "z" * 40}


def _transcript(reviews: list[Review], texts: dict[str, str] | None = None) -> Transcript:
    return transcript(
        "4",
        query="What is 2+2?",
        texts=texts or TEXTS,
        model="smollm2-135m",
        label_to_member=LABELS,
        reviews=tuple(reviews),
    )


def _review(reviewer: str, order: str, ballot: Ballot, error: str | None = None) -> Review:
    return Review(
        reviewer=reviewer,
        model="smollm2-135m",
        raw_text="...",
        ballot=ballot,
        presentation_order=tuple(f"Response {c}" for c in order),
        shuffle_seed=1,
        error=error,
    )


def _ranked(*letters: str) -> Ballot:
    return Ballot(ranking=tuple(f"Response {c}" for c in letters), method="final_ranking")


def _full(accuracy: float, rest: float) -> dict[str, float]:
    return {"accuracy": accuracy, "relevance": rest, "completeness": rest, "conciseness": rest, "clarity": rest}


def _ranking_session() -> Transcript:
    # m1 saw C,A,B and ranked A>C>B: own answer A dropped -> C (10), B (1)
    # m2 saw B,C,A and ranked C>A:               -> C (10), A (1)
    # m3 saw A,B,C and ranked B>A>C: own C dropped -> B (10), A (1)
    return _transcript(
        [
            _review("m1", "CAB", _ranked("A", "C", "B")),
            _review("m2", "BCA", _ranked("C", "A")),
            _review("m3", "ABC", _ranked("B", "A", "C")),
        ]
    )


def test_ranking_score_maps_borda_to_one_to_ten():
    assert ranking_score(0, 3) == 10.0
    assert ranking_score(1, 3) == 5.5
    assert ranking_score(2, 3) == 1.0
    assert ranking_score(0, 1) == 10.0


def test_rubric_score_uses_ceiling_composite_when_complete_else_mean():
    assert rubric_score(_full(8, 8)) == 8.0
    # base .35*6 + .65*10 = 8.6, accuracy 6 < 7 caps at 7
    assert rubric_score(_full(6, 10)) == 7.0
    # accuracy 4 < 5 caps at 4
    assert rubric_score(_full(4, 9)) == 4.0
    # partial rubric: the plain mean of what was given
    assert rubric_score({"accuracy": 9, "clarity": 7}) == 8.0
    assert rubric_score({"clarity": 3}) == 3.0


def test_ranking_pairs_exclude_self_and_record_display_positions():
    pairs = pair_scores(_ranking_session())
    got = {(p.reviewer, p.candidate): (p.position, p.length_chars, p.score, p.source) for p in pairs}
    assert got == {
        ("m1", "m3"): (1, 40, 10.0, "ranking"),
        ("m1", "m2"): (3, 20, 1.0, "ranking"),
        ("m2", "m3"): (2, 40, 10.0, "ranking"),
        ("m2", "m1"): (3, 10, 1.0, "ranking"),
        ("m3", "m2"): (2, 20, 10.0, "ranking"),
        ("m3", "m1"): (1, 10, 1.0, "ranking"),
    }
    assert all(p.reviewer != p.candidate for p in pairs)


def test_ranking_session_audit_values():
    audit = audit_session(_ranking_session())
    assert audit is not None
    lengths = [40, 20, 40, 10, 20, 10]
    scores = [10, 1, 10, 1, 10, 1]
    r = float(np.corrcoef(lengths, scores)[0, 1])
    # hand: Sxy=270, Sxx=933.33, Syy=121.5 -> r = 270/sqrt(113400)
    assert r == pytest.approx(270 / math.sqrt(113400), abs=1e-12)
    t = r * math.sqrt(4) / math.sqrt(1 - r * r)
    p = 2 * scipy.stats.t.sf(abs(t), 4)
    lc = audit.length_correlation
    assert lc.n == 6
    assert lc.r == pytest.approx(r, abs=1e-12)
    assert lc.p_value == pytest.approx(p, rel=1e-9)
    assert p > 0.05 and not lc.detected
    # position means: 1 -> (10+1)/2, 2 -> 10, 3 -> 1; sample variance = 40.5/2
    means = {m.position: (m.mean_score, m.n) for m in audit.position_bias.position_means}
    assert means == {1: (5.5, 2), 2: (10.0, 2), 3: (1.0, 2)}
    assert audit.position_bias.variance == pytest.approx(20.25)
    assert audit.position_bias.detected
    # every reviewer gives one 10 and one 1: all means 5.5, none flagged
    assert [(c.reviewer, c.mean_score, c.label) for c in audit.reviewers] == [
        ("m1", 5.5, "typical"),
        ("m2", 5.5, "typical"),
        ("m3", 5.5, "typical"),
    ]
    assert audit.median_reviewer_mean == 5.5
    assert audit.risk_factors == ("position_bias",)
    assert audit.risk == "medium"


def test_rubric_session_audit_mixes_rubric_and_holistic_ballots():
    m1 = Ballot(
        ranking=("Response B", "Response C"),
        method="json_fenced",
        scores={"Response A": _full(9, 9), "Response B": _full(8, 8), "Response C": _full(6, 10)},
    )
    m2 = Ballot(
        ranking=("Response C", "Response A"),
        method="json_fenced",
        scores={"Response A": _full(4, 9), "Response C": {"accuracy": 9, "clarity": 7}},
    )
    m3 = Ballot(ranking=("Response A", "Response B", "Response C"), method="json_raw", holistic=True)
    audit = audit_session(_transcript([_review("m1", "ABC", m1), _review("m2", "CAB", m2), _review("m3", "BCA", m3)]))
    assert audit is not None
    got = {(p.reviewer, p.candidate): (p.position, p.score, p.source) for p in audit.scores}
    assert got == {
        ("m1", "m2"): (2, 8.0, "rubric"),
        ("m1", "m3"): (3, 7.0, "rubric"),  # capped at 7 by accuracy 6
        ("m2", "m1"): (2, 4.0, "rubric"),  # capped at 4 by accuracy 4
        ("m2", "m3"): (1, 8.0, "rubric"),  # partial rubric: mean of 9 and 7
        ("m3", "m1"): (3, 10.0, "ranking"),  # holistic ballot: own C dropped, A first of 2
        ("m3", "m2"): (1, 1.0, "ranking"),
    }
    # reviewer means 7.5, 6.0, 5.5; median 6.0; m1 is 1.5 above -> generous
    assert [(c.reviewer, c.mean_score, c.deviation, c.label) for c in audit.reviewers] == [
        ("m1", 7.5, 1.5, "generous"),
        ("m2", 6.0, 0.0, "typical"),
        ("m3", 5.5, -0.5, "typical"),
    ]
    assert audit.generous_reviewers == ["m1"] and audit.harsh_reviewers == []
    # position means 4.5, 6.0, 8.5 -> sample variance 8.1667/2
    assert audit.position_bias.variance == pytest.approx(49 / 12)
    lengths, scores = [20, 40, 10, 40, 10, 20], [8, 7, 4, 8, 10, 1]
    assert audit.length_correlation.r == pytest.approx(float(np.corrcoef(lengths, scores)[0, 1]), abs=1e-12)
    assert audit.risk_factors == ("position_bias", "generous_reviewer")
    assert audit.risk == "medium"


def test_harsh_reviewer_flag():
    # m1 scores everyone 2; m2 and m3 score 8 -> means 2, 8, 8; median 8; m1 6 below -> harsh
    def scored(score: float, *letters: str) -> Ballot:
        return Ballot(
            ranking=(f"Response {letters[0]}",),
            method="json_raw",
            scores={f"Response {c}": _full(score, score) for c in letters},
        )

    b1, b2, b3 = scored(2, "B", "C"), scored(8, "A", "C"), scored(8, "A", "B")
    audit = audit_session(_transcript([_review("m1", "ABC", b1), _review("m2", "ABC", b2), _review("m3", "ABC", b3)]))
    assert audit is not None
    assert audit.harsh_reviewers == ["m1"]
    assert "harsh_reviewer" in audit.risk_factors


def test_no_reviews_gives_none_and_abstentions_give_no_scores():
    assert audit_session(_transcript([])) is None
    audit = audit_session(
        _transcript(
            [
                _review("m1", "ABC", Ballot(abstained=True)),
                _review("m2", "ABC", _ranked("A", "C"), error="timeout"),
            ]
        )
    )
    assert audit is not None
    assert audit.scores == ()
    assert audit.length_correlation.r is None and audit.length_correlation.reason is not None
    assert audit.position_bias.variance is None
    assert audit.reviewers == () and audit.median_reviewer_mean is None
    assert audit.risk == "low"


def test_labels_missing_from_presentation_order_are_skipped():
    pairs = pair_scores(_transcript([_review("m1", "AB", _ranked("B", "C"))]))
    assert [(p.candidate, p.score) for p in pairs] == [("m2", 10.0)]


def test_length_correlation_undefined_cases():
    assert length_score_correlation([1, 2], [3, 4]).reason == "fewer than 3 scored pairs (2)"
    same_len = length_score_correlation([5, 5, 5], [1, 2, 3])
    assert same_len.r is None and same_len.reason == "all answers have the same length"
    same_score = length_score_correlation([1, 2, 3], [4, 4, 4])
    assert same_score.r is None and same_score.reason == "all scores are equal"
    perfect = length_score_correlation([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
    assert perfect.r == pytest.approx(1.0) and perfect.detected


def test_position_variance_and_risk_levels():
    assert position_variance([4.5, 6.0, 8.5]) == pytest.approx(49 / 12)
    with pytest.raises(ValueError):
        position_variance([1.0])
    assert overall_risk([]) == "low"
    assert overall_risk(["a"]) == "medium"
    assert overall_risk(["a", "b"]) == "medium"
    assert overall_risk(["a", "b", "c"]) == "high"
    assert overall_risk(["a", "b", "c", "d"]) == "high"
