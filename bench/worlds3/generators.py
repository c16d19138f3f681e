"""Named generators. Each is a pure function of its Generator and keyword arguments.

Every generator takes ``ratio`` (the exact population ratio of means council / baseline):
1.15 gives a ``boundary`` world, 1.0 ``not_better``, above 1.15 ``better``.
"""

from __future__ import annotations

import numpy as np

from .core import BinarySpec, ScoreSpec, draw_binary, draw_scores, make_world


def _kind_for(lattice: str) -> str:
    if lattice not in ("integer", "half", "coarse", "continuous"):
        raise ValueError(f"unknown lattice {lattice!r}")
    return lattice


def _score(name, rng, n, params, spec, lattice, notes=""):
    c, b, mc, mb = draw_scores(rng, n, spec)
    return make_world(name, params, "rubric_composite", lattice, c, b, mc, mb, spec.ratio, notes, spec)


# ---------------------------------------------------------------- 0-10 rubric scores


def rubric_ordinal(rng, n=20, *, ratio=1.15, base_mean=6.5, kappa=8.0, lattice="integer", rho=0.6):
    """Ordinal rubric scores, mode near 7-8, ceiling at 10; one case type."""
    params = dict(ratio=ratio, base_mean=base_mean, kappa=kappa, lattice=lattice, rho=rho)
    k = _kind_for(lattice)
    spec = ScoreSpec(((1.0, base_mean, base_mean, 1.0),), ratio, k, k, kappa, kappa, rho=rho)
    return _score("rubric_ordinal", rng, n, params, spec, lattice)


def crashes(
    rng,
    n=20,
    *,
    ratio=1.15,
    base_mean=6.5,
    kappa=10.0,
    lattice="integer",
    rho=0.9,
    council_crash=0.1,
    baseline_crash=0.0,
    crash_mode="independent",
):
    """Rubric scores plus crashes (score 0: a timeout, a refusal, a safety cap) in one arm or both.

    crash_mode: "independent" (each arm's crashes on its own cases), "shared" (nested: the arm with
    the lower rate crashes only where the other does too), "disjoint" (never on the same case).
    The council's body is raised so that the ratio of means, crashes included, is exact.
    """
    params = dict(
        ratio=ratio,
        base_mean=base_mean,
        kappa=kappa,
        lattice=lattice,
        rho=rho,
        council_crash=council_crash,
        baseline_crash=baseline_crash,
        crash_mode=crash_mode,
    )
    k = _kind_for(lattice)
    spec = ScoreSpec(
        ((1.0, base_mean, base_mean, 1.0),),
        ratio,
        k,
        k,
        kappa,
        kappa,
        rho=rho,
        crash_b=baseline_crash,
        crash_c=council_crash,
        crash_mode=crash_mode,
    )
    return _score("crashes", rng, n, params, spec, lattice)


def rare_outlier(
    rng,
    n=20,
    *,
    ratio=1.15,
    direction="loss",
    rare_rate=0.05,
    common_mean=4.0,
    far=(9.0, 0.7),
    kappa=10.0,
    lattice="integer",
    rho=0.8,
):
    """A rare large win or loss: on ``rare_rate`` of the cases one arm is far ahead.

    direction="loss": the council scores ~far[1] where the baseline scores ~far[0] (the council
    botches a case the baseline aces); on the common cases the council is better by more than 15%.
    direction="win": the reverse; on the common cases the council is better by less than 15%.
    The common cases' council mean is solved for the exact overall ratio.
    """
    params = dict(
        ratio=ratio,
        direction=direction,
        rare_rate=rare_rate,
        common_mean=common_mean,
        far=tuple(far),
        kappa=kappa,
        lattice=lattice,
        rho=rho,
    )
    hi, lo = far
    if direction == "loss":
        rare = (rare_rate, hi, lo, 0.0)
    elif direction == "win":
        rare = (rare_rate, lo, hi, 0.0)
    else:
        raise ValueError(direction)
    common = (1.0 - rare_rate, common_mean, common_mean, 1.0)
    k = _kind_for(lattice)
    spec = ScoreSpec((common, rare), ratio, k, k, kappa, kappa, rho=rho)
    return _score("rare_outlier", rng, n, params, spec, lattice)


