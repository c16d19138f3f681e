"""Bias records: schema, consent, HMAC query hash, JSONL store (locking, corruption, windows, pruning), settings."""

from __future__ import annotations

import hashlib
import hmac
import json
import multiprocessing
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from filelock import FileLock
from pydantic import SecretStr, ValidationError

from harness.bias.aggregate import read_table
from harness.bias.columns import read_columns
from harness.bias.store import (
    BiasMetricRecord,
    BiasStore,
    ConsentLevel,
    QueryMetadata,
    persist_transcript,
    records_from_transcript,
    select_window,
    token_count_bucket,
)
from harness.common.errors import ConfigError, StoreError
from harness.config import Settings, load_settings
from harness.records.transcript import Ballot, Review, Transcript
from tests.builders import transcript

T0 = datetime(2025, 12, 17, 10, 30, tzinfo=UTC)
QUERY = (
    "Explain in detail why the sky is blue, covering Rayleigh scattering, wavelengths and the role "
    "of the atmosphere at sunset."
)


def _transcript(query: str = QUERY) -> Transcript:
    labels = {"Response A": "m1", "Response B": "m2", "Response C": "m3"}
    texts = {"m1": "a" * 12, "m2": "b" * 30, "m3": "c" * 7}

    def review(reviewer: str, order: str, ranking: str) -> Review:
        return Review(
            reviewer=reviewer,
            model="smollm2-135m",
            raw_text="",
            ballot=Ballot(ranking=tuple(f"Response {c}" for c in ranking), method="final_ranking"),
            presentation_order=tuple(f"Response {c}" for c in order),
            shuffle_seed=0,
        )

    return transcript(
        "x",
        query=query,
        texts=texts,
        model="smollm2-135m",
        label_to_member=labels,
        reviews=(review("m1", "BCA", "BC"), review("m2", "ACB", "CA"), review("m3", "ABC", "AB")),
    )


def _record(session: str = "s1", when: datetime = T0, score: float = 5.0, **kw) -> BiasMetricRecord:
    fields = dict(
        session_id=session,
        timestamp=when,
        consent_level=ConsentLevel.LOCAL_ONLY,
        reviewer_id="r1",
        model_id="m1",
        position=1,
        response_length_chars=100,
        score_value=score,
        council_config_version="0.1.0",
    )
    fields.update(kw)
    return BiasMetricRecord(**fields)


# --- records from transcripts --------------------------------------------------------------------


def test_records_follow_schema_v1_1_one_per_pair():
    meta = QueryMetadata.for_query(QUERY, category="science", language="en")
    recs = records_from_transcript(_transcript(), "sess-1", ConsentLevel.LOCAL_ONLY, None, meta, "0.1.0+abc", T0)
    got = sorted((r.reviewer_id, r.model_id, r.position, r.response_length_chars, r.score_value) for r in recs)
    # m1 saw B,C,A and ranked B>C -> B 10 (pos 1), C 1 (pos 2); m2 saw A,C,B ranked C>A -> C 10 (pos 2), A 1 (pos 1)
    # m3 saw A,B,C ranked A>B -> A 10 (pos 1), B 1 (pos 2)
    assert got == [
        ("m1", "m2", 1, 30, 10.0),
        ("m1", "m3", 2, 7, 1.0),
        ("m2", "m1", 1, 12, 1.0),
        ("m2", "m3", 2, 7, 10.0),
        ("m3", "m1", 1, 12, 10.0),
        ("m3", "m2", 2, 30, 1.0),
    ]
    line = json.loads(recs[0].model_dump_json())
    assert list(line) == [
        "schema_version",
        "session_id",
        "timestamp",
        "consent_level",
        "query_metadata",
        "reviewer_id",
        "model_id",
        "position",
        "response_length_chars",
        "score_value",
        "score_scale",
        "council_config_version",
        "query_hash",
    ]
    assert line["schema_version"] == "1.1.0"
    assert line["timestamp"] == "2025-12-17T10:30:00Z"
    assert line["consent_level"] == 1
    assert line["query_metadata"] == {"category": "science", "token_count_bucket": "0-100", "language": "en"}
    assert line["score_scale"] == "1-10"
    assert line["query_hash"] is None
    assert line["council_config_version"] == "0.1.0+abc"


def test_token_count_buckets():
    assert [token_count_bucket(n) for n in (0, 99, 100, 499, 500, 999, 1000, 50_000)] == [
        "0-100",
        "0-100",
        "100-500",
        "100-500",
        "500-1000",
        "500-1000",
        "1000+",
        "1000+",
    ]


