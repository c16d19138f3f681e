"""Score the regression gate on the blind gate worlds (bench/worlds/gate.py): false-alarm rate in the
null worlds, power in the collapse world, the deterministic worlds' required outcomes.

Usage: PYTHONPATH=<harness root> python bench/score_worlds_gate.py [--worlds DIR] [--runs N] [--mode auto|sampled]

``--mode sampled`` tells the gate what ``compare_run`` infers from a temperature > 0 config
(noise-aware, ``noise_aware=True``); ``auto`` lets ``compare`` decide from the repeats alone (the
behaviour of harness versions without that flag). Deterministic worlds are always compared with
``noise_aware`` left to ``compare`` (temperature 0: strict).
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np


def _results(cases, side, repeats_from=1):
    from harness.run.result import CaseResult

    first, extra = [], []
    for c in cases:
        reps = getattr(c, side)
        for r, (score, correct) in enumerate(reps):
            res = CaseResult(
                case_id=c.case_id,
                dataset="sim",
                subject="council",
                status="passed" if correct else "failed",
                scores={"rubric_composite": float(score), "correct": float(correct)},
            )
            (first if r == 0 else extra).append(res)
    return first, extra


def gate_fails(world, sampled: bool) -> tuple[bool, set[str]]:
    from harness.gate.baselines import baseline_from_results, compare

    b_first, b_extra = _results(world.cases, "baseline")
    c_first, c_extra = _results(world.cases, "current")
    base = baseline_from_results(
        "sim", b_first, {"run_id": "b"}, created_at=datetime(2026, 1, 1, tzinfo=UTC), repeats=b_extra
    )
    kw = {}
    if sampled and not world.deterministic and "noise_aware" in inspect.signature(compare).parameters:
        kw["noise_aware"] = True
    cmp = compare(
        c_first,
        base,
        {"rubric_composite": 0.5, "correct": 0.05},
        ["rubric_composite", "correct"],
        repeats=c_extra,
        **kw,
    )
    named = {r.case_id for r in cmp.reasons if r.case_id}
    return bool(cmp.exit_code), named


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worlds", default=str(Path(__file__).parent / "worlds"))
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--mode", choices=("auto", "sampled"), default="sampled")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.worlds).parent))
    gate = __import__(Path(args.worlds).name + ".gate", fromlist=["gate"])
    sampled = args.mode == "sampled"
    t0 = time.time()
    print(f"harness: {__import__('harness').__file__}  mode={args.mode}  runs={args.runs}")
    for n in (5, 20, 100):
        for k in (1, 3, 5):
            rng = np.random.default_rng(1000 * n + k)
            runs = args.runs if n < 100 else args.runs // 2
            fails = sum(gate_fails(gate.null_world(rng, n_cases=n, k=k), sampled)[0] for _ in range(runs))
            lim = 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)
            print(
                f"null n={n:3d} k={k}: gate fails {fails}/{runs} = {fails / runs:.3f} (required <= 0.05, "
                f"MC limit {lim:.3f})",
                flush=True,
            )
    for k in (1, 3, 5):
        rng = np.random.default_rng(7 + k)
        caught = named = 0
        runs = args.runs
        for _ in range(runs):
            w = gate.collapse_world(rng, n_cases=5, k=k)
            fail, names = gate_fails(w, sampled)
            caught += fail
            named += fail and any(c.case_id in names for c in w.cases if c.regressed)
        print(
            f"collapse 1 of 5, k={k}: gate fails {caught}/{runs} = {caught / runs:.3f}, names the case "
            f"{named / runs:.3f} (required >= 0.99)",
            flush=True,
        )
    for n, k in ((20, 1), (20, 3), (100, 1)):
        rng = np.random.default_rng(99 + n + k)
        runs = args.runs // 2
        fails = sum(gate_fails(gate.broad_drop_world(rng, n_cases=n, k=k), sampled)[0] for _ in range(runs))
        print(f"broad drop 0.7, n={n} k={k}: gate fails {fails}/{runs} = {fails / runs:.3f}", flush=True)
    for change in gate.DETERMINISTIC_CHANGES:
        rng = np.random.default_rng(5)
        runs = 50
        fails = sum(
            gate_fails(gate.deterministic_world(rng, n_cases=20, k=1, change=change), sampled)[0] for _ in range(runs)
        )
        want = 0 if change == "none" else runs
        print(f"deterministic {change}: gate fails {fails}/{runs} (required {want}/{runs})", flush=True)
    print(f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
