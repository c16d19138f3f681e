"""Power before and after a run (harness/stats/power.py, ``council-harness plan``, the verdict lines)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from harness.cli.plan import plan_lines
from harness.stats import PairedSample, evaluate_prediction
from harness.stats.power import (
    betting_power,
    binary_detectable_ratio,
    binary_n_needed,
    binary_power,
    score_detectable_ratio,
    score_n_needed,
    score_power,
)


def _by_hand_power(n: int, p: float, ratio: float) -> float:
    sd = math.sqrt(ratio * p * (1 - ratio * p) + 1.15**2 * p * (1 - p))
    return float(sps.norm.cdf(math.sqrt(n) * (ratio - 1.15) * p / sd - sps.norm.ppf(0.975)))


def test_binary_power_and_cases_needed_by_hand():
    # issue 27: at 55 cases and a 10% base rate a true +50% is supported ~6% of the time, a doubling ~20%
    assert binary_power(55, 0.1, 1.5) == pytest.approx(_by_hand_power(55, 0.1, 1.5)) == pytest.approx(0.0753, abs=1e-4)
    assert binary_power(55, 0.1, 2.0) == pytest.approx(0.2217, abs=1e-4)
    # n = ceil(((z_.975 + z_.8) sd / ((R - 1.15) p))^2)
    for ratio, want in ((1.5, 1580), (2.0, 304)):
        assert binary_n_needed(ratio, 0.1) == want
        assert binary_power(want, 0.1, ratio) >= 0.8 > binary_power(want - 1, 0.1, ratio)
    assert binary_n_needed(1.15, 0.1) is None and binary_n_needed(20.0, 0.1) is None
    ratio = binary_detectable_ratio(55, 0.1)
    assert ratio is not None and binary_power(55, 0.1, ratio) == pytest.approx(0.8, abs=1e-6)
    assert ratio == pytest.approx(3.3596, abs=1e-3)
    assert binary_detectable_ratio(5, 0.5) is None  # even an always-right council: 5 cases are too few


def test_score_power_by_hand():
    # sd(d) = 2, baseline mean 5, n = 55: R = 1.15 + (1.95996 + 0.84162) * 2 / (sqrt(55) * 5) = 1.30113
    assert score_detectable_ratio(55, 5.0, 2.0) == pytest.approx(1.15 + 2.80158 * 2 / (math.sqrt(55) * 5), abs=1e-4)
    assert score_n_needed(1.3, 5.0, 2.0) == math.ceil((2.80158 * 2 / (0.15 * 5)) ** 2)
    assert score_detectable_ratio(1, 5.0, 2.0) is None and score_detectable_ratio(10, 0.0, 2.0) is None


def test_betting_power_by_hand():
    """n = 55, mean(d) = 1, sd(d) = 2 on 0-10 (lower bound -11.5): lambda* = min(sqrt(2 log 40 / (55 x 4)),
    0.95 / 11.5) = min(0.18313, 0.08261); power = Phi((55 (lambda 1 - lambda^2 (4 + 1) / 2) - log 40) /
    (sqrt(55) lambda 2))."""
    lam = min(math.sqrt(2 * math.log(40) / (55 * 4)), 0.95 / 11.5)
    want = sps.norm.cdf((55 * (lam - lam * lam * 5 / 2) - math.log(40)) / (math.sqrt(55) * lam * 2))
    assert betting_power(55, 1.0, 2.0, -11.5) == pytest.approx(want, abs=1e-9) == pytest.approx(0.4728, abs=1e-4)
    # uncapped (a wide spread): a z-test at sqrt(2 log 40) = 2.716 instead of 1.96, less the second-order term
    lam = math.sqrt(2 * math.log(40) / (55 * 36))
    want = sps.norm.cdf((55 * (lam * 2 - lam * lam * 40 / 2) - math.log(40)) / (math.sqrt(55) * lam * 6))
    assert betting_power(55, 2.0, 6.0, -11.5) == pytest.approx(want, abs=1e-9)
    # the rule's power is the smaller of the t-approximation and the betting test's; without a scale, the former
    assert score_power(55, 5.0, 2.0, 1.35, scale=10.0) == pytest.approx(betting_power(55, 1.0, 2.0, -11.5))
    assert score_power(55, 5.0, 2.0, 1.35) == pytest.approx(sps.norm.cdf(math.sqrt(55) / 2 - 1.959964), abs=1e-6)
    ratio = score_detectable_ratio(55, 5.0, 2.0, scale=10.0)
    assert ratio is not None and score_power(55, 5.0, 2.0, ratio, scale=10.0) == pytest.approx(0.8, abs=1e-6)
    need = score_n_needed(1.5, 5.0, 2.0, scale=10.0)
    assert need is not None
    assert score_power(need, 5.0, 2.0, 1.5, scale=10.0) >= 0.8 > score_power(need - 1, 5.0, 2.0, 1.5, scale=10.0)
    assert score_detectable_ratio(10, 5.0, 2.0, scale=10.0) is None  # even a council at 10 on every case: no


def _sd(ratio: float, noise: float) -> float:
    """SD of ``d = council - 1.15 baseline`` in :func:`test_stated_detectable_effect_has_80_percent_power`."""
    return math.sqrt((ratio - 1.15) ** 2 / 3 + noise**2)


@pytest.mark.parametrize(("n", "noise"), [(55, 1.0), (30, 0.5)])
def test_stated_detectable_effect_has_80_percent_power(n, noise):
    """The detectable improvement a verdict states is what the rule finds 80% of the time: baseline uniform on
    2-4, council ``R x baseline`` plus symmetric noise of SD ``noise`` (a scaled Beta(2, 2), within 0-10).
    ``R`` is the ratio whose stated detectable improvement (at the world's true SD of ``d``) is itself; the
    rule (every test, the betting test on 0-10) is run on 300 seeded worlds. Measured: 82% (n = 55) and
    88% (n = 30): the approximation is slightly conservative (the average over orderings gains a little)."""
    lo, hi = 1.15, 3.0
    for _ in range(60):
        mid = (lo + hi) / 2
        stated = score_detectable_ratio(n, 3.0, _sd(mid, noise), scale=10.0)
        lo, hi = (lo, mid) if stated is not None and stated <= mid else (mid, hi)
    ratio = hi
    assert score_detectable_ratio(n, 3.0, _sd(ratio, noise), scale=10.0) == pytest.approx(ratio, abs=1e-6)
    rng = np.random.default_rng(80)
    reps, hits = 300, 0
    for _ in range(reps):
        base = 3.0 + rng.uniform(-1.0, 1.0, n)
        council = ratio * base + noise * (2 * rng.beta(2, 2, n) - 1) * math.sqrt(5)
        sample = PairedSample(council=tuple(council), baseline=tuple(base))
        (v,) = evaluate_prediction({"r": sample}, n_resamples=2000, scales={"r": (0.0, 10.0)}).overall
        hits += v.verdict == "supported"
    print(f"n={n}: stated detectable {ratio - 1:+.1%}, simulated power {hits / reps:.1%}")
    assert abs(hits / reps - 0.8) <= 0.1


def test_plan_states_the_detectable_improvement_and_the_cases_needed():
    lines = plan_lines(55, 0.1)
    assert lines[1] == (
        "  detectable: a true improvement of +236% or more is supported with 80% power; smaller "
        "ones mostly come out insufficient_data or inconclusive"
    )
    assert "  true +50%: power 8% at 55 cases; 1580 cases for 80%" in lines
    assert "  true +100%: power 22% at 55 cases; 304 cases for 80%" in lines
    assert plan_lines(3, 0.5)[1].startswith("  detectable: no true improvement is supported with 80% power")


def test_insufficient_and_refuted_verdicts_state_the_detectable_effect():
    # 55 cases, baseline right on 9, council on 1: refuted by the exact test; the sentence says what n=55
    # could have detected at this base rate
    council = [1.0] + [0.0] * 54
    baseline = [0.0] + [1.0] * 9 + [0.0] * 45
    (v,) = evaluate_prediction({"correct": PairedSample(council=tuple(council), baseline=tuple(baseline))}).overall
    assert v.verdict == "refuted"
    want = binary_detectable_ratio(55, 9 / 55)
    assert want is not None and v.detectable == pytest.approx(want - 1)
    assert (
        f"at n=55 only a true improvement of +{100 * (want - 1):.1f}% or more is detectable with 80% power" in v.summary
    )
    few = PairedSample(council=(1.0, 1.0, 0.0), baseline=(0.0, 0.0, 1.0))
    (v,) = evaluate_prediction({"correct": few}).overall
    assert v.verdict == "insufficient_data" and "at n=3 no true improvement is detectable with 80% power" in v.summary


def _plan(capsys, *argv: str) -> list[str]:
    from harness.cli import build_parser

    args = build_parser().parse_args(["plan", *argv])
    assert args.func(args) == 0
    return capsys.readouterr().out.splitlines()


def _dataset(path, objective: int, open_ended: int) -> None:
    cases = [
        f'      - {{id: "q{i}", query: "What is {i} plus 1?", expected: {{type: numeric, value: {i + 1}}}}}'
        for i in range(objective)
    ] + [f'      - {{id: "o{i}", query: "Describe the number {i}."}}' for i in range(open_ended)]
    path.write_text('golden_datasets:\n  - name: "planned"\n    queries:\n' + "\n".join(cases) + "\n")


def test_plan_counts_the_cases_run_would_select(tmp_path, capsys):
    """``plan`` reads the selection as ``run`` makes it (--data, --limit, --suite): the verdict's n is the
    selected cases with an expected answer; ``--cases`` overrides it."""
    _dataset(tmp_path / "planned.yaml", objective=40, open_ended=20)
    lines = _plan(capsys, "--data", str(tmp_path), "--base-rate", "0.1")
    assert lines[0] == "selected: 60 case(s) from planned, 40 with an expected answer"
    assert lines[1].startswith("plan: 40 case(s) with an expected answer")
    assert lines[2] == plan_lines(40, 0.1)[1]
    lines = _plan(capsys, "--data", str(tmp_path), "--limit", "25", "--base-rate", "0.1")
    assert lines[0] == "selected: 25 case(s) from planned (first 25 cases), 25 with an expected answer"
    assert lines[2] == plan_lines(25, 0.1)[1]
    lines = _plan(capsys, "--suite", "reasoning-100", "--data", "suites", "--base-rate", "0.1")
    assert lines[0] == "selected: 100 case(s) from reasoning-100, 55 with an expected answer"
    assert lines[1:] == plan_lines(55, 0.1)
    assert _plan(capsys, "--cases", "55", "--base-rate", "0.1") == plan_lines(55, 0.1)


def test_plan_says_when_the_selection_has_too_few_objective_cases(tmp_path, capsys):
    from harness.common.errors import ConfigError

    _dataset(tmp_path / "planned.yaml", objective=4, open_ended=8)
    lines = _plan(capsys, "--data", str(tmp_path), "--base-rate", "0.3")
    assert lines[0] == "selected: 12 case(s) from planned, 4 with an expected answer"
    assert "primary endpoint would be rubric_composite" in lines[1]
    assert lines[2].startswith("plan: 4 case(s)")
    _dataset(tmp_path / "planned.yaml", objective=0, open_ended=3)
    with pytest.raises(ConfigError, match="none of the 3 selected case"):
        _plan(capsys, "--data", str(tmp_path), "--base-rate", "0.3")


def test_inconclusive_verdicts_state_the_detectable_effect_and_supported_ones_do_not():
    # 55 cases, baseline right on 9: the council right on 11 (ratio 1.22) cannot be decided at this n, and
    # the sentence says so with the effect n=55 could have detected; right on 40 is supported, no power words
    baseline = tuple([1.0] * 9 + [0.0] * 46)
    unsure = tuple([1.0] * 11 + [0.0] * 44)
    (v,) = evaluate_prediction({"correct": PairedSample(council=unsure, baseline=baseline)}).overall
    assert v.verdict == "inconclusive"
    want = binary_detectable_ratio(55, 9 / 55)
    assert want is not None
    assert (
        f"at n=55 only a true improvement of +{100 * (want - 1):.1f}% or more is detectable with 80% power" in v.summary
    )
    strong = tuple([1.0] * 40 + [0.0] * 15)
    (v,) = evaluate_prediction({"correct": PairedSample(council=strong, baseline=baseline)}).overall
    assert v.verdict == "supported" and "is detectable" not in v.summary
