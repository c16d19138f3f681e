"""The report's >15% panel: the primary verdict in words first, then the secondary table, each row with
its interval glyph on a shared relative-improvement axis."""

from __future__ import annotations

import math

from harness.report import plots
from harness.report.formatting import fmt_bound, fmt_num, fmt_p, fmt_pct, fmt_signed
from harness.report.view_records import PredictionRow, PredictionView
from harness.stats import (
    MIN_INFORMATIVE_PAIRS,
    VERDICT_WORDS,
    PredictionReport,
    PredictionVerdict,
    signflip,
    verdict_headline,
)

#: Width in CSS pixels of the prediction panel's interval column.
INTERVAL_WIDTH = 150


def _clip(value: float) -> float:
    """Infinite interval ends as far-off finite values, so the glyph draws them with an arrow."""
    return value if math.isnan(value) else max(-1e6, min(1e6, value))


def _prediction_row(v: PredictionVerdict, axis: tuple[float, float]) -> PredictionRow:
    decided = v.verdict != "insufficient_data"
    return PredictionRow(
        scope=v.scope,
        family=v.family,
        role=v.role,
        sentence=verdict_headline(v),
        n=f"{v.n}" + (f" (+{v.n_dropped} dropped)" if v.n_dropped else "") + f", {v.n_informative} informative",
        mean_council=fmt_num(v.mean_council),
        mean_baseline=fmt_num(v.mean_baseline),
        improvement=fmt_pct(v.relative_improvement),
        ci=f"[{fmt_bound(v.ci_low)}, {fmt_bound(v.ci_high)}]" if decided else "—",
        difference=fmt_signed(v.mean_difference),
        difference_ci=f"[{fmt_signed(v.diff_low)}, {fmt_signed(v.diff_high)}]" if decided else "—",
        level=f"{v.confidence:.4g}",
        p_value=fmt_p(v.p_value) if decided else "—",
        mcnemar_p="—" if v.mcnemar_p is None else fmt_p(v.mcnemar_p),
        verdict=v.verdict,
        verdict_words=VERDICT_WORDS[v.verdict],
        reason=v.reason,
        warning=v.warning,
        note=v.note,
        svg=plots.interval_svg(
            v.relative_improvement,
            _clip(v.ci_low),
            _clip(v.ci_high),
            v.threshold,
            axis,
            v.verdict,
            width=INTERVAL_WIDTH,
        ),
    )


def prediction_view(report: PredictionReport) -> PredictionView:
    from harness.gate.artifacts import arm_words
    from harness.gate.prediction import INSUFFICIENT_DATA_EXPLAINED

    every = report.every()
    axis = plots.interval_axis(
        [x for v in every for x in (v.relative_improvement, v.ci_low, v.ci_high)], report.threshold
    )
    head = report.headline
    overall = tuple(_prediction_row(v, axis) for v in report.overall if v.role != "primary")
    categories = tuple(_prediction_row(v, axis) for cat in sorted(report.by_category) for v in report.by_category[cat])
    verdicts = [v.verdict for v in report.overall]
    method = head.method if head is not None and head.method else "paired sign-flip test"
    return PredictionView(
        threshold=fmt_pct(report.threshold),
        confidence=f"{report.confidence:.0%}",
        secondary_confidence=f"{report.secondary_confidence:.4g}",
        n_secondary=report.n_secondary,
        method=method,
        settings=(
            f"exact up to {signflip.EXACT_MAX_PAIRS} pairs, else {report.n_resamples} random sign patterns, "
            f"seed {report.seed}"
        ),
        primary=_prediction_row(head, axis) if head is not None else None,
        primary_reason=report.primary_reason,
        insufficient_explained=INSUFFICIENT_DATA_EXPLAINED,
        min_pairs=MIN_INFORMATIVE_PAIRS,
        scale_svg=plots.interval_scale_svg(axis, report.threshold, width=INTERVAL_WIDTH),
        overall=overall,
        categories=categories,
        supported=verdicts.count("supported"),
        refuted=verdicts.count("refuted"),
        inconclusive=verdicts.count("inconclusive"),
        insufficient=verdicts.count("insufficient_data"),
        arms=tuple(arm_words(a) for a in report.arms),
        artifact_warning=report.artifact_warning,
    )
