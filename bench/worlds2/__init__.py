"""worlds2: blind simulation worlds for council-harness's >15% verdict and regression gate.

Written from the project's documentation only (statistics.md, verdict.md, gate.md, issue 27).
Plain data: numpy arrays / tuples of per-case values per arm and per repeat, plus ground truth.
See README.md.
"""
from .verdict import (PairedWorld, binary_world, score_world, lognormal_world, verdict_grid,
                      binary_spec, score_spec, lognormal_spec, SCORE_SHAPES, THRESHOLD,
                      LEVEL_ONE_SIDED)
from .gate import (GateWorld, GateCase, gate_null, gate_collapse, gate_broad_drop,
                   gate_binary_rise, gate_grid, TOLERANCE, ALPHA_RUN)


def mc_margin(level: float, n_draws: int, k: float = 3.0) -> float:
    """Acceptance bound for a measured rate: level + k * sqrt(level (1 - level) / n_draws)."""
    return level + k * (level * (1 - level) / n_draws) ** 0.5
