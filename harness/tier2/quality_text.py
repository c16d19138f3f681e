"""``quality-report`` as text: seed 001 Appendix A's box-drawing session report and the trend table."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from harness.common.formatting import fmt_fixed
from harness.metrics.tier1 import consensus_band
from harness.records.score_spec import score_scale
from harness.report.bars import bar
from harness.tier2.calibration import CalibrationReport
from harness.tier2.quality_records import (
    TREND_METRICS,
    BaselineDelta,
    CoreSummary,
    QualityTrends,
    RubricSummary,
    SessionQuality,
    TemporalSummary,
)

#: Inner width of the text box and its three columns (as in seed 001 Appendix A).
BOX_WIDTH = 66
COLUMNS = (23, 10, 31)
#: ``(DDI at least, word)``; below the last: "Shallow deliberation" (DDI < 0.4 is the seed's warning).
DDI_WORDS: tuple[tuple[float, str], ...] = ((0.8, "Deep deliberation"), (0.6, "Adequate depth"), (0.4, "Limited depth"))
#: ``(risk at most, word)``; above the last: "High risk" (risk > 0.4 is the seed's warning).
RISK_WORDS: tuple[tuple[float, str], ...] = ((0.2, "Low risk"), (0.4, "Moderate risk"))
SPARK = "▁▂▃▄▅▆▇█"
SPARK_MAX = 30


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
    return shown[shown.index("[") + 1 : shown.rindex("]")]


def _band(value: float, bands: Sequence[tuple[float, str]], last: str, at_least: bool = True) -> str:
    for edge, word in bands:
        if (value >= edge) if at_least else (value <= edge):
            return word
    return last


def _consensus_words(css: float | None) -> str:
    if css is None:
        return ""
    band = consensus_band(css)
    return "Significant disagreement" if band == "significant disagreement" else f"{band.capitalize()} consensus"


def _core_rows(core: CoreSummary) -> list[str]:
    rows = []
    css, ddi, wa, risk = (
        core.consensus_strength,
        core.deliberation_depth,
        core.winner_alignment,
        core.hallucination_risk,
    )
    rows.append(_row("Consensus Strength", fmt_fixed(css, 2), f"{bar_cells(css)} {_consensus_words(css)}"))
    ddi_words = "" if ddi is None else _band(ddi, DDI_WORDS, "Shallow deliberation")
    rows.append(_row("Deliberation Depth", fmt_fixed(ddi, 2), f"{bar_cells(ddi)} {ddi_words}"))
    if not core.results:
        grounded = ""
    elif core.grounded == core.results:
        grounded = "Well-grounded"
    elif core.grounded == 0:
        grounded = "Not grounded"
    else:
        grounded = f"Grounded in {core.grounded}/{core.results}"
    rows.append(_row("Winner Alignment", fmt_fixed(wa, 2), f"{bar_cells(wa)} {grounded}"))
    risk_words = "" if risk is None else _band(risk, RISK_WORDS, "High risk", at_least=False)
    rows.append(_row("Hallucination Risk", fmt_fixed(risk, 2), f"{bar_cells(risk)} {risk_words}"))
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
            rows.append(
                _row(
                    f"{d.dimension.capitalize()} ({d.weight:.0%})",
                    fmt_fixed(d.mean, 1),
                    f"{bar_cells(d.mean, 10.0)}{warn}",
                )
            )
    rows.append(_rule("╠", "╬" if rubric.answers else "╦", "╣"))
    rows.append(_row("Weighted Composite", fmt_fixed(rubric.weighted_composite, 2), _baseline_words(rubric.baseline)))
    if rubric.judge_composite is not None:
        rows.append(
            _row("Judge Composite", fmt_fixed(rubric.judge_composite, 2), _baseline_words(rubric.judge_baseline))
        )
    return rows


def _temporal_rows(t: TemporalSummary) -> list[str]:
    rows = [
        _line(f"TEMPORAL CONSISTENCY (Tier 2) · {t.method} · {t.history_runs} earlier run(s)"),
        _rule("╠", "╦", "╣"),
    ]
    rows.append(
        _row(
            "Consistency",
            fmt_fixed(t.mean_score, 2),
            f"{bar_cells(t.mean_score)} {t.calculated} scored, {t.insufficient} too few",
        )
    )
    return rows


def render_text(q: SessionQuality) -> str:
    """The per-session report in seed 001 Appendix A's box layout.

    Args:
        q: the session's figures.
    """
    lines = [
        _rule("╔", None, "╗"),
        _line("LLM Council Quality Report", center=True),
        _line(f"Session: {q.run_id} ({q.started_at})", center=True),
        _line(f"{q.subject}: {q.results} result(s) · {', '.join(q.datasets) or 'no dataset'}", center=True),
        _rule("╠", None, "╣"),
        _line(f"CORE METRICS (Tier 1) · mean of {q.core.results} result(s)"),
        _rule("╠", "╦", "╣"),
        *_core_rows(q.core),
        _rule("╠", "╩", "╣"),
        _line(f"RUBRIC BREAKDOWN (Tier 2) · {q.rubric.answers} peer-scored answer(s)"),
    ]
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
    lines = [
        _rule("╔", None, "╗"),
        _line("LLM Council Quality Trends", center=True),
        _line(f"{len(t.points)} session(s): {first} .. {last}", center=True),
        _line(f"subject: {t.subject}", center=True),
        _rule("╠", "╦", "╣", TREND_COLUMNS),
    ]
    header = ["Run", *TREND_METRICS.values()]
    lines.append(
        "║"
        + "║".join(
            _fit((" " + h) if i == 0 else h.center(w), w)
            for i, (h, w) in enumerate(zip(header, TREND_COLUMNS, strict=True))
        )
        + "║"
    )
    lines.append(_rule("╠", "╬", "╣", TREND_COLUMNS))
    for p in t.points:
        cells = [" " + p.run_id] + [
            fmt_fixed(getattr(p, m), 2).center(w) for m, w in zip(TREND_METRICS, TREND_COLUMNS[1:], strict=True)
        ]
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
