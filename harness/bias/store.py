"""Cross-session bias records (seed 003, ADR-018 schema v1.1) in an append-only JSONL file.

One :class:`BiasMetricRecord` per (session, reviewer, candidate). Privacy rules of the seed:
the raw query is never stored; ``query_hash`` (HMAC-SHA256 of the first 100 characters under a
deployment secret, first 16 hex digits) is written only at ``RESEARCH`` consent, and a missing
secret there is a configuration error, never a built-in default. Consent ``OFF`` writes nothing.

The file is only ever appended to, in whole lines, under an inter-process lock
(``<path>.lock``), flushed and fsynced; retention (:meth:`BiasStore.prune`) rewrites it
atomically (temp file + ``os.replace``) under the same lock. Reading skips and counts corrupt
lines (including a last line truncated by a crash), says in one line why each was skipped, and
never fails because of them.

Lines written by ``llm-council-core`` (the seeds' own system, same schema and default path) are
read too: see :mod:`harness.bias.columns` for how its writer is detected and its 0-based display
positions converted; :func:`parse_line` applies the same rules to one line.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

import numpy as np
from filelock import FileLock, Timeout
from pydantic import AwareDatetime, Field, SecretStr, ValidationError, field_validator, model_validator

from harness import __version__
from harness.common.errors import ConfigError, StoreError
from harness.common.model import Frozen

if TYPE_CHECKING:
    from harness.config import RubricWeights, Settings
    from harness.records.transcript import Transcript

SCHEMA_VERSION = "1.1.0"
#: First llm-council-core schema whose ``position`` is a 0-based display position (before: a ranking index).
DISPLAY_POSITION_SCHEMA = (1, 2, 0)
_SCHEMA = re.compile(r"^1\.(\d+)\.(\d+)$")
QUERY_HASH_CHARS = 100
LOCK_TIMEOUT_S = 60.0
MAX_CORRUPT_EXAMPLES = 20
_TOKEN_BUCKETS: tuple[tuple[int, str], ...] = ((100, "0-100"), (500, "100-500"), (1000, "500-1000"))


class ConsentLevel(IntEnum):
    """What may be stored or sent (seed 003's unified consent levels)."""

    OFF = 0
    LOCAL_ONLY = 1
    ANONYMOUS = 2
    ENHANCED = 3
    RESEARCH = 4


class QueryMetadata(Frozen):
    """Coarse, non-identifying facts about the query (never its text).

    Args:
        category: a query category such as ``coding`` (from the case tags), if known.
        token_count_bucket: ``0-100``, ``100-500``, ``500-1000`` or ``1000+`` (see :func:`token_count_bucket`).
        language: an ISO language code such as ``en``, if known.
    """

    category: str | None = None
    token_count_bucket: str | None = None
    language: str | None = None

    @classmethod
    def for_query(cls, query: str, category: str | None = None, language: str | None = None) -> QueryMetadata:
        """Metadata of ``query``: its bucketed whitespace word count plus the given category and language."""
        from harness.common.text import word_count

        return cls(category=category, token_count_bucket=token_count_bucket(word_count(query)), language=language)


def token_count_bucket(count: int) -> str:
    """The bucket of a token count: ``0-100``, ``100-500``, ``500-1000`` or ``1000+`` (upper bounds exclusive).

    Args:
        count: the number of tokens (the harness uses whitespace words).
    """
    for upper, name in _TOKEN_BUCKETS:
        if count < upper:
            return name
    return "1000+"


class BiasMetricRecord(Frozen):
    """One reviewer's score of one candidate in one session (seed 003 schema v1.1.0).

    Args:
        schema_version: ``1.1.0`` when written; any ``1.x.y`` is read.
        session_id: the session (one council transcript) the score belongs to.
        timestamp: when the session ran (UTC; written as ``...Z``).
        consent_level: the consent the record was collected under (1-4; 0 writes nothing).
        query_metadata: coarse query facts, never the query text.
        reviewer_id: the reviewing council member id.
        model_id: the scored council member id.
        position: 1-based display position of the candidate in the reviewer's presentation order
            (``None`` only when read from an llm-council-core record before schema 1.2.0, whose
            ``position`` was the reviewer's ranking index, not a display position).
        response_length_chars: length of the candidate's answer in characters.
        score_value: the score, 1-10 (see :mod:`harness.bias.audit` for how it is derived).
        score_scale: always ``1-10``.
        council_config_version: the harness version and a fingerprint of the council configuration.
        query_hash: 16 hex digits of HMAC-SHA256 of the query's first 100 characters, only at RESEARCH.
    """

    schema_version: str = Field(default=SCHEMA_VERSION, pattern=r"^1\.\d+\.\d+$")
    session_id: str = Field(min_length=1)
    timestamp: AwareDatetime
    consent_level: ConsentLevel = Field(ge=ConsentLevel.LOCAL_ONLY)
    query_metadata: QueryMetadata = QueryMetadata()
    reviewer_id: str = Field(min_length=1)
    model_id: str = Field(min_length=1)
    position: int | None = Field(ge=1)
    response_length_chars: int = Field(ge=0)
    score_value: float = Field(ge=1.0, le=10.0, allow_inf_nan=False)
    score_scale: Literal["1-10"] = "1-10"
    council_config_version: str
    query_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{16}$")

    @field_validator("timestamp")
    @classmethod
    def _utc(cls, v: datetime) -> datetime:
        return v.astimezone(UTC)

    @model_validator(mode="after")
    def _hash_only_at_research(self) -> BiasMetricRecord:
        if self.query_hash is not None and self.consent_level != ConsentLevel.RESEARCH:
            raise ValueError("query_hash is only allowed at consent level 4 (RESEARCH)")
        return self


def schema_tuple(version: str) -> tuple[int, int, int]:
    """``"1.2.0"`` -> ``(1, 2, 0)``; anything that is not ``1.x.y`` -> ``(0, 0, 0)``.

    Args:
        version: a ``schema_version`` string.
    """
    m = _SCHEMA.match(version)
    return (1, int(m.group(1)), int(m.group(2))) if m else (0, 0, 0)


def query_hash(secret: str, query: str) -> str:
    """HMAC-SHA256 of the query's first 100 characters under ``secret``, first 16 hex digits.

    Args:
        secret: the deployment secret (``LLM_COUNCIL_HASH_SECRET``).
        query: the query text (only its first 100 characters are hashed).
    """
    return hmac.new(secret.encode(), query[:QUERY_HASH_CHARS].encode(), hashlib.sha256).hexdigest()[:16]


def _consent(value: int | ConsentLevel) -> ConsentLevel:
    try:
        return ConsentLevel(int(value))
    except (ValueError, TypeError):
        raise ConfigError(f"expected a consent level 0-4, got {value!r}", "LLM_COUNCIL_BIAS_CONSENT") from None


def records_from_transcript(
    transcript: Transcript,
    session_id: str,
    consent: int | ConsentLevel,
    secret: str | SecretStr | None = None,
    query_metadata: QueryMetadata | None = None,
    config_version: str = __version__,
    timestamp: datetime | None = None,
    weights: RubricWeights | None = None,
) -> list[BiasMetricRecord]:
    """The bias records of one session: one per (reviewer, candidate) pair score, self-scores excluded.

    Args:
        transcript: the council transcript (reviews, labels, answers).
        session_id: a unique id for this session (e.g. a uuid4).
        consent: consent level 0-4; 0 (OFF) gives no records.
        secret: the HMAC secret, required at RESEARCH (4) and unused below it.
        query_metadata: coarse query facts (default: none known).
        config_version: the ``council_config_version`` to stamp on every record.
        timestamp: the session time (default: now, UTC).
        weights: rubric weights for rubric ballots (``None``: the seed's defaults).

    Raises:
        ConfigError: an invalid consent level, or RESEARCH consent without a secret.
    """
    from harness.bias.audit import pair_scores

    level = _consent(consent)
    if level == ConsentLevel.OFF:
        return []
    hashed: str | None = None
    if level == ConsentLevel.RESEARCH:
        raw = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
        if not raw:
            raise ConfigError(
                "consent level 4 (RESEARCH) stores a query hash and needs a secret: set LLM_COUNCIL_HASH_SECRET",
                "LLM_COUNCIL_HASH_SECRET",
            )
        hashed = query_hash(raw, transcript.query)
    when = (timestamp or datetime.now(UTC)).astimezone(UTC)
    meta = query_metadata or QueryMetadata()
    return [
        BiasMetricRecord(
            session_id=session_id,
            timestamp=when,
            consent_level=level,
            query_metadata=meta,
            reviewer_id=p.reviewer,
            model_id=p.candidate,
            position=p.position,
            response_length_chars=p.length_chars,
            score_value=p.score,
            council_config_version=config_version,
            query_hash=hashed,
        )
        for p in pair_scores(transcript, weights)
    ]


def config_version(settings: Settings) -> str:
    """``<harness version>+<8 hex digits>``: the fingerprint covers the members, chairman and rubric settings.

    Args:
        settings: the run's settings.
    """
    public = settings.public_dict()
    council = {k: public[k] for k in ("models", "chairman", "rubric_scoring", "weights")}
    digest = hashlib.sha256(json.dumps(council, sort_keys=True).encode()).hexdigest()[:8]
    return f"{__version__}+{digest}"


class ReadResult(Frozen):
    """What :meth:`BiasStore.read` found.

    Args:
        records: the valid records inside the window, in file order.
        corrupt_lines: how many non-blank lines could not be read as a record (skipped).
        corrupt_examples: 1-based line numbers of the first corrupt lines (at most 20).
        total_records: valid records in the file before windowing.
        reasons: ``line N: why`` for the first corrupt lines (at most 20), one line each.
    """

    records: tuple[BiasMetricRecord, ...]
    corrupt_lines: int = 0
    corrupt_examples: tuple[int, ...] = ()
    total_records: int = 0
    reasons: tuple[str, ...] = ()


class PruneResult(Frozen):
    """What :meth:`BiasStore.prune` did: records kept and removed, corrupt lines kept verbatim."""

    kept: int
    removed: int
    corrupt_kept: int


def window_mask(
    sessions: np.ndarray,
    times: np.ndarray,
    window_sessions: int | None = None,
    window_days: float | None = None,
    now: datetime | None = None,
) -> np.ndarray:
    """Which records fall in the window: the last ``window_days`` days, then the last ``window_sessions`` sessions.

    The one definition of the window. A session's time is its earliest timestamp among the records
    left by the day bound; sessions are ordered by that time (ties by first appearance) and the
    most recent ``window_sessions`` are kept. ``None`` (or 0) disables a bound.

    Args:
        sessions: a session code per record (non-negative integers, e.g. indices of session ids).
        times: a POSIX timestamp per record.
        window_sessions: keep at most this many most recent sessions.
        window_days: keep records no older than this many days before ``now``.
        now: the reference time for ``window_days`` (default: now, UTC).
    """
    mask = np.ones(times.shape, dtype=bool)
    if window_days:
        cutoff = ((now or datetime.now(UTC)) - timedelta(days=window_days)).timestamp()
        mask &= times >= cutoff
    if window_sessions and mask.any():
        idx = np.flatnonzero(mask)
        codes, first_index, inverse = np.unique(sessions[idx], return_index=True, return_inverse=True)
        if codes.size > window_sessions:
            first_time = np.full(codes.size, np.inf)
            np.minimum.at(first_time, inverse, times[idx])
            order = np.lexsort((first_index, first_time))  # by time, then by first appearance
            keep = np.zeros(codes.size, dtype=bool)
            keep[order[-window_sessions:]] = True
            mask[idx[~keep[inverse]]] = False
    return mask


def select_window(
    records: Sequence[BiasMetricRecord],
    window_sessions: int | None = None,
    window_days: float | None = None,
    now: datetime | None = None,
) -> list[BiasMetricRecord]:
    """The records inside the window (see :func:`window_mask`), in their original order.

    Args:
        records: records in file order.
        window_sessions: keep at most this many most recent sessions.
        window_days: keep records no older than this many days before ``now``.
        now: the reference time for ``window_days`` (default: now, UTC).
    """
    if not records or not (window_sessions or window_days):
        return list(records)
    codes: dict[str, int] = {}
    sessions = np.fromiter((codes.setdefault(r.session_id, len(codes)) for r in records), np.int64, len(records))
    times = np.fromiter((r.timestamp.timestamp() for r in records), np.float64, len(records))
    mask = window_mask(sessions, times, window_sessions, window_days, now)
    return [r for r, keep in zip(records, mask, strict=True) if keep]


def _validation_message(exc: ValidationError) -> str:
    """A pydantic error as one line: ``field: message; field: message``."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ()))
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def from_llm_council(data: dict[str, Any]) -> dict[str, Any] | None:
    """An llm-council-core line in this project's schema, or ``None`` when ``data`` is not one.

    Detected as in :mod:`harness.bias.columns`: ``schema_version`` 1.2.0 or later, or a
    ``query_metadata`` that is ``null`` or carries ``token_bucket``. Its 0-based display position
    becomes 1-based; before 1.2.0 its ``position`` (a ranking index) becomes ``None``; its
    ``query_metadata`` keeps ``category`` and ``language`` (its ``token_bucket`` counts characters,
    not tokens, so it is not carried into ``token_count_bucket``).

    Args:
        data: one decoded JSON line.
    """
    version = data.get("schema_version", SCHEMA_VERSION)
    meta = data.get("query_metadata", {})  # absent: this project's default, not llm-council-core's null
    display = isinstance(version, str) and schema_tuple(version) >= DISPLAY_POSITION_SCHEMA
    if not (display or meta is None or (isinstance(meta, dict) and "token_bucket" in meta)):
        return None
    out = dict(data)
    position = data.get("position")
    if isinstance(position, int) and not isinstance(position, bool):
        out["position"] = position + 1 if display else None
    out["query_metadata"] = (
        {"category": meta.get("category"), "language": meta.get("language")} if isinstance(meta, dict) else {}
    )
    return out


def parse_line(raw: bytes) -> tuple[BiasMetricRecord | None, str | None]:
    """One JSONL line as a record (either writer), or ``None`` and a one-line reason.

    Args:
        raw: the line's bytes.
    """
    try:
        return BiasMetricRecord.model_validate_json(raw), None
    except ValidationError as exc:
        first = _validation_message(exc)
    except ValueError as exc:
        return None, f"not JSON ({exc})"
    try:
        data = json.loads(raw)
    except ValueError as exc:
        return None, f"not a JSON object on one line ({exc})"
    foreign = from_llm_council(data) if isinstance(data, dict) else None
    if foreign is None:
        return None, (
            f"not a bias record: {first}"
            if isinstance(data, dict)
            else f"expected a JSON object, got {type(data).__name__}"
        )
    try:
        return BiasMetricRecord.model_validate(foreign), None
    except ValidationError as exc:
        detail = _validation_message(exc)
        if foreign.get("score_value") == 0:
            detail += " (llm-council-core writes 0.0 when a reviewer gave no score)"
        return None, f"llm-council-core record: {detail}"


def _parse(raw: bytes) -> BiasMetricRecord | None:
    return parse_line(raw)[0]


class BiasStore:
    """An append-only JSONL file of :class:`BiasMetricRecord` lines.

    Args:
        path: the JSONL file (``~`` is expanded); its lock is ``<path>.lock``.
        lock_timeout: seconds to wait for the lock before a :class:`StoreError`.
    """

    def __init__(self, path: Path | str, lock_timeout: float = LOCK_TIMEOUT_S) -> None:
        self.path = Path(path).expanduser()
        self.lock_timeout = lock_timeout
        self._lock = FileLock(str(self.path) + ".lock", timeout=lock_timeout)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the inter-process lock; failures to take it become :class:`StoreError`."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock.acquire()
        except Timeout:
            raise StoreError(f"could not lock the bias store within {self.lock_timeout:g} s", str(self.path)) from None
        except OSError as exc:
            raise StoreError(f"cannot lock the bias store: {exc.strerror or exc}", str(self.path)) from None
        try:
            yield
        finally:
            self._lock.release()

    def exists(self) -> bool:
        return self.path.is_file()

    def append(self, records: Iterable[BiasMetricRecord]) -> int:
        """Append records as whole JSON lines under the lock, then flush and fsync; returns how many.

        If the file ends without a newline (a writer crashed mid-line), a newline is written first
        so that the first new record is not glued to the broken line.

        Args:
            records: the records to append (nothing happens for none).
        """
        lines = [r.model_dump_json() + "\n" for r in records]
        if not lines:
            return 0
        payload = "".join(lines).encode()
        try:
            with self._locked(), open(self.path, "ab+") as fh:
                end = fh.seek(0, os.SEEK_END)
                if end > 0:
                    fh.seek(end - 1)
                    if fh.read(1) != b"\n":
                        payload = b"\n" + payload
                fh.write(payload)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise StoreError(f"cannot append to the bias store: {exc.strerror or exc}", str(self.path)) from None
        return len(lines)

    def _open_snapshot(self) -> tuple[BinaryIO, int]:
        """Open the file and note its size under the lock (appends land beyond it, a prune replaces the
        inode we hold), so a long scan sees whole lines without blocking writers."""
        if not self.path.is_file():
            raise StoreError(
                "bias store not found (collect records with LLM_COUNCIL_BIAS_PERSISTENCE=true, or give the path)",
                str(self.path),
            )
        try:
            try:
                with self._locked():
                    fh = open(self.path, "rb")  # closed by scan()
                    return fh, os.fstat(fh.fileno()).st_size
            except StoreError:
                # no lock possible (e.g. a read-only folder): read anyway; a half-written last line is counted
                fh = open(self.path, "rb")
                return fh, os.fstat(fh.fileno()).st_size
        except OSError as exc:
            raise StoreError(f"cannot read the bias store: {exc.strerror or exc}", str(self.path)) from None

    def scan_reasons(self) -> Iterator[tuple[int, BiasMetricRecord | None, str | None]]:
        """Every non-blank line as ``(1-based line number, record, reason)``; for a corrupt line the
        record is ``None`` and the reason says why in one line (see :func:`parse_line`).

        Streams the file (constant memory); a last line cut short by a crash is reported as corrupt.

        Raises:
            StoreError: the file does not exist or cannot be read.
        """
        fh, size = self._open_snapshot()
        with fh:
            remaining = size
            for number, raw in enumerate(fh, start=1):
                if remaining <= 0:
                    break
                raw = raw[:remaining]
                remaining -= len(raw)
                if raw.strip():
                    record, reason = parse_line(raw)
                    yield number, record, reason

    def scan(self) -> Iterator[tuple[int, BiasMetricRecord | None]]:
        """Every non-blank line as ``(1-based line number, record)``; the record is ``None`` for a corrupt line.

        Raises:
            StoreError: the file does not exist or cannot be read.
        """
        for number, record, _ in self.scan_reasons():
            yield number, record

    def read(
        self,
        window_sessions: int | None = None,
        window_days: float | None = None,
        now: datetime | None = None,
    ) -> ReadResult:
        """All valid records in the window (see :func:`window_mask`); corrupt lines are skipped and counted.

        Args:
            window_sessions: keep at most this many most recent sessions (``None``: all).
            window_days: keep records no older than this many days (``None``: all).
            now: the reference time for ``window_days`` (default: now, UTC).

        Raises:
            StoreError: the file does not exist or cannot be read.
        """
        records: list[BiasMetricRecord] = []
        corrupt: list[tuple[int, str]] = []
        for number, record, reason in self.scan_reasons():
            if record is None:
                corrupt.append((number, reason or "unreadable"))
            else:
                records.append(record)
        return ReadResult(
            records=tuple(select_window(records, window_sessions, window_days, now)),
            corrupt_lines=len(corrupt),
            corrupt_examples=tuple(n for n, _ in corrupt[:MAX_CORRUPT_EXAMPLES]),
            total_records=len(records),
            reasons=tuple(f"line {n}: {why}" for n, why in corrupt[:MAX_CORRUPT_EXAMPLES]),
        )

    def prune(self, older_than_days: float, now: datetime | None = None) -> PruneResult:
        """Drop records older than ``older_than_days`` days; rewrite the file atomically under the lock.

        Corrupt lines are kept (their age is unknown, and nothing is deleted by guesswork); bytes that
        are not UTF-8 are replaced by U+FFFD in the rewrite.

        Args:
            older_than_days: records with a timestamp before ``now - older_than_days`` are removed.
            now: the reference time (default: now, UTC).
        """
        if older_than_days < 0:
            raise ValueError("older_than_days must be >= 0")
        cutoff = (now or datetime.now(UTC)) - timedelta(days=older_than_days)
        if not self.path.is_file():
            return PruneResult(kept=0, removed=0, corrupt_kept=0)
        kept: list[str] = []
        removed = corrupt = 0
        try:
            with self._locked():
                with open(self.path, "rb") as fh:
                    for raw in fh:
                        if not raw.strip():
                            continue
                        record = _parse(raw)
                        if record is not None and record.timestamp < cutoff:
                            removed += 1
                            continue
                        corrupt += record is None
                        kept.append(raw.rstrip(b"\r\n").decode("utf-8", errors="replace") + "\n")
                if removed:
                    from harness.common.fsutil import atomic_write_text

                    atomic_write_text(self.path, "".join(kept))
                    from harness.bias import column_index

                    column_index.remove(self.path)  # it would still hold the removed records
        except OSError as exc:
            raise StoreError(f"cannot prune the bias store: {exc.strerror or exc}", str(self.path)) from None
        return PruneResult(kept=len(kept) - corrupt, removed=removed, corrupt_kept=corrupt)


def persist_transcript(
    transcript: Transcript,
    settings: Settings,
    session_id: str,
    query_metadata: QueryMetadata | None = None,
    timestamp: datetime | None = None,
) -> int:
    """Append a session's bias records to ``settings.bias_store`` when persistence is on; returns how many.

    Nothing is written when ``settings.bias_persistence`` is false or the consent level is 0.

    Args:
        transcript: the council transcript.
        settings: persistence switch, store path, consent level and hash secret.
        session_id: a unique id for this session.
        query_metadata: coarse query facts (category, language).
        timestamp: the session time (default: now, UTC).
    """
    if not settings.bias_persistence:
        return 0
    records = records_from_transcript(
        transcript,
        session_id,
        settings.bias_consent,
        settings.hash_secret,
        query_metadata=query_metadata,
        config_version=config_version(settings),
        timestamp=timestamp,
        weights=settings.weights,
    )
    return BiasStore(settings.bias_store).append(records)
