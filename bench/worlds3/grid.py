"""The configurations to score: (generator function, kwargs, ns)."""

from __future__ import annotations

import math

from . import generators as g

ALL_N = (10, 15, 20, 30, 55, 100)
SMALL_N = (10, 15, 20, 30, 55)
BIN_N = (15, 30, 55, 100)  # binary verdicts need >= 10 informative pairs: n = 10 is mostly insufficient
BIN_LOW_N = (30, 55, 100)  # base rates 5-10%: few informative pairs below 30


def mc_margin(level: float, runs: int) -> float:
    """Requirement plus three Monte-Carlo standard errors: ``level + 3 sqrt(level (1 - level) / runs)``."""
    return level + 3.0 * math.sqrt(level * (1.0 - level) / runs)


def _grid():
    B = 1.15
    G = []
    add = lambda gen, ns=ALL_N, **kw: G.append((gen, kw, tuple(ns)))  # noqa: E731

    # ---------------- boundary: 0-10 rubric scores (true ratio exactly 1.15)
    add(g.rubric_ordinal, ratio=B, base_mean=6.5, kappa=8.0, lattice="integer", rho=0.6)
    add(g.rubric_ordinal, ratio=B, base_mean=6.5, kappa=8.0, lattice="integer", rho=0.95)
    add(g.rubric_ordinal, ratio=B, base_mean=6.5, kappa=8.0, lattice="integer", rho=0.1)
    add(g.rubric_ordinal, ratio=B, base_mean=6.8, kappa=15.0, lattice="half", rho=0.8)
    add(g.rubric_ordinal, ratio=B, base_mean=6.0, kappa=5.0, lattice="continuous", rho=0.5)
    add(g.crashes, ratio=B, base_mean=6.5, lattice="integer", rho=0.9, council_crash=0.05)
    add(g.crashes, ratio=B, base_mean=6.5, lattice="integer", rho=0.9, council_crash=0.10)
    add(g.crashes, ratio=B, base_mean=6.0, lattice="integer", rho=0.9, council_crash=0.25)
    add(g.crashes, ratio=B, base_mean=6.5, lattice="continuous", rho=0.3, council_crash=0.10)
    add(g.crashes, ratio=B, base_mean=6.0, lattice="half", rho=0.9, council_crash=0.20, baseline_crash=0.15,
        crash_mode="shared")
    add(g.crashes, ratio=B, base_mean=6.0, lattice="integer", rho=0.7, council_crash=0.10, baseline_crash=0.10,
        crash_mode="independent")
    add(g.crashes, ratio=B, base_mean=6.5, lattice="integer", rho=0.9, council_crash=0.0, baseline_crash=0.10)
    add(g.crashes, ratio=B, base_mean=5.5, lattice="continuous", rho=0.9, council_crash=0.05, baseline_crash=0.20,
        crash_mode="disjoint")
    add(g.rare_outlier, ratio=B, direction="loss", rare_rate=0.05, common_mean=4.0, lattice="integer", rho=0.8)
    add(g.rare_outlier, ratio=B, direction="loss", rare_rate=0.10, common_mean=5.0, far=(9.5, 0.5), lattice="half",
        rho=0.9)
    add(g.rare_outlier, ratio=B, direction="win", rare_rate=0.05, common_mean=4.0, far=(9.5, 1.0),
        lattice="integer", rho=0.8)
    add(g.rare_outlier, ratio=B, direction="win", rare_rate=0.10, common_mean=3.0, far=(9.7, 1.0),
        lattice="continuous", rho=0.9)
    add(g.bimodal, ratio=B, gain="hard", lattice="integer", rho=0.8)
    add(g.bimodal, ratio=B, gain="easy", easy_share=0.3, easy_mean=8.0, hard_mean=2.0, lattice="integer", rho=0.8)
    add(g.bimodal, ratio=B, gain="mixed", lattice="continuous", rho=0.6)
    add(g.bimodal, ratio=B, gain="both", easy_share=0.7, easy_mean=8.0, hard_mean=0.8, lattice="half", rho=0.9)
    add(g.ceiling, ratio=B, base_mean=8.3, kappa=6.0, lattice="integer", rho=0.6)
    add(g.ceiling, ratio=B, base_mean=8.5, kappa=12.0, lattice="continuous", rho=0.8)
    add(g.ceiling, ratio=B, base_mean=7.8, kappa=8.0, lattice="half", rho=0.9, council_crash=0.05)
    add(g.floor_scores, ratio=B, base_mean=1.5, kappa=2.5, lattice="integer", rho=0.6)
    add(g.floor_scores, ratio=B, base_mean=0.8, kappa=1.5, lattice="half", rho=0.9)
    add(g.coarse_lattice, ratio=B, base_mean=5.0, kappa=3.0, rho=0.7)
    add(g.coarse_lattice, ratio=B, base_mean=6.0, kappa=10.0, rho=0.0)
    add(g.coarse_lattice, ratio=B, base_mean=6.0, kappa=4.0, rho=0.9, council_crash=0.10)
    add(g.capped_heavy_tail, ratio=B, base_mean=2.5, sigma_b=1.0, sigma_c=1.0, rho=0.9)
    add(g.capped_heavy_tail, ratio=B, base_mean=2.0, sigma_b=0.8, sigma_c=1.4, rho=0.9)
    add(g.capped_heavy_tail, ratio=B, base_mean=2.0, sigma_b=1.4, sigma_c=0.8, rho=0.9)
    add(g.capped_heavy_tail, ratio=B, base_mean=3.0, sigma_b=1.2, sigma_c=1.2, rho=0.2)
    add(g.difficulty_mixture, ratio=B, gain="hard", lattice="integer", rho=0.5)
    add(g.difficulty_mixture, ratio=B, gain="easy", lattice="continuous", rho=0.8)
    add(g.difficulty_mixture, ratio=B, gain="prop", n_types=12, spread=(0.5, 8.5), lattice="half", rho=0.9)

    # ---------------- boundary: binary `correct`
    add(g.binary_pair, BIN_LOW_N, ratio=B, base_rate=0.05, rho=0.0)
    add(g.binary_pair, BIN_LOW_N, ratio=B, base_rate=0.10, rho=0.0)
    add(g.binary_pair, BIN_LOW_N, ratio=B, base_rate=0.10, rho=0.8)
    add(g.binary_pair, BIN_N, ratio=B, base_rate=0.30, rho=0.0)
    add(g.binary_pair, BIN_N, ratio=B, base_rate=0.30, rho=0.8)
    add(g.binary_pair, BIN_N, ratio=B, base_rate=0.30, rho=-0.5)
    add(g.binary_pair, BIN_N, ratio=B, base_rate=0.60, rho=0.0)
    add(g.binary_pair, BIN_N, ratio=B, base_rate=0.60, rho=0.9)
    add(g.binary_pair, BIN_N, ratio=B, base_rate=0.85, rho=0.0)
    add(g.binary_pair, BIN_N, ratio=B, base_rate=0.85, rho=0.9)
    add(g.binary_pair, BIN_N, ratio=B, base_rate=0.60, rho=0.9, council_crash=0.15)
    add(g.binary_difficulty, BIN_N, ratio=B, gain="medium", rho=0.3)
    add(g.binary_difficulty, BIN_N, ratio=B, gain="hard", rho=0.0)

    # ---------------- not_better: ratio exactly 1.0 (false "supported" only)
    add(g.rubric_ordinal, ratio=1.0, base_mean=6.5, kappa=8.0, lattice="integer", rho=0.6)
    add(g.crashes, ratio=1.0, base_mean=6.5, lattice="integer", rho=0.9, council_crash=0.15)
    add(g.rare_outlier, ratio=1.0, direction="win", rare_rate=0.05, common_mean=3.0, far=(9.7, 0.5),
        lattice="integer", rho=0.9)
    add(g.capped_heavy_tail, ratio=1.0, base_mean=2.0, sigma_b=0.8, sigma_c=1.4, rho=0.9)
    add(g.coarse_lattice, ratio=1.0, base_mean=5.0, kappa=3.0, rho=0.7)
    add(g.binary_pair, BIN_N, ratio=1.0, base_rate=0.30, rho=0.5)
    add(g.binary_pair, BIN_LOW_N, ratio=1.0, base_rate=0.10, rho=0.0)

    # ---------------- better: ratio 1.3 / 1.5 / 2.0 (power; false "refuted" must stay <= 2.5%)
    add(g.rubric_ordinal, ratio=1.3, base_mean=6.0, kappa=8.0, lattice="integer", rho=0.6)
    add(g.crashes, ratio=1.3, base_mean=6.0, lattice="integer", rho=0.9, council_crash=0.10)
    add(g.rare_outlier, ratio=1.3, direction="loss", rare_rate=0.10, common_mean=4.0, far=(9.5, 0.5),
        lattice="integer", rho=0.9)
    add(g.capped_heavy_tail, ratio=1.5, base_mean=2.0, sigma_b=1.0, sigma_c=1.0, rho=0.9)
    add(g.floor_scores, ratio=2.0, base_mean=1.5, kappa=2.5, lattice="integer", rho=0.6)
    add(g.bimodal, ratio=1.5, gain="hard", lattice="integer", rho=0.8)
    add(g.binary_pair, BIN_N, ratio=1.3, base_rate=0.30, rho=0.3)
    add(g.binary_pair, BIN_N, ratio=1.5, base_rate=0.30, rho=0.3)
    add(g.binary_pair, BIN_N, ratio=2.0, base_rate=0.30, rho=0.0)
    add(g.binary_pair, BIN_LOW_N, ratio=2.0, base_rate=0.10, rho=0.0)
    return G


def verdict_grid():
    """Every configuration to score: a list of (generator, kwargs_dict, ns_tuple).

    ``generator`` is the generator function (its ``__name__`` is its name in ``worlds3``).
    """
    return [(gen, dict(kw), tuple(ns)) for gen, kw, ns in _grid()]