@pytest.mark.parametrize("level", [1, 2, 3])
def test_no_query_hash_below_research(level):
    recs = records_from_transcript(_transcript(), "s", level, "secret", timestamp=T0)
    assert recs and all(r.query_hash is None for r in recs)
    assert all(r.consent_level == level for r in recs)


def test_query_hash_only_at_research_is_hmac_of_first_100_chars():
    recs = records_from_transcript(_transcript(), "s", ConsentLevel.RESEARCH, "s3cret", timestamp=T0)
    expected = hmac.new(b"s3cret", QUERY[:100].encode(), hashlib.sha256).hexdigest()[:16]
    assert {r.query_hash for r in recs} == {expected}
    # same first 100 characters -> same hash; a SecretStr works the same
    longer = records_from_transcript(
        _transcript(QUERY[:100] + " something else"), "s", 4, SecretStr("s3cret"), timestamp=T0
    )
    assert {r.query_hash for r in longer} == {expected}
    other = records_from_transcript(_transcript(), "s", 4, "another-secret", timestamp=T0)
    assert {r.query_hash for r in other} != {expected}
    dumped = "".join(r.model_dump_json() for r in recs)
    assert "sky" not in dumped and QUERY[:20] not in dumped


@pytest.mark.parametrize("secret", [None, ""])
def test_research_without_secret_is_a_config_error(secret):
    with pytest.raises(ConfigError, match="LLM_COUNCIL_HASH_SECRET"):
        records_from_transcript(_transcript(), "s", ConsentLevel.RESEARCH, secret)


def test_invalid_consent_is_a_config_error():
    with pytest.raises(ConfigError, match="consent level 0-4"):
        records_from_transcript(_transcript(), "s", 5, None)


def test_consent_off_gives_nothing_and_writes_nothing(tmp_path):
    assert records_from_transcript(_transcript(), "s", ConsentLevel.OFF, None) == []
    store = tmp_path / "bias.jsonl"
    settings = Settings(bias_persistence=True, bias_consent=0, bias_store=store)
    assert persist_transcript(_transcript(), settings, "s1") == 0
    assert not store.exists()
    off = Settings(bias_persistence=False, bias_consent=4, bias_store=store)
    assert persist_transcript(_transcript(), off, "s1") == 0
    assert not store.exists()


def test_persist_transcript_appends_with_settings(tmp_path):
    store = tmp_path / "sub" / "bias.jsonl"
    settings = Settings(bias_persistence=True, bias_consent=4, hash_secret="k", bias_store=store)
    assert persist_transcript(_transcript(), settings, "s1", timestamp=T0) == 6
    read = BiasStore(store).read()
    assert len(read.records) == 6 and read.corrupt_lines == 0
    assert {r.query_hash for r in read.records} == {hmac.new(b"k", QUERY[:100].encode(), "sha256").hexdigest()[:16]}
    assert all(r.council_config_version.startswith("0.1.0+") for r in read.records)


def test_record_validation_rejects_bad_values():
    with pytest.raises(ValidationError):
        _record(query_hash="0123456789abcdef")  # a hash below RESEARCH consent
    with pytest.raises(ValidationError):
        _record(score=11.0)
    with pytest.raises(ValidationError):
        _record(position=0)
    with pytest.raises(ValidationError):
        _record(consent_level=0)
    with pytest.raises(ValidationError):
        _record(when=datetime(2025, 1, 1))  # naive timestamp
    plus_two = datetime(2025, 1, 1, 12, tzinfo=timezone(timedelta(hours=2)))
    assert _record(when=plus_two).timestamp == datetime(2025, 1, 1, 10, tzinfo=UTC)


# --- the JSONL store ---------------------------------------------------------------------------


def test_append_and_read_round_trip(tmp_path):
    store = BiasStore(tmp_path / "b.jsonl")
    recs = [_record(f"s{i}", T0 + timedelta(minutes=i), score=1 + i) for i in range(3)]
    assert store.append(recs) == 3
    assert store.append([]) == 0
    read = store.read()
    assert read.records == tuple(recs)
    assert read.corrupt_lines == 0 and read.total_records == 3
    assert (tmp_path / "b.jsonl").read_text().count("\n") == 3


def test_missing_store_is_a_store_error(tmp_path):
    with pytest.raises(StoreError, match="bias store not found"):
        BiasStore(tmp_path / "none.jsonl").read()


