"""worlds3: blind simulation worlds for the ">15% better" verdict (paired council / baseline cases).

    import numpy as np, worlds3
    w = worlds3.rubric_ordinal(np.random.default_rng(0), n=20, ratio=1.15)
    w.council, w.baseline, w.endpoint, w.scale, w.truth, w.true_ratio
    worlds3.verdict_grid()          # [(generator, kwargs, ns), ...]
    worlds3.mc_margin(0.025, 2000)  # level + 3 * sqrt(level * (1 - level) / runs)
"""

from .core import BOUNDARY, World
from .generators import (
    BINARY_GENERATORS,
    SCORE_GENERATORS,
    bimodal,
    binary_difficulty,
    binary_pair,
    capped_heavy_tail,
    ceiling,
    coarse_lattice,
    crashes,
    difficulty_mixture,
    floor_scores,
    rare_outlier,
    rubric_ordinal,
)
from .grid import mc_margin, verdict_grid

__all__ = [
    "BOUNDARY",
    "World",
    "SCORE_GENERATORS",
    "BINARY_GENERATORS",
    "bimodal",
    "binary_difficulty",
    "binary_pair",
    "capped_heavy_tail",
    "ceiling",
    "coarse_lattice",
    "crashes",
    "difficulty_mixture",
    "floor_scores",
    "rare_outlier",
    "rubric_ordinal",
    "mc_margin",
    "verdict_grid",
]
