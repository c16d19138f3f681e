"""Bias stores read straight into columns: one typed batch decode of the whole JSONL file.

Two writers produce the same JSONL at the same default path (``~/.llm-council/bias_metrics.jsonl``):

* **council-harness** (this project, :class:`harness.bias.store.BiasMetricRecord`): schema
  ``1.1.0`` (any ``1.x`` below ``1.2.0``), 1-based display positions, ``query_metadata`` always an
  object with ``category``/``token_count_bucket``/``language``.
* **llm-council-core** (the seeds' own system, ``llm_council.bias_persistence``): schema ``1.2.0``
  and later with **0-based** display positions (read as ``position + 1``); ``query_metadata`` is
  ``null`` or an object with ``token_bucket``. Its records before ``1.2.0`` (``query_metadata``
  ``null`` or with ``token_bucket``) hold the reviewer's *ranking index* in ``position``, not a
  display position: they are kept for every figure except position bias (position 0 = unknown).
  It writes ``score_value`` 0.0 for a missing score; such lines are skipped with that reason.

The writer is detected per line, by ``schema_version`` first, then by the shape of
``query_metadata``. The file is decoded and type-checked in batches of whole lines (8 MiB each):
first one ``msgspec.json.Decoder.decode_lines`` call by the field types alone (unknown fields
refused), then the value rules (ranges, non-empty ids, schema and hash patterns) checked
column-wise. A batch where any of that fails takes the exact path: one decode by the constrained
types, and line by line where that fails too, to find each bad line and say why; both paths give
the same columns. A line holding two JSON objects is a bad line, whichever batch it falls in.
Cross-field rules (score range per writer, aware timestamps, query hash only at consent 4) are then
checked column-wise. Every skipped line gets a one-line reason
(``line 7: score_value: expected a number from 1 to 10, got 0.0 ...``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import attrgetter
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
import numpy as np

from harness.bias.column_chunks import COLUMNS, Chunk, Coder
from harness.bias.store import DISPLAY_POSITION_SCHEMA, schema_tuple

if TYPE_CHECKING:
    from harness.bias.store import BiasMetricRecord, BiasStore

WRITER_HARNESS = "council-harness"
WRITER_LLM_COUNCIL = "llm-council-core"
MAX_SKIP_EXAMPLES = 20
#: Bytes of whole lines decoded in one batch by :func:`read_columns`.
CHUNK_BYTES = 8 << 20

_NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
_INT64_MAX = 2**63 - 1


class _QueryMeta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    category: str | None = None
    token_count_bucket: str | None = None  # council-harness
    token_bucket: str | None = None  # llm-council-core
    language: str | None = None


class _Line(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One JSONL line as either writer writes it (field types and ranges both writers share)."""

    session_id: _NonEmpty
    timestamp: _NonEmpty
    consent_level: Annotated[int, msgspec.Meta(ge=1, le=4)]
    reviewer_id: _NonEmpty
    model_id: _NonEmpty
    position: Annotated[int, msgspec.Meta(ge=0, le=_INT64_MAX)]  # columns are int64: larger is refused
    response_length_chars: Annotated[int, msgspec.Meta(ge=0, le=_INT64_MAX)]
    score_value: Annotated[float, msgspec.Meta(ge=0.0, le=10.0)]
    council_config_version: str
    schema_version: Annotated[str, msgspec.Meta(pattern=r"^1\.\d+\.\d+$")] = "1.1.0"
    score_scale: Literal["1-10"] = "1-10"
    query_hash: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{16}$")] | None = None
    query_metadata: _QueryMeta | None | msgspec.UnsetType = msgspec.UNSET  # absent: council-harness default


_DECODER = msgspec.json.Decoder(_Line)


