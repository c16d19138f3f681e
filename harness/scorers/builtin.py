"""The built-in scorers, each behind the :class:`~harness.scorers.protocol.Scorer` protocol.

:data:`BUILTIN_SCORERS` is their fixed order, the order their scores are merged in (and so the key
order of ``CaseResult.scores``): Tier 1 quality metrics, required mentions and forbidden claims,
objective correctness (with the judge's extraction when opted in), the members' stage-1
correctness, seed 002's heuristic quality, the rubric judge, the stage-2 peer rubric, DeepEval and
RAGAS, the per-session bias audit. Each scorer reads the settings that switch it on or off and
returns an empty outcome when off. The maths lives in :mod:`harness.metrics` and
:mod:`harness.bias`; these wrappers only adapt their return shapes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript

ScoreFn = Callable[["Case", "Transcript", "Caller", "Settings"], Awaitable[ScoreOutcome]]


@dataclass(frozen=True)
class BuiltinScorer:
    """A built-in scorer: its name (the key of its detail) and its scoring coroutine."""

    name: str
    fn: ScoreFn

    async def __call__(self, case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
        return await self.fn(case, transcript, caller, settings)


async def _quality_metrics(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """Tier 1 (CSS, DDI, SAS) for subjects with stage-2 reviews; the tier is set by :func:`tier_of`."""
    from harness.metrics.quality_metrics import core_quality_metrics

    if not settings.quality_metrics or not transcript.reviews:
        return ScoreOutcome()
    qm = core_quality_metrics(transcript, settings.grounding_threshold)
    sas = qm.core.synthesis_attribution
    return ScoreOutcome(detail=qm, scores={
        "consensus_strength": qm.core.consensus_strength,
        "deliberation_depth": qm.core.deliberation_depth,
        "winner_alignment": sas.winner_alignment,
        "max_source_alignment": sas.max_source_alignment,
        "hallucination_risk": sas.hallucination_risk,
    })


async def _mentions(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """``required_mentions`` and ``forbidden_claims`` of the final answer."""
    from harness.metrics.checks import mention_checks

    found = mention_checks(case, transcript.final_answer)
    return ScoreOutcome(scores=found.scores, checks=found.checks)


async def _correctness(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """The final answer against ``expected:`` (python tests in a subprocess, off the event loop); the
    judge extracts the answer when the rules find none and ``model_extraction`` is on."""
    from harness.metrics.correctness import correctness_score_set, correctness_scores
    from harness.metrics.model_extraction import model_extract, wants_model

    result, score_set = await asyncio.to_thread(correctness_scores, case, transcript)
    call = None
    if result is not None and wants_model(case, result, settings):
        result, call = await model_extract(case, transcript.final_answer, result, caller, settings)
        score_set = correctness_score_set(case, result)
    return ScoreOutcome(scores=score_set.scores, checks=score_set.checks, detail=result,
                        calls=(call,) if call is not None else ())


def answer_correctness(case: Case, transcript: Transcript) -> dict[str, bool] | None:
    """Member -> whether its stage-1 answer is correct, for councils whose answers were reviewed
    (the reviewers' validity needs it); ``None`` without ``expected:`` or without reviews."""
    from harness.metrics.correctness import check_case

    if case.expected is None or not transcript.reviews:
        return None
    return {a.member: bool((r := check_case(case, a.text)) and r.correct) for a in transcript.answers if a.ok}


async def _answer_correct(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    return ScoreOutcome(detail=await asyncio.to_thread(answer_correctness, case, transcript))


async def _heuristic(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """Seed 002's heuristic quality of the final answer, for every subject alike."""
    from harness.metrics.heuristic_quality import heuristic_quality_scores

    detail, score_set = heuristic_quality_scores(transcript.final_answer)
    return ScoreOutcome(scores=score_set.scores, detail=detail)


async def _rubric(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """The rubric judge on every subject's final answer (ceiling and safety gate applied)."""
    from harness.metrics.judge_rubric import run_rubric_judge

    judged = await run_rubric_judge(case, transcript, caller, settings)
    calls = (judged.call,) if judged.call is not None else ()
    j = judged.judgement
    if j is None:
        return ScoreOutcome(calls=calls, error=judged.error)
    return ScoreOutcome(scores=j.score_set().scores, detail=j, calls=calls,
                        error=f"rubric judge: {j.error}" if j.error else None)


async def _peer_rubric(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """The stage-2 peer rubric scores, when reviewers gave them."""
    from harness.metrics.rubric import peer_composite, peer_rubric_breakdown

    peer = peer_rubric_breakdown(transcript, settings.weights) if transcript.reviews else {}
    composite = peer_composite(peer) if peer else None
    return ScoreOutcome(scores={"peer_composite": composite} if composite is not None else {}, detail=peer or None)


async def _external(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """DeepEval and RAGAS (seed 001 section 3.1), opt-in: several judge calls per metric."""
    if not (settings.external_validation or settings.quality_tier == "enterprise"):
        return ScoreOutcome()
    from harness.metrics.external_validation import external_validation
    from harness.metrics.judge import judge_from_settings

    metric_judge = judge_from_settings(settings, caller.providers)
    detail, score_set = await external_validation(case, transcript, metric_judge)
    return ScoreOutcome(scores=score_set.scores, detail=detail, calls=tuple(metric_judge.calls))


async def _bias(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """The per-session bias audit of the stage-2 reviews (no scores: an input to the bias report)."""
    from harness.bias.audit import audit_session

    return ScoreOutcome(detail=audit_session(transcript, settings.weights) if transcript.reviews else None)


#: Every built-in scorer, in the order its scores are merged.
BUILTIN_SCORERS: tuple[BuiltinScorer, ...] = (
    BuiltinScorer("quality_metrics", _quality_metrics),
    BuiltinScorer("mentions", _mentions),
    BuiltinScorer("correctness", _correctness),
    BuiltinScorer("answer_correct", _answer_correct),
    BuiltinScorer("heuristic_quality", _heuristic),
    BuiltinScorer("rubric", _rubric),
    BuiltinScorer("peer_rubric", _peer_rubric),
    BuiltinScorer("external_validation", _external),
    BuiltinScorer("bias", _bias),
)


def tier_of(details: dict[str, object]) -> str:
    """The Tier 1 block's tier: ``enterprise`` with external validation, ``standard`` with a rubric
    judgement or peer rubric scores, else ``core``."""
    if details.get("external_validation") is not None:
        return "enterprise"
    return "standard" if details.get("rubric") is not None or details.get("peer_rubric") else "core"
