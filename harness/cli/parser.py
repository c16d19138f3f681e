"""The ``council-harness`` command line.

Sub-commands import what they need when they run, so that a light command such as
``bias-report`` starts without loading the report, run or model stack (see :func:`main`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import vault
from harness.cliargs import positive_int
from harness.config import load_settings
from harness.errors import CacheMiss, ConfigError, HarnessError
from harness.untrusted import echo

if TYPE_CHECKING:
    from harness.arm_verdicts import ArmVerdict, LeaveOneOut
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


def arm_outcome(run: Run, settings: Settings) -> tuple[list[ArmVerdict], list[LeaveOneOut]]:
    """The council against every arm and the leave-one-out effects, written to summary.json ``"arms"``."""
    from harness.arm_verdicts import arm_verdicts, arms_summary, leave_one_out
    from harness.summary import update_summary

    verdicts = arm_verdicts(run.results, settings.prediction_threshold, settings.primary_endpoint)
    loo = leave_one_out(run.results, settings.primary_endpoint)
    if verdicts or loo:
        update_summary(run.run_dir, "arms", arms_summary(verdicts, loo))
    return verdicts, loo


def usage_outcome(run: Run, settings: Settings) -> list[str]:
    """The usage ledger written to summary.json ``"usage"``; its console lines."""
    from harness.ledger import ledger_lines, usage_ledger
    from harness.summary import update_summary

    ledger = usage_ledger(run.results, settings.pricing)
    payload = dict(ledger.model_dump(mode="json"), partial=run.manifest.partial, stopped=run.manifest.stopped)
    update_summary(run.run_dir, "usage", payload)
    return ledger_lines(ledger)


def cmd_run(args: argparse.Namespace) -> int:
    from harness.arm_verdicts import arm_lines
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
    for line in [*arm_lines(*arm_results, run.results), *usage_lines]:
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


def cmd_compare(args: argparse.Namespace) -> int:
    from harness.gate import compare_run, comparison_lines, gate_outcome, write_gate_summary
    from harness.runs import load_run, resolve_run

    settings = load_settings(args.config)
    run = load_run(resolve_run(args.run, settings.reports_dir))
    comparisons = compare_run(run, settings, Path(args.baseline) if args.baseline else None)
    if not comparisons:
        raise ConfigError(
            "no baseline to compare with; write one with `council-harness run --update-baseline` "
            "or pass --baseline FILE", str(baseline_hint(settings)))
    outcome = gate_outcome(run, comparisons)
    summary = write_gate_summary(outcome, run, Path(args.summary) if args.summary else None)
    for line in comparison_lines(comparisons):
        echo(line)
    counts = outcome.counts
    echo(f"gate: {outcome.outcome}: {counts['reasons']} reason(s); {counts['results']} result(s) read, "
         f"{counts['missing']} baselined case(s) missing, {counts['unreadable']} unreadable line(s)")
    echo(f"summary: {summary}")
    return outcome.exit_code


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


def cmd_import(args: argparse.Namespace) -> int:
    from harness.importer import FieldMap, import_dataset

    mapping = FieldMap.parse(args.map or [])
    n = import_dataset(args.source, mapping, args.name, Path(args.output), split=args.split, limit=args.limit)
    print(f"{args.output}: {n} case(s) imported into dataset '{args.name}'")
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


def cmd_validate(args: argparse.Namespace) -> int:
    from harness.validate import validate

    result = validate([Path(p) for p in args.paths] or None, args.config)
    for line in result.lines():
        print(line, file=sys.stdout if result.ok else sys.stderr)
    return 0 if result.ok else 2


def cmd_export(args: argparse.Namespace) -> int:
    from harness.frames import export
    from harness.runs import load_run, resolve_run

    run = load_run(resolve_run(args.run, load_settings(None).reports_dir))
    out = Path(args.output) if args.output else run.run_dir / "results.parquet"
    print(export(run, out))
    return 0


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


def baseline_hint(settings) -> Path:  # noqa: ANN001
    return Path(settings.reports_dir) / "baselines"


def _print_summary(run, console: PlainConsole) -> None:
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


#: what ``--subjects`` accepts (``tests/test_cli_help.py`` checks it against :mod:`harness.subjects`)
SUBJECT_CHOICES = ("council, baseline, voting, llm-council, vote, chairman, solo:<member>, "
                   "self-consistency:<member>, council-without:<member>")


def _command(sub: Any, name: str, summary: str, example: str) -> argparse.ArgumentParser:
    """A sub-command whose ``--help`` says what it does, every option's default, and an example."""
    return sub.add_parser(name, help=summary, description=summary[0].upper() + summary[1:] + ".",
                          epilog=f"example:\n  {example}", formatter_class=_HelpFormatter)


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the example's line breaks."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="council-harness", description="Evaluate and regression-test multi-model LLM councils."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = _command(sub, "run", "run datasets through the council and the baseline, write a report",
                   "council-harness run --suite reasoning-100 --limit 10\n"
                   "  council-harness run --data golden/facts.yaml --subjects council,baseline,voting "
                   "--junitxml junit.xml\n"
                   "  council-harness run --resume 20261126-091000-cd34")
    run.add_argument("--dataset", action="append", help="dataset name (repeatable; default: all golden datasets)")
    run.add_argument("--suite", help="a suite to run, e.g. reasoning-100")
    run.add_argument("--subjects", default="council,baseline",
                     help=f"comma-separated subjects (default: council,baseline); one of: {SUBJECT_CHOICES}")
    run.add_argument("--cache-mode", choices=["off", "readwrite", "replay"], default=None,
                     help="record/replay cache of model calls: readwrite (default) records and reuses, replay makes "
                          "no model call and fails on a miss naming the case, off bypasses it")
    run.add_argument("--config", help="council-harness.yaml path")
    run.add_argument("--data", action="append", help="dataset file or folder (default: golden/ and suites/)")
    run.add_argument("--limit", type=positive_int, help="run only the first N cases (a whole number >= 1)")
    run.add_argument("--repeats", type=positive_int, default=None, metavar="K",
                     help="noise-aware gate: run each case K times with different seeds (default: config repeats, 1)")
    run.add_argument("--resume", metavar="RUN_ID", help="complete an interrupted run")
    run.add_argument("--junitxml", metavar="PATH",
                     help="also write JUnit XML: one test case per (case, subject), failures with the readable report")
    run.add_argument("--update-baseline", action="store_true",
                     help="write reports/baselines/<dataset>.json from this run (explicitly, atomically)")
    run.set_defaults(func=cmd_run)
    cmp_ = _command(sub, "compare", "compare a run with its stored baselines (exit 1 on regression)",
                    "council-harness compare 20261126-091000-cd34 --baseline reports/baselines/common_facts.json")
    cmp_.add_argument("run", help="run folder or id")
    cmp_.add_argument("--baseline", help="a baseline file (default: reports/baselines/<dataset>.json)")
    cmp_.add_argument("--config", help="council-harness.yaml path")
    cmp_.add_argument("--summary", metavar="PATH",
                      help="write the comparison's \"gate\" section here (default: <run>/summary.json)")
    cmp_.set_defaults(func=cmd_compare)
    rev = _command(sub, "review", "expert review: write a reviewers' sheet, or apply a filled one",
                   "council-harness review 20261126-091000-cd34\n"
                   "  council-harness review 20261126-091000-cd34 --apply sheet.csv --reviewer ana")
    rev.add_argument("run", help="run folder or id")
    rev.add_argument("--apply", metavar="SHEET", help="merge the verdicts of a filled sheet (CSV)")
    rev.add_argument("--reviewer", help="who reviewed (when the sheet's reviewer column is empty)")
    rev.add_argument("--output", help="where to write the sheet (default: <run>/review-sheet.csv)")
    rev.add_argument("--update-baseline", action="store_true", help="with --apply: rewrite the baselines")
    rev.add_argument("--config", help="council-harness.yaml path")
    rev.set_defaults(func=cmd_review)
    imp = _command(sub, "import", "turn an external dataset into golden YAML (via the datasets library)",
                   "council-harness import data.jsonl --name gsm --map query=question "
                   "--map expected.numeric=answer --output golden/gsm.yaml")
    imp.add_argument("source", help="a .jsonl/.json/.csv/.parquet file, or a hub dataset name when online")
    imp.add_argument("--name", required=True, help="the golden dataset's name")
    imp.add_argument("--map", action="append", metavar="TARGET=COLUMN",
                     help="field mapping, e.g. query=question, expected.numeric=answer (repeatable)")
    imp.add_argument("--output", required=True, help="the golden YAML file to write")
    imp.add_argument("--split", default="train", help="hub split (default train)")
    imp.add_argument("--limit", type=positive_int, help="import only the first N rows (a whole number >= 1)")
    imp.set_defaults(func=cmd_import)
    exp = _command(sub, "export", "a run as one table (one row per case and subject): Parquet or CSV",
                   "council-harness export 20261126-091000-cd34 --output results.csv")
    exp.add_argument("run", help="run folder or id")
    exp.add_argument("--output", help="output .parquet or .csv (default: <run>/results.parquet)")
    exp.set_defaults(func=cmd_export)
    mrg = _command(sub, "merge", "combine the run folders of shards (one per CI job) into one run and report",
                   "council-harness merge reports/runs/shard-a reports/runs/shard-b")
    mrg.add_argument("runs", nargs="+", metavar="RUN", help="run folders or ids (at least two)")
    mrg.add_argument("--output", help="the merged run folder (default: <reports_dir>/runs/<new run id>)")
    mrg.add_argument("--config", help="council-harness.yaml path")
    mrg.set_defaults(func=cmd_merge)
    dif = _command(sub, "diff", "what changed between two runs: flipped cases, biggest score moves, answers side by "
                   "side (RUN_A as RUN_B's baseline, exactly as the gate compares; exit 1 when RUN_B regressed)",
                   "council-harness diff 20261125-101500-ab12 20261126-091000-cd34 --html changes.html")
    dif.add_argument("run_a", help="the earlier run (folder or id)")
    dif.add_argument("run_b", help="the later run (folder or id)")
    dif.add_argument("--top", type=int, default=20, help="how many of the biggest score moves to list (default 20)")
    dif.add_argument("--no-answers", action="store_true", help="do not print the two answers of each changed case")
    dif.add_argument("--json", metavar="PATH", help="also write the diff as JSON")
    dif.add_argument("--html", metavar="PATH", help="also write RUN_B's HTML report with a 'what changed' section")
    dif.add_argument("--config", help="council-harness.yaml path (tolerances, gated scores)")
    dif.set_defaults(func=cmd_diff)
    val = _command(sub, "validate", "check datasets and the configuration without running any model: every problem "
                   "with file:line (exit 0 ok, 2 problems)",
                   "council-harness validate golden/ suites/reasoning-100.yaml")
    val.add_argument("paths", nargs="*", help="dataset files or folders (default: golden/ and suites/)")
    val.add_argument("--config", help="council-harness.yaml path")
    val.set_defaults(func=cmd_validate)
    rep = _command(sub, "report", "(re)write the HTML report of a run",
                   "council-harness report --against 20261125-101500-ab12")
    rep.add_argument("run", nargs="?", help="run folder or id (default: the latest)")
    rep.add_argument("--output", help="where to write the HTML (default: <run>/index.html)")
    rep.add_argument("--against", metavar="RUN", help="add a 'what changed since RUN' section (see `diff`)")
    rep.add_argument("--reports-dir", default=None,
                     help="reports folder (default: LLM_COUNCIL_REPORTS_DIR, reports_dir in the config, else reports)")
    rep.add_argument("--config", help="council-harness.yaml path")
    rep.set_defaults(func=cmd_report)
    from harness.bias.report import add_bias_report_parser
    from harness.tier2.quality_report import add_quality_report_parser

    add_bias_report_parser(sub)
    add_quality_report_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bias-report"]:
        # fast path: only the bias modules (no run, report or model stack) for a command that reads one file
        from harness.bias.report import add_bias_report_parser

        parser = argparse.ArgumentParser(prog="council-harness")
        add_bias_report_parser(parser.add_subparsers(dest="command", required=True))
    else:
        parser = build_parser()
    args = parser.parse_args(argv)
    # secrets out of the environment before any child process starts; this process non-dumpable
    vault.seal([os.environ.get("LLM_COUNCIL_API_KEY_ENV", "")])
    vault.protect_process()
    try:
        return int(args.func(args))
    except CacheMiss as exc:
        echo(f"error: {exc}", file=sys.stderr)
        return 1
    except HarnessError as exc:
        problems = getattr(exc, "problems", [exc])
        for p in problems if len(problems) > 1 else [exc]:
            echo(f"error: {p}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # a file-system failure no store wrapped: name the path, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        echo(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; resume with `council-harness run --resume RUN_ID`", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
