"""``council-harness report``, ``diff`` and ``merge``: the commands that (re)write a run's report."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.config import load_settings


def cmd_report(args: argparse.Namespace) -> int:
    from harness.gate import write_full_report
    from harness.runs import load_run, resolve_run

    settings = load_settings(args.config)
    reports_dir = args.reports_dir or settings.reports_dir
    run = load_run(resolve_run(args.run, reports_dir))
    against = load_run(resolve_run(args.against, reports_dir)) if args.against else None
    out = write_full_report(run, settings, Path(args.output) if args.output else None, against)
    print(out)
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    import json

    from harness.fsutil import atomic_write_text
    from harness.rundiff import diff_lines, diff_runs
    from harness.runs import load_run, resolve_run

    settings = load_settings(args.config)
    run_a = load_run(resolve_run(args.run_a, settings.reports_dir))
    run_b = load_run(resolve_run(args.run_b, settings.reports_dir))
    diff = diff_runs(run_a, run_b, settings, top=args.top)
    for line in diff_lines(diff, answers=not args.no_answers):
        print(line)
    if args.json:
        atomic_write_text(Path(args.json), json.dumps(diff.model_dump(mode="json"), indent=2))
    if args.html:
        from harness.gate import write_full_report

        print(f"report: {write_full_report(run_b, settings, Path(args.html), run_a)}")
    return diff.exit_code


def cmd_merge(args: argparse.Namespace) -> int:
    from harness.gate import write_full_report
    from harness.merge import default_out_dir, merge_runs
    from harness.runs import resolve_run

    settings = load_settings(args.config)
    runs_dir = Path(settings.reports_dir) / "runs"
    dirs = [resolve_run(r, settings.reports_dir) for r in args.runs]
    out = Path(args.output) if args.output else default_out_dir(runs_dir)
    run = merge_runs(dirs, out)
    report = write_full_report(run, settings)
    print(f"merged {len(dirs)} runs ({len(run.results)} results) into {run.run_dir}")
    print(f"report: {report}")
    return 0


