"""The result of one case through one subject: transcript, scores, checks, details and status."""

from __future__ import annotations

from typing import Any, Literal, cast

from pydantic import field_validator, model_validator

from harness.bias.audit import SessionBiasAudit
from harness.common.model import Frozen
from harness.data.expected import Expected
from harness.metrics.correctness import CorrectnessResult
from harness.metrics.external_validation import ExternalValidation
from harness.metrics.heuristic_quality import HeuristicQuality
from harness.metrics.judge_rubric import RubricJudgement
from harness.metrics.quality_metrics import QualityMetrics
from harness.metrics.rubric import RubricBreakdown
from harness.records.expert_review_types import ReviewVerdict
from harness.records.scoreset import CheckResult, ScoreSet
from harness.records.transcript import CallRecord, Transcript
from harness.scorers.details import migrate_result, validate_details

__all__ = ["CaseResult", "CheckResult", "ScoreSet", "Status"]

Status = Literal["passed", "failed", "error", "awaiting_review"]


class CaseResult(Frozen):
    """One case through one subject.

    Args:
        case_id, dataset, subject, category: identity.
        status: ``passed``, ``failed``, ``error`` (the subject failed entirely) or
            ``awaiting_review`` (``evaluation_mode: expert_review``; a person decides).
        transcript: what the subject did (``None`` when it failed before producing one).
        scores: every named score (see :mod:`harness.records.score_spec`).
        checks: every check with its outcome.
        details: scorer name -> its typed record (:mod:`harness.scorers.details`); the built-in ones
            are also read through the properties named after them (``result.correctness``, ...).
        error: why the subject failed, for ``status == "error"``.
        scoring_errors: one line per scorer that could not score, naming the scorer.

    An old ``results.jsonl`` line, with one top-level block per scorer, loads unchanged: its blocks
    move into ``details`` (:func:`harness.scorers.details.migrate_result`).
    """

    case_id: str
    dataset: str
    subject: str
    category: str | None = None
    evaluation_mode: Literal["automatic", "expert_review"] = "automatic"
    status: Status
    transcript: Transcript | None = None
    scores: dict[str, float] = {}
    checks: tuple[CheckResult, ...] = ()
    error: str | None = None
    details: dict[str, Any] = {}
    scoring_errors: tuple[str, ...] = ()
    scoring_calls: tuple[CallRecord, ...] = ()  # judge calls made while scoring (not the subject's)
    # what the case asked for, so that a run's results can be analysed on their own (export, diff)
    tags: tuple[str, ...] = ()
    ground_truth: str | None = None
    expected: Expected | None = None

    @model_validator(mode="before")
    @classmethod
    def _old_blocks(cls, data: Any) -> Any:
        return migrate_result(data)

    @field_validator("details", mode="before")
    @classmethod
    def _typed_details(cls, v: Any) -> dict[str, Any]:
        return validate_details(v)

    def with_detail(self, name: str, detail: object, **update: object) -> CaseResult:
        """A copy with ``details[name]`` set (and any other fields in ``update``)."""
        return self.model_copy(update={**update, "details": {**self.details, name: detail}})

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.dataset, self.case_id, self.subject)

    @property
    def failed_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed]

    # the built-in scorers' details under the names they had as fields
    @property
    def quality_metrics(self) -> QualityMetrics | None:
        """The Tier 1 block for council-like subjects."""
        return cast("QualityMetrics | None", self.details.get("quality_metrics"))

    @property
    def correctness(self) -> CorrectnessResult | None:
        return cast("CorrectnessResult | None", self.details.get("correctness"))

    @property
    def review(self) -> ReviewVerdict | None:
        """An expert's verdict on an ``awaiting_review`` case (:mod:`harness.run.expert_review`)."""
        return cast("ReviewVerdict | None", self.details.get("review"))

    @property
    def heuristic_quality(self) -> HeuristicQuality | None:
        return cast("HeuristicQuality | None", self.details.get("heuristic_quality"))

    @property
    def rubric(self) -> RubricJudgement | None:
        return cast("RubricJudgement | None", self.details.get("rubric"))

    @property
    def peer_rubric(self) -> dict[str, RubricBreakdown] | None:
        return cast("dict[str, RubricBreakdown] | None", self.details.get("peer_rubric"))

    @property
    def bias(self) -> SessionBiasAudit | None:
        return cast("SessionBiasAudit | None", self.details.get("bias"))

    @property
    def external_validation(self) -> ExternalValidation | None:
        return cast("ExternalValidation | None", self.details.get("external_validation"))

    @property
    def answer_correct(self) -> dict[str, bool] | None:
        """Member -> its stage-1 answer is correct (council subjects of cases with ``expected:``)."""
        return cast("dict[str, bool] | None", self.details.get("answer_correct"))
