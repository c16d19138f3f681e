"""``council-harness quality-report``: seed 001's session quality report of one run, or trends over the
last N runs (:mod:`harness.tier2.quality_report` computes, :mod:`harness.tier2.quality_text` and
:mod:`harness.tier2.quality_json` render).

Wiring into the CLI is one line, ``add_quality_report_parser(subparsers)``; the sub-command's
``func`` is :func:`quality_report_command` (exit 0 done, 2 no runs, unknown run or unreadable file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli.args import positive_int
from harness.common.errors import ConfigError, HarnessError
from harness.common.untrusted import echo, printable

if TYPE_CHECKING:
    from harness.run.runs import Run
    from harness.tier2.embeddings import Embedder
    from harness.tier2.quality_report import EmbedderSource

#: The subject reported on by default (as :data:`harness.tier2.quality_report.DEFAULT_SUBJECT`).
DEFAULT_SUBJECT = "council"

FORMATS = ("text", "json")
TEMPORAL_MODES = ("auto", "embedding", "jaccard", "off")


def add_quality_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``quality-report`` sub-command to an ``argparse`` sub-parser collection.

    Args:
        subparsers: the object returned by ``ArgumentParser.add_subparsers()``.

    Returns:
        The sub-command's parser (its ``func`` default is :func:`quality_report_command`).
    """
    p = subparsers.add_parser(
        "quality-report",
        help="seed 001 quality report of a run (or trends over the last N runs)",
        description="Tier 1 means, the peer rubric breakdown with baseline delta, temporal consistency, "
        "cross-model calibration and alerts for one run; --sessions N for trends over N runs.",
        epilog="example:\n  council-harness quality-report --session latest --sessions 5",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--session",
        default="latest",
        metavar="latest|RUN_ID",
        help="the run to report on: 'latest' (default), a run id under <reports-dir>/runs, or a folder",
    )
    p.add_argument(
        "--sessions",
        type=positive_int,
        default=None,
        metavar="N",
        help="cross-session trends over the last N runs (ending at --session)",
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument(
        "--reports-dir",
        default=None,
        help="reports folder (default: LLM_COUNCIL_REPORTS_DIR, reports_dir in the config, else reports)",
    )
    p.add_argument("--subject", default=DEFAULT_SUBJECT, help="subject to report on (default: council)")
    p.add_argument(
        "--temporal",
        choices=TEMPORAL_MODES,
        default="auto",
        help="temporal consistency similarity: auto (embeddings when the semantic extra is installed, "
        "else Jaccard), embedding, jaccard, or off",
    )
    p.add_argument(
        "--temporal-window",
        type=positive_int,
        default=None,
        metavar="N",
        help="search only the N most recent earlier runs for similar queries (default: all)",
    )
    p.set_defaults(func=quality_report_command)
    return p


def _embedder_source(mode: str) -> EmbedderSource | None:
    from harness.tier2.embeddings import INSTALL_HINT, load_embedder

    if mode == "jaccard":
        return None
    if mode == "auto":
        return load_embedder

    def required() -> Embedder:
        model = load_embedder()
        if model is None:
            raise ConfigError(f"the embedding method needs the semantic extra: {INSTALL_HINT}", "--temporal")
        return model

    return required


def _load(run_dir: Path) -> Run:
    """Load a run, warning on stderr about results lines that could not be read (they are skipped)."""
    from harness.run.runs import load_run

    return _warn_corrupt(load_run(run_dir))


def _warn_corrupt(run: Run) -> Run:
    if run.corrupt_lines:
        print(
            f"warning: skipped {len(run.corrupt_lines)} unreadable line(s) in {run.run_dir / 'results.jsonl'} "
            f"(line {', '.join(str(n) for n in run.corrupt_lines[:20])})",
            file=sys.stderr,
        )
    return run


def _run(args: argparse.Namespace) -> int:
    # the computation's modules (numpy, the run and baseline stores) load when the command runs, not for --help
    from harness.config import load_settings
    from harness.run.runs import readable_runs, resolve_run, run_folders
    from harness.tier2.quality_json import session_json, trends_json
    from harness.tier2.quality_report import quality_trends, session_quality
    from harness.tier2.quality_text import render_text, render_trends_text

    reports_dir = Path(args.reports_dir) if args.reports_dir else load_settings(None).reports_dir
    if args.format not in FORMATS:
        raise ConfigError(f"expected one of {list(FORMATS)}, got {args.format!r}", "--format")
    run_dir = resolve_run(args.session, reports_dir, "--session")
    if args.sessions:
        folders = [p for p in run_folders(run_dir.parent) if p.name <= run_dir.name][-args.sessions :]
        trends = quality_trends([_warn_corrupt(r) for r in readable_runs(folders)], args.subject)
        out = (
            json.dumps(trends_json(trends), indent=2, ensure_ascii=False) + "\n"
            if args.format == "json"
            else render_trends_text(trends)
        )
    else:
        q = session_quality(
            _load(run_dir),
            reports_dir,
            args.subject,
            _embedder_source(args.temporal),
            temporal=args.temporal != "off",
            temporal_window=args.temporal_window,
        )
        out = (
            json.dumps(session_json(q), indent=2, ensure_ascii=False) + "\n"
            if args.format == "json"
            else render_text(q)
        )
    sys.stdout.write(out if args.format == "json" else printable(out))  # text from runs reaches a terminal escaped
    return 0


def quality_report_command(args: argparse.Namespace) -> int:
    """Run ``quality-report`` from parsed arguments; errors print one line to stderr and return their exit code.

    Args:
        args: the parsed ``quality-report`` arguments (``session``, ``sessions``, ``format``, ``reports_dir``,
            ``subject``, ``temporal``, ``temporal_window``).
    """
    try:
        return _run(args)
    except HarnessError as exc:
        echo(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
