"""Charts for the HTML report as inline SVG: deterministic, self-contained, inert.

matplotlib draws the bar charts and histograms on bare :class:`~matplotlib.figure.Figure` objects
(no pyplot: no GUI backend, no global backend switch) with ``svg.fonttype = path``: every text is
turned into glyph paths, so the SVG carries no font or URL reference and no label text to inject.
The output is post-processed for inlining into HTML: the XML prolog, DOCTYPE, metadata and comments are
removed, namespace declarations dropped (HTML's parser knows SVG), and every ``id`` gets a per-chart
prefix so several charts in one page cannot collide. ``svg.hashsalt`` is fixed and no date is
written, so the same data give byte-identical SVG and reports diff cleanly.

The small interval glyphs of the prediction panel are drawn by hand (:func:`interval_svg`): they
carry only numbers this module formats.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from harness.common.model import Frozen

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

#: rcParams under which every chart is drawn (determinism and inertness).
RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "council-harness",
    "svg.fonttype": "path",
    "svg.image_inline": True,
    "text.parse_math": False,
    "text.usetex": False,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "axes.edgecolor": "#8c959f",
    "axes.labelcolor": "#1f2328",
    "xtick.color": "#57606a",
    "ytick.color": "#57606a",
}
_NO_METADATA = {"Date": None, "Creator": None, "Type": None, "Format": None}

#: Colours of the subjects, in a fixed order (then cycled).
SUBJECT_COLOURS = {"council": "#0969da", "baseline": "#bf8700", "voting": "#8250df"}
_EXTRA_COLOURS = ("#1a7f37", "#cf222e", "#57606a", "#e16f24", "#bf3989")  # none a second council blue
VERDICT_COLOURS = {"supported": "#1a7f37", "refuted": "#cf222e", "inconclusive": "#9a6700"}

_UNSAFE = re.compile(r"https?:|javascript:|<script|<foreignObject|\son[a-z]+\s*=|url\((?!#)|@import", re.IGNORECASE)


class Series(Frozen):
    """One group member of a grouped bar chart.

    Args:
        label: the legend label (a subject name).
        values: one value per category, ``None`` where the subject has no value for it.
    """

    label: str
    values: tuple[float | None, ...]


def subject_colour(subject: str, index: int) -> str:
    """The fixed colour of a subject; unknown subjects take the ``index``-th extra colour."""
    return SUBJECT_COLOURS.get(subject) or _EXTRA_COLOURS[index % len(_EXTRA_COLOURS)]


def _svg_of(fig, chart_id: str) -> str:
    """The figure as inline-ready SVG markup whose ids are prefixed with ``chart_id``."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata=_NO_METADATA)
    return inline_svg(buf.getvalue(), chart_id)


def inline_svg(svg: str, chart_id: str) -> str:
    """Make a standalone SVG document safe and collision-free to inline into an HTML page.

    Args:
        svg: an SVG document as matplotlib writes it.
        chart_id: a prefix for every ``id`` in it (letters, digits and ``-`` only).

    Raises:
        ValueError: ``chart_id`` has other characters, or the SVG still refers to anything outside
            itself (a URL, a script, an event handler) after cleaning.
    """
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", chart_id):
        raise ValueError(f"chart id must be letters, digits and '-', got {chart_id!r}")
    start = svg.find("<svg")
    if start < 0:
        raise ValueError("not an SVG document")
    svg = svg[start:]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.DOTALL)
    svg = re.sub(r'\s+xmlns(?::\w+)?="[^"]*"', "", svg)
    svg = svg.replace("xlink:href=", "href=")
    # matplotlib's <style>*{stroke-linejoin: round; stroke-linecap: butt}</style> would style the whole
    # HTML page once inlined: drop it and set the same defaults on the root (inherited by the chart only).
    svg = re.sub(r"<defs>\s*<style[^>]*>[^<]*</style>\s*</defs>\s*", "", svg, count=1)

    def width_of(m: re.Match[str]) -> str:
        px = round(float(m.group(1)) * 4 / 3)
        return (
            f'<svg class="chart" width="100%" style="max-width: {px}px" stroke-linejoin="round" stroke-linecap="butt"'
        )

    svg = re.sub(r'<svg\s+width="([\d.]+)pt"\s+height="[\d.]+pt"', width_of, svg, count=1)

    def prefix(m: re.Match[str]) -> str:
        head, name, tail = m.group(1), m.group(2), m.group(3)
        return f"{head}{chart_id}-{name}{tail}"

    svg = re.sub(r'(\bid=")([^"]+)(")', prefix, svg)
    svg = re.sub(r'(\bhref="#)([^"]+)(")', prefix, svg)
    svg = re.sub(r"(url\(#)([^)]+)(\))", prefix, svg)
    bad = _UNSAFE.search(svg)
    if bad:
        raise ValueError(f"chart SVG refers outside itself: {bad.group(0)!r}")
    return svg.strip()


