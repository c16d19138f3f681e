"""``council-harness import``, ``export`` and ``validate``: datasets in, result tables out, checks."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.config import load_settings


def cmd_import(args: argparse.Namespace) -> int:
    from harness.cli.importer import FieldMap, import_dataset

    mapping = FieldMap.parse(args.map or [])
    n = import_dataset(args.source, mapping, args.name, Path(args.output), split=args.split, limit=args.limit)
    print(f"{args.output}: {n} case(s) imported into dataset '{args.name}'")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from harness.run.validate import validate

    result = validate([Path(p) for p in args.paths] or None, args.config)
    for line in result.lines():
        print(line, file=sys.stdout if result.ok else sys.stderr)
    return 0 if result.ok else 2


def cmd_export(args: argparse.Namespace) -> int:
    from harness.report.frames import default_export_path, export
    from harness.run.runs import load_run

    run = load_run(args.run, load_settings(None))
    out = Path(args.output) if args.output else default_export_path(run)
    print(export(run, out))
    return 0
