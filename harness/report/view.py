"""The report's view-model: everything the HTML template shows, computed and formatted here.

:func:`build_view` turns a :class:`~harness.runs.Run` (plus, optionally, the >15% prediction report
and a baseline comparison) into a :class:`ReportView` of frozen records whose fields are display
strings, flags and chart markup. The template only lays them out: it does no arithmetic, no
grouping and no formatting, so what the report says is testable here without a browser.

Model output stays plain text in these records (the template escapes it). Only the chart fields
(``svg``) hold markup, and that markup is produced by :mod:`harness.report.plots` from numbers and
glyph paths, never from model text.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from harness import signflip
from harness.baselines import FAILING, CaseDelta, Comparison
from harness.metrics.tier1 import consensus_band
from harness.model import Frozen
from harness.report import plots
from harness.report.arms_view import ArmsView, arms_view
from harness.report.bars import bar
from harness.report.breakdown import Breakdown, breakdown
from harness.report.diagnostics import DiagnosticsView, diagnostics
from harness.result import CaseResult
from harness.runs import Run
from harness.scores import SCORE_NAMES, higher_is_better
from harness.stats import (
    MIN_INFORMATIVE_PAIRS,
    UNCATEGORIZED,
    VERDICT_WORDS,
    PredictionReport,
    PredictionVerdict,
    verdict_headline,
)
from harness.transcript import Transcript

Tone = Literal["good", "mid", "bad", "none"]
STATUSES = ("passed", "failed", "error", "awaiting_review")
#: Verdicts of objective answers (harness.metrics.correctness), counted apart in the gate banner.
VERDICTS = ("correct", "wrong", "ambiguous", "unanswered")
#: Scores shown as badges in the case matrix, in this order, when the run has them (at most 4).
KEY_SCORES = ("correct", "rubric_composite", "heuristic_quality", "required_mentions", "consensus_strength",
              "hallucination_risk")
KEY_SCORE_LABELS = {
    "correct": "correct", "rubric_composite": "rubric", "heuristic_quality": "HQ",
    "required_mentions": "mentions", "consensus_strength": "CSS", "hallucination_risk": "risk",
}
#: Score families charted per category (council vs baseline), in this order, when present (at most 3).
CHART_FAMILIES = ("correct", "rubric_composite", "heuristic_quality", "required_mentions")
#: Settings shown in the header, when the manifest's config has them.
CONFIG_HIGHLIGHTS = (
    "chairman", "baseline", "judge", "seed", "answer_max_tokens", "review_max_tokens", "final_answer_max_tokens",
    "synthesis_max_tokens",
    "quality_tier", "grounding_threshold", "rubric_scoring", "peer_rubric", "safety_gate", "cache_mode", "base_url",
)
#: CaseResult / Transcript fields the report lays out itself; every other field that is set (judge
#: verdicts, extracted answers, reviewers' verdicts, fields added later) is shown as a generic block.
_KNOWN_RESULT_FIELDS = frozenset({
    "case_id", "dataset", "subject", "category", "evaluation_mode", "status", "transcript", "quality_metrics",
    "scores", "checks", "error", "tags", "ground_truth", "expected",
})
_KNOWN_TRANSCRIPT_FIELDS = frozenset({
    "subject", "query", "answers", "label_to_member", "reviews", "aggregate", "synthesis", "final_answer",
    "chairman", "calls", "errors", "duration_s", "voting",
})
#: Generic blocks with more rows than this start collapsed.
OPEN_BLOCK_ROWS = 8
#: Cases whose transcripts the report carries. Beyond it (a 10,000-case run) the report keeps the
#: ones that need a look first (failing, regressed, subjects differ, awaiting review), then the
#: others in matrix order; every case stays in the matrix, results.jsonl and ``export``.
DETAIL_LIMIT = 300
#: Matrix rows shown per page (the script pages through the rows the filters leave).
PAGE_ROWS = 100
#: Generic values longer than this (or with a newline) are shown in a ``<pre>``.
LONG_TEXT = 80
#: Width in CSS pixels of the prediction panel's interval column.
INTERVAL_WIDTH = 150


# ---------------------------------------------------------------- formatting


def case_anchor(dataset: str, case_id: str) -> str:
    """A case's drill-down id, stable when cases are added: ``case-<dataset>-<case id>`` (ids are
    ``[A-Za-z0-9_.:-]``, all valid in a URL fragment)."""
    return f"case-{dataset}-{case_id}"


def status_label(status: str) -> str:
    """``awaiting_review`` -> ``awaiting review``."""
    return status.replace("_", " ")


def score_scale(name: str) -> float:
    """The top of a score's scale, read from its registry description (``0-100`` -> 100; default 1)."""
    desc = SCORE_NAMES.get(name, ("", True))[0]
    m = re.search(r"\b[01]-(\d+)\b", desc)
    return float(m.group(1)) if m else 1.0


