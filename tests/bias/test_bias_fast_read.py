"""The bias store's fast batch read (issue 14 item 6b) gives exactly what the exact path gives.

The fast path decodes a chunk with :class:`harness.bias.columns._FastLine` (types only) and checks
the value constraints column-wise; any doubt sends the chunk down the exact path (constrained
batch decode, then line by line), which is the oracle here. Stores are seeded random mixes of
this project's records, ``llm-council-core`` lines (schema 1.2.0 and older) and many kinds of bad
line; the two paths must agree on every column, id, skip count, line number and reason, and the
records path (a pydantic model per line) must keep the same records and skip the same lines. The
columnar index beside the store (:mod:`harness.bias.column_index`) must give the same result as a
full read as the store grows, and be ignored when stale or broken.
"""

from __future__ import annotations

import json
import os
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from harness.bias import column_index, columns
from harness.bias.columns import TableRead, decode_buffer, read_columns
from harness.bias.store import BiasMetricRecord, BiasStore, ConsentLevel, QueryMetadata

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
REVIEWERS = ("r-alpha", "r-beta", "r-gamma", "r-delta")
TABLE_FIELDS = ("session", "reviewer", "model", "config", "position", "length", "score", "time")


def _harness_line(rng: random.Random, session: str, when: datetime) -> str:
    research = rng.random() < 0.1
    return BiasMetricRecord(
        session_id=session,
        timestamp=when,
        consent_level=ConsentLevel.RESEARCH if research else rng.randint(1, 3),
        query_metadata=QueryMetadata(category=rng.choice([None, "coding", "math"]), token_count_bucket="0-100"),
        reviewer_id=rng.choice(REVIEWERS),
        model_id=rng.choice(REVIEWERS),
        position=rng.randint(1, 4),
        response_length_chars=rng.randint(0, 3000),
        score_value=round(rng.uniform(1, 10), 2),
        council_config_version=rng.choice(["0.1.0+aaaa", "0.1.0+bbbb"]),
        query_hash=f"{rng.getrandbits(64):016x}" if research else None,
    ).model_dump_json()


def _llm_council_line(rng: random.Random, session: str, when: datetime) -> str:
    """A line as llm-council-core writes it: 1.2.0 (0-based positions) or older (a ranking index)."""
    old = rng.random() < 0.3
    return json.dumps(
        {
            "schema_version": "1.1.0" if old else "1.2.0",
            "session_id": session,
            "timestamp": when.isoformat(),
            "consent_level": 1,
            "query_metadata": rng.choice([None, {"category": "coding", "token_bucket": "0-100", "language": "en"}])
            if not old
            else None,
            "reviewer_id": rng.choice(REVIEWERS),
            "model_id": rng.choice(REVIEWERS),
            "position": rng.randint(0, 3),
            "response_length_chars": rng.randint(0, 3000),
            "score_value": rng.choice([0.0, 3.5, 7.0, 9.25, 10.0]),
            "score_scale": "1-10",
            "council_config_version": "0.53.0",
            "query_hash": None,
        }
    )


def _broken(rng: random.Random, good: str, kinds: int = 24) -> str:
    """One bad line of a random kind, made from a good line of this project.

    The last two kinds (consent 1.0, a position beyond 64 bits) only the column readers refuse; the
    records path (pydantic, lax) reads them, so only the column paths are compared on them.
    """
    data: dict[str, Any] = json.loads(good)
    kind = rng.randrange(kinds)
    if kind == 22:
        return good.replace('"score_value":', '"score_value":1e999,"x":', 1)  # infinite score, then an unknown field
    if kind == 23:
        return good.replace('"score_value":', '"score_value":1e999}  {"a":', 1)
    if kind == 0:
        return good[: rng.randint(1, len(good) - 1)]  # cut short by a crash
    if kind == 1:
        return "{not json"
    if kind == 2:
        return "[1, 2, 3]"
    if kind == 3:
        return good + good  # two objects glued on one line
    edits: dict[str, Any] = [
        {"session_id": ""},
        {"reviewer_id": ""},
        {"timestamp": ""},
        {"score_value": 11.0},
        {"score_value": 0.5},
        {"score_value": -1},
        {"position": -1},
        {"position": 0},
        {"response_length_chars": -5},
        {"consent_level": 0},
        {"consent_level": 5},
        {"schema_version": "2.0.0"},
        {"score_scale": "1-5"},
        {"query_hash": "XYZ"},
        {"query_hash": "0123456789abcdef", "consent_level": 2},
        {"timestamp": "2026-03-01T09:00:00"},
        {"timestamp": "yesterday"},
        {"extra_field": 1},
        {"consent_level": 1.0},
        {"position": 2**70},
    ][kind - 4 if kind < 22 else kind - 6]
    data.update(edits)
    return json.dumps(data)


