"""Gate worlds: per-case results of a stored baseline run and a current run.

Every case has ``k`` repeats (k = 1, 3, 5) of ``(score, correct)``: a rubric score
(integer on 0-10; the generators keep every score inside 1-10 when jitter <= 1, so it is
also valid on the harness's 1-10 rubric scale) and a binary objective check ``correct``
(1 = pass, 0 = fail).  Repeat r of a run is an independent draw (the harness's pass r,
seed + r * 1009).  Pass 0 is ``baseline[0]`` / ``current[0]``.

Noise model (per case, per run, per repeat, all independent):

* score = true_score + U, U uniform on {-jitter, ..., +jitter}, clipped to 0..10;
* correct ~ Bernoulli(pass_prob).  Cases come in three kinds, cycled over case index
  (high, middling, high, low, high, ...): ``high`` has pass_prob = 1 - flip (a correct
  case whose check flips to failing with probability ``flip``), ``low`` has
  pass_prob = flip (a failing case that flips to passing), ``middling`` has
  pass_prob = 0.5 (a coin-flip case).  With flip = 0 (deterministic) middling cases get a
  fixed outcome (drawn once per case, identical in both runs and every repeat).
* true scores: high cases 7-9, middling 4-6, low 3-4 (drawn once per case), so jitter of
  +-1 never clips and the null is exactly symmetric.

Ground truth is carried per case (``regressed``, true means, true pass probabilities)
and per world (``run_regressed``), with the requirement a correct gate must meet in
``required``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, asdict
from typing import Optional

import numpy as np

from .common import GATE_FALSE_ALARM_MAX, RUBRIC_TOLERANCE

KIND_CYCLE = ("high", "middling", "high", "low", "high")
TRUE_SCORE_RANGE = {"high": (7, 9), "middling": (4, 6), "low": (3, 4)}


@dataclass
class GateCase:
    case_id: str
    #: baseline repeats, [(score, correct), ...], length k_baseline
    baseline: list
    #: current-run repeats, [(score, correct), ...], length k
    current: list
    #: ground truth: the case truly got worse (true mean score fell or true pass
    #: probability fell); False means every observed difference is noise
    regressed: bool
    kind: str
    true_score_baseline: float
    true_score_current: float
    pass_prob_baseline: float
    pass_prob_current: float

    @property
    def true_score_drop(self) -> float:
        return self.true_score_baseline - self.true_score_current

    def to_dict(self) -> dict:
        d = asdict(self)
        d["baseline"] = [list(x) for x in self.baseline]
        d["current"] = [list(x) for x in self.current]
        d["true_score_drop"] = self.true_score_drop
        return d


@dataclass
class GateWorld:
    name: str
    k: int
    k_baseline: int
    #: True when both runs are deterministic (jitter 0, flip 0: temperature 0 / replayed);
    #: the harness should then be told the subject is deterministic (strict rule)
    deterministic: bool
    cases: list
    #: ground truth for the whole run: some case truly regressed
    run_regressed: bool
    #: what a correct gate must do in this world (rate over seeded worlds)
    required: str
    params: dict = field(default_factory=dict)

    @property
    def n_cases(self) -> int:
        return len(self.cases)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "k": self.k,
            "k_baseline": self.k_baseline,
            "deterministic": self.deterministic,
            "run_regressed": self.run_regressed,
            "required": self.required,
            "params": dict(self.params),
            "cases": [c.to_dict() for c in self.cases],
        }


# --------------------------------------------------------------------------- core
def _kinds(n_cases: int) -> list:
    return [KIND_CYCLE[i % len(KIND_CYCLE)] for i in range(n_cases)]


def _draw_scores(rng, true_mean: float, reps: int, jitter: int, frac_rounding: bool):
    """Integer scores with E = true_mean (exact when 0.5 < mean < 9.5 and jitter <= 1).

    A non-integer true mean m is realised by stochastic rounding (floor(m) + Bernoulli(m -
    floor(m))) per repeat, then jitter, then clipping to 0..10."""
    base = np.full(reps, np.floor(true_mean))
    frac = true_mean - np.floor(true_mean)
    if frac > 1e-12:
        if frac_rounding:
            base = base + (rng.random(reps) < frac)
        else:  # deterministic: a single rounding shared by every repeat
            base = base + float(rng.random() < frac)
    if jitter > 0:
        base = base + rng.integers(-jitter, jitter + 1, size=reps)
    return np.clip(base, 0, 10).astype(int)


def _draw_correct(rng, p: float, reps: int, fixed: Optional[int]):
    if fixed is not None:
        return np.full(reps, int(fixed))
    return (rng.random(reps) < p).astype(int)


def _gate_world(rng, name, n_cases, k, k_baseline, jitter, flip, required,
                collapse=0, collapse_from=8.0, collapse_to=2.0, collapse_pass=0.0,
                drop=0.0, pass_drop=0.0, one_point_drop=0, new_failures=0,
                middling_rate=0.5, extra_params=None):
    if n_cases < 1:
        raise ValueError("n_cases must be >= 1")
    k_baseline = k if k_baseline is None else k_baseline
    deterministic = (jitter == 0 and flip == 0)
    kinds = _kinds(n_cases)
    # which cases carry the single-case changes (drawn at random among the high cases,
    # falling back to any case): a rule must not depend on the index
    high_idx = [i for i, kd in enumerate(kinds) if kd == "high"]
    special = list(rng.permutation(high_idx)) + [i for i in rng.permutation(n_cases) if i not in high_idx]
    n_special = collapse + one_point_drop + new_failures
    if n_special > n_cases:
        raise ValueError("more changed cases than cases")
    collapse_set = set(special[:collapse])
    drop1_set = set(special[collapse:collapse + one_point_drop])
    newfail_set = set(special[collapse + one_point_drop:n_special])

    cases = []
    for i, kind in enumerate(kinds):
        lo, hi = TRUE_SCORE_RANGE[kind]
        ts_b = float(rng.integers(lo, hi + 1))
        if kind == "high":
            p_b = 1.0 - flip
        elif kind == "low":
            p_b = flip
        else:
            p_b = middling_rate
        fixed_b = None
        if deterministic:
            # every outcome fixed; middling cases get one fixed outcome per case
            fixed_b = 1 if kind == "high" else 0 if kind == "low" else int(rng.random() < middling_rate)
            p_b = float(fixed_b)
        ts_c, p_c, fixed_c = ts_b - drop, max(0.0, p_b - pass_drop), fixed_b
        if pass_drop > 0 and deterministic:
            fixed_c = 0 if fixed_b == 1 else fixed_b  # a real, deterministic loss
            p_c = float(fixed_c)
        if i in collapse_set:
            ts_b, ts_c = float(collapse_from), float(collapse_to)
            p_c = collapse_pass
            fixed_c = 0 if collapse_pass == 0.0 else fixed_c
        if i in drop1_set:
            ts_c = ts_b - 1.0
        if i in newfail_set:  # a high case that now always fails its check
            p_c, fixed_c = 0.0, 0
        frac_round = not deterministic
        b_scores = _draw_scores(rng, ts_b, k_baseline, jitter, frac_round)
        c_scores = _draw_scores(rng, ts_c, k, jitter, frac_round)
        b_corr = _draw_correct(rng, p_b, k_baseline, fixed_b)
        c_corr = _draw_correct(rng, p_c, k, fixed_c)
        if deterministic:
            ts_c_real = float(c_scores[0])
            ts_b_real = float(b_scores[0])
        else:
            ts_c_real, ts_b_real = ts_c, ts_b
        regressed = (ts_c_real < ts_b_real - 1e-12) or (p_c < p_b - 1e-12)
        cases.append(GateCase(
            case_id=f"case-{i:03d}",
            baseline=[(int(s), int(c)) for s, c in zip(b_scores, b_corr)],
            current=[(int(s), int(c)) for s, c in zip(c_scores, c_corr)],
            regressed=bool(regressed), kind=kind,
            true_score_baseline=ts_b_real, true_score_current=ts_c_real,
            pass_prob_baseline=float(p_b), pass_prob_current=float(p_c)))
    params = dict(n_cases=n_cases, k=k, k_baseline=k_baseline, jitter=jitter, flip=flip,
                  tolerance=RUBRIC_TOLERANCE)
    params.update(extra_params or {})
    return GateWorld(name=name, k=k, k_baseline=k_baseline, deterministic=deterministic,
                     cases=cases, run_regressed=any(c.regressed for c in cases),
                     required=required, params=params)


# --------------------------------------------------------------------------- worlds
def null_world(rng: np.random.Generator, n_cases: int = 20, k: int = 1, jitter: int = 1,
               flip: float = 0.1, k_baseline: Optional[int] = None) -> GateWorld:
    """No true change, sampled (non-deterministic) subject.

    World: every case keeps its true score and true pass probability; both runs are
    independent noisy draws (scores +-``jitter`` uniform, binary checks flipping with
    probability ``flip`` per repeat; high / middling / low pass-rate cases).
    Ground truth: no case regressed (``run_regressed`` is False).
    A correct (noise-aware) gate must FAIL AT MOST 5% of such runs (family-wise over all
    cases, scores and checks together), for n_cases 5-100 and k = 1, 3, 5.  Test: with N
    seeded worlds, observed fail rate <= 0.05 + 3*sqrt(0.05*0.95/N).
    """
    return _gate_world(rng, "null", n_cases, k, k_baseline, jitter, flip,
                       required=f"gate fails <= {GATE_FALSE_ALARM_MAX:.0%} of runs (no true change)")


def collapse_world(rng: np.random.Generator, n_cases: int = 5, k: int = 1, jitter: int = 1,
                   flip: float = 0.1, n_collapsed: int = 1, collapse_pass: float = 0.0,
                   k_baseline: Optional[int] = None) -> GateWorld:
    """One of the cases (by default one of five) truly collapses.

    World: as ``null_world``, except ``n_collapsed`` high-pass-rate cases (chosen at random)
    have true score 8 in the baseline and 2 in the current run, and their check fails
    (current pass probability ``collapse_pass``, default 0: every current repeat fails).
    Ground truth: exactly the collapsed case(s) regressed; ``run_regressed`` is True.
    A correct gate must FAIL AT LEAST 99% of such runs, already at k = 1 (issue 27), and it
    must name the collapsed case among its regressions.  (Observed scores: 7-9 -> 1-3, a drop
    of at least 4 points.)
    """
    return _gate_world(rng, "collapse", n_cases, k, k_baseline, jitter, flip,
                       required="gate fails >= 99% of runs and names the collapsed case",
                       collapse=n_collapsed, collapse_pass=collapse_pass,
                       extra_params=dict(n_collapsed=n_collapsed, collapse_from=8,
                                         collapse_to=2, collapse_pass=collapse_pass))


def broad_drop_world(rng: np.random.Generator, n_cases: int = 20, k: int = 1,
                     jitter: int = 1, flip: float = 0.1, drop: float = 0.7,
                     pass_drop: float = 0.0, k_baseline: Optional[int] = None) -> GateWorld:
    """Every case drops by a small true amount (default 0.7 rubric points).

    World: as ``null_world`` but each case's true current score is true_score - ``drop``
    (a fractional drop is realised by stochastic rounding per repeat, so the expected
    per-repeat drop is exactly ``drop``); binary checks unchanged unless ``pass_drop`` > 0
    (absolute fall of every case's pass probability).
    Ground truth: every case regressed; ``run_regressed`` is True.  No single case is
    distinguishable from noise at k = 1, so per-case rules have little power; a run-level
    one-sided paired test (Wilcoxon / t on per-case mean differences) should catch it.
    Required: no hard floor in the docs; reference power of a one-sided paired t-test at
    level 0.05 on per-case mean score differences is printed by selfcheck.py (README table).
    A correct gate should reach comparable power; at minimum it must fail more often than
    in ``null_world`` with the same n_cases and k.
    """
    return _gate_world(rng, "broad_drop", n_cases, k, k_baseline, jitter, flip,
                       required="should fail (power); README gives the paired-test reference power",
                       drop=drop, pass_drop=pass_drop,
                       extra_params=dict(drop=drop, pass_drop=pass_drop))


DETERMINISTIC_CHANGES = ("none", "collapse", "one_point_drop", "new_failure", "broad_drop")


def deterministic_world(rng: np.random.Generator, n_cases: int = 20, k: int = 1,
                        change: str = "none", k_baseline: Optional[int] = None) -> GateWorld:
    """Deterministic subject (temperature 0, fixed seed, or replayed): jitter 0, flip 0.

    Every repeat of a run is identical and the baseline equals the current run except for
    the change made, so ANY change is real.
    ``change``:
      * ``none``: current == baseline exactly.  Required: gate PASSES 100% of runs.
      * ``collapse``: one high case 8 -> 2 and its check fails.  Required: FAILS 100%.
      * ``one_point_drop``: one case's score drops by 1 (> tolerance 0.5), check unchanged.
        Required: FAILS 100% (the strict rule: a move beyond tolerance really moved).
      * ``new_failure``: one passing case now fails its check, score unchanged.
        Required: FAILS 100%.
      * ``broad_drop``: every case drops by 1 point.  Required: FAILS 100%.
    """
    if change not in DETERMINISTIC_CHANGES:
        raise ValueError(f"change must be one of {DETERMINISTIC_CHANGES}")
    kw = {}
    if change == "collapse":
        kw["collapse"] = 1
    elif change == "one_point_drop":
        kw["one_point_drop"] = 1
    elif change == "new_failure":
        kw["new_failures"] = 1
    elif change == "broad_drop":
        kw["drop"] = 1.0
    required = ("gate passes 100% of runs" if change == "none" else "gate fails 100% of runs")
    return _gate_world(rng, f"deterministic_{change}", n_cases, k, k_baseline, 0, 0.0,
                       required=required, extra_params=dict(change=change), **kw)


GATE_WORLDS = {
    "null": null_world,
    "collapse": collapse_world,
    "broad_drop": broad_drop_world,
    "deterministic": deterministic_world,
}
