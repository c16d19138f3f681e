"""Shared helpers: Monte-Carlo error, world-count planning, JSONL output.

Nothing here draws random numbers except through a caller-supplied
``numpy.random.Generator``.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, is_dataclass
from typing import Any, Iterable

import numpy as np

#: the prediction threshold of the >15% verdict (seed 002, ``prediction_threshold``)
THRESHOLD = 1.15
#: one-sided level of each verdict side (the 95% interval's tails)
VERDICT_LEVEL = 0.025
#: family-wise false-alarm budget of the gate and the bias flags (issue 27)
GATE_FALSE_ALARM_MAX = 0.05
BIAS_FALSE_FLAG_MAX = 0.05
#: the gate's default tolerance for a rubric score on a 0/1-10 scale (5% of the scale)
RUBRIC_TOLERANCE = 0.5


def mc_se(rate: float, n_worlds: int) -> float:
    """Binomial Monte-Carlo standard error of an observed rate over n_worlds draws."""
    return math.sqrt(max(rate, 0.0) * max(1.0 - rate, 0.0) / n_worlds)


def mc_upper_limit(level: float, n_worlds: int, z: float = 3.0) -> float:
    """Acceptance limit for an error rate that must be <= ``level``: level + z*SE(level).

    With z = 3 a rule that exactly meets its level fails the check in about 0.13% of
    seeded test runs (one-sided normal approximation)."""
    return level + z * mc_se(level, n_worlds)


def worlds_for_margin(level: float, margin: float, z: float = 3.0) -> int:
    """Number of seeded worlds so that z * SE(level) <= margin."""
    return int(math.ceil(z * z * level * (1.0 - level) / (margin * margin)))


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of k successes out of n (to report an observed rate)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _plain(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return {k: _plain(v) for k, v in asdict(obj).items()}
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_plain(v) for v in obj.tolist()]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def to_plain(obj: Any) -> Any:
    """Dataclasses / numpy values -> JSON-serialisable built-ins."""
    return _plain(obj)


def write_jsonl(records: Iterable[dict], path: str) -> int:
    """Write records one JSON object per line; returns the number of lines."""
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(to_plain(rec), sort_keys=False) + "\n")
            n += 1
    return n


def t_sf(t: float, df: int) -> float:
    """Upper tail P(T > t) of Student's t with df degrees of freedom (numerical
    integration of the density; accurate to ~1e-7, enough for reference rules)."""
    if df <= 0:
        return float("nan")
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    x = abs(t)
    m = 4000
    xs = np.linspace(0.0, x, m + 1)
    f = c * (1 + xs * xs / df) ** (-(df + 1) / 2)
    h = x / m
    area = h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())
    upper = 0.5 - area
    return upper if t >= 0 else 1.0 - upper
