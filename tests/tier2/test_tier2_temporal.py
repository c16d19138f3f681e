"""Temporal consistency (seed 001 section 2.1) over hand-made run folders: matching, Jaccard, drift, embeddings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.run.result import CaseResult
from harness.run.runs import Manifest, RunWriter, load_run
from harness.tier2.embeddings import load_embedder, semantic_available
from harness.tier2.temporal import (
    HistoricalAnswer,
    earlier_runs,
    history_from_runs,
    result_temporal_consistency,
    similar_history,
    temporal_consistency,
)
from tests.builders import result

QUERY = "What is the capital of France"


def _result(
    case_id: str, query: str, answer: str, *, dataset: str = "geo", subject: str = "council", status: str = "passed"
) -> CaseResult:
    return result(
        case_id,
        subject,
        status,
        dataset=dataset,
        answer=answer,
        query=query,  # type: ignore[arg-type]
        transcript_fields={"member": "m1", "model": "smollm2-135m"},
    )


def _write_run(runs_dir: Path, run_id: str, results: list[CaseResult]) -> Path:
    w = RunWriter(runs_dir / run_id)
    w.write_manifest(Manifest(run_id=run_id, started_at=f"2026-01-{run_id[6:8]}T00:00:00Z"))
    w.add(results)
    return w.run_dir


def _history(answers: list[str], query: str = QUERY, case_id: str = "q1") -> list[HistoricalAnswer]:
    return [
        HistoricalAnswer(
            run_id=f"r{i}",
            started_at="2026-01-01T00:00:00Z",
            dataset="geo",
            case_id=case_id,
            subject="council",
            query=query,
            answer=a,
        )
        for i, a in enumerate(answers)
    ]


def test_fewer_than_three_matches_is_insufficient_data():
    tc = temporal_consistency(QUERY, "Paris", _history(["Paris", "Paris"]), dataset="geo", case_id="q1")
    assert tc.status == "insufficient_data"
    assert tc.score is None
    assert tc.sample_size == 2
    assert tc.drift_detected is False
    assert tc.method == "jaccard"


def test_jaccard_score_is_mean_jaccard_to_each_match_and_flags_drift():
    # current tokens {alpha, beta, gamma, delta}
    # h1 identical -> 1; h2 shares 3 of 5 -> 0.6; h3 shares 2 of 6 -> 1/3
    # mean = (1 + 0.6 + 1/3) / 3 = 0.64444..., drift 0.3556 > 0.2
    hist = _history(["alpha beta gamma delta", "alpha beta gamma epsilon", "alpha beta zeta eta"])
    tc = temporal_consistency(QUERY, "alpha beta gamma delta", hist)
    assert tc.status == "calculated"
    assert tc.score == 0.644
    assert tc.sample_size == 3
    assert tc.drift_detected is True
    assert tc.method == "jaccard"


def test_consistent_answers_do_not_flag_drift():
    # (1 + 1 + 4/5) / 3 = 0.9333, drift 0.0667
    hist = _history(["alpha beta gamma delta", "alpha beta gamma delta", "alpha beta gamma delta epsilon"])
    tc = temporal_consistency(QUERY, "alpha beta gamma delta", hist)
    assert (tc.score, tc.drift_detected) == (0.933, False)


def test_drift_threshold_is_strictly_greater_than_point_two():
    # each historical answer shares 4 of 5 tokens: similarity 0.8, drift 0.2 -> not above 0.2
    hist = _history(["aa bb cc dd ee"] * 3)
    tc = temporal_consistency(QUERY, "aa bb cc dd", hist)
    assert tc.score == 0.8
    assert tc.drift_detected is False
    # 3 of 5 tokens: similarity 0.6, drift 0.4
    assert temporal_consistency(QUERY, "aa bb cc", hist).drift_detected is True


def test_query_similarity_threshold_and_same_case_rule():
    # 6 of 7 tokens shared: 0.857 >= 0.85 matches; 4 of 8 (0.5) does not, unless it is the same case
    near = _history(["x"], query="What is the capital of France today", case_id="other")
    far = _history(["x"], query="What was the capital of Gaul", case_id="other")
    same_case = _history(["x"], query="Name France's capital city", case_id="q1")
    assert similar_history(QUERY, near) == near
    assert similar_history(QUERY, far) == []
    assert similar_history(QUERY, same_case, dataset="geo", case_id="q1") == same_case
    assert similar_history(QUERY, same_case, dataset="other", case_id="q1") == []


def test_history_from_run_folders_newest_first_with_window_and_exclusions(tmp_path: Path):
    runs = tmp_path / "runs"
    _write_run(runs, "20260101-000000-0001", [_result("q1", QUERY, "alpha beta")])
    _write_run(
        runs,
        "20260102-000000-0002",
        [
            _result("q1", QUERY, "alpha gamma"),
            _result("q1", QUERY, "baseline answer", subject="baseline"),
            _result("q2", "Unrelated question", "", status="error"),
        ],
    )
    _write_run(runs, "20260103-000000-0003", [_result("q1", QUERY, "alpha delta")])
    current = _write_run(runs, "20260104-000000-0004", [_result("q1", QUERY, "alpha beta")])
    _write_run(runs, "20260105-000000-0005", [_result("q1", QUERY, "later answer")])
    (runs / ".pruning-20260100-000000-0000").mkdir()

    folders = earlier_runs(runs, current.name)
    assert [f.name for f in folders] == ["20260103-000000-0003", "20260102-000000-0002", "20260101-000000-0001"]
    history = history_from_runs(folders)
    assert [(h.run_id, h.subject, h.answer) for h in history] == [
        ("20260103-000000-0003", "council", "alpha delta"),
        ("20260102-000000-0002", "baseline", "baseline answer"),  # within a run: (dataset, case, subject) order
        ("20260102-000000-0002", "council", "alpha gamma"),
        ("20260101-000000-0001", "council", "alpha beta"),
    ]
    result = load_run(current).results[0]
    # council answers only: J(ab, ad) = 1/3, J(ab, ag) = 1/3, J(ab, ab) = 1 -> mean 5/9 = 0.556
    tc = result_temporal_consistency(result, history)
    assert tc is not None
    assert (tc.status, tc.score, tc.sample_size, tc.drift_detected) == ("calculated", 0.556, 3, True)
    # a window of two runs leaves two council answers: insufficient
    windowed = history_from_runs(earlier_runs(runs, current.name, window=2))
    tc2 = result_temporal_consistency(result, windowed)
    assert tc2 is not None
    assert (tc2.status, tc2.sample_size) == ("insufficient_data", 2)


@pytest.mark.skipif(not semantic_available(), reason="the semantic extra (tokenizers, safetensors) is not installed")
def test_embedding_method_uses_cosine_to_the_mean_embedding():
    embedder = load_embedder()
    assert embedder is not None
    answers = ["Paris is the capital of France.", "The capital of France is Paris.", "France's capital city is Paris."]
    # a paraphrased query: Jaccard 0.625 (no match), embedding cosine about 0.94 (a match)
    paraphrase = "Which city is the capital of France?"
    hist = _history(answers, query=paraphrase, case_id="other")
    assert similar_history("What is the capital of France?", hist) == []
    assert similar_history("What is the capital of France?", hist, embedder=embedder) == hist

    current = "Paris is the capital city of France."
    tc = temporal_consistency("What is the capital of France?", current, hist, embedder=embedder)
    vectors = embedder.model.encode([current, *answers])
    mean = vectors[1:].mean(axis=0)
    expected = float(np.dot(vectors[0], mean) / (np.linalg.norm(vectors[0]) * np.linalg.norm(mean)))
    assert tc.method == "embedding"
    assert tc.status == "calculated"
    assert tc.sample_size == 3
    assert tc.score == pytest.approx(round(expected, 3), abs=1e-3)
    assert tc.score > 0.9
    assert tc.drift_detected is False

    off_topic = temporal_consistency(
        "What is the capital of France?", "Bananas are yellow and rich in potassium.", hist, embedder=embedder
    )
    assert off_topic.drift_detected is True
    assert off_topic.score is not None and off_topic.score < 0.5

    before = embedder.cached()
    embedder.embed(answers)
    assert embedder.cached() == before