def grouped_bars(
    categories: Sequence[str], series: Sequence[Series], *, ylabel: str, ymax: float, chart_id: str
) -> str:
    """Grouped bars: one group per category, one bar per series, value printed above each bar.

    Args:
        categories: the x-axis groups, in display order.
        series: one per subject; ``values`` aligned with ``categories``.
        ylabel: the y-axis label (the score and its scale).
        ymax: the top of the y-axis (the score's scale maximum).
        chart_id: the id prefix of this chart (see :func:`inline_svg`).
    """
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        n_cat, n_ser = max(1, len(categories)), max(1, len(series))
        rotate = n_cat > 5
        width_in = max(5.5, 0.32 * n_cat * n_ser + 2.2)
        longest = max((len(c) for c in categories), default=1)
        # fixed margins in inches (no tight bbox: it costs a second draw): room for rotated labels below
        bottom_in = 0.35 + (min(longest, 30) * 0.065 * 0.5 if rotate else 0.0)
        height_in = 2.6 + bottom_in
        fig = Figure(figsize=(width_in, height_in))
        fig.subplots_adjust(
            left=0.6 / width_in, right=1 - 0.15 / width_in, bottom=bottom_in / height_in, top=1 - 0.4 / height_in
        )
        ax = fig.subplots()
        width = 0.8 / n_ser
        for i, s in enumerate(series):
            xs = [c + (i - (n_ser - 1) / 2) * width for c in range(len(categories))]
            heights = [v if v is not None else 0.0 for v in s.values]
            bars = ax.bar(xs, heights, width * 0.92, label=s.label, color=subject_colour(s.label, i))
            for rect, v in zip(bars, s.values, strict=True):
                text = "–" if v is None else _short(v, ymax)
                ax.annotate(
                    text,
                    (rect.get_x() + rect.get_width() / 2, rect.get_height()),
                    xytext=(0, 2),
                    textcoords="offset points",
                    ha="center",
                    va="bottom",
                    fontsize=7,
                    color="#57606a",
                )
        ax.set_xticks(
            range(len(categories)), list(categories), rotation=30 if rotate else 0, ha="right" if rotate else "center"
        )
        ax.set_ylim(0, ymax * 1.12)
        ax.set_ylabel(ylabel)
        ax.yaxis.grid(True, color="#eaeef2")
        ax.set_axisbelow(True)
        ax.legend(frameon=False, ncols=n_ser, loc="lower left", bbox_to_anchor=(0, 1.0), fontsize=8)
        return _svg_of(fig, chart_id)


def histograms(panels: Sequence[tuple[str, Sequence[float]]], *, chart_id: str, bins: int = 10) -> str:
    """Side-by-side histograms of 0-1 metrics (CSS, DDI, SAS alignment, hallucination risk).

    Args:
        panels: ``(title, values)`` per panel; values outside [0, 1] are clipped into the end bins.
        chart_id: the id prefix of this chart.
        bins: equal-width bins over [0, 1].
    """
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(2.6 * max(1, len(panels)), 2.3))
        fig.subplots_adjust(left=0.07, right=0.99, bottom=0.13, top=0.88, wspace=0.28)
        axes = fig.subplots(1, max(1, len(panels)), squeeze=False)[0]
        edges = [i / bins for i in range(bins + 1)]
        for ax, (title, values) in zip(axes, panels, strict=False):
            clipped = [min(1.0, max(0.0, v)) for v in values if math.isfinite(v)]
            ax.hist(clipped, bins=edges, color="#0969da", edgecolor="white", linewidth=0.6)
            ax.set_title(f"{title} (n={len(clipped)})", fontsize=9)
            ax.set_xlim(0, 1)
            ax.set_xticks([0, 0.5, 1])
            ax.yaxis.get_major_locator().set_params(integer=True)
            ax.yaxis.grid(True, color="#eaeef2")
            ax.set_axisbelow(True)
        axes[0].set_ylabel("results")
        return _svg_of(fig, chart_id)