def bimodal(
    rng,
    n=20,
    *,
    ratio=1.15,
    easy_share=0.5,
    easy_mean=8.5,
    hard_mean=1.5,
    gain="hard",
    kappa=12.0,
    lattice="integer",
    rho=0.7,
):
    """Easy and hard cases (difficulty shared by both arms); the gain sits on the hard cases,
    the easy cases, both in proportion, or is mixed (council better on hard, worse on easy)."""
    params = dict(
        ratio=ratio,
        easy_share=easy_share,
        easy_mean=easy_mean,
        hard_mean=hard_mean,
        gain=gain,
        kappa=kappa,
        lattice=lattice,
        rho=rho,
    )
    dirs = {"hard": (0.0, 1.0), "easy": (1.0, 0.0), "both": (easy_mean, hard_mean), "mixed": (-0.3, 1.0)}[gain]
    types = (
        (easy_share, easy_mean, easy_mean, dirs[0]),
        (1.0 - easy_share, hard_mean, hard_mean, dirs[1]),
    )
    k = _kind_for(lattice)
    spec = ScoreSpec(types, ratio, k, k, kappa, kappa, rho=rho)
    return _score("bimodal", rng, n, params, spec, lattice)


def ceiling(
    rng, n=20, *, ratio=1.15, base_mean=8.3, kappa=6.0, lattice="integer", rho=0.6, council_crash=0.0
):
    """Scores concentrated near the ceiling of 10 (many 10s in the council, a long left tail)."""
    params = dict(
        ratio=ratio, base_mean=base_mean, kappa=kappa, lattice=lattice, rho=rho, council_crash=council_crash
    )
    k = _kind_for(lattice)
    spec = ScoreSpec(
        ((1.0, base_mean, base_mean, 1.0),), ratio, k, k, kappa, kappa, rho=rho, crash_c=council_crash
    )
    return _score("ceiling", rng, n, params, spec, lattice)


def floor_scores(rng, n=20, *, ratio=1.15, base_mean=1.5, kappa=2.5, lattice="integer", rho=0.6):
    """Low scores piled at 0 with a right tail (a hard rubric): both arms often 0, rare high scores."""
    params = dict(ratio=ratio, base_mean=base_mean, kappa=kappa, lattice=lattice, rho=rho)
    k = _kind_for(lattice)
    spec = ScoreSpec(((1.0, base_mean, base_mean, 1.0),), ratio, k, k, kappa, kappa, rho=rho)
    return _score("floor_scores", rng, n, params, spec, lattice)


def coarse_lattice(rng, n=20, *, ratio=1.15, base_mean=5.0, kappa=3.0, rho=0.7, council_crash=0.0):
    """A three-level judge: only 0, 5 and 10."""
    params = dict(ratio=ratio, base_mean=base_mean, kappa=kappa, rho=rho, council_crash=council_crash)
    spec = ScoreSpec(
        ((1.0, base_mean, base_mean, 1.0),),
        ratio,
        "coarse",
        "coarse",
        kappa,
        kappa,
        rho=rho,
        crash_c=council_crash,
    )
    return _score("coarse_lattice", rng, n, params, spec, "coarse")


def capped_heavy_tail(
    rng, n=20, *, ratio=1.15, base_mean=2.5, sigma_b=1.0, sigma_c=1.0, rho=0.9, council_crash=0.0
):
    """Continuous scores min(10, LogNormal): most cases low, a heavy right tail capped at 10.

    sigma_c > sigma_b puts the council's gain in rare high scores (its tail), sigma_c < sigma_b
    in a shifted bulk. Each arm's location is solved from the analytic capped mean.
    """
    params = dict(
        ratio=ratio, base_mean=base_mean, sigma_b=sigma_b, sigma_c=sigma_c, rho=rho, council_crash=council_crash
    )
    spec = ScoreSpec(
        ((1.0, base_mean, base_mean, 1.0),),
        ratio,
        "lncap",
        "lncap",
        sigma_b,
        sigma_c,
        rho=rho,
        crash_c=council_crash,
    )
    return _score("capped_heavy_tail", rng, n, params, spec, "continuous")


