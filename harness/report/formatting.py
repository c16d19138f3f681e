"""The report's formatting: the package's formatters (:mod:`harness.common.formatting`) plus what only the
report needs — a score on its own scale and its colour, status labels, case anchors.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Literal

from harness.common.formatting import fmt_bound, fmt_duration, fmt_num, fmt_p, fmt_pct, fmt_signed, mean
from harness.records.score_spec import higher_is_better, score_scale

__all__ = [
    "Tone",
    "case_anchor",
    "fmt_bound",
    "fmt_duration",
    "fmt_num",
    "fmt_p",
    "fmt_pct",
    "fmt_score",
    "fmt_signed",
    "mean",
    "parse_time",
    "score_scale",
    "score_tone",
    "status_label",
]

Tone = Literal["good", "mid", "bad", "none"]


def case_anchor(dataset: str, case_id: str) -> str:
    """A case's drill-down id, stable when cases are added: ``case-<dataset>-<case id>`` (ids are
    ``[A-Za-z0-9_.:-]``, all valid in a URL fragment)."""
    return f"case-{dataset}-{case_id}"


def status_label(status: str) -> str:
    """``awaiting_review`` -> ``awaiting review``."""
    return status.replace("_", " ")


def fmt_score(value: float | None, scale: float = 1.0) -> str:
    """A score on its scale: 2 decimals on 0-1, 1 on 0-10, none on 0-100; ``n/a`` when missing."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if scale >= 100:
        return f"{value:.0f}"
    if scale >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def parse_time(text: str | None) -> datetime | None:
    """An ISO timestamp of the manifest; ``None`` when missing or unreadable."""
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