def fmt_score(value: float | None, scale: float = 1.0) -> str:
    """A score on its scale: 2 decimals on 0-1, 1 on 0-10, none on 0-100; ``n/a`` when missing."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if scale >= 100:
        return f"{value:.0f}"
    if scale >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def fmt_num(value: float | None) -> str:
    """A mean or other figure of unknown scale: 3 decimals below 10, 1 below 100, else none."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def fmt_pct(value: float | None) -> str:
    """A relative change as a signed percentage, ``+23.4%``; ``n/a`` when undefined."""
    return "n/a" if value is None or not math.isfinite(value) else f"{value:+.1%}"


def fmt_p(value: float | None) -> str:
    """A p-value: ``<0.001`` below one in a thousand, else 3 significant digits; ``n/a`` when undefined."""
    if value is None or not math.isfinite(value):
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3g}"


def fmt_duration(seconds: float | None) -> str:
    """``3725`` -> ``1 h 02 min 05 s``; ``n/a`` when unknown."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return "n/a"
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    if h:
        return f"{h} h {m:02d} min {sec:02d} s"
    if m:
        return f"{m} min {sec:02d} s"
    return f"{sec} s"


def _parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def score_tone(name: str, value: float | None) -> Tone:
    """good / mid / bad for a score, by its position on its scale in its good direction."""
    if value is None or not math.isfinite(value):
        return "none"
    frac = value / score_scale(name)
    if not higher_is_better(name):
        frac = 1.0 - frac
    return "good" if frac >= 0.7 else "mid" if frac >= 0.4 else "bad"


# ---------------------------------------------------------------- records


class KeyValue(Frozen):
    """A label and its display value."""

    key: str
    value: str


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
        subjects: counts per subject and status.
        reasons: why it failed, one line per reason of :func:`harness.gate.gate_outcome` (the same
            records as ``summary.json``), shown without a click; more_reasons: the lines beyond
            the first ``GATE_REASONS_SHOWN``, folded.
        comparison: the baseline comparison's summary, when one was given.
    """

    passed: bool
    headline: str
    subjects: tuple[SubjectCounts, ...]
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


class Block(Frozen):
    """A titled group of fields shown generically (judge verdicts, extraction, votes, future fields).

    Args:
        title: the field's name in words.
        rows: its leaves.
        open: shown expanded (short blocks); long ones start collapsed.
    """

    title: str
    rows: tuple[FieldRow, ...]
    open: bool = True
    summary: str = ""  # one line shown beside the title, so a collapsed block still says what it found


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
    breakdowns: tuple[Breakdown, ...] = ()
    sort_keys: tuple[SortKey, ...] = ()


# ---------------------------------------------------------------- header and gate


