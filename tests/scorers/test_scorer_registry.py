"""The ScoreSpec registry (one place for a score's scale, direction, label, chart, trend, gating) and the
CaseResult detail map (old results.jsonl lines with nine top-level blocks still load)."""

from __future__ import annotations

import asyncio
import json

from harness.config import Settings
from harness.data.cases import Case
from harness.providers.calls import Caller
from harness.records.transcript import Answer, Transcript
from harness.run.result import CaseResult
from harness.run.scoring import score_case
from harness.scorers import SCORES, ScoreOutcome, Scorer, default_tolerance, higher_is_better, score_scale
from harness.scorers.builtin import BUILTIN_SCORERS
from harness.scorers.details import DETAIL_TYPES


def test_the_registry_holds_what_the_old_tables_said() -> None:
    # the report's old KEY_SCORES / KEY_SCORE_LABELS / CHART_FAMILIES and the quality report's TREND_METRICS
    assert SCORES.ranked() == (
        "correct",
        "rubric_composite",
        "heuristic_quality",
        "required_mentions",
        "consensus_strength",
        "hallucination_risk",
    )
    assert [SCORES[k].short for k in SCORES.ranked()] == ["correct", "rubric", "HQ", "mentions", "CSS", "risk"]
    assert SCORES.ranked(charted=True) == ("correct", "rubric_composite", "heuristic_quality", "required_mentions")
    assert SCORES.trended() == {
        "consensus_strength": "CSS",
        "deliberation_depth": "DDI",
        "winner_alignment": "SAS",
        "hallucination_risk": "Risk",
        "peer_composite": "Peer",
        "rubric_composite": "Judge",
    }
    # scales: 10 for rubric scores, 100 for heuristic quality, else 1; 5% of it is the default tolerance
    assert {n for n in SCORES if score_scale(n) == 10} == {
        "accuracy",
        "relevance",
        "completeness",
        "conciseness",
        "clarity",
        "rubric_composite",
        "peer_composite",
    }
    assert {n for n in SCORES if score_scale(n) == 100} == {"heuristic_quality"} | {
        n for n in SCORES if n.startswith("hq_")
    }
    assert (default_tolerance("rubric_composite"), default_tolerance("correct")) == (0.5, 0.05)
    assert [n for n in SCORES if not higher_is_better(n)] == ["hallucination_risk"]
    assert len(SCORES) == 27 and all(SCORES[n].gated for n in SCORES)
    # an unregistered (user) score: 0-1, higher is better, gated, labelled by its name
    other = SCORES.spec("brevity")
    assert (other.scale, other.higher_is_better, other.gated, other.short) == (1.0, True, True, "brevity")


def test_builtin_scorers_follow_the_protocol_in_a_fixed_order() -> None:
    assert all(isinstance(s, Scorer) for s in BUILTIN_SCORERS)
    assert [s.name for s in BUILTIN_SCORERS] == [
        "quality_metrics",
        "mentions",
        "correctness",
        "answer_correct",
        "heuristic_quality",
        "rubric",
        "peer_rubric",
        "external_validation",
        "bias",
    ]
    settings = Settings(rubric_scoring=False)
    case = Case(id="c", query="What is 2+2?", expected={"type": "numeric", "value": 4}, required_mentions=("4",))
    t = Transcript(
        subject="baseline",
        query=case.query,
        answers=(Answer(member="m", model="m", text="4"),),
        final_answer="The answer is 4.",
    )
    out = asyncio.run(BUILTIN_SCORERS[2](case, t, Caller({}, settings), settings))
    assert isinstance(out, ScoreOutcome) and out.scores == {"correct": 1.0} and out.detail.verdict == "correct"


def test_an_old_results_line_with_top_level_blocks_loads_into_the_detail_map() -> None:
    settings = Settings(rubric_scoring=False)
    case = Case(id="c", query="What is 2+2?", expected={"type": "numeric", "value": 4})
    t = Transcript(
        subject="baseline",
        query=case.query,
        answers=(Answer(member="m", model="m", text="4"),),
        final_answer="The answer is 4.",
    )
    new = asyncio.run(score_case(case, t, Caller({}, settings), settings))
    assert sorted(new.details) == ["correctness", "heuristic_quality"]
    line = json.loads(new.model_dump_json())
    old = {k: v for k, v in line.items() if k != "details"}
    old.update(line["details"])  # the shape results.jsonl had before: one top-level block per scorer
    old.update({"rubric": None, "bias": None, "review": None, "answer_correct": None})
    loaded = CaseResult.model_validate_json(json.dumps(old))
    assert loaded == new
    assert loaded.correctness is not None and loaded.correctness.verdict == "correct"
    assert loaded.heuristic_quality == new.heuristic_quality and loaded.rubric is None
    assert set(DETAIL_TYPES) == {
        "quality_metrics",
        "correctness",
        "review",
        "heuristic_quality",
        "rubric",
        "peer_rubric",
        "bias",
        "external_validation",
        "answer_correct",
    }
