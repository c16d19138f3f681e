"""The typed per-scorer detail map of a case result: scorer name -> its record's type.

``CaseResult.details`` is validated through :func:`validate_details`: a built-in scorer's record is
read back as the type its declaration names (:mod:`harness.scorers.builtin`: a ``correctness`` entry
is a :class:`~harness.metrics.correctness.CorrectnessResult`), an expert's verdict (``review``, set by
:mod:`harness.run.expert_review`, not by a scorer) as a
:class:`~harness.records.expert_review_types.ReviewVerdict`; a user scorer's detail (any JSON value) is
kept as it is. The keys are the names the blocks had at the top level of a result before scorers
shared one shape, so :func:`migrate_result` moves an old ``results.jsonl`` line's blocks into the map
unchanged.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from harness.records.expert_review_types import ReviewVerdict
from harness.scorers.builtin import BUILTIN_SCORERS

#: Detail key -> its record's type: the built-in scorers' in scoring order (the order the report lays
#: the blocks out), then the expert's verdict.
DETAIL_TYPES: dict[str, Any] = {
    **{s.name: s.detail for s in BUILTIN_SCORERS if s.detail is not None},
    "review": ReviewVerdict,
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
    moved = {k: v for k, v in data.items() if k in DETAIL_TYPES and v is not None}
    existing = data.get("details") or {}
    out["details"] = {**existing, **moved} if isinstance(existing, dict) else existing
    return out
