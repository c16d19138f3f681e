"""A result always goes into results.jsonl as a line that loads back: no value JSON cannot hold
(an infinite log-probability became null, and the whole line, scores and all, was unreadable)."""

from __future__ import annotations

import math
from pathlib import Path

from harness.config import load_settings
from harness.metrics.judge_rubric import LOGPROB_FLOOR, judgement_from_logprobs
from harness.run.result import CaseResult
from harness.run.runs import Manifest, RunWriter, load_run, storable_line

DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")


def _logprobs() -> dict[str, dict[str, float]]:
    # options 1..9 with P(k) = 2^-k style mass, " 10" never given (-inf), as llama.cpp returns it
    out = {}
    for d in DIMS:
        lps = {f" {k}": math.log(0.1) for k in range(1, 10)}
        lps[" 10"] = float("-inf")
        out[d] = lps
    return out


def test_an_impossible_score_option_is_stored_finite_and_scores_unchanged(tmp_path: Path) -> None:
    j = judgement_from_logprobs(
        _logprobs(), "Paris.", load_settings(cache_mode="off"), judge="j", judge_model="m", used_reference=False
    )
    assert j.score_logprobs["accuracy"][" 10"] == LOGPROB_FLOOR and math.exp(LOGPROB_FLOOR) == 0.0
    assert j.scores["accuracy"] == 5.0  # the mean of 1..9, each with probability 1/9
    result = CaseResult(
        case_id="c", dataset="d", subject="baseline", status="passed", rubric=j, scores=j.score_set().scores
    )
    w = RunWriter(tmp_path / "r")
    w.write_manifest(Manifest(run_id="r", started_at="2026-11-26T00:00:00Z"))
    w.add([result])
    run = load_run(tmp_path / "r")
    assert run.corrupt_lines == [] and run.results[0].rubric == j


def test_a_result_that_cannot_round_trip_is_stored_as_an_error_that_says_why() -> None:
    j = judgement_from_logprobs(
        _logprobs(), "Paris.", load_settings(cache_mode="off"), judge="j", judge_model="m", used_reference=False
    )
    broken = j.model_copy(update={"entropy": {"accuracy": float("inf")}})  # a value JSON writes as null
    result = CaseResult(
        case_id="c",
        dataset="d",
        subject="baseline",
        status="passed",
        rubric=broken,
        scores={"accuracy": 5.0, "odd": float("nan")},
    )
    back = CaseResult.model_validate_json(storable_line(result))
    assert back.status == "error" and back.scores == {"accuracy": 5.0}
    assert back.error is not None and "could not be stored as JSON (scores.odd: " in back.error