def difficulty_mixture(
    rng, n=20, *, ratio=1.15, n_types=8, gain="hard", spread=(1.0, 9.0), kappa=10.0, lattice="integer", rho=0.5
):
    """A spectrum of per-case difficulties (n_types equally likely levels between spread[0] and
    spread[1] of the baseline's mean); the council's gain is concentrated on the hard cases, the
    easy cases, or proportional to the baseline ("prop")."""
    params = dict(ratio=ratio, n_types=n_types, gain=gain, spread=tuple(spread), kappa=kappa, lattice=lattice, rho=rho)
    lo, hi = spread
    means = np.linspace(lo, hi, n_types)
    w = 1.0 / n_types
    types = []
    for j, m in enumerate(means):
        if gain == "hard":
            d = (10.0 - m) ** 2
        elif gain == "easy":
            d = m**2 / 10.0 * (10.0 - m) / 10.0
        elif gain == "prop":
            d = m
        else:
            raise ValueError(gain)
        wj = w if j < n_types - 1 else 1.0 - w * (n_types - 1)
        types.append((wj, float(m), float(m), float(d)))
    k = _kind_for(lattice)
    spec = ScoreSpec(tuple(types), ratio, k, k, kappa, kappa, rho=rho)
    return _score("difficulty_mixture", rng, n, params, spec, lattice)


# ---------------------------------------------------------------- binary `correct`


def _binary(name, rng, n, params, spec, notes=""):
    c, b, mc, mb = draw_binary(rng, n, spec)
    return make_world(name, params, "correct", "binary", c, b, mc, mb, spec.ratio, notes, spec)


def binary_pair(rng, n=55, *, ratio=1.15, base_rate=0.3, rho=0.0, council_crash=0.0):
    """`correct` with base rate ``base_rate`` (baseline) and council rate ratio x base_rate; arms
    coupled by a latent-normal correlation ``rho`` (0 independent, 0.9 strongly coupled, < 0 anti);
    ``council_crash``: the council's answer is lost (scored 0) on that share of cases."""
    params = dict(ratio=ratio, base_rate=base_rate, rho=rho, council_crash=council_crash)
    spec = BinarySpec(((1.0, base_rate, 0.0, 1.0),), ratio, rho=rho, crash_c=council_crash)
    return _binary("binary_pair", rng, n, params, spec)


def binary_difficulty(
    rng, n=55, *, ratio=1.15, rates=(0.95, 0.5, 0.05), weights=(0.3, 0.3, 0.4), gain="medium", rho=0.3
):
    """`correct` over easy / medium / hard cases (difficulty shared by both arms, conditionally
    coupled by rho); the council's gain is on the medium cases, the hard cases, or spread."""
    params = dict(ratio=ratio, rates=tuple(rates), weights=tuple(weights), gain=gain, rho=rho)
    if len(rates) != 3:
        raise ValueError("three difficulty levels")
    dirs = {"medium": (0.0, 1.0, 0.0), "hard": (0.0, 0.0, 1.0), "spread": tuple(1.0 - r for r in rates)}[gain]
    types = tuple((float(wk), float(p), float(p), float(d)) for wk, p, d in zip(weights, rates, dirs))
    spec = BinarySpec(types, ratio, rho=rho)
    return _binary("binary_difficulty", rng, n, params, spec)


SCORE_GENERATORS = (
    rubric_ordinal,
    crashes,
    rare_outlier,
    bimodal,
    ceiling,
    floor_scores,
    coarse_lattice,
    capped_heavy_tail,
    difficulty_mixture,
)
BINARY_GENERATORS = (binary_pair, binary_difficulty)
