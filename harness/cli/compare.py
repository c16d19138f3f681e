"""``council-harness compare``: a run against its stored baselines (exit 1 on regression)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.common.errors import ConfigError
from harness.common.untrusted import echo
from harness.config import Settings, load_settings


def cmd_compare(args: argparse.Namespace) -> int:
    from harness.gate.regression import compare_run, comparison_lines, gate_outcome, write_gate_summary
    from harness.run.runs import load_run

    settings = load_settings(args.config)
    run = load_run(args.run, settings)
    comparisons = compare_run(run, settings, Path(args.baseline) if args.baseline else None)
    if not comparisons:
        raise ConfigError(
            "no baseline to compare with; write one with `council-harness run --update-baseline` "
            "or pass --baseline FILE",
            str(baseline_hint(settings)),
        )
    outcome = gate_outcome(run, comparisons, settings.gate)
    summary = write_gate_summary(outcome, run, Path(args.summary) if args.summary else None)
    for line in comparison_lines(comparisons, outcome):
        echo(line)
    counts = outcome.counts
    echo(
        f"gate: {outcome.outcome}: {counts['reasons']} reason(s); {counts['results']} result(s) read, "
        f"{counts['missing']} baselined case(s) missing, {counts['unreadable']} unreadable line(s)"
    )
    if outcome.completeness is not None:
        echo(outcome.completeness.words())
    echo(f"summary: {summary}")
    return outcome.exit_code


def baseline_hint(settings: Settings) -> Path:
    """Where the stored regression baselines live: ``<reports_dir>/baselines``."""
    return Path(settings.reports_dir) / "baselines"
