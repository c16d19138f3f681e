"""``council-harness plan``: the power of the >15% verdict before a run (issue 27, item 4).

The cases are the ones ``run`` would select with the same ``--suite`` / ``--dataset`` / ``--data`` /
``--limit`` (:func:`harness.cli.run._datasets`, :func:`harness.run.orchestrate.selected_cases`); the
verdict's ``n`` is the number of them with an ``expected:`` block (the ``correct`` endpoint, the
primary one when there are at least 10). ``--cases N`` overrides the count.
"""

from __future__ import annotations

import argparse
from pathlib import Path

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


def selected_counts(args: argparse.Namespace) -> tuple[int, int, str]:
    """``(cases with an expected answer, cases, where)`` of the selection ``run`` would make."""
    from harness.cli.run import DEFAULT_DATA, _datasets
    from harness.run.orchestrate import selected_cases

    names = (args.dataset or []) + ([args.suite] if args.suite else [])
    paths = [Path(p) for p in args.data] if args.data else DEFAULT_DATA
    datasets = _datasets(names, paths, bool(args.data))
    cases = selected_cases(datasets, args.limit)
    where = ", ".join(d.name for d in datasets) + (f" (first {args.limit} cases)" if args.limit else "")
    return sum(c.expected is not None for c in cases), len(cases), where


def cmd_plan(args: argparse.Namespace) -> int:
    from harness.common.errors import ConfigError
    from harness.stats.verdicts import MIN_INFORMATIVE_PAIRS

    if not 0 < args.base_rate < 1:
        raise ConfigError(f"expected a base rate strictly between 0 and 1, got {args.base_rate}", "--base-rate")
    cases = args.cases
    if cases is None:
        objective, total, where = selected_counts(args)
        print(f"selected: {total} case(s) from {where}, {objective} with an expected answer")
        if objective == 0:
            raise ConfigError(
                f"none of the {total} selected case(s) has an expected answer, so the correct endpoint has no "
                "pairs; select cases with expected: blocks, or give --cases N",
                "--data",
            )
        if objective < MIN_INFORMATIVE_PAIRS:
            print(
                f"note: fewer than {MIN_INFORMATIVE_PAIRS} cases with an expected answer: the run's primary endpoint "
                "would be rubric_composite, and correct is decided as a secondary verdict"
            )
        cases = objective
    for line in plan_lines(cases, args.base_rate, args.threshold):
        print(line)
    return 0
