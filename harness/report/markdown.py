"""The run's Markdown summary (``summary.md``): for a pull request's comment or a CI step summary.

:func:`write_markdown` is called by :func:`harness.finish.finish_run` (the one place a run is finished)
for ``<run>/summary.md`` and for ``run --markdown PATH``. It holds the gate verdict and the rule that
decided, the >15% verdict lines, the regressed and failing cases (each linked to its drill-down in
the HTML report: ``#case-<dataset>-<case>``, :func:`harness.report.formatting.case_anchor`), what the
rule set aside, and the usage lines.

Untrusted text (model answers in error messages, scope names, server bodies) never becomes Markdown
or HTML: jinja2 renders with autoescape off (Markdown is not HTML), and every text the template prints
has gone through :func:`md_text` first: control, bidi and invisible characters shown as ``⟨U+202E⟩``
(:func:`harness.common.visible.visible_controls`), newlines folded to spaces (a table cell stays one
cell), long texts cut, and the characters that make inline Markdown or HTML (``\\ ` * _ [ ] | ~``, ``<``, ``>``, ``&``)
escaped, as is a text that would start a block (``#``, ``- ``, ``+ ``, ``1.``). Without ``[`` and ``]``
no link or image can form, so ``(`` and ``)`` stay as they are. Only the links are built here, from
dataset and case ids, which are restricted to ``[A-Za-z0-9_.:-]``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined

from harness.common.fsutil import atomic_write_text
from harness.common.model import Frozen
from harness.common.untrusted import clean_surrogates
from harness.common.visible import visible_controls
from harness.report.formatting import case_anchor

if TYPE_CHECKING:
    from harness.gate.regression import GateOutcome
    from harness.run.runs import Run

__all__ = ["MAX_ROWS", "SUMMARY_MD", "MarkdownSummary", "md_text", "render_markdown", "write_markdown"]

#: The file name in every run folder.
SUMMARY_MD = "summary.md"
#: Cases listed at most (the rest are counted; ``summary.json`` has them all).
MAX_ROWS = 50
#: The longest text in one table cell or line, in characters.
CELL_LIMIT = 300

_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")
#: What starts a block (heading, list, ordered list) when it opens a line or a list item's text.
_BLOCK_START = re.compile(r"^(#|[+\-]\s|\d+[.)])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def md_text(text: str, limit: int = CELL_LIMIT) -> str:
    """``text`` as inert Markdown on one line (module docstring)."""
    shown = visible_controls(clean_surrogates(text))
    shown = " ".join(shown.split())
    if len(shown) > limit:
        shown = shown[:limit] + "…"
    shown = _MARKDOWN.sub(r"\\\1", shown)
    if _BLOCK_START.match(shown):
        shown = "\\" + shown
    return "".join(_ENTITIES.get(ch, ch) for ch in shown)


class CaseRow(Frozen):
    """One gate reason about a case, escaped: ``link`` is the drill-down's URL (``None``: no case)."""

    dataset: str
    case: str
    subject: str
    kind: str
    detail: str
    link: str | None = None


class MarkdownSummary(Frozen):
    """What the template shows; every text already escaped by :func:`md_text`."""

    verdict: str
    headline: str
    rule: str
    run_id: str
    report: str
    verdicts: tuple[str, ...]
    rows: tuple[CaseRow, ...]
    more_rows: int
    excused: int
    excused_kinds: str
    usage: tuple[str, ...]


_env = Environment(
    loader=PackageLoader("harness.report", "templates"),
    autoescape=False,  # noqa: S701 - Markdown
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=StrictUndefined,
    keep_trailing_newline=True,
)


def summary_view(
    run: Run,
    gate: GateOutcome,
    report: Path,
    markdown_path: Path,
    verdict_lines: Sequence[str],
    usage_lines: Sequence[str],
) -> MarkdownSummary:
    """The escaped view of one run; ``report``'s link is relative to ``markdown_path``'s folder."""
    link = quote(Path(os.path.relpath(report, markdown_path.parent)).as_posix(), safe="/._-~")
    rows = []
    for r in gate.reasons:
        target = f"{link}#{case_anchor(r.dataset, r.case_id)}" if r.case_id is not None else None
        rows.append(
            CaseRow(
                dataset=md_text(r.dataset),
                case=md_text(r.case_id or "—"),
                subject=md_text(r.subject or "—"),
                kind=md_text(r.kind),
                detail=md_text(r.message),
                link=target,
            )
        )
    kinds = sorted({r.kind for r in gate.excused})
    state = gate.completeness.words() if gate.completeness is not None else ""
    headline = f"{gate.counts['reasons']} reason(s), {gate.counts['results']} result(s)"
    headline += f"; {state}" if state else ""
    return MarkdownSummary(
        verdict=gate.outcome.upper(),
        headline=md_text(headline),
        rule=md_text(gate.words),
        run_id=md_text(run.run_id),
        report=link,
        verdicts=tuple(md_text(v, 1000) for v in verdict_lines),
        rows=tuple(rows[:MAX_ROWS]),
        more_rows=max(len(rows) - MAX_ROWS, 0),
        excused=len(gate.excused),
        excused_kinds=md_text(", ".join(k.replace("_", " ") for k in kinds)),
        usage=tuple(md_text(u, 1000) for u in usage_lines),
    )


def render_markdown(view: MarkdownSummary) -> str:
    """The Markdown text of :func:`summary_view`'s view."""
    return _env.get_template("summary.md.j2").render(v=view)


def write_markdown(
    path: Path, run: Run, gate: GateOutcome, report: Path, verdict_lines: Sequence[str], usage_lines: Sequence[str]
) -> Path:
    """Write the summary to ``path`` atomically (its report link relative to ``path``) and return ``path``."""
    path = Path(path)
    view = summary_view(
        run, gate, report, path.resolve() if not path.is_absolute() else path, verdict_lines, usage_lines
    )
    atomic_write_text(path, render_markdown(view))
    return path
