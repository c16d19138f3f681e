"""The report's view-model records: everything the HTML template shows, as frozen records whose
fields are display strings, flags and chart markup (built by :func:`harness.report.view.build_view`).

Model output stays plain text in these records (the template escapes it). Only the chart fields
(``svg``) hold markup, and that markup is produced by :mod:`harness.report.plots` from numbers and
glyph paths, never from model text.
"""

from __future__ import annotations

from harness.common.model import Frozen
from harness.report.arms_view import ArmsView
from harness.report.breakdown import Breakdown
from harness.report.detail_records import (  # re-exported: the drill-down records
    AggregateView,
    AnswerView,
    Block,
    CallView,
    CaseDetail,
    CheckView,
    FieldGroup,
    FieldRow,
    KeyValue,
    ReviewItem,
    ReviewView,
    RubricRow,
    SubjectDetail,
)
from harness.report.diagnostics import DiagnosticsView
from harness.report.formatting import Tone
from harness.report.modes_view import ModesView

__all__ = [  # the report's records, the drill-down's included
    "AggregateView",
    "AnswerView",
    "Badge",
    "Block",
    "CallView",
    "CaseDetail",
    "Chart",
    "CheckView",
    "ComparisonSummary",
    "DeltaBadge",
    "FieldGroup",
    "FieldRow",
    "GATE_REASONS_SHOWN",
    "GateView",
    "HeaderView",
    "KeyValue",
    "MatrixCell",
    "MatrixRow",
    "ModelRow",
    "PAGE_ROWS",
    "PredictionRow",
    "PredictionView",
    "ReportView",
    "ReviewItem",
    "ReviewView",
    "RubricRow",
    "SortKey",
    "StatusCount",
    "SubjectCounts",
    "SubjectDetail",
]

#: Matrix rows shown per page (the script pages through the rows the filters leave).
PAGE_ROWS = 100


class Badge(Frozen):
    """A small coloured label: ``CSS 0.82``.

    Args:
        label: the short name; value: the formatted value; tone: its colour; title: the tooltip.
    """

    label: str
    value: str
    tone: Tone = "none"
    title: str = ""


class ModelRow(Frozen):
    """A configured member: id, model, provider, roles and the sha256 prefix of its embedded weights."""

    member: str
    model: str
    provider: str
    roles: str = ""
    sha256: str = ""


class HeaderView(Frozen):
    """The header strip: what ran, where, when, for how long and at what cost."""

    run_id: str
    harness_version: str
    python: str
    git_revision: str
    git_dirty: bool
    started: str
    finished: str
    duration: str
    datasets: str
    subjects: str
    models: tuple[ModelRow, ...]
    config: tuple[KeyValue, ...]
    tokens_in: int
    tokens_out: int
    cache_hits: int
    cache_misses: int


class StatusCount(Frozen):
    """How many results of a subject have one status."""

    status: str
    label: str
    count: int


class SubjectCounts(Frozen):
    """A subject's results by status, and its objective answers by verdict (correct, wrong,
    ambiguous — the answer commits to two different values —, unanswered)."""

    subject: str
    total: int
    counts: tuple[StatusCount, ...]
    answers: tuple[StatusCount, ...] = ()

    @property
    def headline(self) -> str:
        """``5 of 30 passed``: the big number of the subject's card, never a bare total."""
        passed = next((c.count for c in self.counts if c.status == "passed"), 0)
        return f"{passed} of {self.total} passed"


#: Gate reasons listed in the banner itself; the rest are folded under "N more".
GATE_REASONS_SHOWN = 20


class ComparisonSummary(Frozen):
    """The baseline comparison in the gate banner."""

    dataset: str
    regressed: int
    improved: int
    unchanged: int
    new: int
    missing: int
    gated_scores: str


class GateView(Frozen):
    """The gate banner: passed or failed, and why.

    Args:
        passed: no failed or errored result and no comparison failure.
        headline: one line for people.
        rule: which rule decided (``gate.fail_on``, ``gate.min_pass_rate``: :mod:`harness.gate.fail_rule`).
        subjects: counts per subject and status.
        reasons: why it failed, one line per reason of :func:`harness.gate.regression.gate_outcome` (the same
            records as ``summary.json``), shown without a click; more_reasons: the lines beyond
            the first ``GATE_REASONS_SHOWN``, folded.
        comparison: the baseline comparison's summary, when one was given.
    """

    passed: bool
    headline: str
    subjects: tuple[SubjectCounts, ...]
    rule: str = ""
    reasons: tuple[str, ...]
    more_reasons: tuple[str, ...] = ()
    comparison: ComparisonSummary | None = None


