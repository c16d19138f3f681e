"""What one scorer returns: :class:`ScoreOutcome`."""

from __future__ import annotations

from typing import Any

from harness.common.model import Frozen
from harness.records.scoreset import CheckResult
from harness.records.transcript import CallRecord


class ScoreOutcome(Frozen):
    """One scorer's contribution to a case result.

    Args:
        scores: named scores (their meaning: :mod:`harness.records.score_spec`), merged into
            ``CaseResult.scores`` in scorer order.
        checks: pass/fail checks; the case passes only when every check of every scorer passed.
        detail: the scorer's typed record (``CaseResult.details[<scorer name>]``), ``None`` for none.
        calls: model calls the scorer made (judge, extraction), kept in ``CaseResult.scoring_calls``.
        error: why the scorer could not score (``CaseResult.scoring_errors``); a scoring error does not
            change the case's status on its own.
    """

    scores: dict[str, float] = {}
    checks: tuple[CheckResult, ...] = ()
    detail: Any = None
    calls: tuple[CallRecord, ...] = ()
    error: str | None = None
