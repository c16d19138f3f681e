"""Verdict worlds for the paired ">15% better" test (council vs single-model baseline).

Each world returns the same n cases scored for both subjects (paired arrays) and the
TRUE ratio of means E[council] / E[baseline], computed exactly from the marginal
distributions (not estimated).  The harness's rule (difference form): "supported" when
the 95% interval of mean(council - 1.15 * baseline) is above 0, "refuted" when below 0,
"inconclusive" otherwise, "insufficient_data" with fewer than 10 informative pairs
(pairs where council != 1.15 * baseline; for 0/1 data every pair except (0, 0)).

Levels every world implies (README, "The rule"; issue 27 item 3):

* true ratio exactly 1.15 (boundary): P(supported) <= 2.5% and P(refuted) <= 2.5%, each
  up to Monte-Carlo error (test: observed <= 0.025 + 3*sqrt(0.025*0.975/N));
* true ratio < 1.15 (e.g. 1.0): P(supported) <= 2.5% (much less in practice); "refuted"
  is the CORRECT answer there, its rate is power, not an error;
* true ratio > 1.15: P(refuted) <= 2.5%; P(supported) is power (stated, not bounded).

"insufficient_data" and "inconclusive" are never errors.

Dependence between the two arms on a case: a mixture coupling. With probability ``rho``
the case's council and baseline values are drawn from the SAME uniform through their
inverse CDFs (comonotone: a hard case is hard for both), else from independent uniforms.
Each marginal is exact whatever ``rho``, so the true ratio is exact.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .common import THRESHOLD, VERDICT_LEVEL, normal_cdf


@dataclass
class PairedWorld:
    name: str
    council: np.ndarray
    baseline: np.ndarray
    #: exact E[council] / E[baseline]
    true_ratio: float
    true_mean_council: float
    true_mean_baseline: float
    #: 'correct' (0/1) or 'score' (0-10 rubric, or positive unbounded for heavy_tailed)
    endpoint: str
    #: 'boundary' (ratio == 1.15), 'better' (> 1.15) or 'not_better' (< 1.15)
    truth: str
    #: the rates a correct rule must keep, e.g. {'supported_max': 0.025, 'refuted_max': 0.025}
    required: dict
    params: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(len(self.council))

    @property
    def true_difference_mean(self) -> float:
        """E[council - 1.15 * baseline] (0 at the boundary)."""
        return self.true_mean_council - THRESHOLD * self.true_mean_baseline

    def to_dict(self) -> dict:
        return {
            "name": self.name, "n": self.n,
            "council": self.council.tolist(), "baseline": self.baseline.tolist(),
            "true_ratio": self.true_ratio, "true_mean_council": self.true_mean_council,
            "true_mean_baseline": self.true_mean_baseline,
            "true_difference_mean": self.true_difference_mean,
            "endpoint": self.endpoint, "truth": self.truth,
            "required": dict(self.required), "params": dict(self.params),
        }


# --------------------------------------------------------------------------- helpers
def _truth_and_required(ratio: float) -> tuple[str, dict]:
    if abs(ratio - THRESHOLD) < 1e-9:
        return "boundary", {"supported_max": VERDICT_LEVEL, "refuted_max": VERDICT_LEVEL}
    if ratio > THRESHOLD:
        return "better", {"refuted_max": VERDICT_LEVEL, "supported": "power (report)"}
    return "not_better", {"supported_max": VERDICT_LEVEL, "refuted": "power (correct answer)"}


def binomial_pmf(n: int, p: float) -> np.ndarray:
    return np.array([math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(n + 1)])


def _inv_cdf(pmf: np.ndarray, u: np.ndarray) -> np.ndarray:
    cdf = np.cumsum(pmf)
    cdf[-1] = 1.0
    idx = np.searchsorted(cdf, u, side="right")
    return np.minimum(idx, len(pmf) - 1)


def _coupled_uniforms(rng, n: int, rho: float):
    u1 = rng.random(n)
    shared = rng.random(n) < rho
    u2 = np.where(shared, u1, rng.random(n))
    return u1, u2


def _coupled_discrete(rng, n, values, pmf_c, pmf_b, rho):
    values = np.asarray(values, dtype=float)
    u1, u2 = _coupled_uniforms(rng, n, rho)
    return values[_inv_cdf(np.asarray(pmf_c), u1)], values[_inv_cdf(np.asarray(pmf_b), u2)]


def _make(name, c, b, mu_c, mu_b, endpoint, params):
    ratio = mu_c / mu_b
    truth, req = _truth_and_required(ratio)
    return PairedWorld(name=name, council=np.asarray(c, dtype=float),
                       baseline=np.asarray(b, dtype=float), true_ratio=float(ratio),
                       true_mean_council=float(mu_c), true_mean_baseline=float(mu_b),
                       endpoint=endpoint, truth=truth, required=req, params=params)


# --------------------------------------------------------------------------- worlds
def binary_boundary(rng: np.random.Generator, n: int, base_rate: float,
                    ratio: float = THRESHOLD, rho: float = 0.0) -> PairedWorld:
    """Binary endpoint (``correct``), true ratio of means exactly ``ratio`` (default 1.15).

    World: baseline correct ~ Bernoulli(base_rate), council ~ Bernoulli(ratio * base_rate),
    coupled with ``rho`` (0 = independent arms).  Grid of interest: base_rate 0.1, 0.3, 0.5;
    n = 10, 20, 55, 100; rho 0 and 0.5.  The differences c - 1.15 b take the values
    0, 1, -1.15, -0.15 (not symmetric about 0), so a symmetric sign-flip test is not exact.
    Ground truth at ratio 1.15: the boundary, E[c - 1.15 b] = 0.
    Required: false "supported" <= 2.5% (+ MC error) and "refuted" <= 2.5% (+ MC error).
    At n = 10 with base_rate 0.1 most draws have < 10 informative pairs (not both 0):
    "insufficient_data" is then the correct output.
    """
    p_c = ratio * base_rate
    if not (0 < base_rate and p_c <= 1):
        raise ValueError("need 0 < base_rate and ratio * base_rate <= 1")
    c, b = _coupled_discrete(rng, n, [0, 1], [1 - p_c, p_c], [1 - base_rate, base_rate], rho)
    name = "binary_boundary" if abs(ratio - THRESHOLD) < 1e-12 else "binary_ratio"
    return _make(name, c, b, p_c, base_rate, "correct",
                 dict(n=n, base_rate=base_rate, council_rate=p_c, ratio=ratio, rho=rho))


def scores_boundary(rng: np.random.Generator, n: int, base_mean: float = 5.0,
                    ratio: float = THRESHOLD, rho: float = 0.5) -> PairedWorld:
    """0-10 rubric endpoint, true ratio of means exactly ``ratio`` (default 1.15).

    World: baseline score ~ Binomial(10, base_mean/10), council ~ Binomial(10,
    ratio*base_mean/10) (integers 0..10), coupled with ``rho``.  Default means 5.0 and 5.75.
    Ground truth: boundary (E[c - 1.15 b] = 0) at ratio 1.15.
    Required: false "supported" <= 2.5% and "refuted" <= 2.5% (+ MC error) at every n.
    """
    m_c = ratio * base_mean
    if not (0 < base_mean and m_c <= 10):
        raise ValueError("need 0 < base_mean and ratio*base_mean <= 10")
    c, b = _coupled_discrete(rng, n, np.arange(11), binomial_pmf(10, m_c / 10),
                             binomial_pmf(10, base_mean / 10), rho)
    return _make("scores_boundary", c, b, m_c, base_mean, "score",
                 dict(n=n, base_mean=base_mean, ratio=ratio, rho=rho))


def zero_inflated(rng: np.random.Generator, n: int, zero_frac: float = 0.1,
                  endpoint: str = "score", base_mean: float = 5.0, base_rate: float = 0.3,
                  ratio: float = THRESHOLD, rho: float = 0.5) -> PairedWorld:
    """The council scores 0 on a fraction ``zero_frac`` of cases (a crash or the safety cap).

    World: on each case, independently, with probability ``zero_frac`` the council's value
    is 0; otherwise it is drawn from a distribution whose mean is ratio*mu_b/(1-zero_frac),
    so the council's overall mean is exactly ratio * mu_b.  endpoint='score': baseline
    Binomial(10, base_mean/10), council (non-crash) Binomial(10, .); endpoint='correct':
    baseline Bernoulli(base_rate), council (non-crash) Bernoulli(.).  Non-crash values are
    coupled to the baseline with ``rho``.
    Ground truth at ratio 1.15: boundary.  Required: false "supported" <= 2.5% and
    "refuted" <= 2.5% (+ MC error) at n = 10, 20, 55, 100 (issue 27 measured 5.5% at n = 20).
    """
    if endpoint == "score":
        mu_b, scale = base_mean, 10
        m_nc = ratio * mu_b / (1 - zero_frac)
        if m_nc > 10:
            raise ValueError("non-crash council mean above 10")
        pmf_c, pmf_b, values = binomial_pmf(10, m_nc / 10), binomial_pmf(10, mu_b / 10), np.arange(11)
    elif endpoint == "correct":
        mu_b = base_rate
        m_nc = ratio * mu_b / (1 - zero_frac)
        if m_nc > 1:
            raise ValueError("non-crash council rate above 1")
        pmf_c, pmf_b, values = [1 - m_nc, m_nc], [1 - mu_b, mu_b], np.array([0, 1])
    else:
        raise ValueError("endpoint must be 'score' or 'correct'")
    c, b = _coupled_discrete(rng, n, values, pmf_c, pmf_b, rho)
    crash = rng.random(n) < zero_frac
    c = np.where(crash, 0.0, c)
    return _make("zero_inflated", c, b, ratio * mu_b, mu_b, endpoint,
                 dict(n=n, zero_frac=zero_frac, endpoint=endpoint, base=mu_b,
                      council_noncrash_mean=m_nc, ratio=ratio, rho=rho))


def near_ceiling(rng: np.random.Generator, n: int, true_ratio: float = 1.0,
                 council_mean: float = 9.5, rho: float = 0.5) -> PairedWorld:
    """Rubric scores piled against the ceiling of 10.

    World: council ~ Binomial(10, council_mean/10) (default mean 9.5: 60% of cases score
    10), baseline ~ Binomial(10, council_mean/(10*true_ratio)); coupled with ``rho``.
    * true_ratio = 1.0 (default; both arms identical, mean 9.5): the claim ">15% better" is
      FALSE (a ratio above 10/9.5 = 1.053 is not even possible).  What the README rule
      implies: "supported" is the error and must be <= 2.5% (expect ~0%); "refuted"
      (interval of mean(c - 1.15 b) below 0) is the CORRECT answer, and its rate is
      power, not an error; "refuted" is never an error at a true ratio <= 1.15 -
      "rarely refuted" does not apply here.
    * true_ratio = 1.15 (council 9.5, baseline 8.26): the boundary near the ceiling, the
      world where a "false refuted" can occur (issue 27: 3.2%).  Required: "refuted"
      <= 2.5% and "supported" <= 2.5% (+ MC error).
    """
    m_b = council_mean / true_ratio
    c, b = _coupled_discrete(rng, n, np.arange(11), binomial_pmf(10, council_mean / 10),
                             binomial_pmf(10, m_b / 10), rho)
    return _make("near_ceiling", c, b, council_mean, m_b, "score",
                 dict(n=n, council_mean=council_mean, true_ratio=true_ratio, rho=rho))


def heavy_tailed(rng: np.random.Generator, n: int, ratio: float = THRESHOLD,
                 heavy: str = "council", sigma_light: float = 0.5, sigma_heavy: float = 1.5,
                 rho: float = 0.5) -> PairedWorld:
    """Positive, unbounded, heavy-tailed scores (log-normal), true ratio exactly ``ratio``.

    World: the light arm ~ LogNormal(0, sigma_light); the heavy arm ~ LogNormal(mu,
    sigma_heavy) with mu chosen so E[council] = ratio * E[baseline] exactly.  ``heavy``
    names the heavy-tailed arm ('council': differences right-skewed, most pairs below the
    boundary, a few far above; 'baseline': left-skewed).  The log-scale normals are shared
    with probability ``rho``.  Values are NOT clipped (treat as a positive metric; multiply
    by a constant if a scale is needed: the ratio is scale-free).
    Ground truth at ratio 1.15: boundary.  Required: false "supported" <= 2.5% and
    "refuted" <= 2.5% (+ MC error), in both skew directions.
    """
    z1 = rng.standard_normal(n)
    shared = rng.random(n) < rho
    z2 = np.where(shared, z1, rng.standard_normal(n))
    if heavy == "council":
        s_c, s_b = sigma_heavy, sigma_light
    elif heavy == "baseline":
        s_c, s_b = sigma_light, sigma_heavy
    else:
        raise ValueError("heavy must be 'council' or 'baseline'")
    mu_b = 0.0
    mean_b = math.exp(mu_b + s_b ** 2 / 2)
    mu_c = math.log(ratio * mean_b) - s_c ** 2 / 2
    c = np.exp(mu_c + s_c * z1)
    b = np.exp(mu_b + s_b * z2)
    return _make("heavy_tailed", c, b, math.exp(mu_c + s_c ** 2 / 2), mean_b, "score",
                 dict(n=n, ratio=ratio, heavy=heavy, sigma_council=s_c, sigma_baseline=s_b,
                      mu_council=mu_c, mu_baseline=mu_b, rho=rho))


def power_world(rng: np.random.Generator, ratio: float = 1.5, n: int = 55,
                base_rate: float = 0.1, rho: float = 0.0) -> PairedWorld:
    """Power world on ``correct``: true ratio 1.5 or 2.0 at base rate 0.1, n = 55.

    World: as ``binary_boundary`` with a true ratio above 1.15.
    Ground truth: the council IS more than 15% better.  Required: "refuted" <= 2.5%
    (+ MC error); P(supported) is the power, to be STATED by the harness (issue 27: +50%
    detected ~6%, doubling ~20% at this size).  Normal-approximation reference:
    ``reference_power(ratio, base_rate, n, rho)``.
    """
    w = binary_boundary(rng, n, base_rate, ratio=ratio, rho=rho)
    w.name = "power"
    return w


def _binary_cells(p_b: float, p_c: float, rho: float):
    """Cell probabilities (both, council only, baseline only, neither) of the coupling."""
    # comonotone part: P(both)=min, council-only=max(0,p_c-p_b), baseline-only=max(0,p_b-p_c)
    co = (min(p_b, p_c), max(0.0, p_c - p_b), max(0.0, p_b - p_c))
    ind = (p_b * p_c, p_c * (1 - p_b), p_b * (1 - p_c))
    cells = [rho * a + (1 - rho) * i for a, i in zip(co, ind)]
    cells.append(1 - sum(cells))
    return cells


def reference_power(ratio: float, base_rate: float = 0.1, n: int = 55, rho: float = 0.0,
                    level: float = VERDICT_LEVEL) -> float:
    """Normal-approximation power of a one-sided level-``level`` test of
    mean(c - 1.15 b) > 0 on binary data (a reference for the harness's stated power;
    the exact rule will differ by a few points)."""
    p_b, p_c = base_rate, ratio * base_rate
    both, conly, bonly, _ = _binary_cells(p_b, p_c, rho)
    mean = p_c - THRESHOLD * p_b
    e2 = both * (1 - THRESHOLD) ** 2 + conly * 1.0 + bonly * THRESHOLD ** 2
    sd = math.sqrt(max(e2 - mean ** 2, 1e-300))
    # z_{1-level}
    lo, hi = 0.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 1 - normal_cdf(mid) > level:
            lo = mid
        else:
            hi = mid
    z = (lo + hi) / 2
    return 1 - normal_cdf(z - math.sqrt(n) * mean / sd)


def n_for_power(ratio: float, base_rate: float, power: float = 0.8, rho: float = 0.0,
                level: float = VERDICT_LEVEL) -> int:
    """Smallest n with reference_power >= power (normal approximation)."""
    n = 2
    while reference_power(ratio, base_rate, n, rho, level) < power:
        n += 1
        if n > 10 ** 7:
            raise ValueError("power unreachable")
    return n


VERDICT_WORLDS = {
    "binary_boundary": binary_boundary,
    "scores_boundary": scores_boundary,
    "zero_inflated": zero_inflated,
    "near_ceiling": near_ceiling,
    "heavy_tailed": heavy_tailed,
    "power": power_world,
}
