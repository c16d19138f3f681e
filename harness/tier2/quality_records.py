"""The figures of ``quality-report`` (seed 001 Appendix A): frozen records computed by
:mod:`harness.tier2.quality_report`, rendered by :mod:`harness.tier2.quality_text` and
:mod:`harness.tier2.quality_json`.
"""

from __future__ import annotations

from typing import Literal

from harness.common.model import Frozen
from harness.metrics.rubric import RubricBreakdown
from harness.records.score_spec import SCORES
from harness.tier2.calibration import CalibrationReport
from harness.tier2.temporal import (
    Method,
    TemporalConsistency,
)

#: Trend metrics: score name -> short label (the scores with a ``trend_label`` in ``score_spec.SCORES``).
TREND_METRICS: dict[str, str] = SCORES.trended()


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
