"""The seed's text bar display: ``0.85 [████████░░]``."""

from __future__ import annotations


def bar(value: float | None, width: int = 10) -> str:
    """A 0-1 value as ``0.85 [████████░░]`` (floor of value*width filled cells)."""
    if value is None:
        return "n/a"
    v = max(0.0, min(1.0, float(value)))
    filled = int(v * width + 1e-9)
    return f"{value:.2f} [{'█' * filled}{'░' * (width - filled)}]"
