"""Scoring one transcript against its case: every scorer, in one place, in a fixed order."""

from __future__ import annotations

import asyncio

from harness.bias.audit import audit_session
from harness.cases import Case
from harness.checks import mention_checks, minimum_score_checks
from harness.config import Settings
from harness.council.calls import Caller
from harness.metrics.correctness import check_expected, correctness_score_set, correctness_scores
from harness.metrics.heuristic_quality import heuristic_quality_scores
from harness.metrics.judge_rubric import run_rubric_judge
from harness.metrics.model_extraction import model_extract, wants_model
from harness.metrics.quality_metrics import QualityMetrics, core_quality_metrics
from harness.metrics.rubric import peer_composite, peer_rubric_breakdown
from harness.result import CaseResult, CheckResult
from harness.transcript import CallRecord, Transcript


def answer_correctness(case: Case, transcript: Transcript) -> dict[str, bool] | None:
    """Member -> whether its stage-1 answer is correct, for councils whose answers were reviewed
    (the reviewers' validity needs it); ``None`` without ``expected:`` or without reviews."""
    if case.expected is None or not transcript.reviews:
        return None
    return {a.member: check_expected(case.expected, a.text).correct for a in transcript.answers if a.ok}


def _tier1(transcript: Transcript, settings: Settings) -> tuple[QualityMetrics | None, dict[str, float]]:
    if not settings.quality_metrics or not transcript.reviews:
        return None, {}
    qm = core_quality_metrics(transcript, settings.grounding_threshold)
    sas = qm.core.synthesis_attribution
    return qm, {
        "consensus_strength": qm.core.consensus_strength,
        "deliberation_depth": qm.core.deliberation_depth,
        "winner_alignment": sas.winner_alignment,
        "max_source_alignment": sas.max_source_alignment,
        "hallucination_risk": sas.hallucination_risk,
    }


def case_fields(case: Case) -> dict[str, object]:
    """What a result keeps of its case beyond identity (tags, ground truth, the expected block)."""
    return {"tags": case.tags, "ground_truth": case.ground_truth, "expected": case.expected}


async def score_case(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> CaseResult:
    """Run every scorer on ``transcript`` and decide the case's status.

    A subject that produced no final answer at all is an ``error``; an ``expert_review`` case is
    ``awaiting_review`` whatever its checks say; otherwise ``passed`` only when every check passed.
    """
    scores: dict[str, float] = {}
    checks: list[CheckResult] = []
    errors: list[str] = []
    quality_metrics, tier1 = _tier1(transcript, settings)
    scores.update(tier1)
    mentions = mention_checks(case, transcript.final_answer)
    scores.update(mentions.scores)
    checks.extend(mentions.checks)
    # objective correctness (python tests run in a subprocess: keep the event loop free)
    correctness, correct = await asyncio.to_thread(correctness_scores, case, transcript)
    extract_call = None
    if correctness is not None and wants_model(case, correctness, settings):  # opt-in: the judge extracts
        correctness, extract_call = await model_extract(case, transcript.final_answer, correctness, caller, settings)
        correct = correctness_score_set(case, correctness)
    answer_correct = await asyncio.to_thread(answer_correctness, case, transcript)
    scores.update(correct.scores)
    checks.extend(correct.checks)
    # seed 002's heuristic quality of the final answer, for every subject alike
    heuristic, hq = heuristic_quality_scores(transcript.final_answer)
    scores.update(hq.scores)
    # the rubric judge scores the final answer of every subject (ceiling and safety gate applied)
    judged = await run_rubric_judge(case, transcript, caller, settings)
    if judged.judgement is not None:
        scores.update(judged.judgement.score_set().scores)
        if judged.judgement.error:
            errors.append(f"rubric judge: {judged.judgement.error}")
    elif judged.error:
        errors.append(judged.error)
    # stage-2 peer rubric scores (when reviewers gave them)
    peer = peer_rubric_breakdown(transcript, settings.weights) if transcript.reviews else {}
    composite = peer_composite(peer) if peer else None
    if composite is not None:
        scores["peer_composite"] = composite
    # DeepEval and RAGAS (seed 001 section 3.1), opt-in: several judge calls per metric
    external = None
    external_calls: list[CallRecord] = []
    if settings.external_validation or settings.quality_tier == "enterprise":
        from harness.judge import judge_from_settings
        from harness.metrics.external import external_validation

        metric_judge = judge_from_settings(settings, caller.providers)
        external, ext = await external_validation(case, transcript, metric_judge)
        scores.update(ext.scores)
        external_calls = list(metric_judge.calls)
    bias = audit_session(transcript, settings.weights) if transcript.reviews else None
    if quality_metrics is not None:
        tier = "enterprise" if external is not None else "standard" if (judged.judgement or peer) else "core"
        quality_metrics = quality_metrics.model_copy(update={"tier": tier})
    checks.extend(minimum_score_checks(case, scores))
    if not transcript.final_answer.strip():
        status, error = "error", "; ".join(transcript.errors) or "the subject produced no answer"
    elif case.evaluation_mode == "expert_review":
        status, error = "awaiting_review", None
    else:
        status, error = ("passed" if all(c.passed for c in checks) else "failed"), None
    return CaseResult(
        case_id=case.id, dataset=case.dataset, subject=transcript.subject, category=case.category,
        evaluation_mode=case.evaluation_mode, status=status, transcript=transcript,
        quality_metrics=quality_metrics, scores=scores, checks=tuple(checks), error=error,
        correctness=correctness, heuristic_quality=heuristic, rubric=judged.judgement,
        peer_rubric=peer or None, bias=bias, external_validation=external, scoring_errors=tuple(errors),
        answer_correct=answer_correct,
        scoring_calls=(*(c for c in (extract_call, judged.call) if c is not None), *external_calls),
        **case_fields(case),
    )
