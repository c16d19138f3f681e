"""Score the >15% verdict and the bias flags on the blind worlds (bench/worlds/verdict.py, bias.py).

Usage: PYTHONPATH=<harness root> python bench/score_worlds_verdict_bias.py [--worlds DIR] [--runs N]
       [--only verdict|bias]

Verdict: the primary verdict of :func:`harness.stats.evaluate_prediction` on each world's paired
arrays (family ``correct`` for 0/1 worlds, else ``rubric_composite``); the rates of false
"supported" and false "refuted" (each bounded by 2.5%) and power where the truth is "better".
Bias: :func:`harness.bias.aggregate.run_aggregated_bias_audit` on the world's records; a reviewer
flag is any reviewer labelled harsh or generous, an anomaly flag any anomalous session.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np


def verdict_of(world) -> str:
    from harness.stats.verdicts import PairedSample, evaluate_prediction

    family = "correct" if world.endpoint == "correct" else "rubric_composite"
    sample = PairedSample(council=tuple(map(float, world.council)), baseline=tuple(map(float, world.baseline)))
    report = evaluate_prediction({family: sample}, primary=family, n_resamples=2000)
    head = report.headline
    assert head is not None
    return head.verdict


def score_verdicts(W, runs: int) -> None:
    cells = []
    for base in (0.1, 0.3, 0.5):
        for n in (10, 20, 55, 100):
            cells.append((f"binary_boundary base={base} n={n}", lambda r, b=base, n=n: W.binary_boundary(r, n, b)))
    for n in (10, 20, 55, 100):
        cells.append((f"scores_boundary n={n}", lambda r, n=n: W.scores_boundary(r, n)))
    for ep in ("score", "correct"):
        for n in (20, 55, 100):
            cells.append((f"zero_inflated {ep} n={n}", lambda r, n=n, ep=ep: W.zero_inflated(r, n, endpoint=ep)))
    for ratio in (1.0, 1.15):
        for n in (20, 55):
            cells.append(
                (f"near_ceiling ratio={ratio} n={n}", lambda r, n=n, q=ratio: W.near_ceiling(r, n, true_ratio=q))
            )
    for heavy in ("council", "baseline"):
        for n in (20, 55, 100):
            cells.append((f"heavy_tailed {heavy} n={n}", lambda r, n=n, h=heavy: W.heavy_tailed(r, n, heavy=h)))
    for ratio in (1.5, 2.0):
        cells.append((f"power_world ratio={ratio} n=55", lambda r, q=ratio: W.power_world(r, ratio=q)))
    for name, make in cells:
        rng = np.random.default_rng(sum(map(ord, name)))
        counts = {"supported": 0, "refuted": 0, "inconclusive": 0, "insufficient_data": 0}
        truth = None
        for _ in range(runs):
            w = make(rng)
            truth = w.truth
            counts[verdict_of(w)] += 1
        lim = 0.025 + 3 * math.sqrt(0.025 * 0.975 / runs)
        fs = counts["supported"] / runs if truth != "better" else float("nan")
        fr = counts["refuted"] / runs if truth != "not_better" else float("nan")
        print(
            f"{name} (truth {truth}): supported {counts['supported']}/{runs}, refuted {counts['refuted']}/{runs}, "
            f"insufficient {counts['insufficient_data']}; false supported {fs:.3f}, false refuted {fr:.3f} "
            f"(limit {lim:.3f})",
            flush=True,
        )


def score_bias(W, runs: int) -> None:
    from harness.bias.aggregate import run_aggregated_bias_audit
    from harness.bias.store import BiasMetricRecord

    def audit(world):
        recs = [BiasMetricRecord.model_validate(r) for r in world.records]
        return run_aggregated_bias_audit(recs, bootstrap_resamples=300)

    def flags(rep):
        reviewer = any(p.label in ("harsh", "generous") for p in rep.reviewer_profiles)
        seed = any(getattr(p, "seed_label", p.label) in ("harsh", "generous") for p in rep.reviewer_profiles)
        anomaly = bool(rep.anomalies)
        return reviewer, seed, anomaly

    for peers in (True, False):
        for spread in (0.0, 1.0):
            for n in (10, 20, 30, 50, 100):
                rng = np.random.default_rng(n + 1000 * peers + int(10 * spread))
                rv = sd = an = 0
                r = runs if n <= 30 else runs // 2
                for _ in range(r):
                    w = W.no_bias_sessions(rng, n, peers_are_reviewers=peers, model_spread=spread, position_base=1)
                    a, b, c = flags(audit(w))
                    rv += a
                    sd += b
                    an += c
                print(
                    f"no_bias peers={peers} spread={spread} sessions={n}: reviewer flag {rv}/{r} = {rv / r:.3f}, "
                    f"seed reviewer rule {sd / r:.3f}, anomaly flag {an}/{r} = {an / r:.3f}",
                    flush=True,
                )
    for n in (10, 30, 100):
        rng = np.random.default_rng(77 + n)
        r = runs if n <= 30 else runs // 2
        an = sum(flags(audit(W.anomaly_null(rng, n, position_base=1)))[2] for _ in range(r))
        print(f"anomaly_null sessions={n}: anomaly flag {an}/{r} = {an / r:.3f}", flush=True)
    for n in (10, 20, 50):
        rng = np.random.default_rng(55 + n)
        r = runs // 2
        hit = 0
        for _ in range(r):
            rep = audit(W.harsh_reviewer_sessions(rng, n, position_base=1))
            hit += any(p.reviewer_id == "sim/alpha" and p.label == "harsh" for p in rep.reviewer_profiles)
        print(f"harsh_reviewer sessions={n}: alpha flagged harsh {hit}/{r} = {hit / r:.3f}", flush=True)
    for n in (30, 100):
        rng = np.random.default_rng(66 + n)
        r = runs // 2
        hit = sum(flags(audit(W.anomaly_world(rng, n, position_base=1)))[2] for _ in range(r))
        print(f"anomaly_world sessions={n}: anomaly flagged {hit}/{r} = {hit / r:.3f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worlds", default=str(Path(__file__).parent / "worlds"))
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--only", choices=("verdict", "bias"), default=None)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.worlds).parent))
    W = __import__(Path(args.worlds).name, fromlist=["x"])
    t0 = time.time()
    print(f"harness: {__import__('harness').__file__}  runs={args.runs}")
    if args.only in (None, "verdict"):
        score_verdicts(W, args.runs)
    if args.only in (None, "bias"):
        score_bias(W, args.runs)
    print(f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
