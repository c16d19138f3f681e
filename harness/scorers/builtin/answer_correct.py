"""The members' stage-1 correctness (member -> its answer is correct), which the reviewers' validity needs."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from harness.scorers.builtin.declared import builtin_scorer
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript


def answer_correctness(case: Case, transcript: Transcript) -> dict[str, bool] | None:
    """Member -> whether its stage-1 answer is correct, for councils whose answers were reviewed
    (the reviewers' validity needs it); ``None`` without ``expected:`` or without reviews."""
    from harness.metrics.correctness import check_case

    if case.expected is None or not transcript.reviews:
        return None
    return {a.member: bool((r := check_case(case, a.text)) and r.correct) for a in transcript.answers if a.ok}


@builtin_scorer("answer_correct", order=40, detail=dict[str, bool])
async def answer_correct(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """:func:`answer_correctness` as the scorer's detail (no scores)."""
    return ScoreOutcome(detail=await asyncio.to_thread(answer_correctness, case, transcript))