def _header(run: Run, subjects: Sequence[str]) -> HeaderView:
    m = run.manifest
    config = m.config or {}
    specs = [s for s in config.get("models") or [] if isinstance(s, Mapping)]
    ids = [str(s.get("id", "")) for s in specs]
    roles: dict[str, list[str]] = defaultdict(list)
    for role in ("chairman", "baseline", "judge"):
        name = config.get(role)
        if not isinstance(name, str):
            continue
        # resolved as Settings.find_member does: a member id first, else the first member with that model
        member = name if name in ids else next((str(s.get("id")) for s in specs if s.get("model") == name), name)
        roles[member].append(role)
    sha = {f.name: f.sha256[:12] for f in m.models}
    models = [
        ModelRow(member=str(s.get("id", "")), model=str(s.get("model", "")), provider=str(s.get("provider", "")),
                 roles=", ".join(roles.get(str(s.get("id", "")), [])), sha256=sha.get(str(s.get("model", "")), ""))
        for s in specs
    ]
    models += [ModelRow(member=name, model=name, provider="", roles=", ".join(rs), sha256=sha.get(name, ""))
               for name, rs in roles.items() if name not in ids]
    listed = {r.model for r in models}
    models += [ModelRow(member="", model=f.name, provider="local", sha256=f.sha256[:12]) for f in m.models
               if f.name not in listed]
    highlights = tuple(
        KeyValue(key=k, value=_plain(config[k])) for k in CONFIG_HIGHLIGHTS if config.get(k) is not None
    )
    start, end = _parse_time(m.started_at), _parse_time(m.finished_at)
    duration = (end - start).total_seconds() if start and end else None
    tokens = [r.transcript.tokens for r in run.results if r.transcript is not None]
    return HeaderView(
        run_id=m.run_id, harness_version=m.harness_version, python=m.python,
        git_revision=(m.git_revision or "unknown")[:10], git_dirty=bool(m.git_dirty),
        started=m.started_at, finished=m.finished_at or "not finished", duration=fmt_duration(duration),
        datasets=", ".join(m.datasets) or "none", subjects=", ".join(subjects), models=tuple(models),
        config=highlights, tokens_in=sum(t[0] for t in tokens), tokens_out=sum(t[1] for t in tokens),
        cache_hits=m.cache_hits, cache_misses=m.cache_misses,
    )


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _gate(run: Run, subjects: Sequence[str], comparisons: Sequence[Comparison]) -> GateView:
    from harness.gate import gate_outcome

    results = run.results
    counts: dict[str, dict[str, int]] = {s: dict.fromkeys(STATUSES, 0) for s in subjects}
    for r in results:
        counts.setdefault(r.subject, dict.fromkeys(STATUSES, 0))[r.status] += 1
    verdicts: dict[str, dict[str, int]] = {s: dict.fromkeys(VERDICTS, 0) for s in counts}
    for r in results:
        if r.correctness is not None:
            verdicts[r.subject][r.correctness.outcome] += 1
    per_subject = tuple(
        SubjectCounts(subject=s, total=sum(c.values()), counts=tuple(
            StatusCount(status=st, label=status_label(st), count=c[st]) for st in STATUSES if c[st]
        ), answers=tuple(
            StatusCount(status=f"answer-{v}", label=v, count=verdicts[s][v]) for v in VERDICTS if verdicts[s][v]
        ))
        for s, c in counts.items()
    )
    summary = None
    if comparisons:
        by = {st: sum(len(c.by_status(st)) for c in comparisons)
              for st in ("regressed", "improved", "unchanged", "new", "missing")}
        gated = sorted({s for c in comparisons for s in c.gated_scores})
        summary = ComparisonSummary(
            dataset=", ".join(c.dataset for c in comparisons), **by, gated_scores=", ".join(gated) or "none",
        )
    outcome = gate_outcome(run, comparisons)
    n_failed = sum(r.status == "failed" for r in results)
    n_error = sum(r.status == "error" for r in results)
    parts = [f"{len(results)} result(s)", f"{n_failed} failed", f"{n_error} error(s)"]
    if summary is not None:
        parts += [f"{summary.regressed} regression(s)", f"{summary.improved} improvement(s) vs baseline"]
    parts += [f"{outcome.counts[k]} {k}" for k in ("missing", "unreadable") if outcome.counts[k]]
    headline = ("Gate passed" if outcome.outcome == "pass" else "Gate failed") + ": " + ", ".join(parts)
    reasons = tuple(f"{r.dataset} :: {r.message}" for r in outcome.reasons)
    return GateView(passed=outcome.outcome == "pass", headline=headline, subjects=per_subject,
                    reasons=reasons[:GATE_REASONS_SHOWN], more_reasons=reasons[GATE_REASONS_SHOWN:],
                    comparison=summary)


# ---------------------------------------------------------------- prediction panel


def _clip(value: float) -> float:
    """Infinite interval ends as far-off finite values, so the glyph draws them with an arrow."""
    return value if math.isnan(value) else max(-1e6, min(1e6, value))


def _fmt_bound(value: float) -> str:
    if math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    return fmt_pct(value)


def _fmt_diff_bound(value: float) -> str:
    if math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    return "n/a" if math.isnan(value) else f"{value:+.3g}"


def _prediction_row(v: PredictionVerdict, axis: tuple[float, float]) -> PredictionRow:
    decided = v.verdict != "insufficient_data"
    return PredictionRow(
        scope=v.scope, family=v.family, role=v.role, sentence=verdict_headline(v),
        n=f"{v.n}" + (f" (+{v.n_dropped} dropped)" if v.n_dropped else "") + f", {v.n_informative} informative",
        mean_council=fmt_num(v.mean_council), mean_baseline=fmt_num(v.mean_baseline),
        improvement=fmt_pct(v.relative_improvement),
        ci=f"[{_fmt_bound(v.ci_low)}, {_fmt_bound(v.ci_high)}]" if decided else "—",
        difference=_fmt_diff_bound(v.mean_difference),
        difference_ci=f"[{_fmt_diff_bound(v.diff_low)}, {_fmt_diff_bound(v.diff_high)}]" if decided else "—",
        level=f"{v.confidence:.4g}", p_value=fmt_p(v.p_value) if decided else "—",
        mcnemar_p="—" if v.mcnemar_p is None else fmt_p(v.mcnemar_p), verdict=v.verdict,
        verdict_words=VERDICT_WORDS[v.verdict], reason=v.reason, warning=v.warning, note=v.note,
        svg=plots.interval_svg(v.relative_improvement, _clip(v.ci_low), _clip(v.ci_high), v.threshold, axis,
                               v.verdict, width=INTERVAL_WIDTH),
    )


