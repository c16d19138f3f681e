"""The cross-session bias audit's figures (seed 003, ADR-018): confidence tiers by number of sessions
and the frozen report records :mod:`harness.bias.aggregate` computes and :mod:`harness.bias.report`
renders. Every figure carries its point estimate, interval, sample size, window and tier.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from harness.common.model import Frozen


class ConfidenceTier(StrEnum):
    """How much a figure can be trusted, by the number of sessions behind it (seed 003 table)."""

    INSUFFICIENT = "insufficient_data"
    PRELIMINARY = "preliminary"
    MODERATE = "moderate"
    HIGH = "high"


def confidence_tier(sessions: int) -> ConfidenceTier:
    """``<10`` insufficient_data, ``<20`` preliminary, ``<50`` moderate, ``>=50`` high.

    Args:
        sessions: the number of sessions behind a figure.
    """
    if sessions < 10:
        return ConfidenceTier.INSUFFICIENT
    if sessions < 20:
        return ConfidenceTier.PRELIMINARY
    if sessions < 50:
        return ConfidenceTier.MODERATE
    return ConfidenceTier.HIGH


class BiasMetricReport(Frozen):
    """One reported figure (seed 003's required fields plus what makes it self-explaining).

    Args:
        metric_name: what is measured (``length_score_correlation``, ``reviewer_mean_score``, ...).
        point_estimate: the estimate.
        ci_lower: lower bound of the confidence interval (``None`` when undefined, e.g. n = 1).
        ci_upper: upper bound of the confidence interval.
        sample_size: the N behind the estimate, counted in ``sample_unit``.
        window_start: earliest record timestamp in the data window.
        window_end: latest record timestamp in the data window.
        statistical_confidence: the tier by number of sessions behind the figure.
        subject: the reviewer id or display position the figure is about (empty for global figures).
        sample_unit: what ``sample_size`` counts (``sessions`` or ``scores``); intervals always treat
            sessions as the independent units (see the module docstring).
        sessions: number of sessions behind the figure.
        confidence_level: the interval's coverage (0.95).
        p_value: the figure's test p-value, when it has one.
        note: how the figure was computed or why data were left out.
    """

    metric_name: str
    point_estimate: float
    ci_lower: float | None
    ci_upper: float | None
    sample_size: int
    window_start: datetime | None
    window_end: datetime | None
    statistical_confidence: ConfidenceTier
    subject: str = ""
    sample_unit: Literal["sessions", "scores"] = "sessions"
    sessions: int = 0
    confidence_level: float = 0.95
    p_value: float | None = None
    note: str = ""


class ReviewerProfile(Frozen):
    """One reviewer across the window.

    Args:
        reviewer_id: the member id.
        mean_score: the mean score given, with its session-bootstrap interval (sample unit: scores).
        std_score: sample standard deviation of its scores (``None`` for a single score).
        harshness_z: the harshness z-score with its session-bootstrap interval (``None`` when undefined).
        label: the calibrated flag (:func:`harness.bias.aggregate.reviewer_profiles`): ``harsh`` or
            ``generous`` when the reviewer's within-answer contrast differs from 0 by the
            session-clustered t-test at 5% Bonferroni-adjusted over the reviewers, ``typical``
            otherwise, ``undetermined`` when the test cannot be run (fewer than 2 sessions with a
            shared answer).
        contrast: the mean within-answer contrast (the reviewer's score minus the other reviewers'
            mean score of the same answer, averaged per session), its t interval and p-value over sessions.
        seed_label: the seed's rule (|z| >= 1 with a bootstrap interval off 0), shown as "seed threshold".
    """

    reviewer_id: str
    mean_score: BiasMetricReport
    std_score: float | None
    harshness_z: BiasMetricReport | None
    label: Literal["harsh", "generous", "typical", "undetermined"]
    contrast: BiasMetricReport | None = None
    seed_label: Literal["harsh", "generous", "typical", "undetermined"] = "undetermined"


class PositionBiasSummary(Frozen):
    """Scores by display position across sessions.

    Args:
        variance: variance of the position means with a session-bootstrap interval; ``p_value`` is the F test's.
        positions: the mean score at each display position, with session-bootstrap intervals.
        f_statistic: the cluster-robust Wald F statistic of equal position means (``None`` when undefined).
        df: its degrees of freedom ``(positions - 1, sessions - positions + 1)``.
        p_value: its p-value.
        records_without_position: records left out for lack of a display position.
    """

    variance: BiasMetricReport
    positions: tuple[BiasMetricReport, ...]
    f_statistic: float | None
    df: tuple[int, int] | None = None
    p_value: float | None
    records_without_position: int = 0


class SessionAnomaly(Frozen):
    """A session whose metric is far from the other sessions'.

    Args:
        session_id: the session.
        timestamp: the session time.
        metric: the metric (``session_mean_score``).
        value: the session's value.
        z_score: its distance from the mean of all sessions in sample standard deviations.
        direction: ``high`` or ``low``.
    """

    session_id: str
    timestamp: datetime
    metric: str
    value: float
    z_score: float
    direction: Literal["high", "low"]


class AggregatedBiasReport(Frozen):
    """The cross-session bias audit of one data window.

    Args:
        sessions: sessions in the window.
        records: records in the window.
        window_start: earliest record timestamp (``None`` without records).
        window_end: latest record timestamp.
        statistical_confidence: the tier of the whole window (by ``sessions``).
        min_sessions: the configured minimum (``LLM_COUNCIL_MIN_BIAS_SESSIONS``).
        meets_minimum: ``sessions >= min_sessions``.
        window_sessions: the session bound applied (``None``: none).
        window_days: the day bound applied (``None``: none).
        config_versions: the distinct ``council_config_version`` values pooled.
        length_correlation: the pooled length-score correlation (``None`` when no session qualifies).
        position_bias: scores by display position (``None`` with fewer than two positions).
        reviewer_profiles: one profile per reviewer, by reviewer id.
        trends: per-day slopes of per-session metrics.
        anomalies: outlying sessions by the calibrated rule (Grubbs' critical value ``anomaly_threshold``).
        anomaly_z: the seed's anomaly cut-off ("seed threshold", 2.5 SDs).
        anomaly_min_sessions: the fewest sessions at which the seed threshold can be reached at all.
        anomalies_checked: whether the window had enough sessions for the check to run (3).
        anomaly_threshold: the calibrated cut-off in SDs for this many sessions (``None`` below 3).
        seed_anomalies: sessions beyond the seed threshold ``anomaly_z`` (shown beside the calibrated count).
        bootstrap_resamples: resamples of the session bootstrap behind the intervals.
        warnings: what a reader must know (tiers, flags, pooled configurations).
    """

    sessions: int
    records: int
    window_start: datetime | None
    window_end: datetime | None
    statistical_confidence: ConfidenceTier
    min_sessions: int
    meets_minimum: bool
    window_sessions: int | None = None
    window_days: float | None = None
    config_versions: tuple[str, ...] = ()
    length_correlation: BiasMetricReport | None = None
    position_bias: PositionBiasSummary | None = None
    reviewer_profiles: tuple[ReviewerProfile, ...] = ()
    trends: tuple[BiasMetricReport, ...] = ()
    anomalies: tuple[SessionAnomaly, ...] = ()
    anomaly_z: float = 2.5
    anomaly_min_sessions: int = 9
    anomalies_checked: bool = False
    anomaly_threshold: float | None = None
    seed_anomalies: int = 0
    bootstrap_resamples: int = 1000
    warnings: tuple[str, ...] = ()

    def metrics(self) -> list[BiasMetricReport]:
        """Every reported figure, in report order."""
        out: list[BiasMetricReport] = []
        if self.length_correlation is not None:
            out.append(self.length_correlation)
        if self.position_bias is not None:
            out.append(self.position_bias.variance)
            out.extend(self.position_bias.positions)
        for profile in self.reviewer_profiles:
            out.append(profile.mean_score)
            if profile.harshness_z is not None:
                out.append(profile.harshness_z)
        out.extend(self.trends)
        return out
