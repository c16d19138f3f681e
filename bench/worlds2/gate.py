"""Worlds for the regression gate: a new run compared against a stored baseline run.

Every generator is a pure function ``f(rng, ...)`` returning a frozen :class:`GateWorld`.  One
world = one subject, ``n_cases`` cases, ``k_baseline`` repeats stored in the baseline and ``k_new``
repeats in the new run (repeat r of a run is an independent sample of the same model: pass r of a
``--repeats`` run; k = 1 is a plain run).  Per case and per repeat each run has

* ``rubric``: a rubric score on 0-10 (gated, tolerance 0.5 = 5% of the scale, the docs' default);
* ``passed``: the case's pass/fail check (True = pass); ``correct`` is the same check as a 0/1
  binary score (``correct == int(passed)``), for rules that test a binary score.

The model is non-deterministic: a case has a TRUE score ``mu`` and a TRUE failure probability per
repeat; each repeat of each run is an independent draw around them.  Score noise (``noise``):
``"jitter"`` = mu + J with J uniform on {-1, 0, +1} (the "±1 between runs" of issue 27; SD
sqrt(2/3) = 0.816), ``"jitter_half"`` = J in {-1, 0, +1} w.p. {.25, .5, .25} (SD 0.707), or
``"gauss:<sd>"`` = mu + N(0, sd^2) (continuous).  Integer true values mu are drawn in 2..8 so that
jitter never leaves 0-10 (no clipping; the noise is exactly as stated).  Pass/fail: a case that
truly passes fails a repeat with probability ``flip`` (0.05-0.15); a fraction ``hard_frac`` of
cases truly fails and PASSES a repeat with probability ``flip`` (failing in both runs: no
regression).

Ground truth per case: ``regressed`` is True exactly when the case's true score dropped by more
than the tolerance, or its true failure probability rose.  ``GateWorld.regressed`` (per run) is
True when any case regressed, or for the broad drop (a run-level regression).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import numpy as np

SCALE = (0.0, 10.0)
TOLERANCE = 0.5          # docs: default 5% of the scale, 0.5 for rubric scores
ALPHA_RUN = 0.05         # docs: an unchanged run fails with probability at most 5%


@dataclass(frozen=True)
class GateCase:
    """One case.  *_scores: tuple of k floats (rubric 0-10, one per repeat); *_passed: tuple of k
    bools; *_correct: tuple of k ints (= passed).  true_*: the latent values the draws come from."""
    case_id: str
    baseline_scores: tuple
    new_scores: tuple
    baseline_passed: tuple
    new_passed: tuple
    baseline_correct: tuple
    new_correct: tuple
    true_score_baseline: float
    true_score_new: float
    true_fail_prob_baseline: float
    true_fail_prob_new: float
    regressed: bool
    regressed_reason: str       # "" | "score_drop" | "newly_failing_rate"


@dataclass(frozen=True)
class GateWorld:
    """One draw of a baseline run and a new run.

    regressed : run-level truth (a correct gate should fail the run).
    regressed_cases : ids of the cases whose truth is ``regressed``.
    requirement : what a correct gate must achieve over many draws of this world, as the docs
        state it; max_fail_rate / min_detect_rate give it as a number (None = not stated in docs;
        then ``reference`` gives a reference power, a guide only).
    """
    name: str
    kind: str
    n_cases: int
    k_baseline: int
    k_new: int
    tolerance: float
    scale: tuple
    noise: str
    flip: float
    cases: tuple = field(repr=False)
    regressed: bool
    regressed_cases: tuple
    requirement: str
    max_fail_rate: float | None
    min_detect_rate: float | None
    construction: str
    params: Mapping = field(default_factory=dict, repr=False)

    # plain-array views -------------------------------------------------------------------
    def scores(self, side: str) -> list:
        """list over cases of tuples of k scores; side = "baseline" | "new"."""
        return [getattr(c, f"{side}_scores") for c in self.cases]

    def passed(self, side: str) -> list:
        return [getattr(c, f"{side}_passed") for c in self.cases]

    def score_matrix(self, side: str) -> np.ndarray:
        """(n_cases, k) float array."""
        return np.array(self.scores(side), dtype=float)

    def passed_matrix(self, side: str) -> np.ndarray:
        return np.array(self.passed(side), dtype=bool)


def _noise(rng, noise: str, size):
    if noise == "jitter":
        return rng.integers(-1, 2, size=size).astype(float)
    if noise == "jitter_half":
        return rng.choice([-1.0, 0.0, 1.0], p=[0.25, 0.5, 0.25], size=size)
    if noise.startswith("gauss:"):
        return rng.normal(0.0, float(noise.split(":", 1)[1]), size=size)
    raise ValueError(f"unknown noise {noise!r}")


def noise_sd(noise: str) -> float:
    if noise == "jitter":
        return float(np.sqrt(2 / 3))
    if noise == "jitter_half":
        return float(np.sqrt(0.5))
    return float(noise.split(":", 1)[1])


def _draw_run(rng, mu, fail_p, k, noise, drop_bern=None):
    """(scores (n,k), passed (n,k)) for one run; drop_bern: per-case mean drop d in [0,1] realised
    as an integer drop of 1 with probability d per repeat (integer scores, mean drop exactly d)."""
    n = len(mu)
    s = np.asarray(mu, float)[:, None] + _noise(rng, noise, (n, k))
    if drop_bern is not None:
        s = s - (rng.random((n, k)) < np.asarray(drop_bern)[:, None])
    fails = rng.random((n, k)) < np.asarray(fail_p)[:, None]
    return s, ~fails


def _build(rng, *, name, kind, n_cases, k_baseline, k_new, noise, flip, hard_frac,
           mu_b, mu_n, fail_b, fail_n, drop_bern_new, regressed_run, requirement,
           max_fail_rate, min_detect_rate, construction, params):
    sb, pb = _draw_run(rng, mu_b, fail_b, k_baseline, noise)
    mean_drop = np.zeros(n_cases) if drop_bern_new is None else np.asarray(drop_bern_new, float)
    sn, pn = _draw_run(rng, mu_n, fail_n, k_new, noise, drop_bern_new)
    cases = []
    reg_ids = []
    for i in range(n_cases):
        true_new = float(mu_n[i] - mean_drop[i])
        drop = float(mu_b[i]) - true_new
        if drop > TOLERANCE + 1e-12:
            reason = "score_drop"
        elif fail_n[i] > fail_b[i] + 1e-12:
            reason = "newly_failing_rate"
        else:
            reason = ""
        cid = f"case-{i:03d}"
        if reason:
            reg_ids.append(cid)
        cases.append(GateCase(
            case_id=cid,
            baseline_scores=tuple(float(x) for x in sb[i]), new_scores=tuple(float(x) for x in sn[i]),
            baseline_passed=tuple(bool(x) for x in pb[i]), new_passed=tuple(bool(x) for x in pn[i]),
            baseline_correct=tuple(int(x) for x in pb[i]), new_correct=tuple(int(x) for x in pn[i]),
            true_score_baseline=float(mu_b[i]), true_score_new=true_new,
            true_fail_prob_baseline=float(fail_b[i]), true_fail_prob_new=float(fail_n[i]),
            regressed=bool(reason), regressed_reason=reason))
    return GateWorld(
        name=name, kind=kind, n_cases=n_cases, k_baseline=k_baseline, k_new=k_new,
        tolerance=TOLERANCE, scale=SCALE, noise=noise, flip=flip, cases=tuple(cases),
        regressed=bool(regressed_run or reg_ids), regressed_cases=tuple(reg_ids),
        requirement=requirement, max_fail_rate=max_fail_rate, min_detect_rate=min_detect_rate,
        construction=construction, params=MappingProxyType(dict(params)))


def _latent(rng, n, flip, hard_frac):
    mu = rng.integers(2, 9, size=n).astype(float)          # true scores 2..8
    hard = rng.random(n) < hard_frac
    fail = np.where(hard, 1.0 - flip, flip)
    return mu, fail


# ----------------------------------------------------------------------------------------------
# null: nothing changed
# ----------------------------------------------------------------------------------------------
def gate_null(rng: np.random.Generator, n_cases: int = 20, k: int = 1, flip: float = 0.10,
              noise: str = "jitter", hard_frac: float = 0.1, k_new: int | None = None) -> GateWorld:
    """Unchanged run.  Each case: true score mu ~ U{2..8}, true failure probability `flip` (or
    1 - flip for the `hard_frac` of cases that truly fail); baseline and new run are independent
    draws of the SAME latent values (k repeats each, k_new defaults to k).  Truth: no case and not
    the run regressed.  Requirement (docs, gate.md / issue 27): a correct gate fails <= 5% of such
    runs (5-100 cases, k = 1, 3, 5; ±1 jitter, 10% flips)."""
    k_new = k if k_new is None else k_new
    mu, fail = _latent(rng, n_cases, flip, hard_frac)
    return _build(rng, name=f"gate_null(n={n_cases},k={k}/{k_new},flip={flip},{noise})", kind="null",
                  n_cases=n_cases, k_baseline=k, k_new=k_new, noise=noise, flip=flip,
                  hard_frac=hard_frac, mu_b=mu, mu_n=mu, fail_b=fail, fail_n=fail,
                  drop_bern_new=None, regressed_run=False,
                  requirement="pass: P(gate fails) <= 5% (+3 MC SE)", max_fail_rate=ALPHA_RUN,
                  min_detect_rate=None, construction=gate_null.__doc__,
                  params=dict(flip=flip, noise=noise, hard_frac=hard_frac))


# ----------------------------------------------------------------------------------------------
# alternatives
# ----------------------------------------------------------------------------------------------
def gate_collapse(rng: np.random.Generator, n_cases: int = 5, k: int = 1, flip: float = 0.10,
                  noise: str = "jitter", hard_frac: float = 0.0, from_score: float = 8.0,
                  to_score: float = 2.0, k_new: int | None = None) -> GateWorld:
    """One case (case-000) collapses: true score 8 -> 2 in the new run; every other case and every
    pass/fail probability unchanged (noise and flips as in gate_null, hard_frac 0 by default).
    Truth: case-000 regressed (score_drop 6 > 0.5), no other case; the run regressed.
    Requirement (docs: issue 27 / statistics.md table): the gate fails the run AND names case-000 in
    >= 99% of draws at 5 cases, k = 1 (the table reports k = 3, 5 as well)."""
    k_new = k if k_new is None else k_new
    mu, fail = _latent(rng, n_cases, flip, hard_frac)
    mu_b = mu.copy(); mu_b[0] = from_score
    mu_n = mu.copy(); mu_n[0] = to_score
    return _build(rng, name=f"gate_collapse(n={n_cases},k={k}/{k_new},{from_score}->{to_score})",
                  kind="collapse", n_cases=n_cases, k_baseline=k, k_new=k_new, noise=noise,
                  flip=flip, hard_frac=hard_frac, mu_b=mu_b, mu_n=mu_n, fail_b=fail, fail_n=fail,
                  drop_bern_new=None, regressed_run=True,
                  requirement="fail the run and name case-000 in >= 99% of draws",
                  max_fail_rate=None, min_detect_rate=0.99, construction=gate_collapse.__doc__,
                  params=dict(flip=flip, noise=noise, from_score=from_score, to_score=to_score))


def gate_broad_drop(rng: np.random.Generator, n_cases: int = 20, k: int = 1, drop: float = 0.7,
                    flip: float = 0.10, noise: str = "jitter", hard_frac: float = 0.1,
                    integer_scores: bool = True, k_new: int | None = None) -> GateWorld:
    """Every case's true score drops by `drop` (0.7 > tolerance 0.5).  integer_scores=True: each
    new-run repeat loses 1 point with probability `drop` (independently; scores stay integers, the
    mean drop is exactly `drop`); False: every new-run score is shifted by exactly -drop
    (continuous).  Pass/fail unchanged.  Truth: every case regressed (true drop 0.7 > 0.5) and the
    run regressed.  Requirement: none stated as a number in the docs (power is reported there:
    paired-t reference 75% / 100% / 100% at 20 cases k=1 / 20 cases k=3 / 100 cases k=1, no
    tolerance); see selfcheck for this package's references."""
    k_new = k if k_new is None else k_new
    mu, fail = _latent(rng, n_cases, flip, hard_frac)
    if integer_scores:
        if not (0 <= drop <= 1):
            raise ValueError("integer drop must be in [0, 1]")
        mu_n, bern = mu, np.full(n_cases, drop)
    else:
        mu_n, bern = mu - drop, None
    w = _build(rng, name=f"gate_broad_drop(n={n_cases},k={k}/{k_new},drop={drop},int={integer_scores})",
               kind="broad_drop", n_cases=n_cases, k_baseline=k, k_new=k_new, noise=noise,
               flip=flip, hard_frac=hard_frac, mu_b=mu, mu_n=mu_n, fail_b=fail, fail_n=fail,
               drop_bern_new=bern, regressed_run=True,
               requirement="power (reported; no numeric requirement in the docs)",
               max_fail_rate=None, min_detect_rate=None, construction=gate_broad_drop.__doc__,
               params=dict(drop=drop, flip=flip, noise=noise, integer_scores=integer_scores))
    return w


