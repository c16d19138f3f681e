"""Paired worlds for the >15% verdict (council vs single-model baseline).

Every generator is a pure function ``f(rng, ...)`` of a ``numpy.random.Generator`` and returns a
frozen :class:`PairedWorld`: ``council[i]`` and ``baseline[i]`` are the primary-endpoint values of
case ``i`` for the two arms (paired on the case), plus the ground truth.

Ground truth: the true means are computed analytically from the arm laws (``exactness ==
"analytic"``), except for the capped log-normal world whose council law is found by root-finding
to float precision on an analytic mean formula (also "analytic"; the SD of the difference there is
a 10^6-draw reference, said so in ``exactness``).

Construction of the exact ratio.  The baseline law ``B`` (mean ``m_b``) is fixed.  The council
value is ``C = 0`` with probability ``zero_rate`` (a crash / safety cap, independent of everything)
and otherwise ``C ~ C'``, where ``C'`` must have mean ``m' = R * m_b / (1 - zero_rate)``.  ``C'`` is
the mixture ``(1 - w) A + w H`` of a shape law ``A`` (by default ``B`` itself) and a "high" law
``H`` (or a "low" law ``L`` when ``m' < mean(A)``), with ``w = (m' - mean(A)) / (mean(H) - mean(A))``.
Because the mixture mean is linear in ``w``, ``E[C] = (1 - zero_rate) m' = R m_b`` holds exactly
(up to float rounding, checked to 1e-12 by ``selfcheck``).  ``R = 1.15`` is the boundary.

Coupling of the pair (marginals are exact whatever the coupling): with probability ``coupling``
the two arms use the same uniform ``U`` (comonotone: the council is good exactly where the
baseline is good: strongly correlated pairs), otherwise independent uniforms; ``coupling = 0``
gives uncorrelated pairs.  The crash indicator is drawn independently of both.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import numpy as np
from scipy import optimize, stats

THRESHOLD = 1.15      # "more than 15% better"
LEVEL_ONE_SIDED = 0.025  # each side of the verdict is a one-sided test at 2.5% (docs: verdict.md)


# ----------------------------------------------------------------------------------------------
# laws
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DiscreteLaw:
    support: tuple
    pmf: tuple

    @property
    def s(self):
        return np.asarray(self.support, dtype=float)

    @property
    def p(self):
        return np.asarray(self.pmf, dtype=float)

    @property
    def mean(self) -> float:
        return float(np.dot(self.s, self.p))

    def cdf_table(self):
        c = np.cumsum(self.p)
        c[-1] = 1.0
        return c

    def ppf(self, u):
        idx = np.searchsorted(self.cdf_table(), u, side="right")
        return self.s[np.minimum(idx, len(self.support) - 1)]


def _law(support, pmf) -> DiscreteLaw:
    p = np.asarray(pmf, dtype=float)
    assert np.all(p >= -1e-15), p
    p = np.clip(p, 0.0, None)
    p = p / p.sum()
    return DiscreteLaw(tuple(float(x) for x in support), tuple(float(x) for x in p))


def _on_grid(law: DiscreteLaw, grid) -> np.ndarray:
    """pmf of ``law`` on a given (superset) support grid."""
    grid = np.asarray(grid, dtype=float)
    out = np.zeros(len(grid))
    for v, q in zip(law.s, law.p):
        out[np.argmin(np.abs(grid - v))] += q
    return out


def _mix(a: DiscreteLaw, h: DiscreteLaw, w: float) -> DiscreteLaw:
    grid = np.array(sorted(set(a.support) | set(h.support)))
    return _law(grid, (1 - w) * _on_grid(a, grid) + w * _on_grid(h, grid))


def _point(v: float) -> DiscreteLaw:
    return _law([v], [1.0])


def _mix_to_mean(a: DiscreteLaw, h: DiscreteLaw, low: DiscreteLaw, target: float):
    """Mixture of ``a`` with ``h`` (target above mean(a)) or ``low`` (below) with mean ``target``."""
    ma = a.mean
    if abs(target - ma) < 1e-15:
        return a, 0.0
    other = h if target > ma else low
    w = (target - ma) / (other.mean - ma)
    if not (0.0 <= w <= 1.0):
        raise ValueError(
            f"infeasible: target council mean {target:.6g} outside [{min(ma, other.mean):.6g}, "
            f"{max(ma, other.mean):.6g}] reachable from this shape")
    return _mix(a, other, w), float(w)


# ----------------------------------------------------------------------------------------------
# world object
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PairedWorld:
    """One draw of n paired cases with its ground truth.

    council, baseline : float arrays of shape (n,), read-only; case i of one arm is paired with
        case i of the other.  Binary endpoint: values 0.0 / 1.0 (``correct``).  Scores: values on
        ``scale`` (0-10 rubric, or 0-100 for the capped log-normal world).
    true_ratio = true_mean_council / true_mean_baseline (exact; 1.15 is the boundary).
    true_mean_d = E[council - 1.15 * baseline] (0 at the boundary, up to float error).
    truth : "boundary" (ratio == 1.15), "better" (ratio > 1.15) or "not_better" (ratio < 1.15).
    max_false_supported / max_false_refuted : the rate of "supported" / "refuted" a correct rule
        may produce in this world (0.025 = the docs' one-sided 2.5% per side), None when that
        verdict is the correct one (then it is power, see reference_power_supported).
    reference_power_supported : the docs' normal-approximation power
        Phi(sqrt(n) E[d] / SD[d] - z_0.975) with the TRUE E[d], SD[d] (a guide, not a requirement).
    p_informative : P(council != 1.15 * baseline) for one case (the docs' "informative pair").
    """
    name: str
    family: str
    endpoint: str
    scale: tuple
    n: int
    council: np.ndarray = field(repr=False)
    baseline: np.ndarray = field(repr=False)
    true_mean_council: float
    true_mean_baseline: float
    true_ratio: float
    true_mean_d: float
    true_sd_d: float
    p_informative: float
    truth: str
    max_false_supported: float | None
    max_false_refuted: float | None
    reference_power_supported: float | None
    coupling: float
    zero_rate: float
    exactness: str
    construction: str
    params: Mapping = field(default_factory=dict, repr=False)


# ----------------------------------------------------------------------------------------------
# the pair model (shared by all discrete worlds)
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PairSpec:
    baseline: object          # DiscreteLaw or CappedLogNormal
    council_nonzero: object   # law of C' (council value when it does not crash)
    coupling: float
    zero_rate: float
    ratio: float

    def draw(self, rng: np.random.Generator, n: int):
        u_b = rng.random(n)
        shared = rng.random(n) < self.coupling
        u_c = np.where(shared, u_b, rng.random(n))
        crash = rng.random(n) < self.zero_rate
        b = self.baseline.ppf(u_b)
        c = np.where(crash, 0.0, self.council_nonzero.ppf(u_c))
        return c.astype(float), b.astype(float)

    def exact_moments(self):
        """E[C], E[B], E[D], SD[D], P(D != 0) with D = C - 1.15 B, exact for discrete laws."""
        B, Cp = self.baseline, self.council_nonzero
        pb, pc = B.p, Cp.p
        indep = np.outer(pc, pb)
        como = _comonotone(pc, pb)
        J = (1 - self.zero_rate) * (self.coupling * como + (1 - self.coupling) * indep)
        cs = np.array(Cp.s)
        if 0.0 not in cs:
            cs = np.concatenate([cs, [0.0]])
            J = np.vstack([J, np.zeros(len(pb))])
        J[np.argmin(np.abs(cs))] += self.zero_rate * pb
        D = cs[:, None] - THRESHOLD * B.s[None, :]
        ed = float((J * D).sum())
        vd = float((J * D * D).sum()) - ed ** 2
        pinf = float(J[np.abs(D) > 1e-9].sum())
        ec = float((J.sum(axis=1) * cs).sum())
        eb = float((J.sum(axis=0) * B.s).sum())
        return ec, eb, ed, float(np.sqrt(max(vd, 0.0))), pinf


def _comonotone(pa, pb):
    ca = np.cumsum(pa); ca[-1] = 1.0
    cb = np.cumsum(pb); cb[-1] = 1.0
    pts = np.unique(np.concatenate([[0.0], ca, cb]))
    J = np.zeros((len(pa), len(pb)))
    for u0, u1 in zip(pts[:-1], pts[1:]):
        if u1 <= u0:
            continue
        m = 0.5 * (u0 + u1)
        i = min(np.searchsorted(ca, m, side="right"), len(pa) - 1)
        j = min(np.searchsorted(cb, m, side="right"), len(pb) - 1)
        J[i, j] += u1 - u0
    return J


def _truth(ratio):
    if abs(ratio - THRESHOLD) < 1e-12:
        return "boundary", LEVEL_ONE_SIDED, LEVEL_ONE_SIDED
    if ratio > THRESHOLD:
        return "better", None, LEVEL_ONE_SIDED
    return "not_better", LEVEL_ONE_SIDED, None


def _power(n, ed, sd):
    if ed <= 1e-12 or sd <= 0:
        return None
    return float(stats.norm.cdf(np.sqrt(n) * ed / sd - stats.norm.ppf(0.975)))


def _finish(rng, n, spec: PairSpec, *, name, family, endpoint, scale, construction, params,
            moments=None, exactness="analytic"):
    if not (isinstance(n, (int, np.integer)) and n >= 1):
        raise ValueError("n must be a positive int")
    c, b = spec.draw(rng, int(n))
    c.setflags(write=False); b.setflags(write=False)
    ec, eb, ed, sd, pinf = moments if moments is not None else spec.exact_moments()
    truth, mfs, mfr = _truth(spec.ratio)
    return PairedWorld(
        name=name, family=family, endpoint=endpoint, scale=tuple(scale), n=int(n),
        council=c, baseline=b, true_mean_council=ec, true_mean_baseline=eb,
        true_ratio=spec.ratio,
        true_mean_d=ed, true_sd_d=sd, p_informative=pinf, truth=truth,
        max_false_supported=mfs, max_false_refuted=mfr,
        reference_power_supported=_power(n, ed, sd) if truth == "better" else None,
        coupling=spec.coupling, zero_rate=spec.zero_rate, exactness=exactness,
        construction=construction, params=MappingProxyType(dict(params)))


# ----------------------------------------------------------------------------------------------
# binary endpoint (`correct`)
# ----------------------------------------------------------------------------------------------
def binary_spec(base_rate: float, ratio: float = THRESHOLD, coupling: float = 0.0,
                zero_rate: float = 0.0) -> PairSpec:
    if not (0 < base_rate < 1):
        raise ValueError("base_rate in (0, 1)")
    pc = ratio * base_rate / (1 - zero_rate)
    if not (0 <= pc <= 1):
        raise ValueError(f"infeasible: council rate {ratio * base_rate:.4g} with zero_rate "
                         f"{zero_rate} needs P(correct | no crash) = {pc:.4g} > 1")
    return PairSpec(_law([0, 1], [1 - base_rate, base_rate]), _law([0, 1], [1 - pc, pc]),
                    coupling, zero_rate, ratio)


def binary_world(rng: np.random.Generator, n: int, base_rate: float, ratio: float = THRESHOLD,
                 coupling: float = 0.0, zero_rate: float = 0.0) -> PairedWorld:
    """``correct`` (0/1) per case.  Baseline ~ Bernoulli(base_rate); council ~ Bernoulli(ratio *
    base_rate) exactly: 0 on a crash (prob. zero_rate, independent), else Bernoulli(ratio *
    base_rate / (1 - zero_rate)).  coupling lambda: P(both right) = (1-z)[(1-lambda) p' p_b +
    lambda min(p', p_b)] (lambda = 0: independent arms; 0.9: strongly correlated)."""
    spec = binary_spec(base_rate, ratio, coupling, zero_rate)
    return _finish(rng, n, spec, name=f"binary(p_b={base_rate},R={ratio},lam={coupling},z={zero_rate},n={n})",
                   family="binary", endpoint="correct", scale=(0, 1),
                   construction=binary_world.__doc__,
                   params=dict(base_rate=base_rate, ratio=ratio, coupling=coupling,
                               zero_rate=zero_rate))


# ----------------------------------------------------------------------------------------------
# 0-10 rubric scores (discrete integer scores)
# ----------------------------------------------------------------------------------------------
GRID10 = np.arange(11)


def _geom(r, reverse=False):
    k = GRID10[::-1] if reverse else GRID10
    return _law(GRID10, r ** k.astype(float))


def _binom(p):
    return _law(GRID10, stats.binom.pmf(GRID10, 10, p))


SCORE_SHAPES = {
    # name: (baseline law B, shape A of council, high law H, description)
    "binomial_mid": (lambda: _binom(0.45), lambda: _binom(0.45), lambda: _binom(0.95),
                     "B = Binomial(10, 0.45) (mean 4.5, near-symmetric); H = Binomial(10, 0.95)"),
    "skewed_low": (lambda: _geom(0.6), lambda: _geom(0.6), lambda: _geom(0.85),
                   "B ∝ 0.6^k on 0..10 (right-skewed, mean ~1.48, mode 0); H ∝ 0.85^k"),
    "near_ceiling": (lambda: _geom(0.7, reverse=True), lambda: _geom(0.7, reverse=True),
                     lambda: _point(10.0),
                     "B ∝ 0.7^(10-k) (left-skewed, mean ~7.89, mode 10); H = point mass at 10 "
                     "(the council reaches the ceiling more often)"),
    "ceiling_mild": (lambda: _binom(0.72), lambda: _binom(0.72), lambda: _point(10.0),
                     "B = Binomial(10, 0.72) (mean 7.2, left-skewed); H = point mass at 10: a "
                     "near-ceiling world in which ratios up to 10/7.2 = 1.389 are feasible"),
    "near_floor": (lambda: _geom(0.3), lambda: _geom(0.3), lambda: _geom(0.6),
                   "B ∝ 0.3^k (mean ~0.43, 70% zeros); H ∝ 0.6^k"),
    "outlier_bimodal": (lambda: _law(GRID10, [0.35, 0.35, 0.22] + [0] * 7 + [0.08]),
                        lambda: _law(GRID10, [0.35, 0.35, 0.22] + [0] * 7 + [0.08]),
                        lambda: _point(10.0),
                        "bounded heavy tail: B = 0 / 1 / 2 w.p. .35/.35/.22 and an outlier 10 w.p. "
                        ".08 (mean 1.59); H = point mass 10 (the council gains only by more "
                        "outliers: the difference is rare-and-large, very asymmetric)"),
}


def score_spec(shape: str, ratio: float = THRESHOLD, coupling: float = 0.0,
               zero_rate: float = 0.0) -> tuple[PairSpec, float, str]:
    b_f, a_f, h_f, desc = SCORE_SHAPES[shape]
    B, A, H = b_f(), a_f(), h_f()
    target = ratio * B.mean / (1 - zero_rate)
    Cp, w = _mix_to_mean(A, H, _point(0.0), target)
    return PairSpec(B, Cp, coupling, zero_rate, ratio), w, desc


def score_world(rng: np.random.Generator, n: int, shape: str = "binomial_mid",
                ratio: float = THRESHOLD, coupling: float = 0.0,
                zero_rate: float = 0.0) -> PairedWorld:
    """Integer rubric score 0-10 per case.  Baseline ~ B (see SCORE_SHAPES[shape]).  Council: 0 on
    a crash (prob. zero_rate, independent), else C' = (1-w) A + w H with w chosen so that
    E[council] = ratio * E[baseline] exactly (w toward a point mass at 0 if ratio is below the
    shape's own mean).  Pairs coupled by a shared uniform with probability `coupling`."""
    spec, w, desc = score_spec(shape, ratio, coupling, zero_rate)
    doc = (score_world.__doc__ + f"\n    shape {shape}: {desc}; mixture weight w = {w:.6f}")
    return _finish(rng, n, spec, name=f"score[{shape}](R={ratio},lam={coupling},z={zero_rate},n={n})",
                   family=f"score:{shape}", endpoint="rubric_0_10", scale=(0, 10),
                   construction=doc,
                   params=dict(shape=shape, ratio=ratio, coupling=coupling, zero_rate=zero_rate,
                               mixture_weight=w))


# ----------------------------------------------------------------------------------------------
# bounded heavy tail: capped log-normal on 0-100 (continuous)
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CappedLogNormal:
    mu: float
    sigma: float
    cap: float

    @property
    def mean(self) -> float:
        # E[min(X, c)] = e^{mu + s^2/2} Phi((ln c - mu - s^2)/s) + c (1 - Phi((ln c - mu)/s))
        m, s, c = self.mu, self.sigma, self.cap
        lc = np.log(c)
        return float(np.exp(m + s * s / 2) * stats.norm.cdf((lc - m - s * s) / s)
                     + c * stats.norm.sf((lc - m) / s))

    def ppf(self, u):
        u = np.clip(u, 1e-300, 1 - 1e-16)
        return np.minimum(np.exp(self.mu + self.sigma * stats.norm.ppf(u)), self.cap)


def lognormal_spec(ratio=THRESHOLD, sigma=1.2, mu_b=1.5, cap=100.0, coupling=0.0,
                   zero_rate=0.0):
    B = CappedLogNormal(mu_b, sigma, cap)
    target = ratio * B.mean / (1 - zero_rate)
    if not (0 < target < cap):
        raise ValueError("infeasible target mean")
    f = lambda mu: CappedLogNormal(mu, sigma, cap).mean - target
    mu_c = optimize.brentq(f, mu_b - 20, mu_b + 20, xtol=1e-15, rtol=4 * np.finfo(float).eps,
                           maxiter=500)
    return PairSpec(B, CappedLogNormal(mu_c, sigma, cap), coupling, zero_rate, ratio)


_LN_CACHE: dict = {}


def lognormal_reference_moments(spec: PairSpec, draws: int = 1_000_000, seed: int = 12345):
    """E[C], E[B] analytic; E[D], SD[D], P(D != 0): E[D] analytic, SD and P from 10^6 draws."""
    key = (spec.ratio, spec.baseline, spec.council_nonzero, spec.coupling, spec.zero_rate, draws)
    if key not in _LN_CACHE:
        c, b = spec.draw(np.random.default_rng(seed), draws)
        d = c - THRESHOLD * b
        ec = (1 - spec.zero_rate) * spec.council_nonzero.mean
        eb = spec.baseline.mean
        _LN_CACHE[key] = (ec, eb, ec - THRESHOLD * eb, float(d.std()), float(np.mean(d != 0)))
    return _LN_CACHE[key]


def lognormal_world(rng: np.random.Generator, n: int, ratio: float = THRESHOLD,
                    sigma: float = 1.2, mu_b: float = 1.5, cap: float = 100.0,
                    coupling: float = 0.0, zero_rate: float = 0.0) -> PairedWorld:
    """Continuous score on 0-100, heavy-tailed but bounded: baseline = min(exp(mu_b + sigma Z),
    cap) (mean ~8.9 at the defaults, ~0.4% of cases at the cap).  Council = 0 on a crash, else
    min(exp(mu_c + sigma Z'), cap) with the same sigma and mu_c solved (brentq, to float precision)
    from the closed-form capped mean so that E[council] = ratio * E[baseline].  True means are
    analytic; SD[d] and P(informative) are a 10^6-draw reference (seed 12345)."""
    spec = lognormal_spec(ratio, sigma, mu_b, cap, coupling, zero_rate)
    mom = lognormal_reference_moments(spec)
    return _finish(rng, n, spec, name=f"capped_lognormal(R={ratio},s={sigma},lam={coupling},z={zero_rate},n={n})",
                   family="score:capped_lognormal", endpoint="score_0_100", scale=(0, cap),
                   construction=lognormal_world.__doc__, moments=mom,
                   exactness="means analytic (mu_c by brentq to float precision); SD[d], "
                             "P(informative): 10^6-draw reference",
                   params=dict(ratio=ratio, sigma=sigma, mu_b=mu_b, mu_c=spec.council_nonzero.mu,
                               cap=cap, coupling=coupling, zero_rate=zero_rate))


# ----------------------------------------------------------------------------------------------
# catalogue
# ----------------------------------------------------------------------------------------------
RATIOS_ALT = (1.3, 1.5, 2.0)
NS = (10, 20, 30, 55, 100)


def verdict_grid(include_alternatives: bool = True):
    """List of (generator, kwargs-without-n-and-rng, ns) covering the brief; infeasible
    combinations (e.g. ratio 2 at base rate 0.8, or any alternative near the ceiling) are left out
    (the generator raises ValueError for them)."""
    ratios = (THRESHOLD,) + (RATIOS_ALT if include_alternatives else ())
    out = []
    for p in (0.05, 0.1, 0.3, 0.5, 0.8):
        for R in ratios:
            for lam in (0.0, 0.9):
                for z in (0.0, 0.15):
                    kw = dict(base_rate=p, ratio=R, coupling=lam, zero_rate=z)
                    try:
                        binary_spec(**kw)
                    except ValueError:
                        continue
                    out.append((binary_world, kw, NS))
    for shape in SCORE_SHAPES:
        for R in ratios:
            for lam in (0.0, 0.9):
                for z in (0.0, 0.1, 0.2):
                    kw = dict(shape=shape, ratio=R, coupling=lam, zero_rate=z)
                    try:
                        score_spec(**kw)
                    except ValueError:
                        continue
                    out.append((score_world, kw, NS))
    for R in ratios:
        for lam in (0.0, 0.9):
            out.append((lognormal_world, dict(ratio=R, coupling=lam), NS))
    if include_alternatives:
        # near the ceiling only small improvements are feasible (7.89 * 1.25 = 9.86 <= 10)
        for lam in (0.0, 0.9):
            out.append((score_world, dict(shape="near_ceiling", ratio=1.25, coupling=lam,
                                          zero_rate=0.0), NS))
        # interior of the null (no improvement at all): "supported" must stay <= 2.5%
        for lam in (0.0, 0.9):
            for p in (0.1, 0.3):
                out.append((binary_world, dict(base_rate=p, ratio=1.0, coupling=lam,
                                               zero_rate=0.0), NS))
            for shape in ("binomial_mid", "skewed_low", "outlier_bimodal"):
                out.append((score_world, dict(shape=shape, ratio=1.0, coupling=lam,
                                              zero_rate=0.15), NS))
    return out
