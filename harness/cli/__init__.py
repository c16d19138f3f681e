"""The ``council-harness`` command line: one module per command or command group.

``main`` (the console script ``harness.cli:main``) parses the arguments with :func:`build_parser` and
calls the chosen command's ``cmd_*`` function. The modules import only the standard library and light
harness modules at the top; every command imports what it needs when it runs, so that ``--help`` and a
light command such as ``bias-report`` start without loading the report, run or model stack.

- :mod:`harness.cli.parser`: the argparse tree (every sub-command, its options and its example)
- :mod:`harness.cli.args`: argparse value types shared by the sub-commands
- :mod:`harness.cli.run`: ``run`` (cases, repeats, then :func:`harness.finish.finish_run`)
- :mod:`harness.cli.compare`: ``compare`` (a run against its stored baselines)
- :mod:`harness.cli.review`: ``review`` (expert-review sheet, ``--apply``)
- :mod:`harness.cli.report`: ``report``, ``diff`` and ``merge`` (commands that (re)write a report)
- :mod:`harness.cli.data`: ``import``, ``export`` and ``validate`` (datasets and result tables)
- :mod:`harness.cli.bias_report`: ``bias-report`` (the cross-session bias audit)
- :mod:`harness.cli.quality_report`: ``quality-report`` (Tier 1/2 quality of a run, or trends over runs)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from harness.common import vault
from harness.common.errors import EXIT_USAGE, CacheMiss, HarnessError
from harness.common.untrusted import echo

__all__ = ["SUBJECT_CHOICES", "build_parser", "main"]


def __getattr__(name: str) -> Any:
    """``SUBJECT_CHOICES`` and ``build_parser`` from :mod:`harness.cli.parser`, imported on first use: the
    parser's command modules import the settings stack, which ``bias-report`` loads only when an option
    is left to the settings."""
    if name in ("SUBJECT_CHOICES", "build_parser"):
        from harness.cli import parser

        return getattr(parser, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``council-harness`` command; its exit code (:mod:`harness.common.errors`: 0 pass, 1 gate
    failure, 2 usage or configuration error, 3 infrastructure error or incomplete results, 130 interrupted)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bias-report"]:
        # fast path: only the bias modules (no run, report or model stack) for a command that reads one file
        from harness.cli.bias_report import add_bias_report_parser

        parser = argparse.ArgumentParser(prog="council-harness")
        add_bias_report_parser(parser.add_subparsers(dest="command", required=True))
    else:
        from harness.cli.parser import build_parser

        parser = build_parser()
    args = parser.parse_args(argv)
    # secrets out of the environment before any child process starts; this process non-dumpable
    vault.seal([os.environ.get("LLM_COUNCIL_API_KEY_ENV", "")])
    vault.protect_process()
    try:
        return int(args.func(args))
    except CacheMiss as exc:
        echo(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except HarnessError as exc:
        problems = getattr(exc, "problems", [exc])
        for p in problems if len(problems) > 1 else [exc]:
            echo(f"error: {p}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # a file-system failure no store wrapped: name the path, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        echo(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted; resume with `council-harness run --resume RUN_ID`", file=sys.stderr)
        return 130