def _prediction(report: PredictionReport) -> PredictionView:
    from harness.prediction import INSUFFICIENT_DATA_EXPLAINED, arm_words

    every = report.every()
    axis = plots.interval_axis(
        [x for v in every for x in (v.relative_improvement, v.ci_low, v.ci_high)], report.threshold
    )
    head = report.headline
    overall = tuple(_prediction_row(v, axis) for v in report.overall if v.role != "primary")
    categories = tuple(
        _prediction_row(v, axis) for cat in sorted(report.by_category) for v in report.by_category[cat]
    )
    verdicts = [v.verdict for v in report.overall]
    method = head.method if head is not None and head.method else "paired sign-flip test"
    return PredictionView(
        threshold=fmt_pct(report.threshold), confidence=f"{report.confidence:.0%}",
        secondary_confidence=f"{report.secondary_confidence:.4g}", n_secondary=report.n_secondary,
        method=method,
        settings=(f"exact up to {signflip.EXACT_MAX_PAIRS} pairs, else {report.n_resamples} random sign patterns, "
                  f"seed {report.seed}"),
        primary=_prediction_row(head, axis) if head is not None else None, primary_reason=report.primary_reason,
        insufficient_explained=INSUFFICIENT_DATA_EXPLAINED, min_pairs=MIN_INFORMATIVE_PAIRS,
        scale_svg=plots.interval_scale_svg(axis, report.threshold, width=INTERVAL_WIDTH), overall=overall,
        categories=categories,
        supported=verdicts.count("supported"), refuted=verdicts.count("refuted"),
        inconclusive=verdicts.count("inconclusive"), insufficient=verdicts.count("insufficient_data"),
        arms=tuple(arm_words(a) for a in report.arms), artifact_warning=report.artifact_warning,
    )


# ---------------------------------------------------------------- charts


def _mean(values: Iterable[float]) -> float | None:
    vals = [v for v in values if math.isfinite(v)]
    return sum(vals) / len(vals) if vals else None


def _group_of(r: CaseResult) -> str:
    """The chart group of a result: its category, else its dataset (as :mod:`harness.prediction` groups)."""
    return r.category or r.dataset or UNCATEGORIZED


def _charts(results: Sequence[CaseResult], subjects: Sequence[str]) -> tuple[Chart, ...]:
    charts: list[Chart] = []
    present = {k for r in results for k in r.scores}
    families = [f for f in CHART_FAMILIES if f in present][:3]
    categories = sorted({_group_of(r) for r in results})
    for i, family in enumerate(families):
        cells: dict[tuple[str, str], list[float]] = defaultdict(list)
        for r in results:
            if family in r.scores:
                cells[(_group_of(r), r.subject)].append(r.scores[family])
        shown = [s for s in subjects if any((c, s) in cells for c in categories)]
        series = [plots.Series(label=s, values=tuple(_mean(cells.get((c, s), [])) for c in categories))
                  for s in shown]
        scale = score_scale(family)
        desc = SCORE_NAMES.get(family, (family, True))[0]
        n = sum(len(v) for v in cells.values())
        charts.append(Chart(
            title=f"{family} by category",
            caption=f"{desc}; mean per category (else dataset) over {n} result(s); – = no result",
            svg=plots.grouped_bars(categories, series, ylabel=f"mean {family} (0-{scale:g})", ymax=scale,
                                   chart_id=f"bars{i}"),
        ))
    council = [r for r in results if r.quality_metrics is not None and r.subject == "council"] or [
        r for r in results if r.quality_metrics is not None
    ]
    if council:
        qms = [r.quality_metrics for r in council if r.quality_metrics is not None]
        panels = [
            ("CSS", [q.core.consensus_strength for q in qms]),
            ("DDI", [q.core.deliberation_depth for q in qms]),
            ("SAS max source alignment", [q.core.synthesis_attribution.max_source_alignment for q in qms]),
            ("hallucination risk", [q.core.synthesis_attribution.hallucination_risk for q in qms]),
        ]
        who = ", ".join(sorted({r.subject for r in council}))
        charts.append(Chart(
            title="Tier 1 distributions", caption=f"{len(qms)} {who} result(s); 10 equal bins over 0-1",
            svg=plots.histograms(panels, chart_id="tier1"), wide=True,
        ))
    charts += _bias_charts(results)
    return tuple(charts)


