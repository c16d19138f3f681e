"""Score the >15% verdict on the third set of blind worlds (``worlds3``, issue 27).

The worlds (``bench/worlds3``, copied unchanged from where they were written blind from
docs/statistics.md, docs/verdict.md and issue 27 only; first and final scores in
``bench/worlds3/scores``) carry their truth, their exact population ratio and their scale. World ``i``
of a cell is drawn with ``numpy.random.default_rng(i)``.

Usage: PYTHONPATH=<harness root> python bench/score_worlds3.py [--worlds bench] [--runs N] [--only SUBSTRING]

Each cell of ``verdict_grid()`` is scored at every n with ``--runs`` worlds through the primary verdict of
:func:`harness.stats.evaluate_prediction` (family ``correct`` for 0/1 worlds, else ``rubric_composite``,
with the world's declared scale, 0-1 or 0-10, as a run passes its scorers' declared scales; the
first score, on a rule from before scales were passed, without). An error is a "supported" verdict where the truth is
``boundary`` or ``not_better``, or a "refuted" one where it is ``boundary`` or ``better``; a cell is
``EXCEEDS`` when an error rate is above 2.5% + 3 Monte-Carlo SE (``worlds3.mc_margin``). Power
("supported" where the truth is ``better``) is reported beside it.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script from anywhere: its sibling
from score_worlds2 import _label, verdict_errors  # noqa: E402


def verdict_of(world, n_resamples: int = 2000) -> str:
    from harness.stats.verdicts import PairedSample, evaluate_prediction

    family = "correct" if world.endpoint == "correct" else "rubric_composite"
    sample = PairedSample(council=tuple(map(float, world.council)), baseline=tuple(map(float, world.baseline)))
    kwargs = {"scales": {family: (float(world.scale[0]), float(world.scale[1]))}}  # the world's declared scale
    if "scales" not in inspect.signature(evaluate_prediction).parameters:  # a rule from before scales (first score)
        kwargs = {}
    head = evaluate_prediction({family: sample}, primary=family, n_resamples=n_resamples, **kwargs).headline
    assert head is not None
    return head.verdict


def score_verdicts(W, runs: int, only: str | None) -> None:
    cells = exceeds = 0
    for gen, kw, ns in W.verdict_grid():
        label = _label(gen, kw)
        if only and only not in label:
            continue
        for n in ns:
            counts = {"supported": 0, "refuted": 0, "inconclusive": 0, "insufficient_data": 0}
            world = None
            for i in range(runs):
                world = gen(np.random.default_rng(i), n=n, **kw)
                counts[verdict_of(world)] += 1
            assert world is not None
            truth = world.truth
            sup, ref = counts["supported"] / runs, counts["refuted"] / runs
            bad = verdict_errors(truth, sup, ref, W.mc_margin(0.025, runs))
            cells += 1
            exceeds += bool(bad)
            extra = f", power (supported) {sup:.3f}" if truth == "better" else ""
            print(
                f"verdict {label} n={n} [{truth}, ratio {world.true_ratio:.3f}] runs={runs}: supported {sup:.3f}, "
                f"refuted {ref:.3f}, insufficient {counts['insufficient_data'] / runs:.3f}{extra} "
                + ("EXCEEDS " + "; ".join(bad) if bad else "ok"),
                flush=True,
            )
    print(f"verdict cells: {cells}, exceeding their limit: {exceeds}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worlds", default=str(Path(__file__).resolve().parent), help="the folder holding worlds3")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--only", default=None, help="score only cells whose label contains this")
    args = ap.parse_args()
    sys.path.insert(0, args.worlds)
    import worlds3 as W

    t0 = time.time()
    print(f"harness: {__import__('harness').__file__}  runs={args.runs}", flush=True)
    score_verdicts(W, args.runs, args.only)
    print(f"{time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