class PredictionRow(Frozen):
    """One score family's >threshold verdict in one scope, formatted, with its interval glyph.

    Args:
        scope, family, role: where and what (``primary`` or ``secondary``).
        sentence: the verdict in words (:func:`harness.stats.verdict_sentence`).
        n: pairs (and dropped, informative); improvement, ci: the effect size and its interval;
        difference, difference_ci: ``mean(council - (1 + t) * baseline)`` and its interval (deciding);
        level: the interval's confidence; p_value: one-sided sign-flip p; mcnemar_p: binary families only.
        verdict: the verdict's key (badge class); verdict_words: it in words.
        reason: why ``insufficient_data``; warning: a sign of a broken scorer; note: other caveats.
        svg: the interval glyph on the relative-improvement axis.
    """

    scope: str
    family: str
    role: str
    sentence: str
    n: str
    mean_council: str
    mean_baseline: str
    improvement: str
    ci: str
    difference: str
    difference_ci: str
    level: str
    p_value: str
    mcnemar_p: str
    verdict: str
    verdict_words: str
    reason: str = ""
    warning: str = ""
    note: str
    svg: str


class PredictionView(Frozen):
    """The >15% panel: the primary verdict in words first, then the secondary (exploratory) table.

    Args:
        threshold: the claimed improvement, ``+15.0%``.
        confidence: the primary interval's level, ``95%``; secondary_confidence: each secondary one's.
        method: the decision's method in words; settings: Monte-Carlo patterns and seed, for reproduction.
        primary: the primary row (``None`` only for an empty report); primary_reason: why it is primary.
        insufficient_explained: one sentence on ``insufficient_data``.
        min_pairs: the minimum of informative pairs.
        scale_svg: the x scale drawn above the interval column.
        overall: the secondary rows over every case; categories: one row per (category, family).
        supported, refuted, inconclusive, insufficient: counts of overall verdicts (primary included).
        arms: per arm, truncated final answers and failed extractions, in words.
        artifact_warning: set when the arms differ in either by more than 5 points.
    """

    threshold: str
    confidence: str
    secondary_confidence: str
    n_secondary: int
    method: str
    settings: str
    primary: PredictionRow | None
    primary_reason: str
    insufficient_explained: str
    min_pairs: int
    scale_svg: str
    overall: tuple[PredictionRow, ...]
    categories: tuple[PredictionRow, ...]
    supported: int
    refuted: int
    inconclusive: int
    insufficient: int = 0
    arms: tuple[str, ...] = ()
    artifact_warning: str = ""


class Chart(Frozen):
    """An inline SVG chart with its title and caption (``wide``: spans the whole row of charts)."""

    title: str
    caption: str
    svg: str
    wide: bool = False


class MatrixCell(Frozen):
    """One case through one subject in the matrix (``status`` empty when the subject has no result)."""

    subject: str
    status: str
    label: str
    badges: tuple[Badge, ...]


class DeltaBadge(Frozen):
    """A case's comparison status for one subject, with the reasons as tooltip."""

    subject: str
    status: str
    reasons: str


class SortKey(Frozen):
    """A way to sort the case matrix: one subject's score (or its status, failing first)."""

    label: str
    descending: bool


class MatrixRow(Frozen):
    """One case: a cell per subject, its deltas, and the flags the filters use."""

    anchor: str
    dataset: str
    case_id: str
    category: str
    search: str
    cells: tuple[MatrixCell, ...]
    deltas: tuple[DeltaBadge, ...]
    failing: bool
    regressed: bool
    differ: bool
    has_detail: bool = True
    sort_values: str = ""  # "|"-joined numbers, one per ReportView.sort_keys entry ("" = no value)


class ReportView(Frozen):
    """The whole report."""

    header: HeaderView
    gate: GateView
    prediction: PredictionView | None
    charts: tuple[Chart, ...]
    subjects: tuple[str, ...]
    key_scores: tuple[KeyValue, ...]
    has_comparison: bool
    rows: tuple[MatrixRow, ...]
    cases: tuple[CaseDetail, ...]
    expert_review: tuple[ReviewItem, ...]
    corrupt_lines: str
    omitted_details: int = 0
    page_rows: int = PAGE_ROWS
    diagnostics: DiagnosticsView | None = None
    arms: ArmsView | None = None
    modes: ModesView | None = None
    breakdowns: tuple[Breakdown, ...] = ()
    sort_keys: tuple[SortKey, ...] = ()