def _bias_charts(results: Sequence[CaseResult]) -> list[Chart]:
    """The run's bias section: reviewer profiles and position bias over every audited session."""
    audits = [r.bias for r in results if r.bias is not None]
    if not audits:
        return []
    given: dict[str, list[tuple[float, int]]] = defaultdict(list)
    by_position: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for a in audits:
        for rc in a.reviewers:
            given[rc.reviewer].append((rc.mean_score, rc.n))
        for pm in a.position_bias.position_means:
            by_position[pm.position].append((pm.mean_score, pm.n))

    def weighted(pairs: list[tuple[float, int]]) -> float:
        n = sum(k for _, k in pairs)
        return sum(v * k for v, k in pairs) / n if n else float("nan")

    reviewers = sorted(given)
    positions = sorted(by_position)
    flagged = sum(a.position_bias.detected for a in audits)
    harsh = sorted({x for a in audits for x in a.harsh_reviewers})
    charts = [Chart(
        title="Bias: reviewer profiles",
        caption=f"mean score each reviewer gave (self-scores excluded) over {len(audits)} audited session(s)"
                + (f"; flagged harsh in some session: {', '.join(harsh)}" if harsh else ""),
        svg=plots.grouped_bars(reviewers, [plots.Series(label="mean score given",
                                                        values=tuple(weighted(given[r]) for r in reviewers))],
                               ylabel="mean score given (1-10)", ymax=10.0, chart_id="biasrev"),
    )]
    if positions:
        charts.append(Chart(
            title="Bias: display position",
            caption=f"mean score by the position a candidate was shown in; position bias flagged in {flagged} "
                    f"of {len(audits)} session(s) (cross-session CIs: council-harness bias-report)",
            svg=plots.grouped_bars([f"position {p}" for p in positions], [plots.Series(
                label="mean score", values=tuple(weighted(by_position[p]) for p in positions))],
                ylabel="mean score (1-10)", ymax=10.0, chart_id="biaspos"),
        ))
    return charts


# ---------------------------------------------------------------- matrix


def _group(results: Sequence[CaseResult]) -> list[tuple[str, str, dict[str, CaseResult]]]:
    rows: dict[tuple[str, str], dict[str, CaseResult]] = defaultdict(dict)
    for r in results:
        rows[(r.dataset, r.case_id)][r.subject] = r
    return [(ds, cid, by) for (ds, cid), by in sorted(rows.items())]


def _badges(r: CaseResult, keys: Sequence[str]) -> tuple[Badge, ...]:
    out = []
    for k in keys:
        if k in r.scores:
            v = r.scores[k]
            if k == "correct" and r.correctness is not None and r.correctness.outcome == "ambiguous":
                out.append(Badge(label=KEY_SCORE_LABELS[k], value="ambiguous", tone="mid",
                                 title="the answer commits to two different values: " + r.correctness.detail[:300]))
                continue
            model = k == "correct" and r.correctness is not None and r.correctness.extraction.method == "model"
            out.append(Badge(label=KEY_SCORE_LABELS.get(k, k),
                             value=fmt_score(v, score_scale(k)) + (" (model-extracted)" if model else ""),
                             tone=score_tone(k, v),
                             title=f"{k} = {v:.4g}" + ("; the judge model extracted the answer" if model else "")))
    return tuple(out)


_STATUS_RANK = {"error": 0, "failed": 1, "awaiting_review": 2, "passed": 3}


def sort_keys(subjects: Sequence[str], keys: Sequence[str]) -> tuple[SortKey, ...]:
    """The matrix's sort choices: per subject its status (failing first), then each key score, best first."""
    out = [SortKey(label=f"{s}: status (failing first)", descending=False) for s in subjects]
    out += [SortKey(label=f"{s}: {KEY_SCORE_LABELS.get(k, k)} ({'highest' if higher_is_better(k) else 'lowest'} first)",
                    descending=higher_is_better(k)) for s in subjects for k in keys]
    return tuple(out)


def _sort_values(by: Mapping[str, CaseResult], subjects: Sequence[str], keys: Sequence[str]) -> str:
    """The row's values in :func:`sort_keys` order: status ranks, then scores (empty when absent)."""
    vals = [str(_STATUS_RANK.get(by[s].status, 9)) if s in by else "" for s in subjects]
    vals += [f"{by[s].scores[k]:.6g}" if s in by and k in by[s].scores and math.isfinite(by[s].scores[k]) else ""
             for s in subjects for k in keys]
    return "|".join(vals)


