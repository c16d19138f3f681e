"""The self-contained HTML report of a run (jinja2 with autoescape: model output is escaped)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from harness.fsutil import atomic_write_text
from harness.metrics.tier1 import consensus_band
from harness.report.bars import bar
from harness.result import CaseResult
from harness.runs import Run

_env = Environment(
    loader=PackageLoader("harness.report", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters["bar"] = bar
_env.filters["band"] = consensus_band


def _cases(results: list[CaseResult]) -> list[dict]:
    """Group results by (dataset, case): one row per case with a result per subject."""
    rows: dict[tuple[str, str], dict[str, CaseResult]] = defaultdict(dict)
    for r in results:
        rows[(r.dataset, r.case_id)][r.subject] = r
    return [
        {"dataset": ds, "case_id": cid, "by_subject": by}
        for (ds, cid), by in sorted(rows.items())
    ]


def render_run(run: Run) -> str:
    """The report's HTML text."""
    subjects = list(run.manifest.subjects) or sorted({r.subject for r in run.results})
    counts: dict[str, dict[str, int]] = {s: defaultdict(int) for s in subjects}
    for r in run.results:
        counts.setdefault(r.subject, defaultdict(int))[r.status] += 1
    tokens_in = sum(r.transcript.tokens[0] for r in run.results if r.transcript)
    tokens_out = sum(r.transcript.tokens[1] for r in run.results if r.transcript)
    template = _env.get_template("report.html.j2")
    return template.render(
        run=run, manifest=run.manifest, subjects=subjects, cases=_cases(run.results), counts=counts,
        tokens_in=tokens_in, tokens_out=tokens_out,
    )


def write_report(run: Run, path: Path | None = None) -> Path:
    """Write ``index.html`` (or ``path``) atomically and return its path."""
    out = Path(path) if path else run.run_dir / "index.html"
    atomic_write_text(out, render_run(run))
    return out
