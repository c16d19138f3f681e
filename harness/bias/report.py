"""Render a cross-session bias audit (:func:`harness.bias.aggregate.run_aggregated_bias_audit`) as text,
JSON or CSV. The ``bias-report`` command that reads the store and prints one of them is
:mod:`harness.cli.bias_report`.

The text output follows seed 003's tiered display: fewer than 10 sessions prints
"Collecting data..." and no figures; 10-19 sessions prints a "High Volatility" warning before
the figures; from 20 sessions on, figures are shown with their confidence intervals.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from typing import Any

from harness.bias.figures import (
    AggregatedBiasReport,
    BiasMetricReport,
    ConfidenceTier,
)
from harness.common.csvsafe import sheet_text
from harness.common.formatting import fmt_fixed, p_equals

CSV_FIELDS: tuple[str, ...] = tuple(BiasMetricReport.model_fields)


def _when(value: datetime | None) -> str:
    return "n/a" if value is None else value.strftime("%Y-%m-%d %H:%M UTC")


def _ci(m: BiasMetricReport, digits: int = 3) -> str:
    pct = f"{m.confidence_level * 100:g}%"
    if m.ci_lower is None or m.ci_upper is None:
        return f"{pct} CI n/a"
    return f"{pct} CI [{fmt_fixed(m.ci_lower, digits)}, {fmt_fixed(m.ci_upper, digits)}]"


def _line(m: BiasMetricReport, label: str, digits: int = 3) -> str:
    p = f"  {p_equals(m.p_value)}" if m.p_value is not None else ""
    return (
        f"  {label}: {fmt_fixed(m.point_estimate, digits)}  {_ci(m, digits)}{p}  "
        f"N={m.sample_size} {m.sample_unit}  [{m.statistical_confidence.value}]"
    )


def _header(report: AggregatedBiasReport) -> list[str]:
    bounds = []
    if report.window_sessions:
        bounds.append(f"last {report.window_sessions} sessions")
    if report.window_days:
        bounds.append(f"last {report.window_days:g} days")
    lines = [
        "Council bias report (cross-session, seed 003 / ADR-018)",
        "=" * 56,
        f"Window: {_when(report.window_start)} .. {_when(report.window_end)}"
        + (f" ({', '.join(bounds)})" if bounds else " (all records)"),
        f"Sessions: {report.sessions}   Records: {report.records}   Confidence: {report.statistical_confidence.value}",
        thresholds_line(report.min_sessions),
    ]
    if len(report.config_versions) > 1:
        lines.append(f"Council configurations pooled: {', '.join(report.config_versions)}")
    return lines + [""]


def _reviewers(report: AggregatedBiasReport, verbose: bool) -> list[str]:
    lines = ["3. Reviewer profiles (harshness; analytics only, never applied to votes)"]
    if not report.reviewer_profiles:
        return lines + ["  no reviewer scores", ""]
    flagged = [p for p in report.reviewer_profiles if p.label in ("harsh", "generous")]
    shown = report.reviewer_profiles if verbose else flagged
    for p in shown:
        z = p.harshness_z
        lines.append(f"  {p.reviewer_id}: {p.label} (seed threshold |z| >= 1: {p.seed_label})")
        lines.append(_line(p.mean_score, "    mean score given", 2))
        if p.contrast is not None:
            lines.append(_line(p.contrast, "    within-answer contrast", 2))
        if z is not None:
            lines.append(_line(z, "    harshness z", 2))
        if verbose:
            lines.append(f"      std={fmt_fixed(p.std_score, 2)}  sessions={p.mean_score.sessions}")
    if not verbose:
        lines.append(
            f"  {len(flagged)} of {len(report.reviewer_profiles)} reviewers flagged"
            + ("" if flagged else " (all typical or undetermined)")
            + "; --verbose lists every profile"
        )
    return lines + [""]


#: sessions from which the report shows figures at all (seed 003's "insufficient" tier ends here)
SHOWN_FROM = 10


def thresholds_line(min_sessions: int) -> str:
    """Both thresholds in one sentence: when figures appear, and when they count as robust."""
    return (
        f"Figures appear from {SHOWN_FROM} sessions, are preliminary below 20 (seed 003's tiers) and count "
        f"as robust from {min_sessions} (LLM_COUNCIL_MIN_BIAS_SESSIONS)."
    )


def render_text(report: AggregatedBiasReport, verbose: bool = False) -> str:
    """The human-readable report with seed 003's tiered display.

    Args:
        report: the aggregated audit.
        verbose: list every reviewer profile, every display position and every anomaly.
    """
    lines = _header(report)
    tier = report.statistical_confidence
    if report.records == 0:
        return "\n".join(lines + ["Collecting data... no bias records in this window yet.", ""])
    if tier == ConfidenceTier.INSUFFICIENT:
        lines += [f"Collecting data... {report.sessions} session(s) so far; figures appear from {SHOWN_FROM}.", ""]
        return "\n".join(lines)
    if tier == ConfidenceTier.PRELIMINARY:
        lines += [
            f"WARNING: High Volatility - only {report.sessions} sessions (fewer than 20); "
            "treat every figure below as preliminary.",
            "",
        ]

    lines.append("1. Length-score correlation (verbosity bias)")
    lc = report.length_correlation
    lines += [_line(lc, "pooled r") if lc else "  no session with 4+ scores and varying lengths/scores", ""]

    lines.append("2. Position bias (score by display position)")
    pb = report.position_bias
    if pb is None:
        lines.append("  scores at fewer than two display positions")
    else:
        lines.append(_line(pb.variance, "variance of position means"))
        test = (
            f"F({pb.df[0]}, {pb.df[1]})={fmt_fixed(pb.f_statistic)} {p_equals(pb.p_value)}"
            if pb.df is not None
            else "undefined (fewer sessions than positions, or no spread)"
        )
        lines.append(f"  equal position means (cluster-robust Wald F over sessions): {test}")
        if pb.records_without_position:
            lines.append(f"  {pb.records_without_position} records without a display position left out")
        for m in pb.positions:
            lines.append(
                _line(m, f"    position {m.subject} mean score", 2)
                if verbose
                else f"    position {m.subject}: {fmt_fixed(m.point_estimate, 2)} (n={m.sample_size})"
            )
    lines.append("")
    lines += _reviewers(report, verbose)

    lines.append("4. Temporal trends")
    lines += [_line(t, t.metric_name, 4) for t in report.trends] or ["  not enough sessions at distinct times"]
    lines.append("")
    if report.anomalies_checked and report.anomaly_threshold is not None:
        lines.append(
            f"5. Anomalous sessions (|z| > {report.anomaly_threshold:.2f}, Grubbs at 5% over "
            f"{report.sessions} sessions): {len(report.anomalies)}; seed threshold |z| > "
            f"{report.anomaly_z:g}: {report.seed_anomalies}"
        )
    else:
        lines.append(
            f"5. Anomalous sessions: not checked (needs at least 3 sessions; this window has {report.sessions})"
        )
    if verbose:
        lines += [
            f"  {a.session_id} {_when(a.timestamp)} {a.metric}={a.value:.2f} z={a.z_score:.2f} ({a.direction})"
            for a in report.anomalies
        ]
    lines.append("")
    if report.warnings:
        lines.append("Warnings")
        lines += [f"  ! {w}" for w in report.warnings]
        lines.append("")
    return "\n".join(lines)


def render_json(report: AggregatedBiasReport) -> str:
    """The whole report as indented JSON (timestamps ISO 8601 UTC, undefined values ``null``).

    Args:
        report: the aggregated audit.
    """
    return report.model_dump_json(indent=2) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, ConfidenceTier):
        return value.value
    return str(value)


def render_csv(report: AggregatedBiasReport) -> str:
    """One CSV row per reported figure (:class:`BiasMetricReport` fields as columns; empty = undefined).

    Args:
        report: the aggregated audit.
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for m in report.metrics():  # reviewer and model names come from the store: no formulas, no escapes
        values = [getattr(m, name) for name in CSV_FIELDS]
        writer.writerow([sheet_text(v) if isinstance(v, str) else _cell(v) for v in values])
    return buf.getvalue()
