"""``council-harness bias-report``: read the bias JSONL store, aggregate it across sessions and print
the audit as text, JSON or CSV (:mod:`harness.bias.report` renders it).

Wiring into the CLI is one line, ``add_bias_report_parser(subparsers)``; the sub-command's
``func`` default is :func:`bias_report_command`, which returns the exit code (0 done, 2 usage,
configuration or store error such as a missing input file). It imports only the bias modules, so the
command starts without the settings stack when every option is given.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.cli.args import non_negative_int, positive_int
from harness.common.errors import ConfigError, HarnessError
from harness.common.untrusted import echo, printable

#: output formats of ``--format`` (renderers in :mod:`harness.bias.report`)
FORMATS = ("text", "json", "csv")


def add_bias_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``bias-report`` sub-command to an ``argparse`` sub-parser collection.

    Args:
        subparsers: the object returned by ``ArgumentParser.add_subparsers()``.

    Returns:
        The sub-command's parser (its ``func`` default is :func:`bias_report_command`).
    """
    p = subparsers.add_parser(
        "bias-report",
        help="cross-session bias audit of the bias JSONL store (text, json or csv)",
        description="Aggregate bias records across sessions: pooled length-score correlation, position bias, "
        "reviewer profiles, trends and anomalies, each with N, estimate, 95% CI and window.",
        epilog="example:\n  council-harness bias-report --sessions 50 --format json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--input", help="bias JSONL file (default: LLM_COUNCIL_BIAS_STORE, ~/.llm-council/bias_metrics.jsonl)"
    )
    p.add_argument(
        "--sessions",
        type=non_negative_int,
        default=None,
        help="only the last N sessions (default: LLM_COUNCIL_BIAS_WINDOW_SESSIONS, 100; 0 = no limit)",
    )
    p.add_argument(
        "--days",
        type=non_negative_int,
        default=None,
        help="only the last N days (default: LLM_COUNCIL_BIAS_WINDOW_DAYS, 30; 0 = no limit)",
    )
    p.add_argument(
        "--min-sessions",
        type=positive_int,
        default=None,
        help="sessions wanted for robust figures (default: LLM_COUNCIL_MIN_BIAS_SESSIONS, 20)",
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--verbose", action="store_true", help="list every reviewer profile, position and anomaly")
    p.add_argument("--config", help="council-harness.yaml path (for the defaults above)")
    p.set_defaults(func=bias_report_command)
    return p


def _resolve(args: argparse.Namespace) -> tuple[Path, int, int, int]:
    """Input path, session bound, day bound and minimum: options first, then settings (env/YAML/defaults)."""
    given = {
        "bias_store": Path(args.input).expanduser() if args.input else None,
        "bias_window_sessions": args.sessions,
        "bias_window_days": args.days,
        "min_bias_sessions": args.min_sessions,
    }
    if None in given.values():
        from harness.config import load_settings

        settings = load_settings(getattr(args, "config", None))
        given = {k: getattr(settings, k) if v is None else v for k, v in given.items()}
    return (given["bias_store"], given["bias_window_sessions"], given["bias_window_days"], given["min_bias_sessions"])


def _run(args: argparse.Namespace) -> int:
    # the bias modules (numpy, msgspec) load when the command runs, not for --help
    from harness.bias.aggregate import read_table, run_aggregated_bias_audit
    from harness.bias.report import render_csv, render_json, render_text
    from harness.bias.store import BiasStore

    path, sessions, days, minimum = _resolve(args)
    if args.format not in FORMATS:
        raise ConfigError(f"expected one of {list(FORMATS)}, got {args.format!r}", "--format")
    read = read_table(BiasStore(path))
    if read.corrupt_lines:
        more = "" if read.corrupt_lines <= len(read.reasons) else f" (first {len(read.reasons)} shown)"
        print(f"warning: skipped {read.corrupt_lines} unreadable line(s) in {path}{more}:", file=sys.stderr)
        for reason in read.reasons:
            print(f"  {reason}", file=sys.stderr)
    if any(writer != "council-harness" for writer, _ in read.writers):
        counts = ", ".join(f"{n} from {writer}" for writer, n in read.writers)
        print(
            f"note: {path} holds records of more than this project ({counts}); "
            "llm-council-core's 0-based display positions are read as 1-based",
            file=sys.stderr,
        )
    report = run_aggregated_bias_audit(
        read.table,
        min_sessions=minimum,
        window_sessions=sessions or None,
        window_days=days or None,
    )
    if args.format == "json":
        out = render_json(report)
    elif args.format == "csv":
        out = render_csv(report)
    else:
        out = printable(render_text(report, verbose=args.verbose))  # reviewer ids etc. come from the store
    sys.stdout.write(out)
    return 0


def bias_report_command(args: argparse.Namespace) -> int:
    """Run ``bias-report`` from parsed arguments; errors print one line to stderr and return their exit code.

    Args:
        args: the parsed ``bias-report`` arguments (``input``, ``sessions``, ``days``, ``min_sessions``,
            ``format``, ``verbose``, ``config``).
    """
    try:
        return _run(args)
    except HarnessError as exc:
        echo(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
