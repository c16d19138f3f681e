"""The figures of ``council-harness quality-report``: seed 001's session report (Appendix A) and trends.

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

This module computes the figures (:mod:`harness.tier2.quality_records`); :mod:`harness.tier2.quality_text`
and :mod:`harness.tier2.quality_json` render them; :mod:`harness.cli.quality_report` is the command.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from harness.common.formatting import mean
from harness.common.rubric_terms import RUBRIC_DIMENSIONS
from harness.gate.baselines import baseline_path, load_baseline
from harness.metrics.rubric import HIGH_VARIANCE_FLAG, HIGH_VARIANCE_STD
from harness.records.score_spec import higher_is_better
from harness.run.result import CaseResult
from harness.run.runs import Run
from harness.stats import linear_trend
from harness.tier2.calibration import calibration_report, council_sessions, run_weights
from harness.tier2.embeddings import Embedder
from harness.tier2.quality_records import (
    TREND_METRICS,
    BaselineDelta,
    CoreSummary,
    DimensionSummary,
    MetricTrend,
    QualityTrends,
    ResultQuality,
    RubricSummary,
    SessionQuality,
    TemporalSummary,
    TrendPoint,
)
from harness.tier2.temporal import (
    TemporalConsistency,
    earlier_runs,
    history_from_runs,
    result_temporal_consistency,
)

DEFAULT_SUBJECT = "council"  # the --subject default of harness.cli.quality_report
TREND_ALPHA = 0.05


def _rounded_mean(values: Sequence[float]) -> float | None:
    """The mean (:func:`harness.common.formatting.mean`) to 3 decimals, as the report shows it."""
    m = mean(values)
    return None if m is None else round(m, 3)


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
        consensus_strength=_rounded_mean([q.core.consensus_strength for q in qms]),
        deliberation_depth=_rounded_mean([q.core.deliberation_depth for q in qms]),
        winner_alignment=_rounded_mean([s.winner_alignment for s in sas]),
        max_source_alignment=_rounded_mean([s.max_source_alignment for s in sas]),
        hallucination_risk=_rounded_mean([s.hallucination_risk for s in sas]),
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
    return BaselineDelta(
        score=score, current=round(cur, 3), baseline=round(base, 3), delta=round(cur - base, 2), cases=len(current)
    )


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
        std = _rounded_mean([s.std for s in stats])
        dims.append(
            DimensionSummary(
                dimension=d,
                weight=weights[d],
                mean=_rounded_mean([s.mean for s in stats]),
                std=std,
                answers=len(stats),
                flagged_answers=sum(s.flag is not None for s in stats),
                flag=HIGH_VARIANCE_FLAG if std is not None and std > HIGH_VARIANCE_STD else None,
            )
        )
    peer = [r.scores["peer_composite"] for r in results if "peer_composite" in r.scores]
    judge = [r.scores["rubric_composite"] for r in results if "rubric_composite" in r.scores]
    return RubricSummary(
        dimensions=tuple(dims),
        answers=len(scored),
        ranking_only=len(breakdowns) - len(scored),
        weighted_composite=round(statistics.fmean(peer), 2) if peer else None,
        composite_results=len(peer),
        baseline=baseline_delta(results, "peer_composite", baselines_dir),
        judge_composite=round(statistics.fmean(judge), 2) if judge else None,
        judge_baseline=baseline_delta(results, "rubric_composite", baselines_dir) if judge else None,
    )


EmbedderSource = Callable[[], Embedder | None]


def temporal_details(
    run: Run,
    results: Sequence[CaseResult],
    runs_dir: Path,
    embedder: EmbedderSource | None,
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
        method="embedding" if model is not None else "jaccard",
        history_runs=len(folders),
        calculated=len(calc),
        insufficient=len(per) - len(calc),
        mean_score=_rounded_mean([tc.score for tc in calc if tc.score is not None]),
        drifted=tuple(f"{ds}/{cid}" for (ds, cid), tc in per.items() if tc.drift_detected),
    )
    return summary, per


def _alerts(
    subject: str,
    results: Sequence[CaseResult],
    core: CoreSummary,
    rubric: RubricSummary,
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
        ResultQuality(
            dataset=r.dataset,
            case_id=r.case_id,
            subject=r.subject,
            status=r.status,
            peer_rubric=r.peer_rubric or {},
            temporal=per.get((r.dataset, r.case_id)),
        )
        for r in results
    )
    return SessionQuality(
        run_id=run.run_id,
        started_at=run.manifest.started_at,
        datasets=tuple(sorted({r.dataset for r in results})),
        subject=subject,
        results=len(results),
        errors=sum(r.status == "error" for r in results),
        core=core,
        rubric=rubric,
        calibration=calibration,
        temporal=tsum,
        alerts=tuple(_alerts(subject, results, core, rubric, tsum)),
        details=details,
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
        return _rounded_mean([r.scores[name] for r in results if name in r.scores])

    return TrendPoint(
        run_id=run.run_id,
        started_at=run.manifest.started_at,
        results=len(results),
        consensus_strength=core.consensus_strength,
        deliberation_depth=core.deliberation_depth,
        winner_alignment=core.winner_alignment,
        hallucination_risk=core.hallucination_risk,
        peer_composite=score_mean("peer_composite"),
        rubric_composite=score_mean("rubric_composite"),
    )


def metric_trend(metric: str, values: Sequence[float | None]) -> MetricTrend:
    """The least-squares trend of one metric over runs (run index as x; runs without a value are skipped).

    Args:
        metric: the score name (its good direction comes from :func:`harness.records.score_spec.higher_is_better`).
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
    return MetricTrend(
        metric=metric, runs=int(ys.size), slope=slope, ci_lower=lo, ci_upper=hi, p_value=p, direction=direction
    )


def quality_trends(runs: Sequence[Run], subject: str = DEFAULT_SUBJECT) -> QualityTrends:
    """The cross-session report over ``runs`` (oldest first).

    Args:
        runs: the runs, oldest first.
        subject: the subject to report on.
    """
    points = tuple(trend_point(run, subject) for run in runs)
    trends = tuple(metric_trend(m, [getattr(p, m) for p in points]) for m in TREND_METRICS)
    alerts = [
        f"{t.metric} is {t.direction} ({t.slope:+.3f} per run, p={t.p_value:.2g})"
        for t in trends
        if t.direction == "declining" and t.slope is not None and t.p_value is not None
    ]
    empty = [p.run_id for p in points if p.results == 0]
    if empty:
        alerts.append(f"{len(empty)} run(s) without {subject} results: {', '.join(empty)}")
    return QualityTrends(
        subject=subject,
        points=points,
        trends=trends,
        calibration=calibration_report(council_sessions(runs, subject)),
        alerts=tuple(alerts),
    )
