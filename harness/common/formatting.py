"""The package's one set of display formatters: numbers, percentages, p-values, durations, and one mean.

Every report (HTML, the console summary, ``bias-report``, ``quality-report``, the verdict sentences)
formats figures through these functions, so a p-value or a relative change reads the same wherever
it is shown. Rules:

* a missing or undefined value (``None``, NaN) is ``n/a``;
* :func:`fmt_pct`: a relative change, signed, one decimal: ``+23.4%``;
* :func:`fmt_bound`: an interval end: an infinite end is ``+∞`` / ``−∞``, else as :func:`fmt_pct`;
* :func:`fmt_signed`: a signed figure of unknown scale, 3 significant digits: ``+9.25``;
* :func:`fmt_p`: a p-value, ``<0.001`` below one in a thousand, else 3 significant digits;
  :func:`p_equals` the same in a sentence, ``p=0.0123`` / ``p<0.001``;
* :func:`fmt_fixed`: a figure with a fixed number of decimals (``0.820``);
* :func:`fmt_num`: a mean of unknown scale: 3 decimals below 10, 1 below 100, else none;
* :func:`fmt_duration`: seconds as ``1 h 02 min 05 s``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def _missing(value: float | None) -> bool:
    return value is None or math.isnan(value)


def mean(values: Iterable[float]) -> float | None:
    """The arithmetic mean of the finite values; ``None`` when there is none."""
    vals = [v for v in values if math.isfinite(v)]
    return sum(vals) / len(vals) if vals else None


def fmt_num(value: float | None) -> str:
    """A mean or other figure of unknown scale: 3 decimals below 10, 1 below 100, else none."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def fmt_fixed(value: float | None, digits: int = 3) -> str:
    """A figure with ``digits`` decimals, ``0.820``; ``n/a`` when undefined."""
    return "n/a" if _missing(value) else f"{value:.{digits}f}"


def fmt_pct(value: float | None) -> str:
    """A relative change as a signed percentage, ``+23.4%``; ``n/a`` when undefined."""
    return "n/a" if value is None or not math.isfinite(value) else f"{value:+.1%}"


def fmt_bound(value: float | None) -> str:
    """An interval end as a signed percentage; an infinite end is ``+∞`` / ``−∞``."""
    if value is not None and math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    return fmt_pct(value)


def fmt_signed(value: float | None) -> str:
    """A signed figure, 3 significant digits (``+9.25``); an infinite one is ``+∞`` / ``−∞``."""
    if _missing(value):
        return "n/a"
    assert value is not None
    if math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    return f"{value:+.3g}"


def fmt_p(value: float | None) -> str:
    """A p-value: ``<0.001`` below one in a thousand, else 3 significant digits; ``n/a`` when undefined."""
    if value is None or not math.isfinite(value):
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3g}"


def p_equals(value: float | None) -> str:
    """A p-value in a sentence: ``p=0.0123``, ``p<0.001``, ``p=n/a``."""
    text = fmt_p(value)
    return "p" + text if text.startswith("<") else "p=" + text


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
