"""The typed per-scorer detail map of a case result: scorer name -> its record's type.

``CaseResult.details`` is validated through :func:`validate_details`: a built-in scorer's record is
read back as its own type (a ``correctness`` entry is a
:class:`~harness.metrics.correctness.CorrectnessResult`); a user scorer's detail (any JSON value) is
kept as it is. The keys are the names the nine blocks had at the top level of a result before
scorers shared one shape, so :func:`migrate_result` moves an old ``results.jsonl`` line's blocks into
the map unchanged.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from harness.bias.audit import SessionBiasAudit
from harness.metrics.correctness import CorrectnessResult
from harness.metrics.external_validation import ExternalValidation
from harness.metrics.heuristic_quality import HeuristicQuality
from harness.metrics.judge_rubric import RubricJudgement
from harness.metrics.quality_metrics import QualityMetrics
from harness.metrics.rubric import RubricBreakdown
from harness.records.expert_review_types import ReviewVerdict

#: Detail key -> its record's type, in the order the report lays the blocks out.
DETAIL_TYPES: dict[str, Any] = {
    "quality_metrics": QualityMetrics,
    "correctness": CorrectnessResult,
    "review": ReviewVerdict,
    "heuristic_quality": HeuristicQuality,
    "rubric": RubricJudgement,
    "peer_rubric": dict[str, RubricBreakdown],
    "bias": SessionBiasAudit,
    "external_validation": ExternalValidation,
    "answer_correct": dict[str, bool],
}
_ADAPTERS: dict[str, TypeAdapter[Any]] = {k: TypeAdapter(t) for k, t in DETAIL_TYPES.items()}


def validate_details(raw: Any) -> dict[str, Any]:
    """Each known entry as its type (``None`` entries dropped); unknown (user) entries unchanged."""
    if not isinstance(raw, dict):
        raise ValueError(f"expected a mapping of scorer name to detail, got {type(raw).__name__}")
    return {k: _ADAPTERS[k].validate_python(v) if k in _ADAPTERS else v for k, v in raw.items() if v is not None}


def migrate_result(data: Any) -> Any:
    """An old result (one top-level block per scorer) in the new shape: the blocks under ``details``.

    A result built in code with the old keyword arguments (``CaseResult(correctness=...)``) goes
    through the same move. Anything that is not a mapping is left to pydantic's own error.
    """
    if not isinstance(data, dict) or not (DETAIL_TYPES.keys() & data.keys()):
        return data
    out = {k: v for k, v in data.items() if k not in DETAIL_TYPES}
    moved = {k: data[k] for k in DETAIL_TYPES if data.get(k) is not None}
    existing = data.get("details") or {}
    out["details"] = {**existing, **moved} if isinstance(existing, dict) else existing
    return out
