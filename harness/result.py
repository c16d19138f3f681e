"""The result of one case through one subject: transcript, scores, checks and status."""

from __future__ import annotations

from typing import Literal

from harness.bias.audit import SessionBiasAudit
from harness.expected import Expected
from harness.metrics.correctness import CorrectnessResult
from harness.metrics.external import ExternalValidation
from harness.metrics.heuristic_quality import HeuristicQuality
from harness.metrics.judge_rubric import RubricJudgement
from harness.metrics.quality_metrics import QualityMetrics
from harness.metrics.rubric import RubricBreakdown
from harness.model import Frozen
from harness.review_types import ReviewVerdict
from harness.scoreset import CheckResult, ScoreSet
from harness.transcript import CallRecord, Transcript

__all__ = ["CaseResult", "CheckResult", "ScoreSet", "Status"]

Status = Literal["passed", "failed", "error", "awaiting_review"]


class CaseResult(Frozen):
    """One case through one subject.

    Args:
        case_id, dataset, subject, category: identity.
        status: ``passed``, ``failed``, ``error`` (the subject failed entirely) or
            ``awaiting_review`` (``evaluation_mode: expert_review``; a person decides).
        transcript: what the subject did (``None`` when it failed before producing one).
        quality_metrics: the Tier 1 block for council-like subjects.
        scores: every named score (see :mod:`harness.scores`).
        checks: every check with its outcome.
        error: why the subject failed, for ``status == "error"``.
    """

    case_id: str
    dataset: str
    subject: str
    category: str | None = None
    evaluation_mode: Literal["automatic", "expert_review"] = "automatic"
    status: Status
    transcript: Transcript | None = None
    quality_metrics: QualityMetrics | None = None
    scores: dict[str, float] = {}
    checks: tuple[CheckResult, ...] = ()
    error: str | None = None
    correctness: CorrectnessResult | None = None
    review: ReviewVerdict | None = None
    heuristic_quality: HeuristicQuality | None = None
    rubric: RubricJudgement | None = None
    peer_rubric: dict[str, RubricBreakdown] | None = None
    bias: SessionBiasAudit | None = None
    external_validation: ExternalValidation | None = None
    scoring_errors: tuple[str, ...] = ()
    scoring_calls: tuple[CallRecord, ...] = ()  # judge calls made while scoring (not the subject's)
    answer_correct: dict[str, bool] | None = None  # member -> its stage-1 answer is correct (council, expected:)
    # what the case asked for, so that a run's results can be analysed on their own (export, diff)
    tags: tuple[str, ...] = ()
    ground_truth: str | None = None
    expected: Expected | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.dataset, self.case_id, self.subject)

    @property
    def failed_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed]
