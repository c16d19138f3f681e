"""Expert review (seed 001 section 3.2, ``evaluation_mode: expert_review``).

Such cases run and are scored, but a person decides whether they pass:

* :func:`write_sheet` writes a reviewers' CSV (case, subject, answer excerpt, scores, and empty
  ``verdict``, ``note`` and ``reviewer`` columns);
* :func:`apply_sheet` validates a filled sheet completely before changing anything, then records
  the verdicts (with who and when) in the run folder (``reviews.json``) and in the persistent
  verdict file ``<reports>/reviews.json``, which later runs consult: a verdict carries over to a
  later run only for the identical answer (matched by SHA-256).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from harness.common.csvsafe import neutralise, restore
from harness.common.errors import StoreError
from harness.common.fsutil import atomic_write_bytes, atomic_write_text, read_bounded_text
from harness.common.run_files import RESULTS, REVIEWS
from harness.common.visible import visible_controls
from harness.records.expert_review_types import ReviewVerdict
from harness.run.result import CaseResult

COLUMNS = ("dataset", "case_id", "subject", "status", "answer_excerpt", "scores", "verdict", "note", "reviewer")
RUN_FILE = REVIEWS
#: the largest reviewers' sheet or verdict file read
MAX_SHEET_BYTES = 64 * 2**20
Key = tuple[str, str, str]
_VERDICTS = TypeAdapter(dict[str, ReviewVerdict])


def answer_hash(result: CaseResult) -> str | None:
    if result.transcript is None:
        return None
    return hashlib.sha256(result.transcript.final_answer.encode()).hexdigest()


def _key_str(key: Key) -> str:
    return "::".join(key)


def _excerpt(text: str, n: int = 400) -> str:
    text = " ".join(text.split())
    return visible_controls(text if len(text) <= n else text[:n] + " …")


def awaiting(results: Iterable[CaseResult]) -> list[CaseResult]:
    return [r for r in results if r.evaluation_mode == "expert_review"]


def write_sheet(results: Sequence[CaseResult], path: Path) -> int:
    """Write the reviewers' sheet for the run's expert-review cases; returns the row count.

    Every cell goes through :func:`harness.common.csvsafe.neutralise` (no cell starts a formula) and the
    answer excerpt shows control and bidi characters as ``⟨U+XXXX⟩`` (:mod:`harness.common.visible`).
    """
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(COLUMNS)
    rows = awaiting(results)
    for r in rows:
        answer = r.transcript.final_answer if r.transcript else f"(no answer: {r.error})"
        scores = "; ".join(f"{k}={v:g}" for k, v in sorted(r.scores.items()))
        prior = r.review
        row = [
            r.dataset,
            r.case_id,
            r.subject,
            r.status,
            _excerpt(answer),
            scores,
            prior.verdict if prior else "",
            prior.note if prior else "",
            prior.who if prior else "",
        ]
        w.writerow([neutralise(cell) for cell in row])
    atomic_write_text(path, buf.getvalue())
    return len(rows)


def parse_sheet(
    sheet: Path, results: Sequence[CaseResult], reviewer: str | None = None, now: datetime | None = None
) -> dict[Key, ReviewVerdict]:
    """Validate a filled sheet against the run; every problem is reported with its line, nothing is applied.

    Rows with an empty ``verdict`` are skipped (not reviewed yet).
    """
    try:
        text = read_bounded_text(sheet, MAX_SHEET_BYTES, encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read the reviewers' sheet ({exc})", str(sheet)) from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in ("dataset", "case_id", "subject", "verdict") if c not in (reader.fieldnames or [])]
    if missing:
        raise StoreError(f"not a reviewers' sheet: missing column(s) {missing}; expected {list(COLUMNS)}", f"{sheet}:1")
    by_key = {r.key: r for r in awaiting(results)}
    when = now or datetime.now(UTC)
    out: dict[Key, ReviewVerdict] = {}
    problems: list[str] = []
    for row in reader:
        line = reader.line_num
        raw_key = (row.get("dataset") or "", row.get("case_id") or "", row.get("subject") or "")
        # cells were written through csvsafe.neutralise; a spreadsheet may also have dropped the quote
        key = (restore(raw_key[0]), restore(raw_key[1]), restore(raw_key[2]))
        if key not in by_key and raw_key in by_key:
            key = raw_key
        verdict = (row.get("verdict") or "").strip().lower()
        if not verdict:
            continue
        if key not in by_key:
            problems.append(f"{sheet}:{line}: case {_key_str(key)} is not an expert-review case of this run")
            continue
        if verdict not in ("pass", "fail"):
            problems.append(f"{sheet}:{line}: verdict must be 'pass' or 'fail' (or empty), got {verdict!r}")
            continue
        who = (row.get("reviewer") or "").strip() or (reviewer or "")
        if not who:
            problems.append(f"{sheet}:{line}: no reviewer: fill the 'reviewer' column or pass --reviewer")
            continue
        if key in out:
            problems.append(f"{sheet}:{line}: a second verdict for {_key_str(key)}")
            continue
        note = restore((row.get("note") or "").strip())
        out[key] = ReviewVerdict(
            verdict=verdict,  # type: ignore[arg-type]
            note=note,
            who=restore(who),
            when=when,
            answer_sha256=answer_hash(by_key[key]),
        )
    if problems:
        raise StoreError(
            "the sheet was not applied: "
            + "; ".join(problems[:10])
            + (f" (and {len(problems) - 10} more)" if len(problems) > 10 else "")
        )
    return out


def load_verdicts(path: Path) -> dict[Key, ReviewVerdict]:
    if not path.exists():
        return {}
    try:
        raw = _VERDICTS.validate_json(read_bounded_text(path, MAX_SHEET_BYTES))
    except OSError as exc:
        raise StoreError(f"the verdict file cannot be read ({exc.strerror or exc})", str(path)) from None
    except (ValidationError, ValueError) as exc:
        raise StoreError(f"the verdict file is not valid: {str(exc).splitlines()[0]}", str(path)) from None
    return {tuple(k.split("::", 2)): v for k, v in raw.items()}  # type: ignore[misc]


def save_verdicts(path: Path, verdicts: Mapping[Key, ReviewVerdict]) -> None:
    data = {_key_str(k): v.model_dump(mode="json") for k, v in sorted(verdicts.items())}
    atomic_write_text(path, json.dumps(data, indent=2))


def with_verdict(result: CaseResult, verdict: ReviewVerdict | None) -> CaseResult:
    """Apply a verdict to an expert-review result when it was given for this very answer."""
    if verdict is None or result.evaluation_mode != "expert_review":
        return result
    if verdict.answer_sha256 is not None and verdict.answer_sha256 != answer_hash(result):
        return result
    status = "passed" if verdict.verdict == "pass" else "failed"
    return result.with_detail("review", verdict, status=status)


def apply_verdicts(results: Sequence[CaseResult], verdicts: Mapping[Key, ReviewVerdict]) -> list[CaseResult]:
    return [with_verdict(r, verdicts.get(r.key)) for r in results]


def rewrite_results(results_file: Path, verdicts: Mapping[Key, ReviewVerdict]) -> int:
    """Apply ``verdicts`` to the matching lines of a ``results.jsonl``, atomically; returns lines changed.

    Every other line is kept byte for byte (an unreadable line stays for the gate to count), so the
    file says ``passed``/``failed`` with the verdict, not only the ``reviews.json`` overlay.
    """
    if not results_file.exists() or not verdicts:
        return 0
    out: list[bytes] = []
    changed = 0
    for raw in results_file.read_bytes().splitlines(keepends=True):
        try:
            r = CaseResult.model_validate_json(raw)
        except (ValidationError, ValueError):
            out.append(raw)
            continue
        updated = with_verdict(r, verdicts.get(r.key))
        if updated is r:
            out.append(raw)
        else:
            out.append(updated.model_dump_json().encode("utf-8") + b"\n")
            changed += 1
    if changed:
        atomic_write_bytes(results_file, b"".join(out))
    return changed


def apply_sheet(
    run_dir: Path, results: Sequence[CaseResult], sheet: Path, global_file: Path, reviewer: str | None = None
) -> dict[Key, ReviewVerdict]:
    """Validate the sheet, then record its verdicts in the run (``reviews.json`` and ``results.jsonl``)
    and in the persistent verdict file."""
    new = parse_sheet(sheet, results, reviewer)
    run_file = run_dir / RUN_FILE
    merged_run = {**load_verdicts(run_file), **new}
    merged_global = {**load_verdicts(global_file), **new}
    save_verdicts(run_file, merged_run)
    save_verdicts(global_file, merged_global)
    rewrite_results(run_dir / RESULTS, new)
    return new
