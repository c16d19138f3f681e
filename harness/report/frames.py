"""Runs as pandas DataFrames (one row per case and subject, one column per score) and Parquet files."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from harness.common.csvsafe import neutralise, sheet_text
from harness.common.fsutil import atomic_write_bytes, atomic_write_text
from harness.config import ModelPrice
from harness.run.ledger import usage_ledger
from harness.run.result import CaseResult
from harness.run.runs import Run

ID_COLUMNS = ("run_id", "dataset", "case_id", "subject", "category", "evaluation_mode", "status")
#: every column that is not a score, in order (scores follow, one column each)
COLUMNS = (
    *ID_COLUMNS,
    "tags",
    "query",
    "ground_truth",
    "expected",
    "final_answer",
    "error",
    "tokens_in",
    "tokens_out",
    "duration_s",
    "calls",
    "cost_usd",
    "unpriced_calls",
    "cpu_seconds",
    "cached_tokens",
    "cached_tokens_unknown",
    "replayed_tokens",
    "arm_samples",
    "arm_rule",
    "arm_target_tokens",
    "voting_agreement",
    "voting_confidence",
    "voting_rounds",
    "review_verdict",
    "review_note",
    "review_by",
    "review_at",
)


def _expected(r: CaseResult) -> str | None:
    if r.correctness is not None:
        return r.correctness.expected_display
    return r.expected.model_dump_json() if r.expected is not None else None


def result_row(run_id: str, r: CaseResult, pricing: dict[str, ModelPrice] | None = None) -> dict[str, object]:
    """One result as a flat row: identity, what the case asked, what came back, usage (the subject's calls,
    :mod:`harness.run.ledger`), the arm's samples, voting, review, scores."""
    t = r.transcript
    vote = t.voting if t else None
    use = usage_ledger([r.model_copy(update={"scoring_calls": ()})], pricing or {}).total
    row: dict[str, object] = {
        "run_id": run_id,
        "dataset": r.dataset,
        "case_id": r.case_id,
        "subject": r.subject,
        "category": r.category,
        "evaluation_mode": r.evaluation_mode,
        "status": r.status,
        "tags": "; ".join(r.tags),
        "query": t.query if t else None,
        "ground_truth": r.ground_truth,
        "expected": _expected(r),
        "final_answer": t.final_answer if t else None,
        "error": r.error,
        "tokens_in": t.tokens[0] if t else 0,
        "tokens_out": t.tokens[1] if t else 0,
        "duration_s": t.duration_s if t else 0.0,
        "calls": use.calls,
        "cost_usd": use.cost_usd,
        "unpriced_calls": use.unpriced_calls,
        "cpu_seconds": use.cpu_seconds,
        "cached_tokens": use.cached_tokens,
        "cached_tokens_unknown": use.cached_tokens_unknown,
        "replayed_tokens": use.replayed_tokens,
        "arm_samples": t.arm.samples if t and t.arm else None,
        "arm_rule": t.arm.rule if t and t.arm else None,
        "arm_target_tokens": t.arm.target_tokens if t and t.arm else None,
        "voting_agreement": vote.agreement_level if vote else None,
        "voting_confidence": vote.confidence_score if vote else None,
        "voting_rounds": vote.round_count if vote else None,
        "review_verdict": r.review.verdict if r.review else None,
        "review_note": r.review.note if r.review else None,
        "review_by": r.review.who if r.review else None,
        "review_at": r.review.when.isoformat() if r.review else None,
    }
    row.update(r.scores)
    return row


def results_frame(run: Run) -> pd.DataFrame:
    """One row per (case, subject), sorted by (dataset, case, subject): see :data:`COLUMNS`, then every score."""
    pricing = {k: ModelPrice.model_validate(v) for k, v in ((run.manifest.config or {}).get("pricing") or {}).items()}
    frame = pd.DataFrame([result_row(run.run_id, r, pricing) for r in run.results])
    if frame.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    return frame.sort_values(["dataset", "case_id", "subject"], kind="stable").reset_index(drop=True)


def parquet_available() -> bool:
    """Whether pandas can write Parquet here: pyarrow (the ``dev`` extra, or ``pip install pyarrow``) or
    fastparquet is importable. The main install (``.[local]``) has neither; CSV needs nothing more."""
    for engine in ("pyarrow", "fastparquet"):
        try:
            __import__(engine)
        except ImportError:
            continue
        return True
    return False


def default_export_path(run: Run) -> Path:
    """``<run>/results.parquet`` where Parquet can be written, else ``<run>/results.csv``."""
    return run.run_dir / ("results.parquet" if parquet_available() else "results.csv")


def export(run: Run, path: Path) -> Path:
    """Write the frame as Parquet (``.parquet``) or CSV (``.csv``).

    CSV text cells go through :func:`harness.common.csvsafe.neutralise` (none starts a spreadsheet formula),
    column headers through :func:`harness.common.csvsafe.sheet_text` (no formula, no control character).
    A device or FIFO target is written through, never replaced (:func:`harness.common.fsutil.atomic_write_bytes`).

    Raises:
        ConfigError: another suffix, or ``.parquet`` where no Parquet engine is installed (naming the
            path and the two ways out).
    """
    from harness.common.errors import ConfigError

    if path.suffix == ".parquet" and not parquet_available():
        raise ConfigError(
            "writing Parquet needs pyarrow, which this install does not have: "
            "`pip install pyarrow`, or write CSV with `--output <name>.csv`",
            str(path),
        )
    if path.suffix not in (".parquet", ".csv"):
        raise ConfigError("expected a .parquet or .csv output path", str(path))
    frame = results_frame(run)
    if path.suffix == ".parquet":
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        atomic_write_bytes(path, buf.getvalue())
    else:  # text cells that would start a spreadsheet formula get a leading quote
        text_columns = frame.select_dtypes(include=["object", "string"]).columns
        safe = frame.copy()
        for column in text_columns:
            safe[column] = safe[column].map(neutralise)
        # column headers too: a user score may be named "=HYPERLINK(...)" or hold escape bytes
        safe.columns = [sheet_text(str(c)) for c in safe.columns]
        # every text cell quoted: pandas leaves a bare carriage return unquoted, which splits the row
        atomic_write_text(path, safe.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC))
    return path