class _FastLine(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """:class:`_Line` with its types but not its ``Meta`` constraints, which :func:`_meets_line_rules`
    checks column-wise afterwards (per-value ``Meta`` checks make the batch decode about twice as slow;
    the literals are as cheap as the plain types and accept the same values as ``_Line``'s rules)."""

    session_id: str
    timestamp: str
    consent_level: Literal[1, 2, 3, 4]
    reviewer_id: str
    model_id: str
    position: int
    response_length_chars: int
    score_value: float
    council_config_version: str
    schema_version: str = "1.1.0"
    score_scale: Literal["1-10"] = "1-10"
    query_hash: str | None = None
    query_metadata: _QueryMeta | None | msgspec.UnsetType = msgspec.UNSET


_FAST_DECODER = msgspec.json.Decoder(_FastLine)
# msgspec applies a ``Meta(pattern=...)`` with ``re.search``: the same here
_SCHEMA_PATTERN = re.compile(r"^1\.\d+\.\d+$")
_HASH_PATTERN = re.compile(r"^[0-9a-f]{16}$")


@dataclass(frozen=True, slots=True)
class RecordTable:
    """A columnar view of records for vectorized aggregation.

    Args:
        session: session index per record (0..S-1, in order of first appearance).
        reviewer: reviewer index per record.
        model: scored-candidate index per record.
        config: ``council_config_version`` index per record.
        position: 1-based display position per record (0: unknown, see the module docstring).
        length: response length (chars) per record.
        score: score per record.
        time: timestamp per record, POSIX seconds.
        session_ids: the session id of each session index.
        reviewer_ids: the reviewer id of each reviewer index.
        model_ids: the candidate id of each model index.
        config_ids: the ``council_config_version`` of each config index.
    """

    session: np.ndarray
    reviewer: np.ndarray
    model: np.ndarray
    config: np.ndarray
    position: np.ndarray
    length: np.ndarray
    score: np.ndarray
    time: np.ndarray
    session_ids: tuple[str, ...]
    reviewer_ids: tuple[str, ...]
    model_ids: tuple[str, ...]
    config_ids: tuple[str, ...]

    @classmethod
    def from_columns(
        cls,
        sessions: list[str],
        reviewers: list[str],
        models: list[str],
        configs: list[str],
        position: np.ndarray,
        length: np.ndarray,
        score: np.ndarray,
        time: np.ndarray,
    ) -> RecordTable:
        """Build a table from per-record columns (ids are coded in order of first appearance)."""
        s_codes, s_ids = _codes(sessions)
        r_codes, r_ids = _codes(reviewers)
        m_codes, m_ids = _codes(models)
        c_codes, c_ids = _codes(configs)
        return cls(
            session=s_codes,
            reviewer=r_codes,
            model=m_codes,
            config=c_codes,
            position=np.asarray(position, dtype=np.int64),
            length=np.asarray(length, dtype=np.float64),
            score=np.asarray(score, dtype=np.float64),
            time=np.asarray(time, dtype=np.float64),
            session_ids=s_ids,
            reviewer_ids=r_ids,
            model_ids=m_ids,
            config_ids=c_ids,
        )

    @classmethod
    def from_records(cls, records: Iterable[BiasMetricRecord]) -> RecordTable:
        """Build the columns from record objects (any order; a position of ``None`` becomes 0, unknown).

        Args:
            records: the records.
        """
        rows = list(records)
        return cls.from_columns(
            [r.session_id for r in rows],
            [r.reviewer_id for r in rows],
            [r.model_id for r in rows],
            [r.council_config_version for r in rows],
            np.fromiter((r.position or 0 for r in rows), np.int64, len(rows)),
            np.fromiter((r.response_length_chars for r in rows), np.float64, len(rows)),
            np.fromiter((r.score_value for r in rows), np.float64, len(rows)),
            np.fromiter((r.timestamp.timestamp() for r in rows), np.float64, len(rows)),
        )

    def select(self, mask: np.ndarray) -> RecordTable:
        """The records where ``mask`` is true, with every id column re-indexed (order kept).

        Args:
            mask: one boolean per record.
        """
        if mask.all():
            return self

        def recode(codes: np.ndarray, ids: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...]]:
            used, inverse = np.unique(codes[mask], return_inverse=True)
            return inverse.astype(np.int64), tuple(ids[i] for i in used)

        session, session_ids = recode(self.session, self.session_ids)
        reviewer, reviewer_ids = recode(self.reviewer, self.reviewer_ids)
        model, model_ids = recode(self.model, self.model_ids)
        config, config_ids = recode(self.config, self.config_ids)
        return RecordTable(
            session=session,
            reviewer=reviewer,
            model=model,
            config=config,
            position=self.position[mask],
            length=self.length[mask],
            score=self.score[mask],
            time=self.time[mask],
            session_ids=session_ids,
            reviewer_ids=reviewer_ids,
            model_ids=model_ids,
            config_ids=config_ids,
        )

    @property
    def n_records(self) -> int:
        return int(self.score.size)

    @property
    def n_sessions(self) -> int:
        return len(self.session_ids)

    @property
    def config_versions(self) -> tuple[str, ...]:
        """The distinct ``council_config_version`` values, sorted."""
        return tuple(sorted(self.config_ids))

    @property
    def window(self) -> tuple[datetime | None, datetime | None]:
        """Earliest and latest record timestamps (``None`` without records)."""
        if self.time.size == 0:
            return None, None
        return _dt(float(self.time.min())), _dt(float(self.time.max()))

    def session_times(self) -> np.ndarray:
        """Each session's time: the earliest timestamp among its records."""
        out = np.full(self.n_sessions, np.inf)
        np.minimum.at(out, self.session, self.time)
        return out


