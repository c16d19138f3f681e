"""Self-check: draw every world many times and assert its stated ground truth.

Run:  python -m worlds.selfcheck   (from /work/blind)   or   python worlds/selfcheck.py
Options: --quick (fewer draws; verdict ratios over 2,000 instead of 20,000 worlds),
--reference (also print reference-rule rates for README; slow, minutes).
Exit code 0 when every assertion holds.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "worlds"

import worlds as W  # noqa: E402
from worlds.common import t_sf, mc_upper_limit  # noqa: E402

QUICK = "--quick" in sys.argv
REFERENCE = "--reference" in sys.argv
FAILS: list = []
NOW = datetime(2026, 1, 15, 12, 0, tzinfo=timezone.utc)


def check(cond, msg):
    print(("  ok   " if cond else "  FAIL ") + msg)
    if not cond:
        FAILS.append(msg)


def within(obs, expected, se, z=4.0):
    return abs(obs - expected) <= z * se + 1e-12


# =============================================================================== gate
def gate_checks():
    print("== gate worlds")
    rng = np.random.default_rng(20240101)
    draws = 150 if QUICK else 400
    for k in (1, 3, 5):
        for n_cases in (5, 20, 100):
            jit = Counter()
            passes = defaultdict(lambda: [0, 0])
            ok_shape = ok_truth = ok_range = True
            kinds = set()
            for _ in range(draws):
                w = W.null_world(rng, n_cases, k)
                ok_shape &= (w.n_cases == n_cases and not w.deterministic)
                ok_truth &= (not w.run_regressed)
                for c in w.cases:
                    kinds.add(c.kind)
                    ok_shape &= (len(c.baseline) == k and len(c.current) == k)
                    ok_truth &= (not c.regressed and c.true_score_baseline == c.true_score_current)
                    for s, y in c.baseline + c.current:
                        ok_range &= (1 <= s <= 10 and y in (0, 1))
                        jit[s - c.true_score_baseline] += 1
                        passes[c.kind][0] += y
                        passes[c.kind][1] += 1
            tot = sum(jit.values())
            label = f"null n={n_cases} k={k}"
            check(ok_shape and ok_truth and ok_range, f"{label}: shapes, scores in 1..10, truth = no regression")
            check(set(jit) == {-1, 0, 1} and all(within(jit[d] / tot, 1 / 3, math.sqrt(2 / 9 / tot)) for d in (-1, 0, 1)),
                  f"{label}: jitter uniform on {{-1,0,1}} ({', '.join(f'{d:+d}:{jit[d]/tot:.3f}' for d in (-1, 0, 1))})")
            expect = {"high": 0.9, "middling": 0.5, "low": 0.1}
            rates = {kd: passes[kd][0] / passes[kd][1] for kd in passes}
            check(kinds == {"high", "middling", "low"} and all(
                within(rates[kd], expect[kd], math.sqrt(expect[kd] * (1 - expect[kd]) / passes[kd][1])) for kd in rates),
                f"{label}: pass rates high/middling/low = " + "/".join(f"{rates[kd]:.3f}" for kd in ("high", "middling", "low"))
                + " (flip 0.1 -> 0.9/0.5/0.1)")
    # flip parameter honoured
    fl = [y for _ in range(300) for c in W.null_world(rng, 20, 3, flip=0.25).cases if c.kind == "high"
          for _, y in c.baseline + c.current]
    check(within(1 - np.mean(fl), 0.25, math.sqrt(0.25 * 0.75 / len(fl))), f"null flip=0.25: high-case flip rate {1 - np.mean(fl):.3f}")

    # collapse
    ok = True
    drops = []
    for k in (1, 3, 5):
        for _ in range(draws):
            w = W.collapse_world(rng, 5, k)
            reg = [c for c in w.cases if c.regressed]
            ok &= (w.run_regressed and len(reg) == 1 and reg[0].true_score_baseline == 8
                   and reg[0].true_score_current == 2 and all(y == 0 for _, y in reg[0].current)
                   and sum(c.kind == "high" for c in w.cases) == 3)
            drops.append(min(s for s, _ in reg[0].baseline) - max(s for s, _ in reg[0].current))
            ok &= all(c.true_score_baseline == c.true_score_current for c in w.cases if not c.regressed)
    check(ok and min(drops) >= 4, f"collapse: exactly one case 8 -> 2, failing its check; observed drop >= {min(drops)}")

    # broad drop
    for k in (1, 3):
        d, reg_all = [], True
        for _ in range(draws):
            w = W.broad_drop_world(rng, 20, k)
            reg_all &= all(c.regressed for c in w.cases) and w.run_regressed
            for c in w.cases:
                d.append(np.mean([s for s, _ in c.current]) - np.mean([s for s, _ in c.baseline]))
        d = np.array(d)
        check(reg_all and within(d.mean(), -0.7, d.std() / math.sqrt(len(d))),
              f"broad_drop k={k}: mean per-case score change {d.mean():+.3f} (true -0.700), every case regressed")

    # deterministic
    for change in W.DETERMINISTIC_CHANGES:
        ok = True
        for _ in range(100):
            w = W.deterministic_world(rng, 20, 3, change=change)
            ok &= w.deterministic
            ok &= all(len(set(c.baseline)) == 1 and len(set(c.current)) == 1 for c in w.cases)
            diff = [c for c in w.cases if c.baseline != c.current]
            ok &= (set(id(c) for c in diff) == set(id(c) for c in w.cases if c.regressed))
            if change == "none":
                ok &= (not diff and not w.run_regressed)
            elif change == "collapse":
                ok &= (len(diff) == 1 and diff[0].baseline[0][0] == 8 and diff[0].current[0] == (2, 0))
            elif change == "one_point_drop":
                ok &= (len(diff) == 1 and diff[0].baseline[0][0] - diff[0].current[0][0] == 1
                       and diff[0].baseline[0][1] == diff[0].current[0][1])
            elif change == "new_failure":
                ok &= (len(diff) == 1 and diff[0].baseline[0] == (diff[0].current[0][0], 1) and diff[0].current[0][1] == 0)
            elif change == "broad_drop":
                ok &= (len(diff) == 20 and all(c.baseline[0][0] - c.current[0][0] == 1 for c in diff))
        check(ok, f"deterministic {change}: repeats identical, every difference real and marked regressed")
    json.dumps(W.null_world(rng, 5, 3).to_dict())
    check(True, "gate worlds serialise to JSON")


def paired_t_reject(diffs, alpha=0.05):
    """One-sided paired t-test 'mean drop > 0' on per-case differences (reference)."""
    n = len(diffs)
    sd = np.std(diffs, ddof=1)
    if sd == 0:
        return np.mean(diffs) < 0
    t = np.mean(diffs) / (sd / math.sqrt(n))
    return t_sf(-t, n - 1) < alpha


def gate_reference():
    print("== gate reference: one-sided paired t-test (alpha 0.05) on per-case mean score change")
    rng = np.random.default_rng(7)
    N = 400 if QUICK else 2000
    rows = []
    for k in (1, 3, 5):
        for n_cases in (5, 20, 55, 100):
            rej_null = rej_drop = 0
            for _ in range(N):
                for world, tgt in ((W.null_world, "null"), (W.broad_drop_world, "drop")):
                    w = world(rng, n_cases, k)
                    d = np.array([np.mean([s for s, _ in c.current]) - np.mean([s for s, _ in c.baseline]) for c in w.cases])
                    r = paired_t_reject(d)
                    if tgt == "null":
                        rej_null += r
                    else:
                        rej_drop += r
            rows.append((k, n_cases, rej_null / N, rej_drop / N))
            print(f"   k={k} n_cases={n_cases:3d}: null reject {rej_null / N:.3f}   broad drop 0.7 power {rej_drop / N:.3f}  ({N} worlds)")
    return rows


# =============================================================================== verdict
def verdict_checks():
    print("== verdict worlds")
    rng = np.random.default_rng(20240202)
    R = 2000 if QUICK else 20000
    configs = []
    for br in (0.1, 0.3, 0.5):
        for rho in (0.0, 0.5):
            configs.append((f"binary_boundary base={br} rho={rho} n=10", lambda r, br=br, rho=rho: W.binary_boundary(r, 10, br, rho=rho)))
    configs += [
        ("binary_boundary base=0.1 n=100", lambda r: W.binary_boundary(r, 100, 0.1)),
        ("scores_boundary n=10", lambda r: W.scores_boundary(r, 10)),
        ("zero_inflated score n=10", lambda r: W.zero_inflated(r, 10)),
        ("zero_inflated correct n=10", lambda r: W.zero_inflated(r, 10, endpoint="correct")),
        ("near_ceiling ratio 1.0 n=10", lambda r: W.near_ceiling(r, 10)),
        ("near_ceiling ratio 1.15 n=10", lambda r: W.near_ceiling(r, 10, true_ratio=1.15)),
        ("heavy_tailed council n=10", lambda r: W.heavy_tailed(r, 10)),
        ("heavy_tailed baseline n=10", lambda r: W.heavy_tailed(r, 10, heavy="baseline")),
        ("power ratio 1.5 n=55", lambda r: W.power_world(r, 1.5)),
        ("power ratio 2.0 n=55", lambda r: W.power_world(r, 2.0)),
    ]
    for label, fn in configs:
        reps = R if "n=10" in label else max(R // 10, 200)
        cs, bs = [], []
        w = None
        for _ in range(reps):
            w = fn(rng)
            cs.append(w.council)
            bs.append(w.baseline)
        c, b = np.concatenate(cs), np.concatenate(bs)
        tr = w.true_ratio
        # delta-method SE of the ratio of means (paired)
        d = c - tr * b
        se_ratio = d.std() / math.sqrt(len(d)) / b.mean()
        emp = c.mean() / b.mean()
        exact_ok = abs(w.true_mean_council / w.true_mean_baseline - tr) < 1e-12
        target = {"near_ceiling ratio 1.0 n=10": 1.0, "power ratio 1.5 n=55": 1.5, "power ratio 2.0 n=55": 2.0}.get(label, 1.15)
        check(exact_ok and abs(tr - target) < 1e-9 and within(emp, tr, se_ratio),
              f"{label}: true ratio {tr:.6f}, empirical {emp:.4f} (+-{4 * se_ratio:.4f}, {len(c)} pairs in {reps} worlds)")
        if w.endpoint == "correct":
            check(set(np.unique(np.concatenate([c, b]))) <= {0.0, 1.0}, f"{label}: values are 0/1")
        elif w.name != "heavy_tailed":
            check(np.all((c >= 0) & (c <= 10) & (c == np.round(c))) and np.all((b >= 0) & (b <= 10)), f"{label}: integer scores 0..10")
        else:
            check(np.all(c > 0) and np.all(b > 0), f"{label}: positive values")
        if w.name == "zero_inflated":
            # council's crash zeros: fraction of zeros >= 10%; exact P(0) = 0.1 + 0.9 P(non-crash 0)
            p0nc = (W.verdict.binomial_pmf(10, w.params["council_noncrash_mean"] / 10)[0] if w.endpoint == "score"
                    else 1 - w.params["council_noncrash_mean"])
            p0 = 0.1 + 0.9 * p0nc
            check(within((c == 0).mean(), p0, math.sqrt(p0 * (1 - p0) / len(c))),
                  f"{label}: council zero rate {(c == 0).mean():.4f} (exact {p0:.4f}, crash 10%)")
        expected_truth = "boundary" if abs(target - 1.15) < 1e-9 else ("better" if target > 1.15 else "not_better")
        check(w.truth == expected_truth, f"{label}: truth '{w.truth}', required {w.required}")
    # coupling cells for binary at rho 0.5
    cells = W.verdict._binary_cells(0.3, 0.345, 0.5)
    cc = np.concatenate([W.binary_boundary(rng, 100, 0.3, rho=0.5).council for _ in range(1)])
    obs = Counter()
    for _ in range(2000):
        w = W.binary_boundary(rng, 50, 0.3, rho=0.5)
        for x, y in zip(w.council, w.baseline):
            obs[(x, y)] += 1
    tot = sum(obs.values())
    emp = [obs[(1, 1)] / tot, obs[(1, 0)] / tot, obs[(0, 1)] / tot, obs[(0, 0)] / tot]
    check(all(within(e, p, math.sqrt(p * (1 - p) / tot)) for e, p in zip(emp, cells)),
          f"binary coupling rho=0.5: cells {[round(x, 4) for x in emp]} vs exact {[round(x, 4) for x in cells]}")
    json.dumps(W.scores_boundary(rng, 10).to_dict())
    for r in (1.5, 2.0):
        print(f"   reference power (normal approx., one-sided 2.5%) ratio {r} base 0.1 n=55: "
              f"{W.reference_power(r, 0.1, 55):.3f}; n for 80%: {W.n_for_power(r, 0.1)}")


# =============================================================================== bias
def contrasts(records):
    """Per reviewer, per session: mean of (its score - mean of the other reviewers' scores
    on the same answer).  Returns {reviewer: array over sessions}."""
    by_ans = defaultdict(dict)
    for r in records:
        by_ans[(r["session_id"], r["model_id"])][r["reviewer_id"]] = r["score_value"]
    per = defaultdict(lambda: defaultdict(list))
    for (sid, _), sc in by_ans.items():
        if len(sc) < 2:
            continue
        tot = sum(sc.values())
        for rid, v in sc.items():
            per[rid][sid].append(v - (tot - v) / (len(sc) - 1))
    return {rid: np.array([np.mean(v) for v in d.values()]) for rid, d in per.items()}


def reference_reviewer_flags(records, alpha=0.05):
    """Reference rule: session-clustered one-sample t-test of each reviewer's within-answer
    contrast, two-sided, Bonferroni over reviewers.  Returns {reviewer: 'harsh'|'generous'}."""
    con = contrasts(records)
    m = len(con)
    flags = {}
    for rid, x in con.items():
        n = len(x)
        sd = x.std(ddof=1)
        if n < 2 or sd == 0:
            continue
        t = x.mean() / (sd / math.sqrt(n))
        p = 2 * t_sf(abs(t), n - 1)
        if p < alpha / m:
            flags[rid] = "harsh" if t < 0 else "generous"
    return flags


def bias_checks():
    print("== bias worlds")
    rng = np.random.default_rng(20240303)
    for peers in (True, False):
        w = W.no_bias_sessions(rng, 30, peers_are_reviewers=peers, now=NOW)
        recs = w.records
        ok = all(tuple(r.keys()) == W.SCHEMA_FIELDS for r in recs)
        ok &= all(tuple(r["query_metadata"].keys()) == W.QUERY_METADATA_FIELDS for r in recs)
        ok &= all(r["schema_version"] == "1.1.0" and r["score_scale"] == "1-10" and r["query_hash"] is None
                  and 1 <= r["score_value"] <= 10 for r in recs)
        check(ok, f"peers={peers}: every record has exactly the seed-003 v1.1 fields, in order")
        per_session = 3 * 2 if peers else 3 * 4
        check(len(recs) == 30 * per_session and w.n_sessions == 30, f"peers={peers}: {len(recs)} records = 30 sessions x {per_session}")
        if peers:
            check(all(r["reviewer_id"] != r["model_id"] for r in recs), "peers: self-exclusion (no reviewer scores itself)")
        pos = defaultdict(list)
        lens = defaultdict(set)
        for r in recs:
            pos[(r["session_id"], r["reviewer_id"])].append(r["position"])
            lens[(r["session_id"], r["model_id"])].add(r["response_length_chars"])
        n_pos = 2 if peers else 4
        check(all(sorted(v) == list(range(n_pos)) for v in pos.values()), f"peers={peers}: positions are a permutation of 0..{n_pos - 1} per (session, reviewer)")
        check(all(len(v) == 1 for v in lens.values()), f"peers={peers}: an answer has one length for every reviewer")
        ts = sorted({(r["timestamp"], r["session_id"]) for r in recs})
        t_first = datetime.strptime(ts[0][0], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        check(len({t for t, _ in ts}) == 30 and NOW - t_first < timedelta(days=30)
              and ts[-1][0] == NOW.strftime("%Y-%m-%dT%H:%M:%SZ"), f"peers={peers}: 30 distinct timestamps within 30 days, last at now")
        line = json.dumps(recs[0])
        check(json.loads(line) == recs[0], f"peers={peers}: records round-trip through JSON")
    w100 = W.no_bias_sessions(rng, 100)
    check(len({r["session_id"] for r in w100.records}) == 100 and
          datetime.now(timezone.utc) - datetime.strptime(min(r["timestamp"] for r in w100.records), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc) < timedelta(days=30),
          "default now: 100 sessions all inside the 30-day window")

    # ground truth of effects over many sessions
    big = 3000 if QUICK else 10000
    for spread in (0.0, 1.0):
        w = W.no_bias_sessions(rng, big, model_spread=spread, now=NOW)
        con = contrasts(w.records)
        check(all(within(x.mean(), 0.0, x.std() / math.sqrt(len(x))) for x in con.values()),
              f"no_bias spread={spread}: within-answer reviewer contrasts " + ", ".join(f"{x.mean():+.3f}" for x in con.values()) + " (true 0)")
        raw = defaultdict(list)
        for r in w.records:
            raw[r["reviewer_id"]].append(r["score_value"])
        means = {k: np.mean(v) for k, v in raw.items()}
        if spread > 0:
            check(means["sim/charlie"] < means["sim/alpha"] - 0.5,
                  f"no_bias spread=1 (confounded): raw reviewer means {', '.join(f'{v:.2f}' for v in means.values())} differ by composition only")
        pm = defaultdict(list)
        for r in w.records:
            pm[r["position"]].append(r["score_value"])
        d = np.mean(pm[0]) - np.mean(pm[1])
        se = math.sqrt(np.var(pm[0]) / len(pm[0]) + np.var(pm[1]) / len(pm[1]))
        check(within(d, 0.0, se * 1.5), f"no_bias spread={spread}: position 0 - position 1 mean score {d:+.3f} (true 0)")
        L = np.log([r["response_length_chars"] for r in w.records])
        S = np.array([r["score_value"] for r in w.records])
        rr = np.corrcoef(L, S)[0, 1]
        check(abs(rr) < 4 * 3 / math.sqrt(len(S)), f"no_bias spread={spread}: corr(log length, score) {rr:+.4f} (true 0)")

    w = W.harsh_reviewer_sessions(rng, big, now=NOW)
    con = contrasts(w.records)
    # contrast of reviewer vs the other ones on the same answer: harsh -> about -1.5 (clipping)
    h = con["sim/alpha"].mean()
    check(-1.6 < h < -1.25 and w.truth["harsh_reviewers"] == ["sim/alpha"],
          f"harsh_reviewer: within-answer contrast of the harsh reviewer {h:+.3f} (latent -1.5, clipped)")
    others = [con[k].mean() for k in con if k != "sim/alpha"]
    check(all(0.6 < o < 0.9 for o in others),
          f"harsh_reviewer: unbiased peers' contrasts {', '.join(f'{o:+.3f}' for o in others)} (+0.75 expected: half their answers are shared with the harsh reviewer)")
    w = W.anomaly_world(rng, 30, now=NOW)
    sid = sorted({(r["timestamp"], r["session_id"]) for r in w.records})[w.truth["anomalous_sessions"][0]][1]
    sh = np.mean([r["score_value"] for r in w.records if r["session_id"] == sid and r["reviewer_id"] == "sim/alpha"])
    check(w.truth["anomalous_sessions"] == [29] and sh < 4.5, f"anomaly: last session's reviewer sim/alpha mean {sh:.2f} (shift -4)")


def bias_reference():
    print("== bias reference: within-answer contrast, session-clustered t-test, Bonferroni (alpha 0.05)")
    rng = np.random.default_rng(11)
    N = 300 if QUICK else 2000
    rows = []
    for peers in (True, False):
        for spread in (0.0, 1.0):
            for ns in (10, 30, 100):
                f = sum(bool(reference_reviewer_flags(W.no_bias_sessions(rng, ns, peers_are_reviewers=peers, model_spread=spread, now=NOW).records)) for _ in range(N)) / N
                rows.append(("null", peers, spread, ns, f))
                print(f"   null peers={peers} spread={spread} sessions={ns:3d}: any reviewer flagged {f:.3f}")
                check(f <= mc_upper_limit(0.05, N), f"reference reviewer flag under null <= 5% + MC ({f:.3f})")
    for ns in (10, 20, 30):
        hits = wrong = 0
        for _ in range(N // 2):
            fl = reference_reviewer_flags(W.harsh_reviewer_sessions(rng, ns, now=NOW).records)
            hits += fl.get("sim/alpha") == "harsh"
            wrong += any(k != "sim/alpha" for k in fl)
        rows.append(("harsh", True, 0.0, ns, hits / (N // 2)))
        print(f"   harsh -1.5 peers sessions={ns}: harsh reviewer flagged {hits / (N // 2):.3f}; another reviewer flagged {wrong / (N // 2):.3f}")
    return rows


def main():
    t0 = time.time()
    gate_checks()
    verdict_checks()
    bias_checks()
    if REFERENCE:
        gate_reference()
        bias_reference()
    print(f"\n{len(FAILS)} failure(s) in {time.time() - t0:.0f}s")
    for f in FAILS:
        print("  FAIL:", f)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
