"""``council-harness review``: write an expert reviewers' sheet, or apply a filled one."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.config import load_settings


def cmd_review(args: argparse.Namespace) -> int:
    from harness.engine import VERDICTS_FILE
    from harness.gate import update_baselines, write_full_report
    from harness.reviews import apply_sheet, awaiting, write_sheet
    from harness.runs import load_run, resolve_run

    settings = load_settings(args.config)
    run = load_run(resolve_run(args.run, settings.reports_dir))
    if args.apply:
        new = apply_sheet(run.run_dir, run.results, Path(args.apply), Path(settings.reports_dir) / VERDICTS_FILE,
                          args.reviewer)
        run = load_run(run.run_dir)
        write_full_report(run, settings)
        print(f"applied {len(new)} verdict(s) to run {run.run_id}")
        if args.update_baseline:
            for path in update_baselines(run, settings):
                print(f"baseline written: {path}")
        return 0
    out = Path(args.output) if args.output else run.run_dir / "review-sheet.csv"
    n = write_sheet(run.results, out)
    pending = sum(1 for r in awaiting(run.results) if r.review is None)
    print(f"{out}: {n} expert-review row(s), {pending} awaiting a verdict")
    return 0


