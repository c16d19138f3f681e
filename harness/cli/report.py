"""``council-harness report``, ``diff`` and ``merge``: the commands that (re)write a run's report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.config import load_settings


def cmd_report(args: argparse.Namespace) -> int:
    """(Re)write a run's report: :func:`harness.finish.finish_run` on the run as it is on disk, as a view
    (the run's ``summary.json`` and results are left as they are; only the report is written)."""
    from harness.finish import finish_run
    from harness.run.runs import load_run, resolve_run

    settings = load_settings(args.config)
    reports_dir = args.reports_dir or settings.reports_dir
    run = load_run(resolve_run(args.run, reports_dir))
    against = load_run(resolve_run(args.against, reports_dir)) if args.against else None
    outcome = finish_run(
        run, settings, report_path=Path(args.output) if args.output else None, against=against, persist=False
    )
    print(outcome.report)
    print(outcome.gate.line())
    return outcome.exit_code


def cmd_diff(args: argparse.Namespace) -> int:
    import json

    from harness.common.fsutil import atomic_write_text
    from harness.common.untrusted import echo
    from harness.gate.rundiff import diff_lines, diff_runs
    from harness.run.runs import load_run

    settings = load_settings(args.config)
    run_a = load_run(args.run_a, settings)
    run_b = load_run(args.run_b, settings)
    diff = diff_runs(run_a, run_b, settings, top=args.top)
    for line in diff_lines(diff, answers=not args.no_answers):
        echo(line)
    if args.json:
        atomic_write_text(Path(args.json), json.dumps(diff.model_dump(mode="json"), indent=2))
    if args.html:
        from harness.finish import finish_run

        view = finish_run(run_b, settings, report_path=Path(args.html), against=run_a, persist=False)
        print(f"report: {view.report}")
    return diff.exit_code


def cmd_merge(args: argparse.Namespace) -> int:
    from harness.common.untrusted import echo
    from harness.finish import finish_run
    from harness.run.merge import default_out_dir, merge_runs
    from harness.run.runs import resolve_run, runs_dir

    settings = load_settings(args.config)
    dirs = [resolve_run(r, settings) for r in args.runs]
    out = Path(args.output) if args.output else default_out_dir(runs_dir(settings))
    warnings: list[str] = []
    run = merge_runs(dirs, out, warnings)
    for line in warnings:
        echo(f"warning: {line}", file=sys.stderr)
    outcome = finish_run(run, settings)
    print(f"merged {len(dirs)} runs ({len(run.results)} results) into {run.run_dir}")
    print(f"report: {outcome.report}")
    print(outcome.gate.line())
    return outcome.exit_code
