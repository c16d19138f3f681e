"""Runs as pandas DataFrames (one row per case and subject, one column per score) and Parquet files."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from harness.csvsafe import neutralise
from harness.runs import Run

ID_COLUMNS = ("run_id", "dataset", "case_id", "subject", "category", "evaluation_mode", "status")


def results_frame(run: Run) -> pd.DataFrame:
    """One row per (case, subject): identity, status, final answer, error, tokens, then every score."""
    rows = []
    for r in run.results:
        t = r.transcript
        row: dict[str, object] = {
            "run_id": run.run_id, "dataset": r.dataset, "case_id": r.case_id, "subject": r.subject,
            "category": r.category, "evaluation_mode": r.evaluation_mode, "status": r.status,
            "final_answer": t.final_answer if t else None, "error": r.error,
            "tokens_in": t.tokens[0] if t else 0, "tokens_out": t.tokens[1] if t else 0,
            "duration_s": t.duration_s if t else 0.0,
        }
        row.update(r.scores)
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=[*ID_COLUMNS, "final_answer", "error", "tokens_in", "tokens_out", "duration_s"])
    return frame.sort_values(["dataset", "case_id", "subject"], kind="stable").reset_index(drop=True)


def export(run: Run, path: Path) -> Path:
    """Write the frame as Parquet (``.parquet``) or CSV (``.csv``).

    CSV text cells go through :func:`harness.csvsafe.neutralise` (none starts a spreadsheet formula).
    """
    frame = results_frame(run)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    if path.suffix == ".parquet":
        frame.to_parquet(tmp, index=False)
    elif path.suffix == ".csv":  # text cells that would start a spreadsheet formula get a leading quote
        text_columns = frame.select_dtypes(include=["object", "string"]).columns
        safe = frame.copy()
        for column in text_columns:
            safe[column] = safe[column].map(neutralise)
        # every text cell quoted: pandas leaves a bare carriage return unquoted, which splits the row
        safe.to_csv(tmp, index=False, quoting=csv.QUOTE_NONNUMERIC)
    else:
        from harness.errors import ConfigError

        raise ConfigError("expected a .parquet or .csv output path", str(path))
    tmp.replace(path)
    return path
