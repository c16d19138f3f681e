"""``council-harness import``: an external dataset -> golden YAML, through the ``datasets`` library.

Sources: a local ``.jsonl``/``.json``, ``.csv`` or ``.parquet`` file, or a hub dataset name when the
machine is online. The mapping is explicit, ``TARGET=COLUMN``:

* ``query=question`` (required), ``id=qid`` (default: ``<name>-<row>``), ``ground_truth=answer``,
  ``context=passages`` (a string or a list of strings), ``tags=topic``;
* ``expected.numeric=answer`` (the final number in the column, e.g. GSM8K's ``#### 42``),
  ``expected.exact=answer``, ``expected.regex=pattern``, ``expected.any_of=aliases`` (a list).

Every imported case keeps where it came from in ``origin`` (source and row). A mapped
``expected.*`` field sets the dataset's ``answer_format: auto`` (the query gets the instruction that
fits the expected type); the target is never copied into ``required_mentions`` (the objective check
is the ``expected`` block, which reads spelled-out numbers, options and negations).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from harness.common.errors import ConfigError, DatasetError
from harness.common.fsutil import NotRegularFile, atomic_write_text, open_regular
from harness.common.model import Frozen
from harness.data.cases import load_datasets

TARGETS = (
    "id",
    "query",
    "ground_truth",
    "context",
    "tags",
    "expected.numeric",
    "expected.exact",
    "expected.regex",
    "expected.any_of",
)
_BUILDERS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}
#: The largest local source file read (a device, FIFO or folder is refused before any read).
MAX_SOURCE_BYTES = 2**30


class FieldMap(Frozen):
    """target field -> source column."""

    pairs: dict[str, str]

    @classmethod
    def parse(cls, items: Sequence[str]) -> FieldMap:
        pairs: dict[str, str] = {}
        for item in items:
            target, sep, column = item.partition("=")
            target, column = target.strip(), column.strip()
            if not sep or not target or not column:
                raise ConfigError(f"expected TARGET=COLUMN, got {item!r}", "--map")
            if target not in TARGETS:
                raise ConfigError(f"unknown target field {target!r}; expected one of {list(TARGETS)}", "--map")
            pairs[target] = column
        if "query" not in pairs:
            raise ConfigError("the mapping needs query=<column>", "--map")
        if sum(t.startswith("expected.") for t in pairs) > 1:
            raise ConfigError("map at most one expected.* field", "--map")
        return cls(pairs=pairs)


def load_rows(source: str, split: str = "train", limit: int | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows and column names of a local file or hub dataset, via ``datasets``."""
    try:
        import datasets
    except ImportError:
        raise ConfigError("the 'datasets' package is not installed: pip install datasets", source) from None
    path = Path(source)
    try:
        if path.exists():
            builder = _BUILDERS.get(path.suffix.lower())
            if builder is None:
                raise ConfigError(f"unsupported file type {path.suffix!r}; expected {sorted(_BUILDERS)}", source)
            try:
                os.close(open_regular(path, MAX_SOURCE_BYTES))
            except NotRegularFile as exc:
                raise DatasetError(exc.message, source) from None
            ds = datasets.load_dataset(builder, data_files=str(path), split="train")
        else:
            ds = datasets.load_dataset(source, split=split)
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - the datasets library raises many kinds
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(f"cannot load the source dataset: {first}", source) from None
    if limit is not None:
        ds = ds.select(range(min(limit, len(ds))))
    return [dict(r) for r in ds], list(ds.column_names)


def _number(value: Any, where: str) -> float:
    from harness.metrics.extraction import extract_number

    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    text = str(value)
    text = text.split("####")[-1]  # GSM8K-style final answers
    got = extract_number(text)
    if got.value is None:
        raise DatasetError(f"no number in {text[:80]!r} for expected.numeric", where)
    return float(got.value)


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value if v is not None]
    return [str(value)]


def convert(
    rows: list[dict[str, Any]], columns: list[str], mapping: FieldMap, name: str, source: str, description: str = ""
) -> dict[str, Any]:
    """Build the golden YAML document; a mapped column that does not exist is an error naming it."""
    missing = sorted({c for c in mapping.pairs.values() if c not in columns})
    if missing:
        raise ConfigError(f"column(s) {missing} not in the source; available columns: {columns}", "--map")
    queries = []
    for i, row in enumerate(rows):
        where = f"{source} row {i}"
        m = mapping.pairs
        case: dict[str, Any] = {
            "id": re.sub(r"[^A-Za-z0-9_.:\-]", "-", str(row[m["id"]])) if "id" in m else f"{name}-{i:05d}",
            "query": str(row[m["query"]]),
        }
        if "ground_truth" in m:
            case["ground_truth"] = str(row[m["ground_truth"]])
        if "context" in m:
            case["context"] = _strings(row[m["context"]])
        if "tags" in m:
            case["tags"] = _strings(row[m["tags"]])
        if "expected.numeric" in m:
            case["expected"] = {
                "type": "numeric",
                "value": _number(row[m["expected.numeric"]], where),
                "tolerance": 1e-6,
            }
        elif "expected.exact" in m:
            case["expected"] = {"type": "exact", "value": str(row[m["expected.exact"]])}
        elif "expected.regex" in m:
            case["expected"] = {"type": "regex", "pattern": str(row[m["expected.regex"]])}
        elif "expected.any_of" in m:
            case["expected"] = {"type": "any_of", "values": _strings(row[m["expected.any_of"]])}
        case["origin"] = f"{source}#row={i}"
        queries.append(case)
    dataset: dict[str, Any] = {"name": name, "description": description or f"imported from {source}"}
    if any(t.startswith("expected.") for t in mapping.pairs):
        dataset["answer_format"] = "auto"
    return {"golden_datasets": [{**dataset, "queries": queries}]}


def import_dataset(
    source: str, mapping: FieldMap, name: str, output: Path, split: str = "train", limit: int | None = None
) -> int:
    """Import and write ``output`` atomically; the result is loaded back to prove it is valid."""
    rows, columns = load_rows(source, split, limit)
    if not rows:
        raise DatasetError("the source has no rows", source)
    doc = convert(rows, columns, mapping, name, source)
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    tmp = output.with_name(output.name + ".check.yaml")
    atomic_write_text(tmp, text)
    try:
        load_datasets(tmp)
    finally:
        tmp.unlink(missing_ok=True)
    atomic_write_text(output, text)
    return len(rows)