def test_corrupt_lines_are_counted_not_fatal(tmp_path):
    path = tmp_path / "b.jsonl"
    good = [_record(f"s{i}", T0, score=2 + i) for i in range(4)]
    lines = [
        good[0].model_dump_json(),
        "{not json",  # line 2
        good[1].model_dump_json(),
        "",  # blank: ignored, not counted
        json.dumps({"schema_version": "1.1.0"}),  # line 5: valid JSON, missing fields
        "[1, 2, 3]",  # line 6: not an object
        good[2].model_dump_json(),
        good[3].model_dump_json()[:40],  # line 8: truncated by a crash, no newline
    ]
    path.write_text("\n".join(lines))
    read = BiasStore(path).read()
    assert read.records == tuple(good[:3])
    assert read.corrupt_lines == 4
    assert read.corrupt_examples == (2, 5, 6, 8)
    # each skipped line says why, in one line
    assert [r.split(":", 1)[0] for r in read.reasons] == ["line 2", "line 5", "line 6", "line 8"]
    assert all("\n" not in r for r in read.reasons)
    assert "session_id: Field required" in read.reasons[1]
    assert read.reasons[2] == "line 6: expected a JSON object, got list"
    # the batch (columns) reader skips the same lines and keeps the same records
    columns = read_table(BiasStore(path))
    assert (columns.corrupt_lines, columns.corrupt_examples) == (4, (2, 5, 6, 8))
    assert [r.split(":", 1)[0] for r in columns.reasons] == ["line 2", "line 5", "line 6", "line 8"]
    assert columns.reasons[0].startswith("line 2: not a JSON object on one line")
    assert columns.reasons[1] == "line 5: not a bias record: Object missing required field `session_id`"
    assert columns.reasons[2] == "line 6: not a bias record: Expected `object`, got `array`"
    assert columns.table.score.tolist() == [r.score_value for r in good[:3]]
    # read in batches of a few lines (line numbers carried across batches): the same result
    small = read_columns(BiasStore(path), chunk_bytes=300)
    assert (small.corrupt_examples, small.reasons) == (columns.corrupt_examples, columns.reasons)
    assert small.table.score.tolist() == columns.table.score.tolist()
    assert small.table.session_ids == columns.table.session_ids


def test_batched_read_of_a_larger_store_matches_one_batch(tmp_path):
    store = BiasStore(tmp_path / "b.jsonl")
    store.append([_record(f"s{i // 3}", T0 + timedelta(minutes=i), score=1 + i % 9) for i in range(60)])
    with open(store.path, "a") as fh:
        fh.write("{oops\n")
    store.append([_record("late", T0, score=4.0)])
    whole = read_columns(store)
    for chunk in (64, 500, 1337):
        part = read_columns(store, chunk_bytes=chunk)
        assert part.reasons == whole.reasons and part.corrupt_examples == (61,)
        for name in ("session", "reviewer", "model", "position", "length", "score", "time"):
            assert getattr(part.table, name).tolist() == getattr(whole.table, name).tolist()
        assert part.table.session_ids == whole.table.session_ids


def test_append_after_truncated_line_starts_a_new_line(tmp_path):
    path = tmp_path / "b.jsonl"
    first = _record("s1")
    path.write_text(first.model_dump_json() + "\n" + first.model_dump_json()[:30])
    store = BiasStore(path)
    store.append([_record("s2")])
    read = store.read()
    assert [r.session_id for r in read.records] == ["s1", "s2"]
    assert read.corrupt_lines == 1 and read.corrupt_examples == (2,)


def test_windows_by_sessions_and_days():
    now = T0 + timedelta(days=40)
    recs = []
    for i in range(6):  # sessions s0..s5, one every 10 days, two records each, file order shuffled below
        when = T0 + timedelta(days=10 * i)
        recs += [_record(f"s{i}", when), _record(f"s{i}", when, reviewer_id="r2")]
    recs = recs[6:] + recs[:6]
    sessions = lambda rs: sorted({r.session_id for r in rs})  # noqa: E731
    assert sessions(select_window(recs, window_sessions=2)) == ["s4", "s5"]
    assert len(select_window(recs, window_sessions=2)) == 4
    # now = day 40: 15 days back -> days 25..  -> s3 (30), s4 (40), s5 (50, in the future, kept)
    assert sessions(select_window(recs, window_days=15, now=now)) == ["s3", "s4", "s5"]
    assert sessions(select_window(recs, window_sessions=1, window_days=15, now=now)) == ["s5"]
    assert len(select_window(recs)) == 12
    assert len(select_window(recs, window_sessions=0, window_days=0)) == 12


