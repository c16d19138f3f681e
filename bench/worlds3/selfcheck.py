"""Self-check of every world in the grid.

    cd /work/worlds3 && /work/main/.venv/bin/python -m worlds3.selfcheck

For each configuration:
  1. exact: the population means recomputed from the distributions themselves (pmf sums, the beta
     mean, the capped log-normal formula at the solved location; binary probabilities) give the
     stated ratio to 1e-9, and the stated truth label matches it;
  2. Monte-Carlo: a reference sample of REF_N paired cases gives a ratio of means within
     Z_FAIL standard errors of the stated one (SE by the delta method,
     sd(council - r baseline) / (sqrt(N) mean(baseline)));
  3. scale: every value of the reference sample and of 100 small worlds at each n of the grid is
     finite, inside the scale and on the world's lattice; shapes, endpoint and scale are right;
  4. purity: the same seed gives the same arrays; the dataclass is frozen, its arrays read-only.
Exits with status 1 (and a FAIL line) on any failure.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections import Counter

import numpy as np

from . import core, verdict_grid, mc_margin

REF_N = 1_000_000
Z_FAIL = 4.0  # 66 configurations: a 4-SE limit keeps a spurious failure below 0.5% overall
SMALL_WORLDS = 100


def _on_lattice(x: np.ndarray, lattice: str) -> bool:
    if lattice == "continuous":
        return True
    step = {"binary": 1.0, "integer": 1.0, "half": 0.5, "coarse": 5.0}[lattice]
    return bool(np.all(np.abs(x / step - np.round(x / step)) < 1e-9))


def _exact_ratio(gen, kw):
    """Recompute the population means from the distributions, independently of the solve."""
    w0 = gen(np.random.default_rng(0), n=1, **kw)
    spec = w0.spec
    if w0.endpoint == "correct":
        w, pb, pc, _, _ = core.solve_binary(spec)
        mb = (1 - spec.crash_b) * float(np.dot(w, pb))
        mc = (1 - spec.crash_c) * float(np.dot(w, pc))
        return mc, mb, w0
    mc, mb = core.exact_means(spec)
    return mc, mb, w0


def main() -> int:
    t0 = time.time()
    grid = verdict_grid()
    failures = []
    truths = Counter(core.truth_of(kw["ratio"]) for _, kw, _ in grid)
    print(f"worlds3 self-check: {len(grid)} configurations, truths {dict(truths)}")
    print(f"reference sample {REF_N:,} paired cases per configuration; fail beyond {Z_FAIL} MC SE")
    if not 40 <= len(grid) <= 70:
        failures.append(f"grid has {len(grid)} configurations (want 40-70)")
    if truths["boundary"] * 3 < 2 * len(grid):
        failures.append("fewer than two thirds of the configurations are boundary worlds")
    m = mc_margin(0.025, 2000)
    if abs(m - (0.025 + 3 * math.sqrt(0.025 * 0.975 / 2000))) > 1e-15:
        failures.append("mc_margin formula")
    print(f"mc_margin(0.025, 2000) = {m:.5f}; mc_margin(0.025, 200) = {mc_margin(0.025, 200):.5f}")
    print()
    hdr = (
        f"{'#':>2} {'generator':18s} {'truth':10s} {'stated':>7s} {'exact':>14s} {'measured':>9s} "
        f"{'MC SE':>7s} {'z':>6s}  {'mean c':>7s} {'mean b':>7s}  {'P(c=0)':>6s} {'P(b=0)':>6s} "
        f"{'P(c=top)':>8s} {'corr':>5s}  kwargs"
    )
    print(hdr)
    for i, (gen, kw, ns) in enumerate(grid):
        name = gen.__name__
        tag = f"[{i}] {name}({kw})"
        # 1. exact
        mc_x, mb_x, w0 = _exact_ratio(gen, kw)
        r_exact = mc_x / mb_x
        stated = w0.true_ratio
        if abs(r_exact - stated) > 1e-9 * stated:
            failures.append(f"{tag}: exact ratio {r_exact!r} != stated {stated!r}")
        if abs(w0.mean_council / w0.mean_baseline - stated) > 1e-12 * stated:
            failures.append(f"{tag}: solved means give {w0.mean_council / w0.mean_baseline!r}")
        if w0.truth != core.truth_of(kw["ratio"]) or stated != kw["ratio"]:
            failures.append(f"{tag}: truth label {w0.truth} / ratio {stated}")
        # 2. Monte-Carlo reference sample
        ref = gen(np.random.default_rng(10_000 + i), n=REF_N, **kw)
        c, b = ref.council, ref.baseline
        r_hat = c.mean() / b.mean()
        se = np.std(c - stated * b, ddof=1) / (math.sqrt(REF_N) * b.mean())
        z = (r_hat - stated) / se
        if abs(z) > Z_FAIL:
            failures.append(f"{tag}: measured ratio {r_hat:.5f} vs stated {stated} (z = {z:.2f})")
        lo, hi = ref.scale
        for arr, arm in ((c, "council"), (b, "baseline")):
            if not (np.all(np.isfinite(arr)) and arr.min() >= lo and arr.max() <= hi):
                failures.append(f"{tag}: reference {arm} outside scale {ref.scale}: [{arr.min()}, {arr.max()}]")
            if not _on_lattice(arr, ref.lattice):
                failures.append(f"{tag}: reference {arm} off its lattice {ref.lattice}")
        expect_scale = (0.0, 1.0) if ref.endpoint == "correct" else (0.0, 10.0)
        if ref.scale != expect_scale or ref.endpoint not in ("correct", "rubric_composite"):
            failures.append(f"{tag}: endpoint {ref.endpoint} scale {ref.scale}")
        corr = np.corrcoef(c, b)[0, 1]
        print(
            f"{i:2d} {name:18s} {ref.truth:10s} {stated:7.3f} {r_exact:14.12f} {r_hat:9.5f} {se:7.5f} {z:6.2f}  "
            f"{mc_x:7.4f} {mb_x:7.4f}  {np.mean(c == 0):6.3f} {np.mean(b == 0):6.3f} {np.mean(c == hi):8.3f} "
            f"{corr:5.2f}  {kw}"
        )
        # 3. small worlds at every n of the grid
        for n in ns:
            for s in range(SMALL_WORLDS):
                w = gen(np.random.default_rng(s), n=n, **kw)
                for arr in (w.council, w.baseline):
                    if arr.shape != (n,) or arr.dtype.kind != "f":
                        failures.append(f"{tag} n={n} seed {s}: shape {arr.shape} dtype {arr.dtype}")
                    if not (np.all(np.isfinite(arr)) and arr.min() >= lo and arr.max() <= hi):
                        failures.append(f"{tag} n={n} seed {s}: value outside scale")
                    if not _on_lattice(arr, w.lattice):
                        failures.append(f"{tag} n={n} seed {s}: value off lattice")
        # 4. purity and immutability
        a = gen(np.random.default_rng(123), n=ns[0], **kw)
        a2 = gen(np.random.default_rng(123), n=ns[0], **kw)
        if not (np.array_equal(a.council, a2.council) and np.array_equal(a.baseline, a2.baseline)):
            failures.append(f"{tag}: not a pure function of its Generator")
        try:
            a.truth = "x"  # type: ignore[misc]
            failures.append(f"{tag}: dataclass not frozen")
        except dataclasses.FrozenInstanceError:
            pass
        if a.council.flags.writeable or a.baseline.flags.writeable:
            failures.append(f"{tag}: arrays writeable")
    print()
    print(f"elapsed {time.time() - t0:.1f} s")
    if failures:
        for f in failures:
            print("FAIL:", f)
        print(f"SELF-CHECK FAILED: {len(failures)} failure(s)")
        return 1
    print("SELF-CHECK PASSED: every stated ratio is exact (1e-9) and within MC error of a "
          f"{REF_N:,}-case reference sample; every value inside its scale and lattice.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
