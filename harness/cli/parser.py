"""The ``council-harness`` argparse tree: every sub-command, its options, its example and its ``cmd_*``.

The command modules import only light modules at the top (see :mod:`harness.cli`), so building the
parser stays fast.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from harness.cli.args import EXIT_CODES_HELP, add_version, positive_int
from harness.cli.compare import cmd_compare
from harness.cli.data import cmd_export, cmd_import, cmd_validate
from harness.cli.plan import cmd_plan
from harness.cli.report import cmd_diff, cmd_merge, cmd_report
from harness.cli.review import cmd_review
from harness.cli.run import cmd_run

#: what ``--subjects`` accepts (``tests/cli/test_cli_help.py`` checks it against :mod:`harness.run.subjects`)
SUBJECT_CHOICES = (
    "council, baseline, voting, llm-council, vote, chairman, solo:<model>, "
    "self-consistency:<model>, council-without:<member>, council:debate, council+dissent, "
    "council:jury, council:tie-breaker, llm-council:debate, llm-council+dissent, llm-council:jury, "
    "llm-council:tie-breaker, debate:<rounds>"
)


def _command(sub: Any, name: str, summary: str, example: str) -> argparse.ArgumentParser:
    """A sub-command whose ``--help`` says what it does, every option's default, and an example."""
    return sub.add_parser(
        name,
        help=summary,
        description=summary[0].upper() + summary[1:] + ".",
        epilog=f"example:\n  {example}",
        formatter_class=_HelpFormatter,
    )


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the example's line breaks; never wraps inside a hyphenated name (``llm-council:jury``)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="council-harness",
        description="Evaluate and regression-test multi-model LLM councils.",
        epilog=EXIT_CODES_HELP,
        formatter_class=_HelpFormatter,
    )
    add_version(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    run = _command(
        sub,
        "run",
        "run datasets through the council and the baseline, write a report",
        "council-harness run --suite reasoning-100 --limit 10\n"
        "  council-harness run --data golden/facts.yaml --subjects council,baseline,voting "
        "--junitxml junit.xml\n"
        "  council-harness run --resume 20261126-091000-cd34",
    )
    run.add_argument("--dataset", action="append", help="dataset name (repeatable; default: all golden datasets)")
    run.add_argument("--suite", help="a suite to run, e.g. reasoning-100")
    run.add_argument(
        "--subjects",
        default=None,
        help=f"comma-separated subjects (default: council,baseline); one of: {SUBJECT_CHOICES}",
    )
    run.add_argument(
        "--cache-mode",
        choices=["off", "readwrite", "replay"],
        default=None,
        help="record/replay cache of model calls: readwrite (default) records and reuses, replay makes "
        "no model call and fails on a miss naming the case, off bypasses it",
    )
    run.add_argument("--config", help="council-harness.yaml path")
    run.add_argument("--data", action="append", help="dataset file or folder (default: golden/ and suites/)")
    run.add_argument("--limit", type=positive_int, help="run only the first N cases (a whole number >= 1)")
    run.add_argument(
        "--repeats",
        type=positive_int,
        default=None,
        metavar="K",
        help="noise-aware gate: run each case K times with different seeds (default: config repeats, 1)",
    )
    run.add_argument(
        "--resume",
        metavar="RUN_ID",
        help="complete an interrupted run (with the configuration it started with; refused otherwise)",
    )
    run.add_argument(
        "--junitxml",
        metavar="PATH",
        help="also write JUnit XML: one test case per (case, subject), failures with the readable report",
    )
    run.add_argument(
        "--update-baseline",
        action="store_true",
        help="write reports/baselines/<dataset>.json from this run (explicitly, atomically)",
    )
    run.add_argument(
        "--markdown",
        metavar="PATH",
        help="also write the run's Markdown summary here (every run writes <run>/summary.md): the gate, "
        "the verdict lines, the failing and regressed cases linked to the report, usage",
    )
    noise = run.add_mutually_exclusive_group()
    noise.add_argument(
        "-q",
        "--quiet",
        action="count",
        default=0,
        help="no progress; on stdout only the verdict lines, the comparison summaries, the gate rule, "
        "the report path and the gate line",
    )
    noise.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="also a line per finished case on stderr and the known or tolerated failures on stdout",
    )
    run.set_defaults(func=cmd_run)
    cmp_ = _command(
        sub,
        "compare",
        "compare a run with its stored baselines (exit 1 on regression)",
        "council-harness compare 20261126-091000-cd34 --baseline reports/baselines/common_facts.json",
    )
    cmp_.add_argument("run", help="run folder or id")
    cmp_.add_argument("--baseline", help="a baseline file (default: reports/baselines/<dataset>.json)")
    cmp_.add_argument("--config", help="council-harness.yaml path")
    cmp_.add_argument(
        "--summary", metavar="PATH", help='write the comparison\'s "gate" section here (default: <run>/summary.json)'
    )
    cmp_.set_defaults(func=cmd_compare)
    rev = _command(
        sub,
        "review",
        "expert review: write a reviewers' sheet, or apply a filled one",
        "council-harness review 20261126-091000-cd34\n"
        "  council-harness review 20261126-091000-cd34 --apply sheet.csv --reviewer ana",
    )
    rev.add_argument("run", help="run folder or id")
    rev.add_argument("--apply", metavar="SHEET", help="merge the verdicts of a filled sheet (CSV)")
    rev.add_argument("--reviewer", help="who reviewed (when the sheet's reviewer column is empty)")
    rev.add_argument("--output", help="where to write the sheet (default: <run>/review-sheet.csv)")
    rev.add_argument("--update-baseline", action="store_true", help="with --apply: rewrite the baselines")
    rev.add_argument("--config", help="council-harness.yaml path")
    rev.set_defaults(func=cmd_review)
    imp = _command(
        sub,
        "import",
        "turn an external dataset into golden YAML (via the datasets library)",
        "council-harness import data.jsonl --name gsm --map query=question "
        "--map expected.numeric=answer --output golden/gsm.yaml",
    )
    imp.add_argument("source", help="a .jsonl/.json/.csv/.parquet file, or a hub dataset name when online")
    imp.add_argument("--name", required=True, help="the golden dataset's name")
    imp.add_argument(
        "--map",
        action="append",
        metavar="TARGET=COLUMN",
        help="field mapping, e.g. query=question, expected.numeric=answer (repeatable)",
    )
    imp.add_argument("--output", required=True, help="the golden YAML file to write")
    imp.add_argument("--split", default="train", help="hub split (default train)")
    imp.add_argument("--limit", type=positive_int, help="import only the first N rows (a whole number >= 1)")
    imp.set_defaults(func=cmd_import)
    exp = _command(
        sub,
        "export",
        "a run as one table (one row per case and subject): Parquet or CSV",
        "council-harness export 20261126-091000-cd34 --output results.csv",
    )
    exp.add_argument("run", help="run folder or id")
    exp.add_argument(
        "--output",
        help="output .parquet (needs pyarrow) or .csv (default: <run>/results.parquet, or results.csv without pyarrow)",
    )
    exp.set_defaults(func=cmd_export)
    mrg = _command(
        sub,
        "merge",
        "combine the run folders of shards (one per CI job) into one run and report",
        "council-harness merge reports/runs/shard-a reports/runs/shard-b",
    )
    mrg.add_argument("runs", nargs="+", metavar="RUN", help="run folders or ids (at least two)")
    mrg.add_argument("--output", help="the merged run folder (default: <reports_dir>/runs/<new run id>)")
    mrg.add_argument("--config", help="council-harness.yaml path")
    mrg.set_defaults(func=cmd_merge)
    dif = _command(
        sub,
        "diff",
        "what changed between two runs: flipped cases, biggest score moves, answers side by "
        "side (RUN_A as RUN_B's baseline, exactly as the gate compares; exit 1 when RUN_B regressed)",
        "council-harness diff 20261125-101500-ab12 20261126-091000-cd34 --html changes.html",
    )
    dif.add_argument("run_a", help="the earlier run (folder or id)")
    dif.add_argument("run_b", help="the later run (folder or id)")
    dif.add_argument("--top", type=int, default=20, help="how many of the biggest score moves to list (default 20)")
    dif.add_argument("--no-answers", action="store_true", help="do not print the two answers of each changed case")
    dif.add_argument("--json", metavar="PATH", help="also write the diff as JSON")
    dif.add_argument("--html", metavar="PATH", help="also write RUN_B's HTML report with a 'what changed' section")
    dif.add_argument("--config", help="council-harness.yaml path (tolerances, gated scores)")
    dif.set_defaults(func=cmd_diff)
    val = _command(
        sub,
        "validate",
        "check datasets and the configuration without running any model: every problem "
        "with file:line (exit 0 ok, 2 problems)",
        "council-harness validate golden/ suites/reasoning-100.yaml",
    )
    val.add_argument("paths", nargs="*", help="dataset files or folders (default: golden/ and suites/)")
    val.add_argument("--config", help="council-harness.yaml path")
    val.set_defaults(func=cmd_validate)
    plan = _command(
        sub,
        "plan",
        "state the verdict's power before a run: the smallest true improvement it "
        "detects at 80 percent power and the cases needed",
        "council-harness plan --suite reasoning-100 --base-rate 0.1",
    )
    plan.add_argument("--suite", help="a suite, as run selects it (e.g. reasoning-100)")
    plan.add_argument("--dataset", action="append", help="dataset name, as run (repeatable; default: all golden)")
    plan.add_argument("--data", action="append", help="dataset file or folder, as run (default: golden/ and suites/)")
    plan.add_argument("--limit", type=positive_int, help="only the first N cases, as run")
    plan.add_argument(
        "--cases",
        type=positive_int,
        default=None,
        help="override: this many cases with an expected answer (default: counted from the selection)",
    )
    plan.add_argument(
        "--base-rate",
        type=float,
        required=True,
        help="the single model's expected accuracy on them, strictly between 0 and 1 (e.g. 0.1)",
    )
    plan.add_argument("--threshold", type=float, default=0.15, help="the claimed improvement (default: 0.15)")
    plan.set_defaults(func=cmd_plan)
    rep = _command(
        sub, "report", "(re)write the HTML report of a run", "council-harness report --against 20261125-101500-ab12"
    )
    rep.add_argument("run", nargs="?", help="run folder or id (default: the latest)")
    rep.add_argument("--output", help="where to write the HTML (default: <run>/index.html)")
    rep.add_argument("--against", metavar="RUN", help="add a 'what changed since RUN' section (see `diff`)")
    rep.add_argument(
        "--reports-dir",
        default=None,
        help="reports folder (default: LLM_COUNCIL_REPORTS_DIR, reports_dir in the config, else reports)",
    )
    rep.add_argument("--config", help="council-harness.yaml path")
    rep.set_defaults(func=cmd_report)
    from harness.cli.bias_report import add_bias_report_parser
    from harness.cli.quality_report import add_quality_report_parser

    add_bias_report_parser(sub)
    add_quality_report_parser(sub)
    return parser
