"""Score the >15% verdict and the noise-aware gate on the second set of blind worlds (``worlds2``).

The worlds (``bench/worlds2``, copied unchanged from where they were written blind from
docs/statistics.md, docs/verdict.md, docs/gate.md and issue 27 only; their first and final scores in
``bench/worlds2/scores``) carry their own truth and requirement. World ``i`` of a cell is
drawn with ``numpy.random.default_rng(i)`` (the worlds' README).

Usage: PYTHONPATH=<harness root> python bench/score_worlds2.py [--worlds bench] [--part verdict|gate]
       [--runs N]

Verdict: the primary verdict of :func:`harness.stats.evaluate_prediction` (family ``correct`` for 0/1
worlds, else ``rubric_composite``, with the world's declared scale; 2,000 sign patterns) in every
cell of ``verdict_grid()`` whose truth
makes a verdict an error (``boundary``: both sides; ``not_better``: "supported"; ``better``: "refuted")
at ``--runs`` worlds per cell (binary cells at half), and power ("supported" where the truth is
``better``) at n = 55 with a quarter. Gate: ``gate_grid()`` through :func:`harness.gate.baselines.compare`
in noise-aware mode (as for a subject sampled at temperature > 0), tolerance 0.5 on the 0-10 score.
A cell is ``EXCEEDS`` when its error rate is above the requirement + 3 Monte-Carlo SE
(``worlds2.mc_margin``), ``BELOW`` when a required power is under it - 3 SE.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np


def verdict_of(world, n_resamples: int = 2000) -> str:
    from harness.stats.verdicts import PairedSample, evaluate_prediction

    family = "correct" if world.endpoint == "correct" else "rubric_composite"
    sample = PairedSample(council=tuple(map(float, world.council)), baseline=tuple(map(float, world.baseline)))
    scale = (float(world.scale[0]), float(world.scale[1]))  # the world's declared scale (0-10, or 0-100)
    head = evaluate_prediction(
        {family: sample}, primary=family, n_resamples=n_resamples, scales={family: scale}
    ).headline
    assert head is not None
    return head.verdict


def verdict_errors(truth: str, supported: float, refuted: float, limit: float) -> list[str]:
    """The error rates of a cell above ``limit``: false "supported" where the truth is ``boundary`` or
    ``not_better``, false "refuted" where it is ``boundary`` or ``better`` (also used by score_worlds3)."""
    errors = []
    if truth in ("boundary", "not_better"):
        errors.append(("false supported", supported))
    if truth in ("boundary", "better"):
        errors.append(("false refuted", refuted))
    return [f"{name} {rate:.3f} > {limit:.3f}" for name, rate in errors if rate > limit]


def _label(gen, kw) -> str:
    return gen.__name__ + "(" + ", ".join(f"{k}={v}" for k, v in kw.items()) + ")"


def score_verdicts(W, runs: int) -> None:
    totals = {"cells": 0, "exceeds": 0}
    for gen, kw, ns in W.verdict_grid():
        probe = gen(np.random.default_rng(0), n=ns[0], **kw)
        truth = probe.truth
        binary = probe.endpoint == "correct"
        for n in ns:
            if truth == "better" and n != 55:
                continue
            r = runs // 4 if truth == "better" else runs // 2 if binary else runs
            counts = {"supported": 0, "refuted": 0, "inconclusive": 0, "insufficient_data": 0}
            for i in range(r):
                counts[verdict_of(gen(np.random.default_rng(i), n=n, **kw))] += 1
            sup, ref = counts["supported"] / r, counts["refuted"] / r
            bad = verdict_errors(truth, sup, ref, W.mc_margin(0.025, r))
            totals["cells"] += 1
            totals["exceeds"] += bool(bad)
            power = f", power (supported) {sup:.3f}" if truth == "better" else ""
            print(
                f"verdict {_label(gen, kw)} n={n} [{truth}] runs={r}: supported {sup:.3f}, refuted {ref:.3f}, "
                f"insufficient {counts['insufficient_data'] / r:.3f}{power} "
                + ("EXCEEDS " + "; ".join(bad) if bad else "ok"),
                flush=True,
            )
    print(f"verdict cells: {totals['cells']}, exceeding their limit: {totals['exceeds']}", flush=True)


def _results(world, side: str):
    from harness.run.result import CaseResult

    first, extra = [], []
    for c in world.cases:
        for r, (score, passed) in enumerate(
            zip(getattr(c, f"{side}_scores"), getattr(c, f"{side}_passed"), strict=True)
        ):
            res = CaseResult(
                case_id=c.case_id,
                dataset="sim",
                subject="council",
                status="passed" if passed else "failed",
                scores={"rubric_composite": float(score), "correct": float(bool(passed))},
            )
            (first if r == 0 else extra).append(res)
    return first, extra


def gate_outcome(world) -> tuple[bool, set[str]]:
    from harness.gate.baselines import baseline_from_results, compare

    b_first, b_extra = _results(world, "baseline")
    c_first, c_extra = _results(world, "new")
    base = baseline_from_results(
        "sim", b_first, {"run_id": "b"}, created_at=datetime(2026, 1, 1, tzinfo=UTC), repeats=b_extra
    )
    cmp = compare(
        c_first,
        base,
        {"rubric_composite": world.tolerance, "correct": 0.05},
        ["rubric_composite", "correct"],
        repeats=c_extra,
        noise_aware=True,
    )
    return bool(cmp.exit_code), {r.case_id for r in cmp.reasons if r.case_id}


def score_gate(W, runs: int) -> None:
    for gen, kw in W.gate_grid():
        r = runs if kw.get("n_cases", 20) < 100 else runs // 2
        fails = named = 0
        world = None
        for i in range(r):
            world = gen(np.random.default_rng(i), **kw)
            fail, names = gate_outcome(world)
            fails += fail
            named += fail and bool(set(world.regressed_cases) & names)
        assert world is not None
        rate, nrate = fails / r, named / r
        verdict = ""
        if world.max_fail_rate is not None:
            lim = W.mc_margin(world.max_fail_rate, r)
            verdict = "ok" if rate <= lim else f"EXCEEDS {lim:.3f}"
        elif world.min_detect_rate is not None:
            p = world.min_detect_rate
            floor = p - 3 * math.sqrt(p * (1 - p) / r)
            verdict = "ok" if nrate >= floor else f"BELOW {floor:.3f}"
        print(
            f"gate {_label(gen, kw)} runs={r}: fails {rate:.3f}, fails naming a regressed case {nrate:.3f} "
            f"({world.requirement}) {verdict}",
            flush=True,
        )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--worlds", default=str(Path(__file__).resolve().parent), help="the folder holding the worlds2 package"
    )
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--part", choices=("verdict", "gate"), default=None)
    args = ap.parse_args()
    sys.path.insert(0, args.worlds)
    import worlds2 as W

    t0 = time.time()
    print(f"harness: {__import__('harness').__file__}  runs={args.runs}", flush=True)
    if args.part in (None, "gate"):
        score_gate(W, args.runs)
    if args.part in (None, "verdict"):
        score_verdicts(W, args.runs)
    print(f"{time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