def gate_binary_rise(rng: np.random.Generator, n_cases: int = 5, k: int = 5,
                     fail_before: float = 0.05, fail_after: float = 0.60, flip: float = 0.05,
                     noise: str = "jitter", hard_frac: float = 0.0,
                     k_new: int | None = None) -> GateWorld:
    """One case's (case-000) check goes from failure probability 0.05 to 0.60 per repeat; other
    cases: failure probability `flip` in both runs (0.05 by default); scores unchanged (jitter).
    Truth: case-000 regressed (newly_failing_rate), the run regressed.  Requirement: none stated
    numerically in the docs (at k = 1 a single flip is never beyond noise: Fisher p = 0.5 — so
    power at k = 1 is expected to be ~0 per case); selfcheck gives the exact power of a lone
    one-sided Fisher test at 3.5% as a guide (an upper guide for any rule sharing that budget)."""
    k_new = k if k_new is None else k_new
    mu, fail = _latent(rng, n_cases, flip, hard_frac)
    fb = fail.copy(); fb[0] = fail_before
    fn = fail.copy(); fn[0] = fail_after
    return _build(rng, name=f"gate_binary_rise(n={n_cases},k={k}/{k_new},{fail_before}->{fail_after})",
                  kind="binary_rise", n_cases=n_cases, k_baseline=k, k_new=k_new, noise=noise,
                  flip=flip, hard_frac=hard_frac, mu_b=mu, mu_n=mu, fail_b=fb, fail_n=fn,
                  drop_bern_new=None, regressed_run=True,
                  requirement="power (reported; no numeric requirement in the docs)",
                  max_fail_rate=None, min_detect_rate=None, construction=gate_binary_rise.__doc__,
                  params=dict(fail_before=fail_before, fail_after=fail_after, flip=flip))


def gate_grid():
    """(generator, kwargs) list covering the brief."""
    out = []
    for n in (5, 20, 100):
        for k in (1, 3, 5):
            for flip in (0.05, 0.10, 0.15):
                out.append((gate_null, dict(n_cases=n, k=k, flip=flip, noise="jitter")))
            out.append((gate_null, dict(n_cases=n, k=k, flip=0.10, noise="gauss:1.0")))
    for k in (1, 3, 5):
        out.append((gate_collapse, dict(n_cases=5, k=k)))
        out.append((gate_binary_rise, dict(n_cases=5, k=k)))
        out.append((gate_binary_rise, dict(n_cases=20, k=k)))
    for n, k in ((20, 1), (20, 3), (100, 1)):
        out.append((gate_broad_drop, dict(n_cases=n, k=k)))
        out.append((gate_broad_drop, dict(n_cases=n, k=k, integer_scores=False)))
    return out
