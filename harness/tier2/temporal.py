"""Temporal consistency (seed 001 section 2.1): does the council answer similar queries the same way over time?

Definitions (the one place for each):

* **History** -- the final answers of earlier runs: run folders under ``reports/runs`` whose name sorts
  before the current run's (run ids begin with their UTC start time, as for
  :func:`harness.run.runs.latest_run`), newest first, optionally only the last ``window`` runs. Results
  that errored or have no final answer are left out; only the same subject's answers are compared.
* **Match** -- a historical answer whose query is similar to the current query: similarity
  ``>= 0.85`` (:data:`QUERY_SIMILARITY_THRESHOLD`), or the same case (same dataset and case id),
  whatever its query now says. The seed compares *responses* at this step; we compare *queries*,
  which is what "similar past queries" means.
* **Similarity** -- with the ``semantic`` extra, cosine of all-MiniLM-L6-v2 embeddings
  (``method: "embedding"``); without it, Jaccard of the token sets (:func:`harness.common.text.jaccard`,
  ``method: "jaccard"``).
* **Drift** -- ``1 - similarity(current answer, historical answers)``: with embeddings, the cosine of
  the current answer's embedding to the mean embedding of the matched answers (the seed's formula);
  with Jaccard, the mean Jaccard of the current answer to each matched answer (a token set has no
  mean). ``score = round(1 - drift, 3)``; ``drift_detected`` when drift ``> 0.2`` (unrounded).
* Fewer than 3 matches (:data:`MIN_MATCHES`) gives ``status: "insufficient_data"`` and no score.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import numpy as np

from harness.common.errors import StoreError
from harness.common.model import Frozen
from harness.common.text import jaccard
from harness.run.result import CaseResult
from harness.run.runs import Manifest, readable_runs, run_folders
from harness.tier2.embeddings import Embedder, cosine

QUERY_SIMILARITY_THRESHOLD = 0.85
DRIFT_THRESHOLD = 0.2
MIN_MATCHES = 3

Method = Literal["jaccard", "embedding"]
TemporalStatus = Literal["calculated", "insufficient_data"]


class HistoricalAnswer(Frozen):
    """One final answer of an earlier run.

    Args:
        run_id: the run it came from.
        started_at: the run's start time as written in its manifest.
        dataset, case_id, subject: the result's identity.
        query: the question asked.
        answer: the final answer given.
    """

    run_id: str
    started_at: str
    dataset: str
    case_id: str
    subject: str
    query: str
    answer: str


class TemporalConsistency(Frozen):
    """The seed's temporal consistency result.

    Args:
        status: ``calculated``, or ``insufficient_data`` with fewer than 3 matches.
        score: ``round(1 - drift, 3)``; ``None`` when insufficient.
        sample_size: how many historical answers matched.
        drift_detected: drift above 0.2 (always ``False`` when insufficient).
        method: ``embedding`` (cosine of all-MiniLM-L6-v2 embeddings) or ``jaccard`` (token sets).
    """

    status: TemporalStatus
    score: float | None
    sample_size: int
    drift_detected: bool
    method: Method


def run_started(manifest: Manifest, where: str = "manifest.json") -> datetime:
    """A run's start time as an aware UTC datetime.

    Args:
        manifest: the run's manifest (``started_at`` is ISO 8601, ``...Z``).
        where: the file to name in an error.

    Raises:
        StoreError: ``started_at`` is not an ISO 8601 time.
    """
    try:
        when = datetime.fromisoformat(manifest.started_at.replace("Z", "+00:00"))
    except ValueError:
        raise StoreError(f"started_at {manifest.started_at!r} is not an ISO 8601 time", where) from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def earlier_runs(runs_dir: Path | str, current: str | None, window: int | None = None) -> list[Path]:
    """Run folders that sort before ``current``, newest first.

    Args:
        runs_dir: ``reports/runs``.
        current: the current run's folder name (its id); ``None`` takes every run.
        window: keep only this many most recent earlier runs (``None``: all).
    """
    folders = [p for p in run_folders(runs_dir) if current is None or p.name < current]
    folders.reverse()
    return folders[:window] if window else folders


def history_from_runs(run_dirs: Sequence[Path], subject: str | None = None) -> list[HistoricalAnswer]:
    """The final answers of the given runs, in the order given (pass them newest first).

    Args:
        run_dirs: run folders, newest first (see :func:`earlier_runs`).
        subject: keep only this subject's answers (``None``: all).

    A folder whose manifest cannot be read is skipped with a warning on stderr.
    """
    out: list[HistoricalAnswer] = []
    for run in readable_runs(run_dirs):
        for r in run.results:
            t = r.transcript
            if t is None or r.status == "error" or not t.final_answer.strip():
                continue
            if subject is not None and r.subject != subject:
                continue
            out.append(
                HistoricalAnswer(
                    run_id=run.run_id,
                    started_at=run.manifest.started_at,
                    dataset=r.dataset,
                    case_id=r.case_id,
                    subject=r.subject,
                    query=t.query,
                    answer=t.final_answer,
                )
            )
    return out


def similar_history(
    query: str,
    history: Sequence[HistoricalAnswer],
    *,
    dataset: str | None = None,
    case_id: str | None = None,
    embedder: Embedder | None = None,
    threshold: float = QUERY_SIMILARITY_THRESHOLD,
) -> list[HistoricalAnswer]:
    """The historical answers whose query matches ``query`` (see the module docstring), in history order.

    Args:
        query: the current query.
        history: candidate answers, newest first.
        dataset, case_id: the current case; an answer to the same case always matches.
        embedder: cosine of embeddings when given, else Jaccard of token sets.
        threshold: the query similarity needed for a match (0.85).
    """
    if not history:
        return []
    same = [
        dataset is not None and case_id is not None and h.dataset == dataset and h.case_id == case_id for h in history
    ]
    if embedder is not None:
        vectors = embedder.embed([query, *(h.query for h in history)])
        sims = [cosine(vectors[0], v) for v in vectors[1:]]
    else:
        sims = [jaccard(query, h.query) for h in history]
    return [h for h, s, exact in zip(history, sims, same, strict=True) if exact or s >= threshold]


def temporal_consistency(
    query: str,
    answer: str,
    history: Sequence[HistoricalAnswer],
    *,
    dataset: str | None = None,
    case_id: str | None = None,
    embedder: Embedder | None = None,
    query_threshold: float = QUERY_SIMILARITY_THRESHOLD,
    drift_threshold: float = DRIFT_THRESHOLD,
    min_matches: int = MIN_MATCHES,
) -> TemporalConsistency:
    """Seed 001's temporal consistency score of ``answer`` against the answers to similar past queries.

    Args:
        query: the current query.
        answer: the current final answer.
        history: earlier answers, newest first (see :func:`history_from_runs`).
        dataset, case_id: the current case (answers to the same case always match).
        embedder: an :class:`Embedder` for the embedding method; ``None`` for the Jaccard method.
        query_threshold: query similarity needed for a match (0.85).
        drift_threshold: drift above which ``drift_detected`` is set (0.2).
        min_matches: matches needed for a score (3).
    """
    method: Method = "embedding" if embedder is not None else "jaccard"
    matches = similar_history(
        query, history, dataset=dataset, case_id=case_id, embedder=embedder, threshold=query_threshold
    )
    if len(matches) < min_matches:
        return TemporalConsistency(
            status="insufficient_data", score=None, sample_size=len(matches), drift_detected=False, method=method
        )
    if embedder is not None:
        vectors = embedder.embed([answer, *(m.answer for m in matches)])
        similarity = cosine(vectors[0], np.mean(vectors[1:], axis=0))
    else:
        similarity = statistics.fmean(jaccard(answer, m.answer) for m in matches)
    drift = 1.0 - similarity
    return TemporalConsistency(
        status="calculated",
        score=round(1.0 - drift, 3),
        sample_size=len(matches),
        drift_detected=drift > drift_threshold,
        method=method,
    )


def result_temporal_consistency(
    result: CaseResult,
    history: Sequence[HistoricalAnswer],
    embedder: Embedder | None = None,
    *,
    query_threshold: float = QUERY_SIMILARITY_THRESHOLD,
    drift_threshold: float = DRIFT_THRESHOLD,
    min_matches: int = MIN_MATCHES,
) -> TemporalConsistency | None:
    """:func:`temporal_consistency` of a case result against the same subject's history.

    Args:
        result: the current result; ``None`` is returned when it has no final answer.
        history: earlier answers, newest first (other subjects' answers are ignored).
        embedder: see :func:`temporal_consistency`.
        query_threshold, drift_threshold, min_matches: see :func:`temporal_consistency`.
    """
    t = result.transcript
    if t is None or not t.final_answer.strip():
        return None
    mine = [h for h in history if h.subject == result.subject]
    return temporal_consistency(
        t.query,
        t.final_answer,
        mine,
        dataset=result.dataset,
        case_id=result.case_id,
        embedder=embedder,
        query_threshold=query_threshold,
        drift_threshold=drift_threshold,
        min_matches=min_matches,
    )