def _rows(
    grouped: list[tuple[str, str, dict[str, CaseResult]]], subjects: Sequence[str], keys: Sequence[str],
    comparisons: Sequence[Comparison],
) -> tuple[MatrixRow, ...]:
    deltas: dict[tuple[str, str], list[CaseDelta]] = defaultdict(list)
    for comparison in comparisons:
        for d in comparison.cases:
            deltas[(comparison.dataset, d.case_id)].append(d)
    rows = []
    for ds, cid, by in grouped:
        cells = tuple(
            MatrixCell(subject=s, status=by[s].status, label=status_label(by[s].status), badges=_badges(by[s], keys))
            if s in by else MatrixCell(subject=s, status="", label="no result", badges=())
            for s in subjects
        )
        mine = deltas.get((ds, cid), [])
        delta_badges = tuple(
            DeltaBadge(subject=d.subject, status=d.status, reasons="; ".join(d.reasons))
            for d in sorted(mine, key=lambda d: d.subject)
        )
        statuses = {r.status for r in by.values()}
        category = next((r.category for r in by.values() if r.category), None) or ""
        tags = next((r.tags for r in by.values() if r.tags), ())
        rows.append(MatrixRow(
            anchor=case_anchor(ds, cid), dataset=ds, case_id=cid, category=category or " · ".join(tags),
            search=" ".join(p for p in (ds, cid, category, *tags) if p).lower(), cells=cells, deltas=delta_badges,
            failing=any(st in FAILING for st in statuses), regressed=any(d.status == "regressed" for d in mine),
            differ=len(statuses) > 1 or len(by) < len(subjects), sort_values=_sort_values(by, subjects, keys),
        ))
    return tuple(rows)


# ---------------------------------------------------------------- drill-down


def _leaf(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "n/a" if not math.isfinite(value) else f"{value:.4g}"
    return str(value)


def flatten(value: Any, path: str = "") -> list[FieldRow]:
    """Leaves of a JSON-like value as ``(dotted path, text)`` rows; empty containers are left out.

    Args:
        value: a pydantic model, mapping, sequence or scalar (models are dumped to JSON-ready data).
        path: the path prefix of ``value``.
    """
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    elif not isinstance(value, str | int | float | bool | type(None) | Mapping | list | tuple):
        value = to_jsonable_python(value)
    if isinstance(value, Mapping):
        return [row for k, v in value.items() for row in flatten(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list | tuple):
        return [row for i, v in enumerate(value) for row in flatten(v, f"{path}[{i}]")]
    text = _leaf(value)
    return [FieldRow(path=path or "value", value=text, long="\n" in text or len(text) > LONG_TEXT)]


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str | tuple | list | dict) and not value)


def _blocks(obj: BaseModel, known: frozenset[str], prefix: str = "") -> list[Block]:
    out = []
    for name in type(obj).model_fields:
        if name in known:
            continue
        value = getattr(obj, name)
        if _empty(value):
            continue
        rows = flatten(value)
        if rows:
            out.append(_block(prefix + name.replace("_", " "), rows, block_summary(name, value)))
    return out


def _block(title: str, rows: Sequence[FieldRow], summary: str = "") -> Block:
    return Block(title=title, rows=tuple(rows), open=len(rows) <= OPEN_BLOCK_ROWS, summary=summary)


def block_summary(name: str, value: Any) -> str:
    """The one-line gist of a drill-down block (its rows stay one click away)."""
    if name == "correctness":
        verdict = getattr(value, "verdict", None) or ("correct" if value.correct else "wrong")
        return f"{verdict}: expected {value.expected_display}"
    if name == "rubric":
        if value.composite is None:
            return f"no composite ({value.error or 'no accuracy score'})"
        cap = " · accuracy ceiling applied" if value.ceiling_applied else ""
        gate = " · safety gate capped it to 0" if value.safety_capped else ""
        return f"composite {value.composite:g} by {value.judge_model} ({value.method}){cap}{gate}"
    if name == "heuristic_quality":
        capped = f" (first {value.capped_at:,} characters)" if value.capped_at else ""
        return f"overall {value.overall:g} of 100{capped}"
    if name == "bias":
        factors = ", ".join(value.risk_factors) or "none"
        return f"risk {value.risk} (flags: {factors}) over {len(value.scores)} reviewer scores"
    if name == "peer_rubric" and isinstance(value, Mapping):
        parts = [f"{m} {b.weighted_composite:g}" for m, b in sorted(value.items())
                 if getattr(b, "weighted_composite", None) is not None]
        return "composite per member: " + ", ".join(parts) if parts else ""
    if name == "external_validation":
        return f"{len(flatten(value))} figures from DeepEval/RAGAS"
    return ""


def _tier1(r: CaseResult) -> tuple[str, str]:
    q = r.quality_metrics
    if q is None:
        return "", ""
    c, sas = q.core, q.core.synthesis_attribution
    comps = c.deliberation_components
    lines = [
        f"Consensus Strength: {bar(c.consensus_strength)} {consensus_band(c.consensus_strength)}",
        f"Deliberation Depth: {bar(c.deliberation_depth)} (diversity {comps.get('diversity', 0)}, "
        f"coverage {comps.get('coverage', 0)}, richness {comps.get('richness', 0)})",
        f"Winner Alignment:   {bar(sas.winner_alignment)}",
        f"Hallucination Risk: {bar(sas.hallucination_risk)}",
        f"Synthesis Grounded: {'Yes' if sas.grounded else 'No'} (max source alignment {sas.max_source_alignment})",
    ]
    return "\n".join(lines), ", ".join(q.warnings)


