"""Hand mutations of the statistics and the gate's decision rules (issue 27, item 5): each must make
some test fail. Prints every mutation, whether it was killed, and the mutation score.

Usage (from the repository root): python bench/mutations.py [--only NAME] [--jobs 1]

Each mutation copies ``harness/`` and ``tests/`` to a temporary folder, replaces one snippet of one
file (the snippet must occur exactly once), and runs the named test files there (``pytest -x -q``
with the copy first on the path). A mutation is *killed* when those tests fail.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GATE_UNIT = ["tests/gate/test_noise.py", "tests/gate/test_gate_simulation.py", "tests/test_finish.py"]
GATE_SIM = ["tests/gate/test_noise_simulation.py"]
VERDICT = [
    "tests/stats/test_stats.py",
    "tests/stats/test_signflip.py",
    "tests/gate/test_prediction_calibration.py",
    "tests/stats/test_power.py",
]
BIAS = ["tests/bias/test_bias_aggregate.py", "tests/bias/test_bias_flag_calibration.py"]
BETTING = [
    "tests/stats/test_betting.py",
    "tests/stats/test_power.py",
    "tests/gate/test_prediction.py",
    "tests/gate/test_betting_simulation.py",
]

#: (name, file, snippet, replacement, tests)
MUTATIONS: list[tuple[str, str, str, str, list[str]]] = [
    (
        "gate: no prior floor (repeats that agree mean no noise)",
        "harness/gate/noise.py",
        "PRIOR_SD_FRACTION = 0.075",
        "PRIOR_SD_FRACTION = 0.0",
        GATE_UNIT,
    ),
    (
        "gate: prior weight 10 -> 1 df",
        "harness/gate/noise.py",
        "PRIOR_DF = 10.0",
        "PRIOR_DF = 1.0",
        GATE_UNIT + GATE_SIM,
    ),
    (
        "gate: whole budget to per-case tests (no run level)",
        "harness/gate/noise.py",
        "CASE_SHARE = 0.7",
        "CASE_SHARE = 1.0",
        GATE_UNIT + GATE_SIM,
    ),
    (
        "gate: budget 5% -> 50% per case",
        "harness/gate/baselines.py",
        "case_level = tarone_level(case_min_p, alpha * CASE_SHARE)",
        "case_level = tarone_level(case_min_p, 10 * alpha * CASE_SHARE)",
        GATE_UNIT + GATE_SIM,
    ),
    (
        "gate: no multiplicity (Tarone K = 1)",
        "harness/gate/noise.py",
        "        if bisect.bisect_right(ordered, alpha / k) <= k:",
        "        if True:",
        GATE_UNIT,
    ),
    (
        "gate: Fisher test on the wrong side",
        "harness/gate/noise.py",
        "for x in range(bad_current, top + 1)",
        "for x in range(0, bad_current + 1)",
        GATE_UNIT,
    ),
    (
        "gate: a case's own change widens its band",
        "harness/gate/noise.py",
        "other = max(self.between_sum - case.between, 0.0)",
        "other = self.between_sum",
        GATE_UNIT,
    ),
    (
        "gate: any newly failing case regresses (the old rule)",
        "harness/gate/baselines.py",
        "newly = test.p <= how.model.case_level",
        "newly = test.worse",
        GATE_UNIT,
    ),
    (
        "gate: temperature 0 counts as sampled",
        "harness/gate/regression.py",
        "m.temperature > 0 for m in",
        "m.temperature >= 0 for m in",
        GATE_UNIT,
    ),
    (
        "gate: an empty baseline passes",
        "harness/gate/baselines.py",
        "    if not baseline.entries:\n        reasons.append(",
        "    if False:\n        reasons.append(",
        GATE_UNIT,
    ),
    (
        "gate: one-sided t quantile replaced by the median",
        "harness/gate/noise.py",
        "return t_quantile(1.0 - level, self.df)",
        "return t_quantile(0.5 + 0 * level, self.df)",
        GATE_UNIT + GATE_SIM,
    ),
    (
        "gate: run-level test of a drop beyond the tolerance again (0.5 on 0-10)",
        "harness/gate/noise.py",
        "drop = np.round(sign * (np.asarray(baseline, dtype=float) - np.asarray(current, dtype=float)), DECIMALS)",
        "drop = np.round(sign * (np.asarray(baseline, dtype=float) - np.asarray(current, dtype=float)) - 0.5, 9)",
        GATE_UNIT + GATE_SIM,
    ),
    (
        "gate: run-level sign-flip on the wrong side",
        "harness/gate/noise.py",
        'p, method = test.p_value, f"paired sign-flip test',
        'p, method = 1.0 - test.p_value, f"paired sign-flip test',
        GATE_UNIT + GATE_SIM,
    ),
    (
        "gate: run level gets no share of the budget",
        "harness/gate/baselines.py",
        "run_level = tarone_level(run_min_p, alpha * (1.0 - CASE_SHARE))",
        "run_level = tarone_level(run_min_p, 0.0 * alpha)",
        GATE_UNIT + GATE_SIM,
    ),
    (
        "verdict: scores decided by the sign-flip alone (skew-corrected t ignored)",
        "harness/stats/verdicts.py",
        "test.low if max(skew.p_greater, bet_greater) <= side else -math.inf",
        "test.low if max(0.0, bet_greater) <= side else -math.inf",
        VERDICT,
    ),
    (
        "verdict: no skewness correction (plain t beside the sign-flip)",
        "harness/stats/boundary_tests.py",
        "a = skewness / (3.0 * math.sqrt(n))",
        "a = 0.0 * skewness / (3.0 * math.sqrt(n))",
        VERDICT,
    ),
    (
        "verdict: skewness correction with the wrong sign",
        "harness/stats/boundary_tests.py",
        "    g = hall_transform(t, skew, n)",
        "    g = hall_transform(t, -skew, n)",
        VERDICT,
    ),
    (
        "verdict: skew-corrected t against the normal instead of t_{n-1}",
        "harness/stats/boundary_tests.py",
        "p_greater=float(student.sf(g, n - 1)),",
        "p_greater=float(student.sf(g, 10**9)),",
        VERDICT,
    ),
    (
        "verdict: informative-pair floor 10 -> 3",
        "harness/stats/verdicts.py",
        "MIN_INFORMATIVE_PAIRS = 10",
        "MIN_INFORMATIVE_PAIRS = 3",
        VERDICT,
    ),
    (
        "verdict: binary side at 5% instead of 2.5%",
        "harness/stats/verdicts.py",
        "    side = (1.0 - confidence) / 2.0\n",
        "    side = 1.0 - confidence\n",
        VERDICT,
    ),
    (
        "verdict: exact test's supremum replaced by u = 0",
        "harness/stats/boundary_tests.py",
        "greater = float(np.max(total - (cum[:, below - 1] if below > 0 else 0.0)))",
        "greater = float((total - (cum[:, below - 1] if below > 0 else 0.0))[0])",
        VERDICT,
    ),
    (
        "verdict: supported from the interval's high end",
        "harness/stats/verdicts.py",
        '    if diff_low > 0:\n        return "supported"',
        '    if diff_high > 0:\n        return "supported"',
        VERDICT,
    ),
    (
        "verdict: sign-flip level off by one pattern",
        "harness/stats/signflip.py",
        "return math.floor((1.0 - confidence) / 2.0 * n_patterns + 1e-9)",
        "return math.floor((1.0 - confidence) / 2.0 * n_patterns + 1e-9) + 1",
        VERDICT,
    ),
    (
        "plan: counts every selected case, not those with an expected answer",
        "harness/cli/plan.py",
        "return sum(c.expected is not None for c in cases), len(cases), where",
        "return len(cases), len(cases), where",
        VERDICT,
    ),
    (
        "power: one-sided level doubled",
        "harness/stats/power.py",
        "return _Z.inv_cdf(1.0 - (1.0 - confidence) / 2.0) + _Z.inv_cdf(power)",
        "return _Z.inv_cdf(1.0 - (1.0 - confidence)) + _Z.inv_cdf(power)",
        VERDICT,
    ),
    (
        "betting: rejects at an e-value of 1/(2 alpha) instead of 1/alpha",
        "harness/stats/betting.py",
        "p_greater=min(1.0, 1.0 / up),",
        "p_greater=min(1.0, 0.5 / up),",
        BETTING,
    ),
    (
        "betting: bets up to 1.5 / |lo| (the capital can turn negative)",
        "harness/stats/betting.py",
        "BET_CAP = 0.95",
        "BET_CAP = 1.5",
        BETTING,
    ),
    (
        "betting: bets scaled by the upper bound on the supported side",
        "harness/stats/betting.py",
        "up = math.exp(min(log_capital(d, -low, alpha, orders), 700.0))",
        "up = math.exp(min(log_capital(d, high, alpha, orders), 700.0))",
        BETTING,
    ),
    (
        "betting: the refuted side bets on d instead of -d (mirror lost)",
        "harness/stats/betting.py",
        "down = math.exp(min(log_capital(-d, high, alpha, orders), 700.0))",
        "down = math.exp(min(log_capital(d, high, alpha, orders), 700.0))",
        BETTING,
    ),
    (
        "betting: a bet sees its own case (not predictable)",
        "harness/stats/betting.py",
        "before = np.cumsum(x, axis=1) - x\n",
        "before = np.cumsum(x, axis=1)\n",
        BETTING,
    ),
    (
        "verdict: supported without the betting test",
        "harness/stats/verdicts.py",
        "test.low if max(skew.p_greater, bet_greater) <= side else -math.inf",
        "test.low if skew.p_greater <= side else -math.inf",
        BETTING,
    ),
    (
        "verdict: refuted without the betting test",
        "harness/stats/verdicts.py",
        "test.high if max(skew.p_less, bet_less) <= side else math.inf",
        "test.high if skew.p_less <= side else math.inf",
        BETTING,
    ),
    (
        "gate: verdicts without the scorers' declared scales",
        "harness/gate/verdict_plan.py",
        "return {f: (0.0, SCORES[f].scale) for f in (*self.families, self.primary) if f in SCORES}",
        "return {}",
        BETTING,
    ),
    (
        "power: the betting test's budget log(1/(2 alpha))",
        "harness/stats/power.py",
        "budget = math.log(2.0 / (1.0 - confidence))",
        "budget = math.log(1.0 / (1.0 - confidence))",
        BETTING,
    ),
    (
        "bias: no Bonferroni over reviewers",
        "harness/bias/aggregate.py",
        "if c_p < SIGNIFICANCE / k:",
        "if c_p < SIGNIFICANCE:",
        BIAS,
    ),
    (
        "bias: reviewer flag from raw means (no within-answer contrast)",
        "harness/bias/aggregate.py",
        "others = (total[answer] - t.score)[shared] / (count[answer][shared] - 1)",
        "others = np.full(int(shared.sum()), float(t.score.mean()))",
        BIAS,
    ),
    (
        "bias: Grubbs without the n in alpha / (2 n)",
        "harness/stats/cluster.py",
        "t = t_quantile(1.0 - alpha / (2.0 * n), n - 2)",
        "t = t_quantile(1.0 - alpha / 2.0, n - 2)",
        BIAS,
    ),
    (
        "bias: the seed's fixed 2.5 SD anomaly cut-off",
        "harness/bias/aggregate.py",
        "flagged = np.flatnonzero(np.abs(z) > grubbs_critical_z(t.n_sessions, alpha))",
        "flagged = np.flatnonzero(np.abs(z) > 2.5)",
        BIAS,
    ),
]


def run(name: str, file: str, old: str, new: str, tests: list[str]) -> tuple[bool, float]:
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        for folder in ("harness", "tests"):
            shutil.copytree(ROOT / folder, Path(tmp) / folder, ignore=shutil.ignore_patterns("__pycache__"))
        for folder in ("suites", "golden"):
            if (ROOT / folder).exists():
                shutil.copytree(ROOT / folder, Path(tmp) / folder)
        for name in ("pyproject.toml", "conftest.py"):
            if (ROOT / name).exists():
                shutil.copy(ROOT / name, Path(tmp) / name)
        target = Path(tmp) / file
        text = target.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise SystemExit(f"mutation {name!r}: the snippet occurs {text.count(old)} times in {file}")
        target.write_text(text.replace(old, new), encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=tmp)
        start = time.time()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        return proc.returncode != 0, time.time() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="run the mutations whose name contains this")
    ap.add_argument("--check", action="store_true", help="first run the tests on an unmutated copy (must pass)")
    args = ap.parse_args()
    if args.check:
        dead, secs = run(
            "no mutation",
            "harness/gate/noise.py",
            "GATE_ALPHA = 0.05",
            "GATE_ALPHA = 0.05",
            sorted({t for m in MUTATIONS for t in m[4]}),
        )
        print(f"unmutated copy: {'FAILS' if dead else 'passes'} ({secs:.0f} s)", flush=True)
    chosen = [m for m in MUTATIONS if not args.only or args.only in m[0]]
    killed = 0
    for name, file, old, new, tests in chosen:
        dead, secs = run(name, file, old, new, tests)
        killed += dead
        print(f"{'killed  ' if dead else 'SURVIVED'} {name} ({file}; {secs:.0f} s)", flush=True)
    print(f"mutation score: {killed}/{len(chosen)} killed")
    return 0 if killed == len(chosen) else 1


if __name__ == "__main__":
    raise SystemExit(main())