def _short(v: float, scale: float) -> str:
    return f"{v:.0f}" if scale >= 100 else f"{v:.1f}" if scale >= 10 else f"{v:.2f}"


def interval_axis(values: Sequence[float], threshold: float) -> tuple[float, float]:
    """A shared axis for interval glyphs: covers 0, the threshold and every finite value, within [-1, 3].

    Args:
        values: estimates and interval ends (NaN ignored).
        threshold: the claimed improvement (drawn as a line).
    """
    finite = [v for v in values if math.isfinite(v)]
    lo = min([0.0, threshold, *finite])
    hi = max([0.0, threshold, *finite])
    pad = max(0.05, 0.08 * (hi - lo))
    lo, hi = max(-1.0, lo - pad), min(3.0, hi + pad)
    step = 0.05
    return math.floor(lo / step) * step, math.ceil(hi / step) * step


def interval_svg(
    estimate: float,
    low: float,
    high: float,
    threshold: float,
    axis: tuple[float, float],
    verdict: str,
    width: int = 180,
    height: int = 22,
) -> str:
    """A one-row forest-plot glyph: the interval and estimate against the 0 and threshold lines.

    Args:
        estimate: the relative improvement (NaN: nothing drawn for it).
        low, high: its confidence interval (NaN: no interval drawn).
        threshold: the claimed improvement (dashed line).
        axis: the shared ``(min, max)`` of the x scale (values outside are clipped, with an arrow).
        verdict: ``supported``, ``refuted`` or ``inconclusive`` (the colour).
        width, height: size in CSS pixels.
    """
    lo_ax, hi_ax = axis
    pad = 6

    def x(v: float) -> float:
        v = min(hi_ax, max(lo_ax, v))
        return round(pad + (v - lo_ax) / (hi_ax - lo_ax) * (width - 2 * pad), 1)

    colour = VERDICT_COLOURS.get(verdict, "#57606a")
    mid = height / 2
    parts = [
        f'<svg class="interval" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">',
        f'<line x1="{pad}" y1="{mid}" x2="{width - pad}" y2="{mid}" stroke="#d0d7de" stroke-width="1"/>',
        f'<line x1="{x(0.0)}" y1="3" x2="{x(0.0)}" y2="{height - 3}" stroke="#8c959f" stroke-width="1"/>',
        f'<line x1="{x(threshold)}" y1="1" x2="{x(threshold)}" y2="{height - 1}" stroke="#e16f24" '
        'stroke-width="1.5" stroke-dasharray="3 2"/>',
    ]
    if math.isfinite(low) and math.isfinite(high):
        parts.append(
            f'<line x1="{x(low)}" y1="{mid}" x2="{x(high)}" y2="{mid}" stroke="{colour}" '
            'stroke-width="4" stroke-linecap="round"/>'
        )
        for end, direction in ((low, -1), (high, 1)):
            if (direction < 0 and end < lo_ax) or (direction > 0 and end > hi_ax):
                tip = x(end) + direction * 5
                parts.append(f'<path d="M{tip} {mid} L{x(end)} {mid - 4} L{x(end)} {mid + 4} Z" fill="{colour}"/>')
    if math.isfinite(estimate):
        parts.append(f'<circle cx="{x(estimate)}" cy="{mid}" r="4" fill="white" stroke="{colour}" stroke-width="2"/>')
    parts.append("</svg>")
    return "".join(parts)


