"""The machine-readable outcome of a run: ``<run_dir>/summary.json``, one top-level section per writer.

CI scripts and dashboards read this file, not the console. Each part of the harness owns one
section (``"gate"`` for the regression gate, ``"verdicts"`` for the >15% prediction, ...) and writes
it through :func:`update_summary`, which replaces that one section and keeps every other section
as it is. The update is a read-modify-write under an inter-process file lock, and the new file is
written atomically (temp file + rename), so concurrent writers never lose each other's sections
and a reader never sees half a file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from filelock import FileLock
from pydantic import BaseModel

from harness.common.errors import StoreError
from harness.common.fsutil import atomic_write_text, read_bounded_text

SUMMARY = "summary.json"
#: the largest summary file read (a run's sections are a few hundred KiB even for 10,000 cases)
MAX_SUMMARY_BYTES = 64 * 2**20


def update_summary(run_dir: Path, section: str, payload: Mapping[str, Any] | BaseModel) -> Path:
    """Merge ``payload`` as the top-level ``section`` of ``<run_dir>/summary.json``; return the file's path.

    Other sections are kept unchanged; an existing ``section`` is replaced whole (not deep-merged).
    The payload is stored as plain JSON (a pydantic model as ``model_dump(mode="json")``); NaN and
    infinities are written as ``null``.
    """
    return update_summary_file(Path(run_dir) / SUMMARY, section, payload)


def update_summary_file(path: Path, section: str, payload: Mapping[str, Any] | BaseModel) -> Path:
    """As :func:`update_summary`, for a summary file at any path (``compare --summary PATH``)."""
    if not section or not isinstance(section, str):
        raise ValueError("summary section must be a non-empty string")
    path = Path(path)
    data = _jsonable(payload)
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock"):
        current = _finite(read_summary_file(path))
        current[section] = data
        atomic_write_text(path, json.dumps(current, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    return path


def read_summary(run_dir: Path) -> dict[str, Any]:
    """The sections of ``<run_dir>/summary.json`` (empty when the file does not exist)."""
    return read_summary_file(Path(run_dir) / SUMMARY)


def read_summary_file(path: Path) -> dict[str, Any]:
    """The sections of a summary file; a file that is not a JSON object is an error naming it."""
    try:
        text = read_bounded_text(path, MAX_SUMMARY_BYTES)
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"summary file cannot be read: {exc}", str(path)) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise StoreError(f"summary file is not valid JSON ({exc}); expected a JSON object", str(path)) from None
    if not isinstance(data, dict):
        raise StoreError(f"summary file holds a JSON {type(data).__name__}; expected an object", str(path))
    return data


def _jsonable(payload: Mapping[str, Any] | BaseModel) -> Any:
    """Plain JSON data; NaN and infinities become ``null`` so that every JSON reader accepts the file."""
    if isinstance(payload, BaseModel):
        data = payload.model_dump(mode="json")
    elif isinstance(payload, Mapping):
        # round-trip so that the stored section is plain JSON (tuples -> lists, no shared references)
        data = json.loads(json.dumps(dict(payload), default=_default))
    else:
        raise TypeError(f"summary payload must be a mapping or a pydantic model, not {type(payload).__name__}")
    return _finite(data)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _default(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"summary payload holds a {type(obj).__name__}, which is not JSON")


def mark_unfinished(run_dir: Path, run_id: str, planned: int, *, finish_with: str | None = None) -> Path:
    """Write the ``"gate"`` section of a run that has started and not finished: ``incomplete``.

    Written when a run starts (and when it resumes), and replaced whole by the gate's outcome when the
    run finishes (:func:`harness.finish.finish_run`). A run killed in between therefore leaves a
    ``summary.json`` whose verdict is ``incomplete``, never a stale ``pass`` and never no file at all,
    for the CI script that reads it. ``finish_with`` says how to finish it (default: ``council-harness
    run --resume RUN``; a pytest session, which cannot be resumed, says to re-run the pytest command).
    """
    how = finish_with if finish_with is not None else f"finish it with `council-harness run --resume {run_id}`"
    return update_summary(
        run_dir,
        "gate",
        {
            "outcome": "incomplete",
            "compared": False,
            "running": True,
            "planned": planned,
            "words": (
                f"incomplete: run {run_id} started and has not finished; if it is no longer running it was "
                f"killed or crashed ({how})"
            ),
        },
    )
