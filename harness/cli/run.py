"""``council-harness run``: run datasets through the subjects, then finish the run (verdicts, gate, report)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.config import load_settings
from harness.errors import ConfigError

if TYPE_CHECKING:
    from harness.cases import Dataset
    from harness.config import Settings
    from harness.console import PlainConsole
    from harness.runs import Run

DEFAULT_DATA = [Path("golden"), Path("suites")]


def _datasets(names: Sequence[str] | None, paths: Sequence[Path], explicit: bool) -> list[Dataset]:
    """The datasets to run; ``explicit`` paths (``--data``) must exist and hold datasets.

    Raises:
        DatasetError: a ``--data`` path that does not exist or holds no dataset (see :func:`discover`).
        ConfigError: an unknown ``--dataset`` name, or nothing to run at all.
    """
    from harness.cases import discover

    found = discover(list(paths) if explicit else [p for p in paths if p.exists()])
    if not names:
        golden = [d for d in found if d.kind == "golden"]
        if not golden:
            where = ", ".join(str(p) for p in paths)
            raise ConfigError(f"no golden dataset found in {where}; pass --data PATH, or --suite NAME for a suite",
                              "--data")
        return golden
    by_name = {d.name: d for d in found}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise ConfigError(f"unknown dataset(s) {missing}; available: {sorted(by_name)}", "--dataset")
    return [by_name[n] for n in names]


def arm_outcome(run: Run, settings: Settings) -> list[str]:
    """The arms' figures (:mod:`harness.arm_outcome`) written to summary.json ``"arms"``; their console lines."""
    from harness.arm_outcome import arms_outcome
    from harness.summary import update_summary

    outcome = arms_outcome(run.results, settings.prediction_threshold, settings.primary_endpoint,
                           settings.selection_tag)
    if not outcome.empty:
        update_summary(run.run_dir, "arms", outcome.summary())
    return outcome.lines(run.results)


def usage_outcome(run: Run, settings: Settings) -> list[str]:
    """The usage ledger written to summary.json ``"usage"``; its console lines."""
    from harness.ledger import ledger_lines, usage_ledger
    from harness.summary import update_summary

    ledger = usage_ledger(run.results, settings.pricing)
    payload = dict(ledger.model_dump(mode="json"), partial=run.manifest.partial, stopped=run.manifest.stopped)
    update_summary(run.run_dir, "usage", payload)
    return ledger_lines(ledger)


def cmd_run(args: argparse.Namespace) -> int:
    from harness.console import plain_console
    from harness.gate import compare_run, comparison_lines, gate_outcome, update_baselines, write_gate_summary
    from harness.orchestrate import run_cases
    from harness.prediction import prediction_for_run, verdict_lines, write_verdicts
    from harness.repeats import run_repeats
    from harness.report.html import write_report
    from harness.runs import load_run, resolve_run
    from harness.subjects import parse_subjects, validate_subject

    console = plain_console()
    settings = load_settings(args.config, cache_mode=args.cache_mode, repeats=args.repeats)
    subjects = parse_subjects(args.subjects)
    for name in subjects:
        validate_subject(name, settings)  # a member arm names a council member
    names = (args.dataset or []) + ([args.suite] if args.suite else [])
    paths = [Path(p) for p in args.data] if args.data else DEFAULT_DATA
    if args.resume:
        run_dir = resolve_run(args.resume, settings.reports_dir)
        prior = load_run(run_dir).manifest
        datasets = _datasets(list(prior.datasets), paths, bool(args.data))
        subjects = list(prior.subjects)
        run = run_cases(settings, datasets, subjects, run_dir=run_dir, resume=True, console=console)
        run_repeats(settings, datasets, subjects, run.run_dir, resume=True, console=console)
    else:
        datasets = _datasets(names, paths, bool(args.data))
        run = run_cases(settings, datasets, subjects, limit=args.limit, console=console)
        run_repeats(settings, datasets, subjects, run.run_dir, limit=args.limit, console=console)
    prediction = prediction_for_run(run.results, settings)
    write_verdicts(run.run_dir, prediction)
    arm_results = arm_outcome(run, settings)
    usage_lines = usage_outcome(run, settings)
    comparisons = [] if args.update_baseline else compare_run(run, settings)
    report = write_report(run, prediction=prediction, comparison=comparisons)
    outcome = gate_outcome(run, comparisons)
    write_gate_summary(outcome, run)
    _print_summary(run, console)
    if prediction is not None:
        for line in verdict_lines(prediction):  # unwrapped and literal: CI logs and model-named scopes
            console.print(line, soft_wrap=True, markup=False, highlight=False)
    for line in [*arm_results, *usage_lines]:
        console.print(line, soft_wrap=True, markup=False, highlight=False)
    for line in comparison_lines(comparisons):
        console.print(line, markup=False, highlight=False)
    from harness.validity import judge_validity, reviewer_validity

    for v in judge_validity(run.results):
        console.print(v.line(), markup=False)
    for v in reviewer_validity(run.results):
        if v.verdict in ("uninformative", "inverted"):
            console.print(v.line(), markup=False)
    if args.update_baseline:
        for path in update_baselines(run, settings):
            console.print(f"baseline written: {path}", markup=False, highlight=False)
    if settings.quality_retention_days:
        from harness.runs import prune_runs

        for name in prune_runs(Path(settings.reports_dir) / "runs", settings.quality_retention_days, [run.run_id]):
            console.print(f"retention: removed run {name}")
    if args.junitxml:
        from harness.junit import write_junit

        junit = write_junit(Path(args.junitxml), run.results, [c for d in datasets for c in d.cases],
                            f"council-harness {run.run_id}")
        console.print(f"junit: {junit}", markup=False, highlight=False)
    console.print(f"report: {report}", markup=False, highlight=False)
    console.print(f"gate: {outcome.outcome} ({outcome.counts['reasons']} reason(s)); summary: "
                  f"{run.run_dir / 'summary.json'}", markup=False, highlight=False)
    return outcome.exit_code


def _print_summary(run: Run, console: PlainConsole) -> None:
    from rich.table import Table

    table = Table(title=f"run {run.run_id}")
    table.add_column("subject")
    for status in ("passed", "failed", "error", "awaiting_review"):
        table.add_column(status)
    for subject in run.manifest.subjects:
        rs = [r for r in run.results if r.subject == subject]
        table.add_row(subject, *(str(sum(r.status == s for r in rs)) for s in
                                 ("passed", "failed", "error", "awaiting_review")))
    console.print(table)


