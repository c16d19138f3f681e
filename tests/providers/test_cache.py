"""The SQLite record/replay cache around a real embedded model."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.common.errors import CacheMiss, StoreError
from harness.providers.base import current_case
from harness.providers.cache import CachedProvider, CacheStore, cache_key
from harness.providers.local import LocalProvider
from harness.records.transcript import Message

Q = [Message(role="user", content="Name one primary color.")]


@pytest.fixture(scope="module")
def local() -> LocalProvider:
    return LocalProvider()


@pytest.mark.slow
def test_record_then_replay(tmp_path: Path, local: LocalProvider) -> None:
    store = CacheStore(tmp_path / "c.sqlite")
    rw = CachedProvider(local, store, "readwrite")

    async def go() -> tuple:
        first = await rw.chat("smollm2-135m", Q, temperature=0.0, max_tokens=6, seed=1)
        again = await rw.chat("smollm2-135m", Q, temperature=0.0, max_tokens=6, seed=1)
        return first, again

    first, again = asyncio.run(go())
    assert not first.cached and again.cached
    assert again.text == first.text and again.tokens_out == first.tokens_out
    assert (rw.hits, rw.misses, len(store)) == (1, 1, 1)

    replay = CachedProvider(local, CacheStore(tmp_path / "c.sqlite"), "replay")
    got = asyncio.run(replay.chat("smollm2-135m", Q, temperature=0.0, max_tokens=6, seed=1))
    assert got.text == first.text and got.cached


@pytest.mark.slow
def test_replay_miss_names_case_and_model(tmp_path: Path, local: LocalProvider) -> None:
    replay = CachedProvider(local, CacheStore(tmp_path / "c.sqlite"), "replay")

    async def go() -> None:
        token = current_case.set("facts::capital-001")
        try:
            await replay.chat("smollm2-135m", Q, temperature=0.0, max_tokens=6, seed=99)
        finally:
            current_case.reset(token)

    with pytest.raises(CacheMiss) as err:
        asyncio.run(go())
    assert "facts::capital-001" in str(err.value) and "smollm2-135m" in str(err.value)


def test_key_depends_on_every_sampling_parameter() -> None:
    base = {"temperature": 0.2, "max_tokens": 8, "seed": 1, "top_p": 1.0, "json_schema": None}
    k = cache_key("local:x", "m", Q, base)
    assert k == cache_key("local:x", "m", Q, dict(base))
    for change in ({"temperature": 0.3}, {"seed": 2}, {"max_tokens": 9}, {"json_schema": {"type": "object"}}):
        assert cache_key("local:x", "m", Q, {**base, **change}) != k
    assert cache_key("local:y", "m", Q, base) != k


def test_corrupt_cache_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "c.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError) as err:
        CacheStore(bad)
    assert str(bad) in str(err.value) and "cannot be opened" in str(err.value)
