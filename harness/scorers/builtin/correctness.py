"""Objective correctness: the final answer against the case's ``expected:`` block."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from harness.metrics.correctness import CorrectnessResult
from harness.records.score_spec import ScoreSpec
from harness.scorers.builtin.declared import builtin_scorer
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript


def _summary(result: CorrectnessResult) -> str:
    verdict = getattr(result, "verdict", None) or ("correct" if result.correct else "wrong")
    return f"{verdict}: expected {result.expected_display}"


@builtin_scorer(
    "correctness",
    order=30,
    detail=CorrectnessResult,
    summary=_summary,
    scores=(
        ScoreSpec(
            name="correct",
            description="objective correctness against the case's expected block, 1 or 0",
            key_rank=0,
            chart=True,
        ),
    ),
)
async def correctness(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """The final answer against ``expected:`` (python tests in a subprocess, off the event loop); the
    judge extracts the answer when the rules find none and ``model_extraction`` is on."""
    from harness.metrics.correctness import correctness_score_set, correctness_scores
    from harness.metrics.model_extraction import model_extract, wants_model

    result, score_set = await asyncio.to_thread(correctness_scores, case, transcript)
    call = None
    if result is not None and wants_model(case, result, settings):
        result, call = await model_extract(case, transcript.final_answer, result, caller, settings)
        score_set = correctness_score_set(case, result)
    return ScoreOutcome(
        scores=score_set.scores, checks=score_set.checks, detail=result, calls=(call,) if call is not None else ()
    )
