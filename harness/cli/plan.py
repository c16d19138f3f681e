"""``council-harness plan``: the power of the >15% verdict before a run (issue 27, item 4)."""

from __future__ import annotations

import argparse

#: True improvements whose required number of cases ``plan`` states.
PLANNED_IMPROVEMENTS = (0.30, 0.50, 1.00)


def plan_lines(cases: int, base_rate: float, threshold: float = 0.15, confidence: float = 0.95) -> list[str]:
    """What a run of ``cases`` objective cases at the single model's ``base_rate`` can decide."""
    from harness.stats.power import POWER, binary_detectable_ratio, binary_n_needed, binary_power

    lines = [
        f"plan: {cases} case(s) with an expected answer, single-model base rate {base_rate:.0%}, "
        f'claim "better by more than {threshold:.0%}" at {confidence:.0%} (one-sided '
        f"{(1 - confidence) / 2:.3g})"
    ]
    ratio = binary_detectable_ratio(cases, base_rate, threshold, confidence)
    if ratio is None:
        lines.append(
            f"  detectable: no true improvement is supported with {POWER:.0%} power at {cases} cases "
            f"(even a council that is always right)"
        )
    else:
        lines.append(
            f"  detectable: a true improvement of {ratio - 1:+.0%} or more is supported with {POWER:.0%} "
            f"power; smaller ones mostly come out insufficient_data or inconclusive"
        )
    for gain in PLANNED_IMPROVEMENTS:
        need = binary_n_needed(1 + gain, base_rate, threshold, confidence)
        power = binary_power(cases, base_rate, 1 + gain, threshold, confidence) if 1 + gain <= 1 / base_rate else None
        lines.append(
            f"  true {gain:+.0%}: "
            + (
                f"power {power:.0%} at {cases} cases; {need} cases for {POWER:.0%}"
                if need is not None and power is not None
                else "not possible at this base rate"
            )
        )
    lines.append(
        f"  true {threshold:+.0%} exactly is the claim's boundary: no number of cases supports it "
        f"(the verdict errs there at most {(1 - confidence) / 2:.1%} of the time)"
    )
    return lines


def cmd_plan(args: argparse.Namespace) -> int:
    from harness.common.errors import ConfigError

    if not 0 < args.base_rate < 1:
        raise ConfigError(f"expected a base rate strictly between 0 and 1, got {args.base_rate}", "--base-rate")
    for line in plan_lines(args.cases, args.base_rate, args.threshold):
        print(line)
    return 0
