"""The drill-down's view-model records: a case's query and every subject's transcript, checks, scores
and generic blocks (built by :mod:`harness.report.drilldown` and :mod:`harness.report.blocks`), and the
expert-review items. Fields are display strings and flags; model output stays plain text (the template
escapes it). :mod:`harness.report.view_records` re-exports them with the rest of the report's records.
"""

from __future__ import annotations

from harness.common.model import Frozen


class KeyValue(Frozen):
    """A label and its display value."""

    key: str
    value: str


class CheckView(Frozen):
    """A check with its outcome and expected-vs-got detail."""

    kind: str
    target: str
    passed: bool
    detail: str


class AnswerView(Frozen):
    """A stage-1 answer."""

    member: str
    model: str
    text: str
    confidence: str
    error: str


class RubricRow(Frozen):
    """A ballot's rubric scores for one candidate: ``Response A (m1): accuracy 8 · clarity 7``."""

    label: str
    member: str
    scores: str


class ReviewView(Frozen):
    """A stage-2 review: raw text, parsed ballot, presentation order and seed."""

    reviewer: str
    model: str
    raw_text: str
    ranking: str
    ranking_members: str
    presentation: str
    seed: int
    method: str
    flags: str
    critique: str
    rubric: tuple[RubricRow, ...]
    error: str
    labels_seen: str = ""
    passes: tuple[str, ...] = ()


class AggregateView(Frozen):
    """A member's aggregate stage-2 standing."""

    member: str
    borda: str
    average_position: str
    votes: int


class CallView(Frozen):
    """One model call."""

    stage: str
    member: str
    model: str
    latency: str
    tokens: str
    cached: bool
    error: str


class FieldRow(Frozen):
    """One leaf of a generic block: a dotted path and its text (``long`` texts go in a ``<pre>``)."""

    path: str
    value: str
    long: bool


class FieldGroup(Frozen):
    """A section of a drill-down block (:mod:`harness.report.blocks`): its own fields, or a table with
    one row per item of a list (or map) of records; a titled section is shown collapsed under its summary.

    Args:
        title: the section's dotted path in the block ("" for the block's own top-level fields, shown open).
        summary: its gist: the first fields' values, or the table's size and keys.
        rows: the fields (``path`` relative to the section), when it is not a table.
        columns: the table's header; table: its rows, one cell per column (``path`` is the column).
    """

    title: str
    summary: str = ""
    rows: tuple[FieldRow, ...] = ()
    columns: tuple[str, ...] = ()
    table: tuple[tuple[FieldRow, ...], ...] = ()


class Block(Frozen):
    """A titled group of fields shown generically (judge verdicts, extraction, votes, future fields).

    Args:
        title: the field's name in words.
        rows: its leaves (every dotted path, as ``export`` would name them).
        open: shown expanded (short blocks); long ones start collapsed.
        summary: one line shown beside the title, so a collapsed block still says what it found.
        groups: the leaves as the report shows them: top-level fields, then one collapsed section per
            nested record and one table per list (or map) of records, instead of one raw row per leaf.
    """

    title: str
    rows: tuple[FieldRow, ...]
    open: bool = True
    summary: str = ""
    groups: tuple[FieldGroup, ...] = ()


class SubjectDetail(Frozen):
    """Everything one subject did for one case."""

    subject: str
    status: str
    label: str
    error: str
    final_answer: str | None
    checks: tuple[CheckView, ...]
    scores: tuple[KeyValue, ...]
    tier1: str
    warnings: str
    answers: tuple[AnswerView, ...]
    show_answers: bool
    label_map: str
    reviews: tuple[ReviewView, ...]
    aggregate: tuple[AggregateView, ...]
    synthesis: str | None
    chairman: str
    blocks: tuple[Block, ...]
    errors: tuple[str, ...]
    calls: tuple[CallView, ...]
    footer: str
    self_report: tuple[tuple[str, ...], ...] = ()  # an external council's own metrics vs the harness's
    self_report_flags: tuple[str, ...] = ()


class CaseDetail(Frozen):
    """A case's drill-down: the query and every subject's transcript."""

    anchor: str
    dataset: str
    case_id: str
    category: str
    query: str
    subjects: tuple[SubjectDetail, ...]


class ReviewItem(Frozen):
    """An expert-review case result waiting for (or carrying) a person's verdict.

    Args:
        anchor: the drill-down's id.
        dataset, case_id, subject: identity.
        status, label: the result's status (``awaiting_review`` until a verdict is merged).
        verdict: ``pass`` or ``fail`` when a reviewer decided, else "".
        by: ``who, when`` of the verdict ("" without one).
        note: the reviewer's note.
    """

    anchor: str
    dataset: str
    case_id: str
    subject: str
    status: str
    label: str
    verdict: str = ""
    by: str = ""
    note: str = ""
