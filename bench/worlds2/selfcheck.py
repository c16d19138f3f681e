"""Self-check of worlds2: asserts every stated ground truth and prints the reference rates.

Run:  cd /work/blind2 && /work/main/.venv/bin/python -m worlds2.selfcheck   (about a minute)
"""
from __future__ import annotations

import sys
import time

import numpy as np
from scipy import stats

if __package__ in (None, ""):
    sys.path.insert(0, __file__.rsplit("/worlds2/", 1)[0])
    __package__ = "worlds2"

from worlds2 import verdict as V        # noqa: E402
from worlds2 import gate as G           # noqa: E402
from worlds2 import mc_margin           # noqa: E402

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("  FAIL:", msg)


# ==============================================================================================
# verdict worlds
# ==============================================================================================
def spec_of(gen, kw):
    if gen is V.binary_world:
        return V.binary_spec(**kw)
    if gen is V.score_world:
        return V.score_spec(**kw)[0]
    return V.lognormal_spec(**{k: v for k, v in kw.items()})


def verdict_checks():
    print("== verdict worlds: exact construction ==")
    grid = V.verdict_grid()
    worst = 0.0
    for gen, kw, ns in grid:
        spec = spec_of(gen, kw)
        if gen is V.lognormal_world:
            ec = (1 - spec.zero_rate) * spec.council_nonzero.mean
            eb = spec.baseline.mean
            ed = ec - V.THRESHOLD * eb
        else:
            ec, eb, ed, sd, pinf = spec.exact_moments()
            # pmfs are proper
            for law in (spec.baseline, spec.council_nonzero):
                check(abs(law.p.sum() - 1) < 1e-12 and (law.p >= 0).all(), f"pmf {gen.__name__} {kw}")
        rel = abs(ec - kw["ratio"] * eb) / eb
        worst = max(worst, rel)
        check(rel < 1e-12, f"E[C] = R E[B] violated ({rel:.2e}) in {gen.__name__} {kw}")
        check(abs(ed - (kw["ratio"] - V.THRESHOLD) * eb) < 1e-12 * max(1, eb),
              f"E[D] wrong in {gen.__name__} {kw}")
        # one draw per n: shapes, scale, read-only, determinism, truth labels
        for n in ns:
            w1 = gen(np.random.default_rng(1000 + n), n, **kw)
            w2 = gen(np.random.default_rng(1000 + n), n, **kw)
            check(np.array_equal(w1.council, w2.council) and np.array_equal(w1.baseline, w2.baseline),
                  "not deterministic")
            check(w1.council.shape == (n,) and w1.baseline.shape == (n,), "shape")
            check(not w1.council.flags.writeable, "writeable")
            lo, hi = w1.scale
            check(((w1.council >= lo) & (w1.council <= hi) & (w1.baseline >= lo) & (w1.baseline <= hi)).all(),
                  f"out of scale {w1.name}")
            if w1.endpoint == "correct":
                check(set(np.unique(np.r_[w1.council, w1.baseline])) <= {0.0, 1.0}, "binary values")
            if w1.endpoint == "rubric_0_10":
                check(np.all(w1.council == np.round(w1.council)), "integer scores")
            exp_truth = "boundary" if kw["ratio"] == V.THRESHOLD else ("better" if kw["ratio"] > V.THRESHOLD else "not_better")
            check(w1.truth == exp_truth, "truth label")
            if exp_truth == "boundary":
                check(w1.max_false_supported == 0.025 and w1.max_false_refuted == 0.025, "levels")
                check(abs(w1.true_mean_d) < 1e-12 * max(1, w1.true_mean_baseline), "boundary E[D]")
    print(f"  {len(grid)} world configurations x {len(V.NS)} n: max |E[C] - R E[B]| / E[B] = {worst:.2e}")

    # the docs' power formula for binary independent arms equals our exact SD[d]
    print("== verdict: the docs' power formula (statistics.md) reproduced ==")
    p = 0.10
    for R in (1.5, 2.0):
        spec = V.binary_spec(p, R)
        _, _, ed, sd, _ = spec.exact_moments()
        docs_sd = np.sqrt(R * p * (1 - R * p) + 1.15 ** 2 * p * (1 - p))
        check(abs(sd - docs_sd) < 1e-12, "docs sd formula")
        n_need = ((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * docs_sd / ed) ** 2
        print(f"  base 0.10, R = {R}: SD[d] = {sd:.6f} (docs formula {docs_sd:.6f}); n for 80% power "
              f"= {n_need:.0f} (docs: {'1,580' if R == 1.5 else '304'}); power at n = 55 = "
              f"{V._power(55, ed, sd):.3f}")
    # detectable effect at n = 55, base 0.1 (docs: +236%)
    from scipy import optimize
    def pw(R):
        s = np.sqrt(R * p * (1 - R * p) + 1.15 ** 2 * p * (1 - p))
        return stats.norm.cdf(np.sqrt(55) * (R - 1.15) * p / s - stats.norm.ppf(0.975)) - 0.8
    Rd = optimize.brentq(pw, 1.15, 1 / p)
    print(f"  detectable improvement at n = 55, base 0.10: +{100 * (Rd - 1):.1f}% (docs: +236.0%)")

    # sampler validation by 10^6-draw reference
    print("== verdict: sampler vs analytic truth, 10^6 draws each (|z| must be < 5) ==")
    N = 1_000_000
    cells = [(V.binary_world, dict(base_rate=p, ratio=1.15, coupling=lam, zero_rate=z))
             for p in (0.05, 0.3, 0.8) for lam in (0.0, 0.9) for z in (0.0, 0.15)
             if not (p == 0.8 and z == 0.15)]
    cells += [(V.score_world, dict(shape=s, ratio=R, coupling=lam, zero_rate=z))
              for s in V.SCORE_SHAPES for R in (1.15, 1.3) for lam in (0.0, 0.9) for z in (0.0, 0.15)]
    cells += [(V.lognormal_world, dict(ratio=1.15, coupling=lam)) for lam in (0.0, 0.9)]
    rng = np.random.default_rng(2024)
    maxz = 0.0
    for gen, kw in cells:
        try:
            spec = spec_of(gen, kw)
        except ValueError:
            continue
        c, b = spec.draw(rng, N)
        d = c - V.THRESHOLD * b
        if gen is V.lognormal_world:
            ec, eb, ed, sd, pinf = V.lognormal_reference_moments(spec)
        else:
            ec, eb, ed, sd, pinf = spec.exact_moments()
        zs = [(c.mean() - ec) / (c.std() / np.sqrt(N)), (b.mean() - eb) / (b.std() / np.sqrt(N)),
              (d.mean() - ed) / (d.std() / np.sqrt(N))]
        if gen is not V.lognormal_world:
            pi = np.mean(np.abs(d) > 1e-9)
            zs.append((pi - pinf) / np.sqrt(max(pinf * (1 - pinf), 1e-12) / N))
            # SD check: relative error small
            check(abs(d.std() - sd) / sd < 0.01, f"SD[d] mismatch {gen.__name__} {kw}")
        z = max(abs(x) for x in zs)
        maxz = max(maxz, z)
        check(z < 5, f"sampler disagrees with truth (|z| = {z:.2f}) in {gen.__name__} {kw}")
    print(f"  {len(cells)} cells checked, max |z| = {maxz:.2f}")

    print("== verdict: reference table (boundary R = 1.15 unless stated) ==")
    print(f"  {'world':58s} {'E[B]':>8s} {'E[C]':>8s} {'SD[d]':>7s} {'P(inf)':>7s} {'E#inf@n=10':>10s} {'pow55':>6s} {'pow100':>6s}")
    rows = [(V.binary_world, dict(base_rate=p, ratio=R, coupling=lam, zero_rate=z))
            for p in (0.05, 0.1, 0.3, 0.5, 0.8) for R in (1.15, 1.5, 2.0) for lam in (0.0,)
            for z in (0.0, 0.15)]
    rows += [(V.score_world, dict(shape=s, ratio=R, coupling=lam, zero_rate=z))
             for s in V.SCORE_SHAPES for R in (1.15, 1.3, 1.5, 2.0) for lam in (0.0, 0.9) for z in (0.0, 0.15)]
    rows += [(V.lognormal_world, dict(ratio=R, coupling=0.0)) for R in (1.15, 1.3, 1.5, 2.0)]
    for gen, kw in rows:
        try:
            w = gen(np.random.default_rng(0), 10, **kw)
        except ValueError:
            continue
        pw55 = V._power(55, w.true_mean_d, w.true_sd_d)
        pw100 = V._power(100, w.true_mean_d, w.true_sd_d)
        f = lambda x: "   -  " if x is None else f"{x:6.3f}"
        tag = w.name.split("(")[0] + "(" + ",".join(f"{k}={v}" for k, v in kw.items() if k != "shape") + ")"
        print(f"  {tag:58s} {w.true_mean_baseline:8.4f} {w.true_mean_council:8.4f} {w.true_sd_d:7.3f} "
              f"{w.p_informative:7.3f} {10 * w.p_informative:10.2f} {f(pw55)} {f(pw100)}")


def naive_t_reference():
    """Reference only (not the project's rule): a one-sided paired t-test of mean(c - 1.15 b) at
    2.5% per side on boundary worlds, to show which worlds are asymmetric enough to strain a
    symmetric-difference rule.  Pairs with zero SD count as neither side."""
    print("== verdict: reference only, one-sided paired t at 2.5% per side on BOUNDARY worlds "
          "(N = 4000 draws; a correct rule must keep each side <= "
          f"{100 * mc_margin(0.025, 4000):.2f}% at N = 4000) ==")
    cells = [(V.binary_world, dict(base_rate=p, ratio=1.15, coupling=lam, zero_rate=0.0))
             for p in (0.05, 0.1, 0.3, 0.8) for lam in (0.0, 0.9)]
    cells += [(V.score_world, dict(shape=s, ratio=1.15, coupling=lam, zero_rate=z))
              for s in V.SCORE_SHAPES for lam in (0.0, 0.9) for z in (0.0, 0.15)]
    cells += [(V.lognormal_world, dict(ratio=1.15, coupling=lam)) for lam in (0.0, 0.9)]
    N = 4000
    rng = np.random.default_rng(77)
    for gen, kw in cells:
        try:
            spec = spec_of(gen, kw)
        except ValueError:
            continue
        out = []
        for n in (20, 55, 100):
            c, b = spec.draw(rng, N * n)
            d = (c - V.THRESHOLD * b).reshape(N, n)
            sd = d.std(axis=1, ddof=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(sd > 0, d.mean(1) / (sd / np.sqrt(n)), 0.0)
            q = stats.t.ppf(0.975, n - 1)
            out.append(f"n={n:3d}: sup {100 * np.mean(t > q):4.1f}% ref {100 * np.mean(t < -q):4.1f}%")
        tag = gen.__name__ + "(" + ",".join(f"{k}={v}" for k, v in kw.items() if k != "ratio") + ")"
        print(f"  {tag:62s} " + "  ".join(out))


# ==============================================================================================
# gate worlds
# ==============================================================================================
def naive_strict_fails(w: G.GateWorld) -> bool:
    """The plain rule as gate.md states it for deterministic runs, on pass 0: a score drop beyond
    the tolerance or a newly failing case fails the run (a reference only: how a noise-blind rule
    behaves in these worlds)."""
    for c in w.cases:
        if c.baseline_scores[0] - c.new_scores[0] > w.tolerance + 1e-12:
            return True
        if c.baseline_passed[0] and not c.new_passed[0]:
            return True
    return False


def fisher_power(k_b, k_c, p_b, p_c, alpha):
    """Exact power of the one-sided Fisher exact test (new fails more) at level alpha."""
    tot = 0.0
    for fb in range(k_b + 1):
        for fc in range(k_c + 1):
            # p-value: P(X >= fc) with X ~ Hypergeom(total k_b + k_c, failures fb + fc, draws k_c)
            pv = stats.hypergeom.sf(fc - 1, k_b + k_c, fb + fc, k_c)
            if pv <= alpha:
                tot += stats.binom.pmf(fb, k_b, p_b) * stats.binom.pmf(fc, k_c, p_c)
    return tot


def gate_checks():
    print("== gate worlds: truths and structure ==")
    for gen, kw in G.gate_grid():
        for seed in range(3):
            w = gen(np.random.default_rng(seed), **kw)
            check(len(w.cases) == w.n_cases, "n_cases")
            check(w.score_matrix("baseline").shape == (w.n_cases, w.k_baseline), "shape b")
            check(w.score_matrix("new").shape == (w.n_cases, w.k_new), "shape n")
            check(all(c.baseline_correct == tuple(int(x) for x in c.baseline_passed) for c in w.cases), "correct")
            allsc = np.r_[w.score_matrix("baseline").ravel(), w.score_matrix("new").ravel()]
            if w.noise.startswith("jitter"):
                check(((allsc >= 0) & (allsc <= 10)).all(), "scores within 0-10")
            if w.kind == "null":
                check(not w.regressed and w.regressed_cases == () and w.max_fail_rate == 0.05, "null truth")
                check(all(c.true_score_baseline == c.true_score_new and
                          c.true_fail_prob_baseline == c.true_fail_prob_new for c in w.cases), "null latent")
            elif w.kind == "collapse":
                check(w.regressed and w.regressed_cases == ("case-000",) and w.min_detect_rate == 0.99, "collapse truth")
                c0 = w.cases[0]
                check(c0.true_score_baseline - c0.true_score_new == 6.0, "collapse 8->2")
            elif w.kind == "broad_drop":
                check(w.regressed and len(w.regressed_cases) == w.n_cases, "broad truth")
                check(all(abs(c.true_score_baseline - c.true_score_new - kw.get("drop", 0.7)) < 1e-12
                          for c in w.cases), "broad drop size")
            elif w.kind == "binary_rise":
                check(w.regressed and w.regressed_cases == ("case-000",), "binary rise truth")
                check(w.cases[0].true_fail_prob_new == 0.6 and w.cases[0].true_fail_prob_baseline == 0.05,
                      "binary rise probs")
    print(f"  {len(G.gate_grid())} configurations x 3 seeds: truths consistent")

    print("== gate: noise model vs its statement (pooled draws) ==")
    rng = np.random.default_rng(7)
    for noise in ("jitter", "jitter_half", "gauss:1.0"):
        diffs, fl = [], []
        for _ in range(400):
            w = G.gate_null(rng, n_cases=20, k=3, flip=0.10, noise=noise, hard_frac=0.0)
            diffs.append((w.score_matrix("new") - np.array([[c.true_score_new] for c in w.cases])).ravel())
            fl.append(~w.passed_matrix("new"))
        d = np.concatenate(diffs); f = np.concatenate([x.ravel() for x in fl])
        sd = G.noise_sd(noise)
        z_mean = d.mean() / (sd / np.sqrt(d.size))
        check(abs(z_mean) < 5 and abs(d.std() / sd - 1) < 0.02, f"noise {noise}")
        zf = (f.mean() - 0.10) / np.sqrt(0.09 / f.size)
        check(abs(zf) < 5, f"flip rate {noise}")
        print(f"  {noise:11s}: mean noise {d.mean():+.4f} (z {z_mean:+.2f}), SD {d.std():.4f} (stated {sd:.4f}); "
              f"flip rate {f.mean():.4f} (stated 0.10, z {zf:+.2f})")
    drops = []
    for _ in range(400):
        w = G.gate_broad_drop(rng, n_cases=20, k=3, hard_frac=0.0)
        drops.append((np.array([[c.true_score_baseline] for c in w.cases]) - w.score_matrix("new")).ravel())
    d = np.concatenate(drops)
    zd = (d.mean() - 0.7) / (d.std() / np.sqrt(d.size))
    check(abs(zd) < 5, "broad drop mean")
    print(f"  broad drop (integer): mean drop of new-run scores vs baseline truth {d.mean():.4f} (stated 0.7, z {zd:+.2f})")

    print("== gate: reference rates (N draws per cell; MC SE shown) ==")
    N = 1000
    print("  null worlds, the plain noise-blind rule on pass 0 (reference: how often it cries wolf;"
          " a correct gate must stay <= 5% + 3 SE = "
          f"{100 * mc_margin(0.05, 400):.2f}% at 400 draws, {100 * mc_margin(0.05, 200):.2f}% at 200)")
    for n in (5, 20, 100):
        line = []
        for k in (1, 3, 5):
            r = np.mean([naive_strict_fails(G.gate_null(np.random.default_rng(10_000 * n + 100 * k + s),
                                                        n_cases=n, k=k)) for s in range(N)])
            line.append(f"k={k}: {100 * r:5.1f}%")
        print(f"    {n:3d} cases, flip 0.10, ±1 jitter: " + "  ".join(line))

    print("  broad drop 0.7 (tolerance 0.5): paired one-sided t-test on per-case mean differences")
    for n, k in ((20, 1), (20, 3), (100, 1)):
        for integer in (True, False):
            rej0 = rejt = 0
            for s in range(N):
                w = G.gate_broad_drop(np.random.default_rng(50_000 + 1000 * n + 10 * k + s), n_cases=n,
                                      k=k, integer_scores=integer)
                dd = w.score_matrix("baseline").mean(1) - w.score_matrix("new").mean(1)
                t0 = dd.mean() / (dd.std(ddof=1) / np.sqrt(n))
                tt = (dd.mean() - 0.5) / (dd.std(ddof=1) / np.sqrt(n))
                rej0 += t0 > stats.t.ppf(0.95, n - 1)
                rejt += tt > stats.t.ppf(1 - 0.015, n - 1)
            p0, pt = rej0 / N, rejt / N
            print(f"    {n:3d} cases k={k} {'integer' if integer else 'shift  '}: drop > 0 at 5%: {100 * p0:5.1f}%"
                  f" (SE {100 * np.sqrt(p0 * (1 - p0) / N):.1f});  drop > 0.5 at 1.5%: {100 * pt:5.1f}%"
                  f" (SE {100 * np.sqrt(pt * (1 - pt) / N):.1f})")

    print("  collapse 8 -> 2 in 1 of 5 (known-noise z reference: drop of case means > 0.5 + z_(1-0.035/5) "
          "* sd_noise * sqrt(1/k_b + 1/k_c))")
    zq = stats.norm.ppf(1 - 0.035 / 5)
    for k in (1, 3, 5):
        hit = 0
        for s in range(N):
            w = G.gate_collapse(np.random.default_rng(90_000 + 10 * k + s), k=k)
            dd = w.score_matrix("baseline").mean(1) - w.score_matrix("new").mean(1)
            band = 0.5 + zq * G.noise_sd(w.noise) * np.sqrt(2 / k)
            hit += dd[0] > band
        print(f"    k={k}: case-000 beyond the band in {100 * hit / N:.1f}% of {N} draws (requirement >= 99%)")

    print("  binary check 5% -> 60% on one case: exact power of a lone one-sided Fisher test")
    for k in (1, 3, 5, 10):
        print(f"    k={k:2d}: at 3.5%: {100 * fisher_power(k, k, 0.05, 0.60, 0.035):5.1f}%   at 3.5%/5 "
              f"(5 cases, Bonferroni): {100 * fisher_power(k, k, 0.05, 0.60, 0.035 / 5):5.1f}%")
    check(fisher_power(1, 1, 0.05, 0.60, 0.035) == 0.0, "k=1 Fisher cannot reject (p >= 0.5)")


def main():
    t = time.time()
    verdict_checks()
    naive_t_reference()
    gate_checks()
    print(f"== done in {time.time() - t:.0f} s: {'ALL CHECKS PASSED' if not FAILS else f'{len(FAILS)} FAILED'} ==")
    if FAILS:
        for f in FAILS[:20]:
            print("  -", f)
        sys.exit(1)


if __name__ == "__main__":
    main()