@dataclass(frozen=True, slots=True)
class TableRead:
    """A store read straight into columns.

    Args:
        table: the valid records as a :class:`RecordTable`.
        corrupt_lines: non-blank lines skipped (not JSON, not a record of either writer, or a rule broken).
        corrupt_examples: 1-based line numbers of the first skipped lines (at most 20).
        reasons: one line per skipped line, ``line N: why`` (at most 20).
        writers: records read per writer (``council-harness``, ``llm-council-core``).
        no_display_position: records kept without a display position (llm-council-core before 1.2.0).
    """

    table: RecordTable
    corrupt_lines: int
    corrupt_examples: tuple[int, ...]
    reasons: tuple[str, ...] = ()
    writers: tuple[tuple[str, int], ...] = ()
    no_display_position: int = 0


def _dt(posix: float) -> datetime:
    return datetime.fromtimestamp(posix, tz=UTC)


def _codes(values: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Integer codes in order of first appearance, and the distinct values in that order."""
    distinct = tuple(dict.fromkeys(values))
    if len(distinct) == 1:
        return np.zeros(len(values), dtype=np.int64), distinct
    index = {v: i for i, v in enumerate(distinct)}
    return np.fromiter(map(index.__getitem__, values), np.int64, len(values)), distinct


def _decode_each(lines: list[bytes], first_line: int) -> tuple[list[_Line], list[int], list[tuple[int, str]]]:
    """Line-by-line decode (only when the batch decode failed): rows, their line numbers, skip reasons."""
    rows: list[_Line] = []
    numbers: list[int] = []
    bad: list[tuple[int, str]] = []
    for i, raw in enumerate(lines, start=first_line):
        if not raw.strip():
            continue
        try:
            rows.append(_DECODER.decode(raw))
            numbers.append(i)
        except msgspec.ValidationError as exc:  # a subclass of DecodeError: catch it first
            bad.append((i, f"not a bias record: {exc}"))
        except msgspec.DecodeError as exc:
            bad.append((i, f"not a JSON object on one line ({exc})"))
    return rows, numbers, bad


def _foreign_meta(meta: _QueryMeta | None | msgspec.UnsetType) -> bool:
    """llm-council-core's ``query_metadata``: ``null``, or an object with ``token_bucket``."""
    return meta is None or (isinstance(meta, _QueryMeta) and meta.token_bucket is not None)


def _parse_time(value: str) -> float:
    """POSIX seconds of an ISO 8601 time with a UTC offset; NaN for anything else."""
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return math.nan
    return when.timestamp() if when.tzinfo is not None else math.nan


def column_of(items: list[Any], name: str) -> list[Any]:
    """``[getattr(item, name) for item in items]`` at C speed."""
    return list(map(attrgetter(name), items))


def _nonblank_lines(data: bytes) -> int:
    """How many lines of ``data`` hold more than whitespace (what one object per line decodes to)."""
    lines = data.split(b"\n")
    return len(lines) - lines.count(b"") - sum(map(bytes.isspace, lines))


_LINE_STARTS_BLANK = re.compile(rb"\n\s")


def _one_object_per_line(data: bytes, objects: int) -> bool:
    """Whether a batch decode of ``data`` that gave ``objects`` values found exactly one on each non-blank line.

    Each non-blank line gives at least one value, so when no line starts with whitespace (none is
    blank) and there are as many values as lines, each line gave exactly one; otherwise count the
    non-blank lines.
    """
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if objects == lines and not data[:1].isspace() and _LINE_STARTS_BLANK.search(data) is None:
        return True
    return objects == _nonblank_lines(data)


def _meets_line_rules(columns: dict[str, list[Any]], numbers: dict[str, np.ndarray]) -> bool:
    """Whether every row decoded by :class:`_FastLine` also meets the constraints of :class:`_Line`
    it leaves out: non-empty ids and time, position and length >= 0, score 0-10, and the schema and
    query-hash patterns (each distinct string checked once)."""
    for name in ("session_id", "reviewer_id", "model_id", "timestamp"):
        if "" in columns[name]:
            return False
    position, length, score = numbers["position"], numbers["length"], numbers["score"]
    if not (
        (position >= 0).all() and (length >= 0).all() and ((score >= 0.0) & (score <= 10.0)).all()
    ):  # NaN fails both comparisons
        return False
    if any(_SCHEMA_PATTERN.search(v) is None for v in dict.fromkeys(columns["schema_version"])):
        return False
    hashes = columns["query_hash"]
    return hashes.count(None) == len(hashes) or all(
        _HASH_PATTERN.search(h) is not None for h in dict.fromkeys(hashes) if h is not None
    )


def _decode_chunk(
    data: bytes, first_line: int, coders: dict[str, Coder], by_line: bool = False, fast: bool = True
) -> Chunk:
    """Decode whole lines (``first_line`` is the 1-based number of the first) into columns.

    First one batch decode by :class:`_FastLine` and a column-wise check of :class:`_Line`'s
    constraints; if either fails, the exact path: one batch decode by :class:`_Line`, and line by
    line when that fails too, so every skipped line gets its reason. The columns of a chunk that
    passes the fast path are those the exact path gives (the same values, decoded by the same types).
    ``fast=False`` takes the exact path only (the oracle of the tests).
    """
    if fast and not by_line:
        try:
            unchecked = _FAST_DECODER.decode_lines(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            unchecked = None
        if unchecked is not None:
            if not _one_object_per_line(data, len(unchecked)):
                by_line = True  # two objects glued on one line: a bad line, as line by line says
            else:
                chunk = _rows_to_chunk(unchecked, None, [], data, first_line, coders, check=True)
                if chunk is not None:
                    return chunk
    rows: list[_Line] | None = None
    numbers: list[int] | None = None
    bad: list[tuple[int, str]] = []
    try:
        rows = None if by_line else _DECODER.decode_lines(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        rows = None
    if rows is not None and not _one_object_per_line(data, len(rows)):
        rows = None  # two objects glued on one line: whichever batch holds it, it is a bad line
    if rows is None:  # some line is bad: decode line by line to say which and why
        rows, numbers, bad = _decode_each(data.split(b"\n"), first_line)
    chunk = _rows_to_chunk(rows, numbers, bad, data, first_line, coders, check=False)
    assert chunk is not None  # only a checked fast decode can be refused
    return chunk


def _rows_to_chunk(
    rows: list[_Line] | list[_FastLine],
    numbers: list[int] | None,
    bad: list[tuple[int, str]],
    data: bytes,
    first_line: int,
    coders: dict[str, Coder],
    check: bool,
) -> Chunk | None:
    """Columns of decoded rows, the cross-field rules applied; ``None`` when ``check`` and a row breaks
    one of :class:`_Line`'s constraints (nothing coded yet: the caller decodes the chunk exactly)."""
    n = len(rows)
    names = (
        "schema_version",
        "query_metadata",
        "position",
        "score_value",
        "query_hash",
        "timestamp",
        "response_length_chars",
        "session_id",
        "reviewer_id",
        "model_id",
        "council_config_version",
    )
    col = {name: column_of(rows, name) for name in names}
    try:
        position = np.fromiter(col["position"], np.int64, n)
        length = np.fromiter(col["response_length_chars"], np.int64, n).astype(np.float64)
    except OverflowError:  # an integer beyond 64 bits, which only the unconstrained decode lets through
        return None
    score = np.fromiter(col["score_value"], np.float64, n)
    if check and not _meets_line_rules(col, {"position": position, "length": length, "score": score}):
        return None
    schema = col["schema_version"]
    versions = {v: schema_tuple(v) >= DISPLAY_POSITION_SCHEMA for v in dict.fromkeys(schema)}
    if len(versions) == 1:
        display = np.full(n, next(iter(versions.values())), dtype=bool)
    else:
        display = np.fromiter(map(versions.__getitem__, schema), bool, n)
    metas = col["query_metadata"]
    if set(map(type, metas)) <= {_QueryMeta} and column_of(metas, "token_bucket").count(None) == n:
        meta_foreign = np.zeros(n, dtype=bool)  # every line has this project's query_metadata
    else:
        meta_foreign = np.fromiter(map(_foreign_meta, metas), bool, n)
    foreign = display | meta_foreign  # llm-council-core, any schema
    hashes = col["query_hash"]
    if hashes.count(None) == n:
        hashed = consent = np.zeros(n, dtype=bool)  # no hash: the consent level cannot break a rule
    else:
        hashed = np.fromiter((h is not None for h in hashes), bool, n)
        consent = np.fromiter(column_of(rows, "consent_level"), np.int64, n)
    stamps = col["timestamp"]
    parsed = {s: _parse_time(s) for s in dict.fromkeys(stamps)}
    time = np.fromiter(map(parsed.__getitem__, stamps), np.float64, n)

    reason = np.zeros(n, dtype=np.int8)  # 0 = keep; codes index _REASONS
    reason[hashed & (consent != 4)] = 5
    reason[np.isnan(time)] = 4
    reason[~foreign & (position < 1)] = 3
    reason[foreign & (score < 1.0)] = 2
    reason[~foreign & (score < 1.0)] = 1
    keep = reason == 0
    if not keep.all():
        if numbers is None:
            numbers = [i for i, raw in enumerate(data.split(b"\n"), start=first_line) if raw.strip()]
            if len(numbers) != n:  # two objects glued on one line: decode line by line to number them
                return _decode_chunk(data, first_line, coders, by_line=True)
        for j in np.flatnonzero(~keep):
            detail = {
                1: f"got {score[j]!r}",
                2: f"got {score[j]!r}",
                3: f"got {position[j]}",
                4: f"got {stamps[j]!r}",
                5: f"consent_level is {consent[j]}",
            }[int(reason[j])]
            bad.append((numbers[j], f"{_REASONS[int(reason[j])]}, {detail}"))
        bad.sort()
    # llm-council-core from 1.2.0 on: 0-based display position; before: a ranking index (unknown display)
    if foreign.any():
        position = np.where(foreign & display, position + 1, np.where(foreign, 0, position))
    idx = np.flatnonzero(keep)
    everything = idx.size == n

    def kept(name: str) -> list[str]:
        values = col[name]
        return values if everything else [values[j] for j in idx]

    columns = {
        "session": coders["session"](kept("session_id")),
        "reviewer": coders["reviewer"](kept("reviewer_id")),
        "model": coders["model"](kept("model_id")),
        "config": coders["config"](kept("council_config_version")),
        "position": position if everything else position[idx],
        "length": length if everything else length[idx],
        "score": score if everything else score[idx],
        "time": time if everything else time[idx],
    }
    return Chunk(
        columns=columns, bad=bad, foreign=int(foreign[keep].sum()), no_display=int((foreign & ~display & keep).sum())
    )


def _assemble(chunks: list[Chunk], coders: dict[str, Coder]) -> TableRead:
    """One :class:`TableRead` from the chunks of a store, in file order."""
    columns = {name: np.concatenate([c.columns[name] for c in chunks]) if chunks else np.empty(0) for name in COLUMNS}
    bad = [b for c in chunks for b in c.bad]
    total = int(columns["score"].size)
    n_foreign = sum(c.foreign for c in chunks)
    table = RecordTable(
        session=columns["session"].astype(np.int64),
        reviewer=columns["reviewer"].astype(np.int64),
        model=columns["model"].astype(np.int64),
        config=columns["config"].astype(np.int64),
        position=columns["position"].astype(np.int64),
        length=columns["length"].astype(np.float64),
        score=columns["score"].astype(np.float64),
        time=columns["time"].astype(np.float64),
        session_ids=coders["session"].ids,
        reviewer_ids=coders["reviewer"].ids,
        model_ids=coders["model"].ids,
        config_ids=coders["config"].ids,
    )
    writers = tuple((w, c) for w, c in ((WRITER_HARNESS, total - n_foreign), (WRITER_LLM_COUNCIL, n_foreign)) if c)
    return TableRead(
        table=table,
        corrupt_lines=len(bad),
        corrupt_examples=tuple(i for i, _ in bad[:MAX_SKIP_EXAMPLES]),
        reasons=tuple(f"line {i}: {why}" for i, why in bad[:MAX_SKIP_EXAMPLES]),
        writers=writers,
        no_display_position=sum(c.no_display for c in chunks),
    )


def _new_coders() -> dict[str, Coder]:
    return {name: Coder() for name in ("session", "reviewer", "model", "config")}


def decode_buffer(data: bytes, fast: bool = True) -> TableRead:
    """Decode a whole store's bytes into a :class:`TableRead` (see the module docstring for the rules).

    Args:
        data: the file's contents (a last line without newline is read like any other).
        fast: try the unconstrained batch decode first (``False``: the exact path only; same result).
    """
    coders = _new_coders()
    return _assemble([_decode_chunk(data, 1, coders, fast=fast)] if data else [], coders)


_REASONS = {
    1: "score_value: expected a number from 1 to 10",
    2: "score_value: expected a number from 1 to 10 (llm-council-core writes 0.0 when a reviewer gave no score)",
    3: "position: expected a 1-based display position (schema below 1.2.0 from council-harness)",
    4: "timestamp: expected an ISO 8601 time with a UTC offset",
    5: "query_hash: only allowed at consent level 4 (RESEARCH)",
}


def read_columns(
    store: BiasStore,
    chunk_bytes: int = CHUNK_BYTES,
    fast: bool = True,
    index: bool = True,
    index_min_bytes: int | None = None,
) -> TableRead:
    """Read a whole store into columns: one snapshot under the store's lock, then one batch decode
    per chunk of about ``chunk_bytes`` of whole lines (memory stays bounded by the chunk, not the file).

    With ``index``, the columns of the lines already decoded by an earlier read come from the
    store's columnar index (:mod:`harness.bias.column_index`) when it is current, and only the lines
    appended since are decoded; a read that decoded at least ``index_min_bytes`` (default
    ``column_index.INDEX_MIN_BYTES``) of whole lines beyond the index rewrites it. The result is the
    same with or without the index.

    Args:
        store: the bias store.
        chunk_bytes: bytes decoded at once.
        fast: try the unconstrained batch decode first (``False``: the exact path only; same result).
        index: use and keep up the columnar index.
        index_min_bytes: newly decoded bytes of whole lines that make a read rewrite the index.

    Raises:
        StoreError: the file does not exist or cannot be read.
    """
    from harness.bias import column_index
    from harness.common.errors import StoreError

    fh, size = store._open_snapshot()
    coders = _new_coders()
    chunks: list[Chunk] = []
    line = 1
    start = 0
    try:
        with fh:
            indexed = column_index.load(store.path, fh, size) if index else None
            if indexed is not None:
                coders, chunks, line, start = indexed.coders, [indexed.chunk], 1 + indexed.newlines, indexed.prefix
                fh.seek(start)
            whole = start  # bytes of whole lines decoded so far
            carry = b""
            remaining = size - start
            while remaining > 0:
                block = fh.read(min(chunk_bytes, remaining))
                if not block:
                    break
                remaining -= len(block)
                data = carry + block
                cut = data.rfind(b"\n") + 1
                data, carry = data[:cut], data[cut:]
                if data:
                    chunks.append(_decode_chunk(data, line, coders, fast=fast))
                    line += data.count(b"\n")
                    whole += len(data)
            if index:
                needed = column_index.INDEX_MIN_BYTES if index_min_bytes is None else index_min_bytes
                if whole > 0 and whole - start >= max(1, needed):
                    column_index.save(store.path, fh, whole, line - 1, chunks, coders)
            if carry:  # a last line without newline (perhaps cut short by a crash): never indexed
                chunks.append(_decode_chunk(carry, line, coders, fast=fast))
    except OSError as exc:
        raise StoreError(f"cannot read the bias store: {exc.strerror or exc}", str(store.path)) from None
    return _assemble(chunks, coders)
