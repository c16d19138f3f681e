"""The report's breakdowns: pass rates per subject by tag and by category.

Golden datasets carry ``tags`` (``[geography, capital]``) and suite challenges a ``category``; a
user who mixes sources in one file (MT-Bench, BIG-bench, HumanEval) tags them and reads the rates
per source here. A case counts once per tag it carries; a group's cell reads ``passed of results``
(awaiting-review results are not counted as passed or failed, only as results).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from harness.common.model import Frozen
from harness.run.result import CaseResult


class BreakdownRow(Frozen):
    """One tag (or category): how many cases carry it and each subject's ``passed of results``."""

    group: str
    cases: int
    cells: tuple[str, ...]


class Breakdown(Frozen):
    """A table of groups (``by`` is ``tag`` or ``category``) with one column per subject."""

    by: str
    subjects: tuple[str, ...]
    rows: tuple[BreakdownRow, ...]


def _groups(r: CaseResult, by: str) -> Sequence[str]:
    if by == "tag":
        return r.tags
    return (r.category,) if r.category else ()


def breakdown(results: Sequence[CaseResult], subjects: Sequence[str], by: str) -> Breakdown | None:
    """The ``by`` breakdown, or ``None`` when fewer than two groups exist (it would repeat the totals)."""
    passed: dict[tuple[str, str], int] = defaultdict(int)
    total: dict[tuple[str, str], int] = defaultdict(int)
    cases: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for r in results:
        for g in _groups(r, by):
            total[(g, r.subject)] += 1
            passed[(g, r.subject)] += r.status == "passed"
            cases[g].add((r.dataset, r.case_id))
    if len(cases) < 2:
        return None
    rows = tuple(
        BreakdownRow(
            group=g,
            cases=len(cases[g]),
            cells=tuple(f"{passed[(g, s)]} of {total[(g, s)]}" if total[(g, s)] else "—" for s in subjects),
        )
        for g in sorted(cases)
    )
    return Breakdown(by=by, subjects=tuple(subjects), rows=rows)