def _store(tmp_path: Path, seed: int, lines: int = 240) -> Path:
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(lines):
        session = f"s{i // rng.randint(3, 12)}"
        when = T0 + timedelta(minutes=7 * (i // 5))
        roll = rng.random()
        if roll < 0.15:
            out.append(_broken(rng, _harness_line(rng, session, when)))
        elif roll < 0.18:
            out.append("")  # blank: ignored, not counted
        elif roll < 0.38:
            out.append(_llm_council_line(rng, session, when))
        else:
            out.append(_harness_line(rng, session, when))
    path = tmp_path / f"bias-{seed}.jsonl"
    path.write_text("\n".join(out) + ("\n" if rng.random() < 0.5 else ""))
    return path


def _assert_same(a: TableRead, b: TableRead) -> None:
    assert (a.corrupt_lines, a.corrupt_examples, a.reasons) == (b.corrupt_lines, b.corrupt_examples, b.reasons)
    assert (a.writers, a.no_display_position) == (b.writers, b.no_display_position)
    for name in ("session_ids", "reviewer_ids", "model_ids", "config_ids"):
        assert getattr(a.table, name) == getattr(b.table, name), name
    for name in TABLE_FIELDS:
        left, right = getattr(a.table, name), getattr(b.table, name)
        assert left.dtype == right.dtype and left.tolist() == right.tolist(), name


@pytest.mark.parametrize("seed", range(12))
def test_fast_read_equals_the_exact_path_on_random_stores_with_bad_lines(tmp_path: Path, seed: int):
    store = BiasStore(_store(tmp_path, seed))
    exact = read_columns(store, fast=False)
    assert exact.corrupt_lines > 0 and exact.table.n_records > 100  # the mix really has both
    _assert_same(read_columns(store), exact)
    for chunk in (512, 4096):  # chunks mixing clean (fast) and dirty (exact) batches
        _assert_same(read_columns(store, chunk_bytes=chunk), exact)
    # the records path (one pydantic model per line) keeps the same records and skips the same lines
    records = store.read()
    assert records.corrupt_lines == exact.corrupt_lines
    assert records.corrupt_examples == exact.corrupt_examples
    assert [r.score_value for r in records.records] == exact.table.score.tolist()
    assert [r.position or 0 for r in records.records] == exact.table.position.tolist()
    assert [r.timestamp.timestamp() for r in records.records] == exact.table.time.tolist()


def test_clean_store_takes_the_fast_path_and_each_bad_kind_is_refused_by_it(tmp_path: Path):
    rng = random.Random(5)
    good = [_harness_line(rng, f"s{i // 4}", T0 + timedelta(minutes=i)) for i in range(40)]
    good += [_llm_council_line(rng, f"c{i // 4}", T0 + timedelta(minutes=i)) for i in range(40)]
    good = [g for g in good if json.loads(g)["score_value"] != 0.0]  # 0.0: skipped by a cross-field rule
    data = ("\n".join(good) + "\n").encode()
    fast_rows = columns._FAST_DECODER.decode_lines(data)
    assert columns._rows_to_chunk(fast_rows, None, [], data, 1, columns._new_coders(), check=True) is not None
    _assert_same(decode_buffer(data), decode_buffer(data, fast=False))
    assert decode_buffer(data).corrupt_lines == 0
    # every bad kind that still decodes by the unconstrained types is refused by the column check
    refused = 0
    for kind_seed in range(400):
        line = _broken(random.Random(kind_seed), good[0], kinds=26)
        try:
            rows = columns._FAST_DECODER.decode_lines(line.encode())
        except Exception:  # noqa: BLE001 - the batch decode refused it: the exact path runs
            continue
        exact = decode_buffer(line.encode(), fast=False)
        if exact.corrupt_lines and len(rows) == 1:
            chunk = columns._rows_to_chunk(rows, None, [], line.encode(), 1, columns._new_coders(), check=True)
            assert chunk is None or chunk.bad, line  # refused, or skipped by the shared cross-field rules
            refused += 1
    assert refused > 100


def test_two_objects_glued_on_one_line_are_one_bad_line_whatever_the_batch(tmp_path: Path):
    rng = random.Random(2)
    good = [_harness_line(rng, f"s{i}", T0 + timedelta(minutes=i)) for i in range(6)]
    path = tmp_path / "glued.jsonl"
    path.write_text("\n".join([*good[:3], good[3] + good[4], good[5]]) + "\n")
    store = BiasStore(path)
    for fast in (True, False):
        read = read_columns(store, fast=fast)
        assert read.corrupt_examples == (4,) and read.table.n_records == 4
        assert read.reasons[0].startswith("line 4: not a JSON object on one line (JSON is malformed: trailing")
    assert store.read().corrupt_examples == (4,)  # as the records path says


@pytest.mark.parametrize("field", ["position", "response_length_chars"])
def test_an_integer_beyond_64_bits_is_a_bad_line_not_a_crash(tmp_path: Path, field: str):
    # was an OverflowError traceback: the decoder took any integer, the int64 column did not
    rng = random.Random(3)
    good = [_harness_line(rng, f"s{i}", T0) for i in range(3)]
    data = json.loads(good[1])
    data[field] = 2**63
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join([good[0], json.dumps(data), good[2]]) + "\n")
    for fast in (True, False):
        read = read_columns(BiasStore(path), fast=fast)
        assert read.table.n_records == 2
        assert read.reasons == (f"line 2: not a bias record: Expected `int` <= 9223372036854775807 - at `$.{field}`",)


@pytest.mark.parametrize("seed", range(4))
def test_columnar_index_gives_what_a_full_read_gives_as_the_store_grows(tmp_path: Path, seed: int):
    path = _store(tmp_path, seed, lines=300)
    store = BiasStore(path)
    index = column_index.index_path(path)
    cold = read_columns(store, index_min_bytes=1)
    assert index.is_file()  # the read wrote the index of its whole lines
    _assert_same(cold, read_columns(store, fast=False, index=False))
    _assert_same(read_columns(store, index_min_bytes=1), cold)  # from the index alone
    # appends (good, bad, blank and a last line cut short) are decoded after the indexed prefix
    rng = random.Random(seed)
    for round_ in range(3):
        more = [_harness_line(rng, f"n{round_}-{i // 3}", T0 + timedelta(hours=1, minutes=i)) for i in range(20)]
        more[rng.randrange(20)] = _broken(rng, more[0])
        more.append("")
        text = path.read_text()
        with path.open("a") as fh:  # the store may end without a newline: the next line starts after it
            fh.write(
                ("" if text.endswith("\n") or not text else "\n")
                + "\n".join(more)
                + "\n"
                + (more[1][:40] if round_ == 1 else "")
            )
        exact = read_columns(store, fast=False, index=False)
        for chunk in (512, columns.CHUNK_BYTES):
            _assert_same(read_columns(store, chunk_bytes=chunk, index_min_bytes=1), exact)
            _assert_same(read_columns(store, chunk_bytes=chunk, index_min_bytes=1 << 30), exact)


def test_a_stale_or_broken_index_is_ignored_and_rebuilt(tmp_path: Path):
    path = _store(tmp_path, 1, lines=200)
    store = BiasStore(path)
    index = column_index.index_path(path)
    read_columns(store, index_min_bytes=1)
    # the same store rewritten in place with other values at the end: the key's digest differs
    text = path.read_text()
    path.write_text(text[:-60] + text[-60:].replace("1", "2").replace("3", "4"))
    _assert_same(read_columns(store, index_min_bytes=1 << 30), read_columns(store, fast=False, index=False))
    # replaced by another file (a new inode, as a prune does), the same bytes: still right
    other = tmp_path / "other.jsonl"
    other.write_bytes(path.read_bytes())
    os.replace(other, path)
    _assert_same(read_columns(store, index_min_bytes=1), read_columns(store, fast=False, index=False))
    # an unreadable index (garbage, truncated) is a cache miss, not an error
    for junk in (b"not an index", index.read_bytes()[:100]):
        index.write_bytes(junk)
        _assert_same(read_columns(store, index_min_bytes=1 << 30), read_columns(store, fast=False, index=False))
    # a store shorter than the indexed prefix
    read_columns(store, index_min_bytes=1)
    path.write_text(path.read_text()[:500])
    _assert_same(read_columns(store), read_columns(store, fast=False, index=False))


def test_prune_removes_the_index_with_the_records(tmp_path: Path):
    path = _store(tmp_path, 2, lines=120)
    store = BiasStore(path)
    read_columns(store, index_min_bytes=1)
    assert column_index.index_path(path).is_file()
    assert store.prune(older_than_days=0, now=T0 + timedelta(days=1)).removed > 0
    assert not column_index.index_path(path).exists()
    _assert_same(read_columns(store), read_columns(store, fast=False, index=False))