def test_read_applies_windows(tmp_path):
    store = BiasStore(tmp_path / "b.jsonl")
    store.append([_record(f"s{i}", T0 + timedelta(days=i)) for i in range(10)])
    read = store.read(window_sessions=3)
    assert [r.session_id for r in read.records] == ["s7", "s8", "s9"]
    assert read.total_records == 10
    read = store.read(window_days=2, now=T0 + timedelta(days=9))
    assert [r.session_id for r in read.records] == ["s7", "s8", "s9"]


def test_prune_rewrites_atomically_keeping_newer_and_corrupt_lines(tmp_path):
    path = tmp_path / "b.jsonl"
    store = BiasStore(path)
    store.append([_record(f"s{i}", T0 + timedelta(days=i)) for i in range(5)])
    with open(path, "a") as fh:
        fh.write("garbage line\n")
    result = store.prune(older_than_days=2, now=T0 + timedelta(days=4))
    assert (result.kept, result.removed, result.corrupt_kept) == (3, 2, 1)
    read = store.read()
    assert [r.session_id for r in read.records] == ["s2", "s3", "s4"]
    assert read.corrupt_lines == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    assert BiasStore(tmp_path / "none.jsonl").prune(1).removed == 0


def test_append_waits_for_the_lock(tmp_path):
    path = tmp_path / "b.jsonl"
    with FileLock(str(path) + ".lock"):
        with pytest.raises(StoreError, match="could not lock"):
            BiasStore(path, lock_timeout=0.2).append([_record()])
    assert not path.exists()
    BiasStore(path, lock_timeout=0.2).append([_record()])
    assert len(BiasStore(path).read().records) == 1


def _writer(path: str, worker: int, count: int, batch: int) -> None:
    store = BiasStore(path)
    for start in range(0, count, batch):
        store.append(
            [
                _record(f"w{worker}-{i}", T0, score=1 + (i % 10), reviewer_id=f"reviewer-{worker}" + "x" * 200)
                for i in range(start, start + batch)
            ]
        )


def test_four_concurrent_writer_processes_leave_whole_lines(tmp_path):
    path = tmp_path / "bias.jsonl"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(path), w, 1000, 10)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    raw = path.read_text().split("\n")
    assert raw[-1] == "" and len(raw) == 4001
    read = BiasStore(path).read()
    assert read.corrupt_lines == 0
    assert len(read.records) == 4000
    for w in range(4):
        ids = {r.session_id for r in read.records if r.session_id.startswith(f"w{w}-")}
        assert ids == {f"w{w}-{i}" for i in range(1000)}


# --- settings ----------------------------------------------------------------------------------


def test_settings_read_the_seed_environment_names(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LLM_COUNCIL_BIAS_PERSISTENCE", "true")
    monkeypatch.setenv("LLM_COUNCIL_BIAS_STORE", "~/somewhere/bias.jsonl")
    monkeypatch.setenv("LLM_COUNCIL_BIAS_CONSENT", "4")
    monkeypatch.setenv("LLM_COUNCIL_HASH_SECRET", "do-not-print-me")
    monkeypatch.setenv("LLM_COUNCIL_BIAS_WINDOW_SESSIONS", "50")
    monkeypatch.setenv("LLM_COUNCIL_BIAS_WINDOW_DAYS", "7")
    monkeypatch.setenv("LLM_COUNCIL_MIN_BIAS_SESSIONS", "30")
    s = load_settings()
    assert s.bias_persistence is True
    assert s.bias_store == Path("~/somewhere/bias.jsonl").expanduser()
    assert (s.bias_consent, s.bias_window_sessions, s.bias_window_days, s.min_bias_sessions) == (4, 50, 7, 30)
    assert s.hash_secret is not None and s.hash_secret.get_secret_value() == "do-not-print-me"
    public = s.public_dict()
    assert public["hash_secret"] == "**********"
    assert "do-not-print-me" not in json.dumps(public)
    assert "do-not-print-me" not in repr(s)


def test_settings_defaults_and_bad_consent(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    s = load_settings()
    assert s.bias_persistence is False
    assert s.bias_store == Path.home() / ".llm-council" / "bias_metrics.jsonl"
    assert (s.bias_consent, s.bias_window_sessions, s.bias_window_days, s.min_bias_sessions) == (1, 100, 30, 20)
    assert s.hash_secret is None and s.public_dict()["hash_secret"] is None
    monkeypatch.setenv("LLM_COUNCIL_BIAS_CONSENT", "5")
    with pytest.raises(ConfigError, match="LLM_COUNCIL_BIAS_CONSENT"):
        load_settings()
