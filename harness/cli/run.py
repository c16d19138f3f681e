"""``council-harness run``: run datasets through the subjects, then finish the run (verdicts, gate, report)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.common.errors import ConfigError
from harness.config import load_settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from harness.common.console import PlainConsole
    from harness.data.cases import Dataset
    from harness.run.result import CaseResult
    from harness.run.runs import Run

DEFAULT_DATA = [Path("golden"), Path("suites")]
DEFAULT_SUBJECTS = "council,baseline"


def _datasets(names: Sequence[str] | None, paths: Sequence[Path], explicit: bool) -> list[Dataset]:
    """The datasets to run; ``explicit`` paths (``--data``) must exist and hold datasets.

    Raises:
        DatasetError: a ``--data`` path that does not exist or holds no dataset (see :func:`discover`).
        ConfigError: an unknown ``--dataset`` name, or nothing to run at all.
    """
    from harness.data.cases import discover

    found = discover(list(paths) if explicit else [p for p in paths if p.exists()])
    if not names:
        golden = [d for d in found if d.kind == "golden"]
        if not golden:
            where = ", ".join(str(p) for p in paths)
            raise ConfigError(
                f"no golden dataset found in {where}; pass --data PATH, or --suite NAME for a suite", "--data"
            )
        return golden
    by_name = {d.name: d for d in found}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise ConfigError(f"unknown dataset(s) {missing}; available: {sorted(by_name)}", "--dataset")
    return [by_name[n] for n in names]


def cmd_run(args: argparse.Namespace) -> int:
    """Run the cases (and their repeats), then :func:`harness.finish.finish_run`; print what it found.

    Results go to stdout (the run's table, the verdict lines, the arms, remediation and usage lines, the
    baseline comparison, the report path, the gate rule and the gate line), progress and notes to
    stderr (``docs/cli.md``). ``-q`` keeps only the verdict lines, the comparison summaries, the report
    path, the gate rule and the gate line on stdout and no progress; ``-v`` adds a line per finished
    case on stderr and the known or tolerated failures on stdout.
    """
    from harness.common.console import plain_console
    from harness.finish import finish_run
    from harness.gate.prediction import verdict_lines
    from harness.gate.regression import comparison_lines
    from harness.run.ledger import ledger_lines
    from harness.run.orchestrate import run_cases
    from harness.run.repeats import run_repeats
    from harness.run.runs import load_run, runs_dir
    from harness.run.subjects import parse_subjects, validate_subject

    verbosity = getattr(args, "verbose", 0) - getattr(args, "quiet", 0)
    console = plain_console(quiet=verbosity < 0)  # stderr: progress and notes
    out = plain_console(stderr=False)  # stdout: the results

    def say(line: str) -> None:  # a result line: unwrapped and literal (CI logs, model-named scopes)
        out.print(line, soft_wrap=True, markup=False, highlight=False)

    on_result = _case_line(console) if verbosity > 0 else None
    settings = load_settings(args.config, cache_mode=args.cache_mode, repeats=args.repeats)
    subjects = parse_subjects(args.subjects or DEFAULT_SUBJECTS)
    for name in subjects:
        validate_subject(name, settings)  # an arm names a configured model
    names = (args.dataset or []) + ([args.suite] if args.suite else [])
    paths = [Path(p) for p in args.data] if args.data else DEFAULT_DATA
    resume_args = _resume_args(args, subjects)
    if args.resume:
        from harness.run.resume import check_resumable, recorded_limit

        prior = load_run(args.resume, settings)
        check_resumable(
            prior.manifest,
            settings.public_dict(),
            subjects=subjects if args.subjects else None,
            datasets=names or None,
            limit=args.limit,
            where=str(prior.run_dir / "manifest.json"),
        )
        datasets = _datasets(list(prior.manifest.datasets), paths, bool(args.data))
        subjects = list(prior.manifest.subjects)
        limit = recorded_limit(prior.manifest)  # the cases the run started with, --limit given or not
        run = run_cases(
            settings,
            datasets,
            subjects,
            limit=limit,
            run_dir=prior.run_dir,
            resume=True,
            console=console,
            resume_args=resume_args,
            on_result=on_result,
        )
        run_repeats(settings, datasets, subjects, run.run_dir, limit=limit, resume=True, console=console)
    else:
        datasets = _datasets(names, paths, bool(args.data))
        run = run_cases(
            settings,
            datasets,
            subjects,
            limit=args.limit,
            console=console,
            resume_args=resume_args,
            on_result=on_result,
        )
        run_repeats(settings, datasets, subjects, run.run_dir, limit=args.limit, console=console)
    markdown = getattr(args, "markdown", None)
    outcome = finish_run(
        run, settings, update_baseline=args.update_baseline, markdown_path=Path(markdown) if markdown else None
    )
    if verbosity >= 0:
        _print_summary(run, out)
    if outcome.prediction is not None:
        for line in verdict_lines(outcome.prediction):
            say(line)
    if verbosity >= 0:
        bands = [f"remediation: {b.sentence}" for b in outcome.remediation]  # seed 000's CSS bands (issue 29)
        for line in [*outcome.arms.lines(run.results), *bands, *ledger_lines(outcome.usage)]:
            say(line)
    for line in comparison_lines(outcome.comparisons, outcome.gate):
        if verbosity >= 0 or not line.startswith("  "):
            say(line)
    if verbosity > 0:
        for reason in outcome.gate.excused:
            say(f"  ~ {reason.dataset} :: {reason.message}")
    if verbosity >= 0:
        for line in outcome.validity_lines:
            say(line)
        for path in outcome.baselines_written:
            say(f"baseline written: {path}")
    if settings.quality_retention_days:
        from harness.run.runs import prune_runs

        for name in prune_runs(runs_dir(settings), settings.quality_retention_days, [run.run_id]):
            console.print(f"retention: removed run {name}", markup=False)
    if args.junitxml:
        from harness.report.junit import write_junit

        junit = write_junit(
            Path(args.junitxml), run.results, [c for d in datasets for c in d.cases], f"council-harness {run.run_id}"
        )
        say(f"junit: {junit}")
    gate = outcome.gate
    if markdown:
        say(f"markdown: {markdown}")
    say(f"report: {outcome.report}")
    if gate.scoring.errors:
        say(gate.scoring.words())
    say(gate.words)
    say(f"{gate.line()}; summary: {outcome.summary}")
    return outcome.exit_code


def _case_line(console: PlainConsole) -> Callable[[CaseResult], None]:
    """``-v``: one stderr line per finished case (status, dataset::case [subject], the error if any)."""

    def line(result: CaseResult) -> None:
        why = f": {result.error}" if result.error else ""
        console.print(
            f"{result.status:>8} {result.dataset}::{result.case_id} [{result.subject}]{why}",
            soft_wrap=True,
            markup=False,
            highlight=False,
        )

    return line


def _resume_args(args: argparse.Namespace, subjects: Sequence[str]) -> list[str]:
    """The arguments a ``--resume`` of this run needs, paths made absolute: ``--config``, ``--data``,
    ``--subjects``, ``--cache-mode`` and ``--repeats`` as given (a resume reads the datasets and
    subjects from the run's manifest, but it finds the run and the datasets only through these)."""
    out: list[str] = []
    if args.config:
        out += ["--config", str(Path(args.config).resolve())]
    for p in args.data or []:
        out += ["--data", str(Path(p).resolve())]
    out += ["--subjects", ",".join(subjects)]
    if args.cache_mode:
        out += ["--cache-mode", args.cache_mode]
    if args.repeats:
        out += ["--repeats", str(args.repeats)]
    return out


def _print_summary(run: Run, console: PlainConsole) -> None:
    from rich.table import Table

    table = Table(title=f"run {run.run_id}")
    table.add_column("subject")
    for status in ("passed", "failed", "error", "awaiting_review"):
        table.add_column(status)
    for subject in run.manifest.subjects:
        rs = [r for r in run.results if r.subject == subject]
        table.add_row(
            subject, *(str(sum(r.status == s for r in rs)) for s in ("passed", "failed", "error", "awaiting_review"))
        )
    console.print(table)