def _reviews(t: Transcript) -> tuple[ReviewView, ...]:
    out = []
    for rv in t.reviews:
        b = rv.ballot
        flags = [f for f, on in (("abstained", b.abstained), ("holistic", b.holistic)) if on]
        rubric = tuple(
            RubricRow(label=label, member=t.label_to_member.get(label, "?"),
                      scores=" · ".join(f"{dim} {_leaf(float(v))}" for dim, v in sorted(dims.items())))
            for label, dims in sorted(b.scores.items())
        )
        out.append(ReviewView(
            reviewer=rv.reviewer, model=rv.model, raw_text=rv.raw_text, ranking=" > ".join(b.ranking) or "none",
            ranking_members=" > ".join(t.label_to_member.get(lb, "?") for lb in b.ranking),
            presentation=", ".join(rv.presentation_order), seed=rv.shuffle_seed, method=b.method,
            flags=", ".join(flags), critique=b.critique, rubric=rubric, error=rv.error or "",
            labels_seen=", ".join(f"{lb} seen as {shown}" for lb, shown in sorted(rv.shown_labels.items())),
            passes=tuple(
                f"order {' , '.join(p.order)}: P(best) "
                + " · ".join(f"{lb} {p.probabilities[lb]:.2f}" for lb in sorted(p.probabilities))
                + f" → {p.winner}"
                for p in rv.passes
            ) + ((f"position-consistent: {'yes' if rv.position_consistent else 'no'}",)
                 if rv.position_consistent is not None else ()),
        ))
    return tuple(out)


def _subject_detail(r: CaseResult) -> SubjectDetail:
    t = r.transcript
    tier1, warnings = _tier1(r)
    scores = tuple(
        KeyValue(key=k, value=fmt_score(v, score_scale(k)) if k in SCORE_NAMES else _leaf(v))
        for k, v in sorted(r.scores.items())
    )
    checks = tuple(CheckView(kind=status_label(c.kind), target=c.target, passed=c.passed, detail=c.detail)
                   for c in r.checks)
    blocks = _blocks(r, _KNOWN_RESULT_FIELDS)
    common = dict(subject=r.subject, status=r.status, label=status_label(r.status), error=r.error or "",
                  checks=checks, scores=scores, tier1=tier1, warnings=warnings)
    if t is None:
        return SubjectDetail(
            **common, final_answer=None, answers=(), show_answers=False, label_map="", reviews=(), aggregate=(),
            synthesis=None, chairman="", blocks=tuple(blocks), errors=(), calls=(), footer="no transcript",
        )
    if t.voting is not None:
        blocks.insert(0, _block("consensus vote (seed 002)", flatten(t.voting)))
    blocks += _blocks(t, _KNOWN_TRANSCRIPT_FIELDS, prefix="transcript: ")
    answers = tuple(
        AnswerView(member=a.member, model=a.model, text=a.text, error=a.error or "",
                   confidence="" if a.confidence is None else f"{a.confidence:.2f}")
        for a in t.answers
    )
    aggregate = tuple(
        AggregateView(member=a.member, borda=f"{a.borda:.3f}",
                      average_position="—" if a.average_position is None else f"{a.average_position:.2f}",
                      votes=a.votes)
        for a in t.aggregate
    )
    calls = tuple(
        CallView(stage=c.stage, member=c.member, model=c.model,
                 latency=f"{c.latency_s:.2f} s" + (" (recorded)" if c.cached else ""),  # a hit shows its recording
                 tokens=f"{c.tokens_in} / {c.tokens_out}", cached=c.cached, error=c.error or "")
        for c in t.calls
    )
    tin, tout = t.tokens
    self_report: tuple[tuple[str, ...], ...] = ()
    self_flags: tuple[str, ...] = ()
    if t.external is not None:
        from harness.metrics.self_reported import HEADERS, compare_self_reported

        cmp = compare_self_reported(t, r.quality_metrics)
        if cmp is not None:
            self_report = (HEADERS, *cmp.rows())
            self_flags = tuple(f"{f.code}: {f.message}" for f in cmp.flags)
    return SubjectDetail(
        self_report=self_report, self_report_flags=self_flags,
        **common, final_answer=t.final_answer, answers=answers, show_answers=len(t.answers) > 1 or bool(t.reviews),
        label_map=", ".join(f"{lb} = {m}" for lb, m in sorted(t.label_to_member.items())),
        reviews=_reviews(t), aggregate=aggregate, synthesis=t.synthesis, chairman=t.chairman or "",
        blocks=tuple(blocks), errors=t.errors, calls=calls,
        footer=f"{len(t.calls)} calls · {t.duration_s:.1f} s · tokens {tin} in / {tout} out",
    )


