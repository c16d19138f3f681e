"""The report's run-vs-run section: a :class:`~harness.gate.rundiff.RunDiff` as display records.

Same rules as :mod:`harness.report.view`: every field is a display string or a flag, model text
stays plain text (the template escapes it), the template does no arithmetic.
"""

from __future__ import annotations

from harness.common.model import Frozen
from harness.gate.rundiff import RunDiff
from harness.records.score_spec import higher_is_better
from harness.report.formatting import case_anchor

_TITLES = {
    "newly_failing": "newly failing",
    "regressed": "regressed",
    "missing": "missing from this run",
    "newly_passing": "newly passing",
    "improved": "improved",
    "new": "new in this run",
}
_TONE = {
    "newly_failing": "regressed",
    "regressed": "regressed",
    "missing": "missing",
    "newly_passing": "improved",
    "improved": "improved",
    "new": "new",
}


class ChangeRow(Frozen):
    anchor: str
    case: str
    subject: str
    kind: str
    tone: str
    before: str
    after: str
    reasons: tuple[str, ...]
    answer_before: str
    answer_after: str
    show_answers: bool


class MoveRow(Frozen):
    case: str
    subject: str
    score: str
    before: str
    after: str
    change: str
    tone: str


class CountChip(Frozen):
    label: str
    count: int
    tone: str


class DiffView(Frozen):
    against: str
    headline: str
    gate: str
    failed: bool
    counts: tuple[CountChip, ...]
    changes: tuple[ChangeRow, ...]
    moves: tuple[MoveRow, ...]


def diff_view(diff: RunDiff) -> DiffView:
    counts = tuple(CountChip(label=_TITLES[k], count=len(diff.of_kind(k)), tone=_TONE[k]) for k in _TITLES)
    changed = sum(c.count for c in counts)
    headline = (
        f"{changed} of {changed + diff.unchanged} case result(s) changed since run {diff.run_a}"
        if changed
        else f"nothing changed since run {diff.run_a} ({diff.unchanged} case result(s))"
    )
    rows = tuple(
        ChangeRow(
            anchor=case_anchor(c.dataset, c.case_id),
            case=f"{c.dataset}::{c.case_id}",
            subject=c.subject,
            kind=_TITLES.get(c.kind, c.kind),
            tone=_TONE.get(c.kind, "unchanged"),
            before=c.before_status or "—",
            after=c.after_status or "—",
            reasons=c.reasons,
            answer_before=c.answer_before or "",
            answer_after=c.answer_after or "",
            show_answers=c.kind not in ("missing", "new"),
        )
        for c in diff.changes
    )
    moves = tuple(
        MoveRow(
            case=f"{m.dataset}::{m.case_id}",
            subject=m.subject,
            score=m.score,
            before=f"{m.before:g}",
            after=f"{m.after:g}",
            change=f"{m.change:+g}",
            tone="improved" if (m.change > 0) == higher_is_better(m.score) else "regressed",
        )
        for m in diff.moves
    )
    return DiffView(
        against=diff.run_a,
        headline=headline,
        gate="regressed against that run" if diff.exit_code else "no regression against that run",
        failed=bool(diff.exit_code),
        counts=counts,
        changes=rows,
        moves=moves,
    )
