"""The drill-down's generic blocks: any JSON-like value (a scorer's detail, a transcript field added
later) as sections with summaries instead of one raw row per leaf.

:func:`flatten` lists the leaves as ``(dotted path, text)`` rows (kept on the block: the field count,
and what ``export`` names). :func:`field_groups` lays the same value out for reading:

* the value's own scalar fields (and lists of scalars, joined with ``, ``) form the untitled first
  section, shown open;
* a list of records (``scores: [{reviewer, candidate, score}, ...]``) becomes a table, one row per
  item, one column per leaf path of the items (``dims.accuracy``);
* a map of records (``{member: {...}}``, at least two) becomes a table with the key as first column;
  a table wider than ``MAX_COLUMNS`` with at most ``MAX_COLUMNS`` items is transposed (one row per
  field, one column per item); wider and longer ones are split into one section per item;
* any other nested record becomes a section titled by its dotted path, laid out by the same rules.

Every titled section has a summary (:func:`gist` of its fields, or the table's size and keys) and
starts collapsed; :func:`make_block` gives a block without a summary of its own the gist of its
sections. Values are text (the template escapes them); nothing here marks anything safe.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from harness.report.view_records import Block, FieldGroup, FieldRow

#: Generic blocks with more rows than this start collapsed.
OPEN_BLOCK_ROWS = 8
#: Generic values longer than this (or with a newline) are shown in a ``<pre>``.
LONG_TEXT = 80
#: Tables wider than this are transposed (or split per item).
MAX_COLUMNS = 10
#: Summaries are cut to about this many characters.
GIST_CHARS = 90


def leaf(value: Any) -> str:
    """A scalar as text: ``—`` for none, yes/no, 4 significant digits, ``n/a`` for NaN."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "n/a" if not math.isfinite(value) else f"{value:.4g}"
    return str(value)


def _json(value: Any) -> Any:
    """JSON-ready data: models dumped, containers of models too (scalars as they are)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if _scalar(value):
        return value
    return to_jsonable_python(value)


def _row(path: str, text: str) -> FieldRow:
    return FieldRow(path=path, value=text, long="\n" in text or len(text) > LONG_TEXT)


def flatten(value: Any, path: str = "") -> list[FieldRow]:
    """Leaves of a JSON-like value as ``(dotted path, text)`` rows; empty containers are left out.

    Args:
        value: a pydantic model, mapping, sequence or scalar (models are dumped to JSON-ready data).
        path: the path prefix of ``value``.
    """
    value = _json(value)
    if isinstance(value, Mapping):
        return [row for k, v in value.items() for row in flatten(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list | tuple):
        return [row for i, v in enumerate(value) for row in flatten(v, f"{path}[{i}]")]
    return [_row(path or "value", leaf(value))]


def empty(value: Any) -> bool:
    """``None`` or an empty string or container."""
    return value is None or (isinstance(value, str | tuple | list | dict) and not value)


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _scalars(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(_scalar(v) for v in value)


def _records(value: Any) -> bool:
    return isinstance(value, list | tuple) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _record_map(value: Any) -> bool:
    return isinstance(value, Mapping) and len(value) >= 2 and all(isinstance(v, Mapping) and v for v in value.values())


def gist(rows: Sequence[FieldRow], limit: int = GIST_CHARS) -> str:
    """``path value · path value …``, the first fields that fit in about ``limit`` characters."""
    parts: list[str] = []
    size = 0
    for r in rows:
        text = r.value if len(r.value) <= 40 and "\n" not in r.value else r.value.split("\n")[0][:40] + "…"
        part = f"{r.path} {text}"
        if parts and size + len(part) > limit:
            parts.append("…")
            break
        parts.append(part)
        size += len(part) + 3
    return " · ".join(parts)


def _table(title: str, items: Sequence[tuple[str | None, Mapping[str, Any]]]) -> list[FieldGroup]:
    keyed = items[0][0] is not None
    cells = [{r.path: r for r in flatten(item)} for _, item in items]
    columns = list(dict.fromkeys(p for c in cells for p in c))
    names = [str(k) for k, _ in items]
    noun = ("entry", "entries") if keyed else ("row", "rows")
    what = f"{len(items)} {noun[len(items) != 1]}" + (f": {', '.join(names)}" if keyed else "")
    summary = what if len(what) <= GIST_CHARS else what[:GIST_CHARS] + "…"
    if len(columns) + keyed <= MAX_COLUMNS:
        head = (["key"] if keyed else []) + columns
        rows = tuple(
            tuple(([_row("key", str(k))] if keyed else []) + [c.get(col) or _row(col, "") for col in columns])
            for (k, _), c in zip(items, cells, strict=True)
        )
        return [FieldGroup(title=title, summary=summary, columns=tuple(head), table=rows)]
    if len(items) <= MAX_COLUMNS:  # wide and short: one row per field, one column per item
        labels = names if keyed else [f"[{i}]" for i in range(len(items))]
        rows = tuple(
            tuple([_row("field", col)] + [c.get(col) or _row(lb, "") for lb, c in zip(labels, cells, strict=True)])
            for col in columns
        )
        return [FieldGroup(title=title, summary=summary, columns=("field", *labels), table=rows)]
    out: list[FieldGroup] = []
    for i, (k, item) in enumerate(items):
        out += field_groups(item, f"{title}.{k}" if keyed else f"{title}[{i}]")
    return out


def field_groups(value: Any, title: str = "") -> list[FieldGroup]:
    """A JSON-like value as the sections of a block (rules in the module docstring).

    Args:
        value: a pydantic model, mapping, sequence or scalar.
        title: the section's dotted path ("" at the block's top level).
    """
    value = _json(value)
    if _records(value):
        return _table(title, [(None, v) for v in value])
    if _record_map(value):
        return _table(title, list(value.items()))
    if isinstance(value, Mapping):
        fields: list[FieldRow] = []
        nested: list[FieldGroup] = []
        for k, v in value.items():
            if empty(v):
                continue
            if _scalar(v) or _scalars(v):
                fields.append(_row(str(k), ", ".join(leaf(x) for x in v) if _scalars(v) else leaf(v)))
            else:
                nested += field_groups(v, f"{title}.{k}" if title else str(k))
        head = [FieldGroup(title=title, summary=gist(fields), rows=tuple(fields))] if fields else []
        return head + nested
    if isinstance(value, list | tuple):
        if _scalars(value):
            return [FieldGroup(title=title, rows=(_row(title or "value", ", ".join(leaf(x) for x in value)),))]
        rows = flatten(value, title)
        return [FieldGroup(title=title, summary=gist(rows), rows=tuple(rows))]
    return [FieldGroup(title=title, rows=(_row(title or "value", leaf(value)),))]


def make_block(title: str, value: Any, summary: str = "") -> Block | None:
    """A drill-down block of ``value``: its leaves, its sections, and a summary (``summary``, else the
    gist of its top-level fields, else its sections' titles); ``None`` when it has no leaf.

    Args:
        title: the block's title; value: what it shows; summary: the scorer's own one-line gist.
    """
    rows = flatten(value)
    if not rows:
        return None
    groups = tuple(field_groups(value))
    if not summary:
        head = next((g for g in groups if not g.title), None)
        titled = [g.title for g in groups if g.title]
        if head is not None and head.rows:
            summary = gist(head.rows)
        elif len(groups) == 1 and groups[0].summary:
            summary = groups[0].summary
        elif titled:
            summary = f"{len(titled)} sections: " + ", ".join(titled)
    return Block(title=title, rows=tuple(rows), open=len(rows) <= OPEN_BLOCK_ROWS, summary=summary, groups=groups)
