"""Scoring one transcript against its case: every configured scorer, in one loop, in a fixed order."""

from __future__ import annotations

from typing import TypedDict

from harness.config import Settings
from harness.data.cases import Case
from harness.data.expected import Expected
from harness.metrics.checks import minimum_score_checks
from harness.providers.calls import Caller
from harness.records.transcript import CallRecord, Transcript
from harness.run.result import CaseResult, CheckResult, Status
from harness.scorers.builtin import BUILTIN_SCORERS, answer_correctness
from harness.scorers.outcome import ScoreOutcome
from harness.scorers.protocol import Scorer
from harness.scorers.user import configured_user_scorers

__all__ = ["answer_correctness", "case_fields", "configured_scorers", "score_case"]


class CaseFields(TypedDict):
    """What a result keeps of its case beyond identity, as :class:`CaseResult` keyword arguments."""

    tags: tuple[str, ...]
    ground_truth: str | None
    expected: Expected | None


def case_fields(case: Case) -> CaseFields:
    """What a result keeps of its case beyond identity (tags, ground truth, the expected block)."""
    return {"tags": case.tags, "ground_truth": case.ground_truth, "expected": case.expected}


def configured_scorers(case: Case, settings: Settings) -> tuple[Scorer, ...]:
    """The built-in scorers (:data:`~harness.scorers.builtin.BUILTIN_SCORERS`, each switched by its
    settings), then the user's (:func:`~harness.scorers.user.configured_user_scorers`; one that cannot
    run is an :class:`~harness.scorers.user.UnavailableScorer`, whose outcome is its scoring error)."""
    return (*BUILTIN_SCORERS, *configured_user_scorers(case, settings))


async def score_case(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> CaseResult:
    """Run every configured scorer on ``transcript`` and decide the case's status.

    Scores merge in scorer order (a later scorer cannot overwrite an earlier one's score: that is a
    scoring error naming it); checks are every scorer's, then one per ``minimum_scores`` entry.
    The result is keyed by ``case`` and ``transcript`` as given: a user scorer gets deep copies and
    runs isolated (:class:`~harness.scorers.user.UserScorer`), so whatever it does, its failure is
    one of ``scoring_errors`` and the answer, the transcript and the other scores are kept.
    A subject that produced no final answer at all is an ``error``; an ``expert_review`` case is
    ``awaiting_review`` whatever its checks say; otherwise ``passed`` only when every check passed.
    """
    scores: dict[str, float] = {}
    checks: list[CheckResult] = []
    errors: list[str] = []
    details: dict[str, object] = {}
    calls: list[CallRecord] = []
    for scorer in configured_scorers(case, settings):
        out: ScoreOutcome = await scorer(case, transcript, caller, settings)
        taken = sorted(scores.keys() & out.scores.keys())
        if taken:
            errors.append(
                f"scorer {scorer.name}: score(s) {taken} already given by an earlier scorer; expected names of its own"
            )
        else:
            scores.update(out.scores)
            checks.extend(out.checks)
        if out.detail is not None:
            details[scorer.name] = out.detail
        calls.extend(out.calls)
        if out.error:
            errors.append(out.error)
    for builtin in BUILTIN_SCORERS:  # a detail that depends on the others' (Tier 1's tier)
        if builtin.name in details:
            details[builtin.name] = builtin.settled(details[builtin.name], details)
    checks.extend(minimum_score_checks(case, scores))
    status: Status
    if not transcript.final_answer.strip():
        status, error = "error", "; ".join(transcript.errors) or "the subject produced no answer"
    elif case.evaluation_mode == "expert_review":
        status, error = "awaiting_review", None
    else:
        status, error = ("passed" if all(c.passed for c in checks) else "failed"), None
    return CaseResult(
        case_id=case.id,
        dataset=case.dataset,
        subject=transcript.subject,
        category=case.category,
        evaluation_mode=case.evaluation_mode,
        status=status,
        transcript=transcript,
        scores=scores,
        checks=tuple(checks),
        error=error,
        details=details,
        scoring_errors=tuple(errors),
        scoring_calls=tuple(calls),
        **case_fields(case),
    )