def detail_indices(rows: Sequence[MatrixRow], limit: int = DETAIL_LIMIT) -> set[int]:
    """Which matrix rows get a transcript: all when at most ``limit``; else the rows that need a look
    (failing, regressed, subjects differ, awaiting review) first, then the others, each in matrix
    order, up to ``limit``."""
    if len(rows) <= limit:
        return set(range(len(rows)))
    first = [i for i, r in enumerate(rows) if r.failing or r.regressed or r.differ
             or any(c.status == "awaiting_review" for c in r.cells)]
    chosen = set(first[:limit])
    for i in range(len(rows)):
        if len(chosen) >= limit:
            break
        chosen.add(i)
    return chosen


def _cases(
    grouped: list[tuple[str, str, dict[str, CaseResult]]], subjects: Sequence[str], keep: set[int] | None = None,
) -> tuple[CaseDetail, ...]:
    out = []
    for i, (ds, cid, by) in enumerate(grouped):
        if keep is not None and i not in keep:
            continue
        ordered = [by[s] for s in subjects if s in by] + [r for s, r in sorted(by.items()) if s not in subjects]
        query = next((r.transcript.query for r in ordered if r.transcript is not None), "")
        category = next((r.category for r in ordered if r.category), None) or ""
        out.append(CaseDetail(anchor=case_anchor(ds, cid), dataset=ds, case_id=cid, category=category, query=query,
                              subjects=tuple(_subject_detail(r) for r in ordered)))
    return tuple(out)


def _expert(grouped: list[tuple[str, str, dict[str, CaseResult]]], subjects: Sequence[str]) -> tuple[ReviewItem, ...]:
    out = []
    for ds, cid, by in grouped:
        for s in [*[s for s in subjects if s in by], *sorted(set(by) - set(subjects))]:
            r = by[s]
            if r.evaluation_mode == "expert_review" or r.status == "awaiting_review":
                rv = r.review
                out.append(ReviewItem(
                    anchor=case_anchor(ds, cid), dataset=ds, case_id=cid, subject=s, status=r.status,
                    label=status_label(r.status), verdict=rv.verdict if rv else "",
                    by=f"{rv.who}, {rv.when.isoformat()}" if rv else "", note=rv.note if rv else "",
                ))
    return tuple(out)


# ---------------------------------------------------------------- entry point


def build_view(
    run: Run, *, prediction: PredictionReport | None = None,
    comparison: Comparison | Sequence[Comparison] | None = None,
) -> ReportView:
    """Everything the report shows, computed from a run.

    Args:
        run: the run read back from disk (:func:`harness.runs.load_run`).
        prediction: the >15% verdicts (:func:`harness.stats.evaluate_prediction`), for the prediction panel.
        comparison: the run compared with its baseline(s) (:func:`harness.baselines.compare`, one per
            dataset), for the gate banner's regression counts and the matrix's delta column.
    """
    comparisons: tuple[Comparison, ...] = (
        () if comparison is None else (comparison,) if isinstance(comparison, Comparison) else tuple(comparison)
    )
    listed = list(run.manifest.subjects)
    subjects = tuple(listed + sorted({r.subject for r in run.results} - set(listed)))
    present = {k for r in run.results for k in r.scores}
    keys = [k for k in KEY_SCORES if k in present][:4]
    grouped = _group(run.results)
    rows = _rows(grouped, subjects, keys, comparisons)
    keep = detail_indices(rows)
    if len(keep) < len(rows):
        rows = tuple(r if i in keep else r.model_copy(update={"has_detail": False}) for i, r in enumerate(rows))
    return ReportView(
        header=_header(run, subjects),
        gate=_gate(run, subjects, comparisons),
        prediction=_prediction(prediction) if prediction is not None else None,
        charts=_charts(run.results, subjects),
        subjects=subjects,
        key_scores=tuple(KeyValue(key=KEY_SCORE_LABELS.get(k, k), value=SCORE_NAMES.get(k, (k, True))[0])
                         for k in keys),
        has_comparison=bool(comparisons),
        rows=rows,
        cases=_cases(grouped, subjects, keep),
        omitted_details=len(rows) - len(keep),
        expert_review=_expert(grouped, subjects),
        corrupt_lines=", ".join(str(n) for n in run.corrupt_lines),
        diagnostics=diagnostics(run),
        arms=arms_view(run.results, run.manifest.config or {}),
        sort_keys=sort_keys(subjects, keys),
        breakdowns=tuple(b for b in (breakdown(run.results, subjects, "category"),
                                     breakdown(run.results, subjects, "tag")) if b is not None),
    )