def interval_scale_svg(axis: tuple[float, float], threshold: float, width: int = 180, height: int = 24) -> str:
    """The x scale for a column of :func:`interval_svg` glyphs: ticks in percent and the threshold."""
    lo_ax, hi_ax = axis
    pad = 6

    def x(v: float) -> float:
        return round(pad + (v - lo_ax) / (hi_ax - lo_ax) * (width - 2 * pad), 1)

    def ticks_for(step: float) -> list[float]:
        return [k * step for k in range(math.ceil(lo_ax / step - 1e-9), math.floor(hi_ax / step + 1e-9) + 1)]

    # the finest step that gives at most 4 labelled ticks (labels are ~25 px wide)
    step = next((s for s in (0.05, 0.1, 0.2, 0.25, 0.5, 1.0) if len(ticks_for(s)) <= 4), 2.0)
    ticks = ticks_for(step)
    parts = [f'<svg class="interval-scale" width="{width}" height="{height}" viewBox="0 0 {width} {height}">']
    for t in ticks:
        # labels at the ends are anchored inwards so they are not cut off
        anchor = "start" if x(t) - pad < 12 else "end" if width - pad - x(t) < 12 else "middle"
        label = "0%" if abs(t) < 1e-9 else f"{t * 100:+.0f}%"
        parts.append(f'<line x1="{x(t)}" y1="{height - 6}" x2="{x(t)}" y2="{height}" stroke="#8c959f"/>')
        parts.append(
            f'<text x="{x(t)}" y="{height - 9}" font-size="9" text-anchor="{anchor}" fill="#57606a">{label}</text>'
        )
    parts.append(
        f'<line x1="{x(threshold)}" y1="{height - 6}" x2="{x(threshold)}" y2="{height}" stroke="#e16f24" '
        'stroke-width="2"/>'
    )
    parts.append("</svg>")
    return "".join(parts)


__all__ = [
    "RC",
    "Series",
    "grouped_bars",
    "histograms",
    "inline_svg",
    "interval_axis",
    "interval_scale_svg",
    "interval_svg",
    "pareto_frontier",
    "quality_per_cost",
    "subject_colour",
]


def pareto_frontier(points: Sequence[tuple[str, float, float, float, float]]) -> list[str]:
    """The subjects on the Pareto frontier of ``(subject, cost, mean, ...)`` points, cheapest first: those
    no other point dominates (another point dominates when its cost is at most this one's and its mean
    at least this one's, one of the two strictly)."""

    def dominated(p: tuple[str, float, float, float, float]) -> bool:
        return any(q[1] <= p[1] and q[2] >= p[2] and (q[1] < p[1] or q[2] > p[2]) for q in points)

    return [p[0] for p in sorted(points, key=lambda p: (p[1], -p[2], p[0])) if not dominated(p)]


def quality_per_cost(
    points: Sequence[tuple[str, float, float, float, float]], *, xlabel: str, ylabel: str, chart_id: str
) -> str:
    """Quality against cost, one point per subject with its interval (a Pareto view): the points on the
    Pareto frontier (:func:`pareto_frontier`) are joined by a dashed line.

    Args:
        points: ``(subject, cost, mean, low, high)``: the x value (tokens or dollars per case), the mean
            score and its interval.
        xlabel, ylabel: the axis labels.
        chart_id: the id prefix of this chart (see :func:`inline_svg`).
    """
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(5.5, 3.2))
        fig.subplots_adjust(left=0.14, right=0.97, bottom=0.16, top=0.95)
        ax = fig.subplots()
        for i, (label, x, y, low, high) in enumerate(points):
            ax.errorbar(
                [x], [y], yerr=[[y - low], [high - y]], fmt="o", capsize=3, color=subject_colour(label, i), label=label
            )
        front = {p[0]: p for p in points}
        line = [front[s] for s in pareto_frontier(points)]
        ax.plot(
            [p[1] for p in line],
            [p[2] for p in line],
            linestyle="--",
            color="#57606a",
            linewidth=1,
            label="Pareto frontier",
            zorder=0,
        )
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, color="#eaeef2")
        ax.set_axisbelow(True)
        ax.legend(frameon=False, fontsize=7, loc="best")
        return _svg_of(fig, chart_id)
