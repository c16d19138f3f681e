"""DeepEval and RAGAS (seed 001 section 3.1), opt-in: several judge calls per metric."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.metrics.external_validation import ExternalValidation
from harness.records.score_spec import ScoreSpec
from harness.scorers.builtin.declared import builtin_scorer
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript


def _leaves(value: Any) -> int:
    """The figures of a JSON value: its leaves (an empty container has none)."""
    if isinstance(value, dict):
        return sum(_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(_leaves(v) for v in value)
    return 1


def _summary(ev: ExternalValidation) -> str:
    return f"{_leaves(ev.model_dump(mode='json'))} figures from DeepEval/RAGAS"


@builtin_scorer(
    "external_validation",
    order=80,
    detail=ExternalValidation,
    summary=_summary,
    scores=(
        ScoreSpec(name="deepeval_relevancy", description="DeepEval answer relevancy (LLM judge), 0-1"),
        ScoreSpec(
            name="deepeval_correctness", description="DeepEval GEval correctness against ground_truth (LLM judge), 0-1"
        ),
        ScoreSpec(
            name="deepeval_hallucination_free",
            description="DeepEval share of the context the answer agrees with (LLM judge), 0-1",
        ),
        ScoreSpec(name="ragas_faithfulness", description="RAGAS faithfulness to the case context (LLM judge), 0-1"),
        ScoreSpec(
            name="ragas_answer_relevancy", description="RAGAS answer relevancy (LLM judge + embedding cosine), 0-1"
        ),
        ScoreSpec(
            name="ragas_context_precision", description="RAGAS context precision against ground_truth (LLM judge), 0-1"
        ),
    ),
)
async def external_validation(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """DeepEval and RAGAS, when ``external_validation`` is on or the quality tier is ``enterprise``."""
    if not (settings.external_validation or settings.quality_tier == "enterprise"):
        return ScoreOutcome()
    from harness.metrics.external_validation import external_validation as validate
    from harness.metrics.judge import judge_from_settings

    metric_judge = judge_from_settings(settings, caller.providers)
    detail, score_set = await validate(case, transcript, metric_judge)
    return ScoreOutcome(scores=score_set.scores, detail=detail, calls=tuple(metric_judge.calls))
