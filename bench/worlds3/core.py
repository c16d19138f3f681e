"""Engine of the worlds: exact population means by construction.

Every score world is a finite mixture of case *types* (a case's difficulty, shared by both arms).
Within a type each arm's score has a body distribution whose mean is known in closed form
(beta-binomial on a lattice, scaled beta, or a log-normal capped at 10 whose capped mean is an
analytic formula solved for its location to machine precision), and a crash (score 0) that
happens with a known probability. So each arm's population mean is

    E[arm] = (1 - crash_arm) * sum_k w_k * m_{arm,k}

exactly, and the council's type means are placed on a line ``a_k + s * dir_k`` whose step ``s``
is solved from that linear equation so that E[council] / E[baseline] equals the requested ratio.

Coupling of the arms within a case never changes a marginal (a Gaussian copula: each arm's
uniform is exactly uniform), so it moves no mean: the shared type is the difficulty coupling,
``rho`` the within-type coupling.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special, stats

SCORE_SCALE = (0.0, 10.0)
BINARY_SCALE = (0.0, 1.0)
BOUNDARY = 1.15
LATTICE_STEPS = {"integer": 10, "half": 20, "coarse": 2}  # coarse: only 0, 5, 10


def truth_of(ratio: float) -> str:
    if abs(ratio - BOUNDARY) < 1e-12:
        return "boundary"
    if ratio > BOUNDARY:
        return "better"
    if ratio <= 1.0 + 1e-12:
        return "not_better"
    raise ValueError(f"ratio {ratio} is between 1.0 and 1.15: no truth label defined")


@dataclass(frozen=True)
class World:
    council: np.ndarray
    baseline: np.ndarray
    endpoint: str
    scale: tuple
    truth: str
    true_ratio: float
    generator: str = ""
    params: tuple = ()
    lattice: str = ""  # "binary", "integer", "half", "coarse" or "continuous"
    mean_council: float = float("nan")  # population means (exact)
    mean_baseline: float = float("nan")
    notes: str = field(default="", compare=False)
    spec: object = field(default=None, compare=False, repr=False)  # the ScoreSpec / BinarySpec drawn from


def _freeze(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=float)
    a.setflags(write=False)
    return a


# ---------------------------------------------------------------- body distributions


def _capped_ln_mean(mu: float, sigma: float, cap: float = 10.0) -> float:
    lc = math.log(cap)
    return math.exp(mu + sigma * sigma / 2) * special.ndtr((lc - mu - sigma * sigma) / sigma) + cap * (
        1.0 - special.ndtr((lc - mu) / sigma)
    )


@functools.lru_cache(maxsize=None)
def _solve_capped_ln_mu(mean: float, sigma: float) -> float:
    f = lambda mu: _capped_ln_mean(mu, sigma) - mean  # noqa: E731
    mu = optimize.brentq(f, -40.0, 40.0, xtol=1e-15, rtol=1e-15, maxiter=500)
    if abs(f(mu)) > 1e-10 * max(1.0, mean):
        raise ValueError(f"capped log-normal: cannot reach mean {mean} with sigma {sigma}")
    return mu


@functools.lru_cache(maxsize=None)
def _lattice_pmf(steps: int, a: float, b: float) -> tuple:
    k = np.arange(steps + 1)
    pmf = stats.betabinom(steps, a, b).pmf(k)
    pmf = pmf / pmf.sum()
    return tuple(pmf.tolist())


@dataclass(frozen=True)
class Body:
    """A score distribution on [0, 10] with exact mean ``mean``.

    kind: "integer" | "half" | "coarse" (beta-binomial on the lattice, concentration ``conc``),
    "continuous" (10 x Beta, concentration ``conc``), "lncap" (min(10, LogNormal(mu, conc))).
    """

    kind: str
    mean: float
    conc: float

    def __post_init__(self):
        if not (0.0 < self.mean < 10.0):
            raise ValueError(f"body mean {self.mean} outside (0, 10): world infeasible")

    def ab(self):
        p = self.mean / 10.0
        return self.conc * p, self.conc * (1.0 - p)

    def support_pmf(self):
        steps = LATTICE_STEPS[self.kind]
        a, b = self.ab()
        return np.arange(steps + 1) * (10.0 / steps), np.array(_lattice_pmf(steps, a, b))

    def exact_mean(self) -> float:
        """Mean recomputed from the distribution itself (for the self-check)."""
        if self.kind in LATTICE_STEPS:
            x, p = self.support_pmf()
            return float(np.dot(x, p))
        if self.kind == "continuous":
            a, b = self.ab()
            return 10.0 * stats.beta(a, b).mean()
        if self.kind == "lncap":  # numerical quadrature, independent of the closed form used to solve mu
            from scipy import integrate

            mu, s = _solve_capped_ln_mu(self.mean, self.conc), self.conc
            kink = (math.log(10.0) - mu) / s
            f = lambda z: min(10.0, math.exp(mu + s * z)) * stats.norm.pdf(z)  # noqa: E731
            return integrate.quad(f, -14.0, 14.0, points=[kink], limit=500, epsabs=1e-13, epsrel=1e-12)[0]
        raise ValueError(self.kind)

    def ppf(self, u: np.ndarray) -> np.ndarray:
        if self.kind in LATTICE_STEPS:
            x, p = self.support_pmf()
            cdf = np.cumsum(p)
            idx = np.searchsorted(cdf, u, side="right")
            return x[np.minimum(idx, len(x) - 1)]
        if self.kind == "continuous":
            a, b = self.ab()
            return np.clip(10.0 * special.betaincinv(a, b, u), 0.0, 10.0)
        if self.kind == "lncap":
            mu = _solve_capped_ln_mu(self.mean, self.conc)
            z = special.ndtri(np.clip(u, 1e-300, 1.0 - 1e-16))
            return np.minimum(10.0, np.exp(mu + self.conc * z))
        raise ValueError(self.kind)


# ---------------------------------------------------------------- score engine


@dataclass(frozen=True)
class ScoreSpec:
    """types: tuple of (weight, baseline_mean, council_anchor, council_dir).

    Council type mean = anchor + s * dir, with s solved for the ratio.
    kind_b / kind_c: body kind per arm; conc_b / conc_c: concentration (or sigma for lncap).
    """

    types: tuple
    ratio: float
    kind_b: str
    kind_c: str
    conc_b: float
    conc_c: float
    rho: float = 0.5
    crash_b: float = 0.0
    crash_c: float = 0.0
    crash_mode: str = "independent"  # "independent" | "shared" (nested) | "disjoint"


@functools.lru_cache(maxsize=None)
def solve_spec(spec: ScoreSpec):
    w = np.array([t[0] for t in spec.types], dtype=float)
    if abs(w.sum() - 1.0) > 1e-12:
        raise ValueError("type weights must sum to 1")
    mb = np.array([t[1] for t in spec.types], dtype=float)
    anchor = np.array([t[2] for t in spec.types], dtype=float)
    direc = np.array([t[3] for t in spec.types], dtype=float)
    mean_b = (1.0 - spec.crash_b) * float(np.dot(w, mb))
    target_body_c = spec.ratio * mean_b / (1.0 - spec.crash_c)
    denom = float(np.dot(w, direc))
    if denom == 0.0:
        raise ValueError("council direction has zero weight")
    s = (target_body_c - float(np.dot(w, anchor))) / denom
    mc = anchor + s * direc
    bodies_b = tuple(Body(spec.kind_b, float(m), spec.conc_b) for m in mb)
    bodies_c = tuple(Body(spec.kind_c, float(m), spec.conc_c) for m in mc)
    mean_c = (1.0 - spec.crash_c) * float(np.dot(w, mc))
    if spec.crash_mode == "disjoint" and spec.crash_b + spec.crash_c > 1:
        raise ValueError("disjoint crashes need crash_b + crash_c <= 1")
    return w, bodies_b, bodies_c, mean_b, mean_c


def exact_means(spec: ScoreSpec):
    """Population means recomputed from the body distributions (independent of the solve)."""
    w, bb, bc, _, _ = solve_spec(spec)
    mb = (1 - spec.crash_b) * sum(wk * b.exact_mean() for wk, b in zip(w, bb))
    mc = (1 - spec.crash_c) * sum(wk * c.exact_mean() for wk, c in zip(w, bc))
    return mc, mb


def draw_scores(rng: np.random.Generator, n: int, spec: ScoreSpec):
    w, bodies_b, bodies_c, mean_b, mean_c = solve_spec(spec)
    k = rng.choice(len(w), size=n, p=w) if len(w) > 1 else np.zeros(n, dtype=int)
    z1 = rng.standard_normal(n)
    z2 = rng.standard_normal(n)
    r = spec.rho
    uc = special.ndtr(z1)
    ub = special.ndtr(r * z1 + math.sqrt(max(0.0, 1.0 - r * r)) * z2)
    council = np.empty(n)
    baseline = np.empty(n)
    for j in range(len(w)):
        m = k == j
        if m.any():
            council[m] = bodies_c[j].ppf(uc[m])
            baseline[m] = bodies_b[j].ppf(ub[m])
    v1 = rng.random(n)
    v2 = rng.random(n)
    if spec.crash_mode == "independent":
        crash_c, crash_b = v1 < spec.crash_c, v2 < spec.crash_b
    elif spec.crash_mode == "shared":
        crash_c, crash_b = v1 < spec.crash_c, v1 < spec.crash_b
    elif spec.crash_mode == "disjoint":
        crash_c, crash_b = v1 < spec.crash_c, v1 > 1.0 - spec.crash_b
    else:
        raise ValueError(spec.crash_mode)
    council[crash_c] = 0.0
    baseline[crash_b] = 0.0
    return council, baseline, mean_c, mean_b


# ---------------------------------------------------------------- binary engine


@dataclass(frozen=True)
class BinarySpec:
    """types: tuple of (weight, p_baseline, council_anchor, council_dir); council p = anchor + s dir.

    Within a type the arms are coupled by a Gaussian copula of correlation rho (rho < 0: anti).
    A council crash (answer lost, scored 0) happens independently with probability crash_c.
    """

    types: tuple
    ratio: float
    rho: float = 0.0
    crash_c: float = 0.0
    crash_b: float = 0.0


@functools.lru_cache(maxsize=None)
def solve_binary(spec: BinarySpec):
    w = np.array([t[0] for t in spec.types], dtype=float)
    pb = np.array([t[1] for t in spec.types], dtype=float)
    anchor = np.array([t[2] for t in spec.types], dtype=float)
    direc = np.array([t[3] for t in spec.types], dtype=float)
    mean_b = (1 - spec.crash_b) * float(np.dot(w, pb))
    target = spec.ratio * mean_b / (1 - spec.crash_c)
    s = (target - float(np.dot(w, anchor))) / float(np.dot(w, direc))
    pc = anchor + s * direc
    if np.any(pc < 0) or np.any(pc > 1) or np.any(pb < 0) or np.any(pb > 1):
        raise ValueError(f"binary world infeasible: council p {pc}, baseline p {pb}")
    mean_c = (1 - spec.crash_c) * float(np.dot(w, pc))
    return w, pb, pc, mean_b, mean_c


def draw_binary(rng: np.random.Generator, n: int, spec: BinarySpec):
    w, pb, pc, mean_b, mean_c = solve_binary(spec)
    k = rng.choice(len(w), size=n, p=w) if len(w) > 1 else np.zeros(n, dtype=int)
    z1 = rng.standard_normal(n)
    z2 = rng.standard_normal(n)
    r = spec.rho
    uc = special.ndtr(z1)
    ub = special.ndtr(r * z1 + math.sqrt(max(0.0, 1.0 - r * r)) * z2)
    council = (uc < pc[k]).astype(float)
    baseline = (ub < pb[k]).astype(float)
    v1 = rng.random(n)
    v2 = rng.random(n)
    council[v1 < spec.crash_c] = 0.0
    baseline[v2 < spec.crash_b] = 0.0
    return council, baseline, mean_c, mean_b


def make_world(generator, params, endpoint, lattice, council, baseline, mean_c, mean_b, ratio, notes="", spec=None):
    return World(
        council=_freeze(council),
        baseline=_freeze(baseline),
        endpoint=endpoint,
        scale=BINARY_SCALE if endpoint == "correct" else SCORE_SCALE,
        truth=truth_of(ratio),
        true_ratio=float(ratio),
        generator=generator,
        params=tuple(sorted(params.items())),
        lattice=lattice,
        mean_council=float(mean_c),
        mean_baseline=float(mean_b),
        notes=notes,
        spec=spec,
    )
