"""``council-harness review``: write an expert reviewers' sheet, or apply a filled one."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.config import load_settings


def cmd_review(args: argparse.Namespace) -> int:
    """Write the reviewers' sheet; with ``--apply``, merge its verdicts and finish the run again
    (:func:`harness.finish.finish_run`: statuses changed, so do the prediction, the gate and the report)."""
    from harness.run.engine import VERDICTS_FILE
    from harness.run.expert_review import apply_sheet, awaiting, write_sheet
    from harness.run.runs import load_run

    settings = load_settings(args.config)
    run = load_run(args.run, settings)
    if args.apply:
        from harness.finish import finish_run

        new = apply_sheet(
            run.run_dir, run.results, Path(args.apply), Path(settings.reports_dir) / VERDICTS_FILE, args.reviewer
        )
        outcome = finish_run(load_run(run.run_dir), settings, update_baseline=args.update_baseline)
        print(f"applied {len(new)} verdict(s) to run {run.run_id}")
        for path in outcome.baselines_written:
            print(f"baseline written: {path}")
        return 0
    out = Path(args.output) if args.output else run.run_dir / "review-sheet.csv"
    n = write_sheet(run.results, out)
    pending = sum(1 for r in awaiting(run.results) if r.review is None)
    print(f"{out}: {n} expert-review row(s), {pending} awaiting a verdict")
    return 0
