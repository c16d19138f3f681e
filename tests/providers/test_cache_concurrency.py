"""The SQLite cache under concurrent cases: many writers in one process, identical calls made once."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from harness.providers.cache import CachedProvider, CacheStore
from harness.providers.openai_compat import OpenAICompatProvider
from harness.records.transcript import Completion, Message
from tests.fault_server import FaultServer
from tests.scripted import scripted_reply


def test_two_stores_on_one_file_take_concurrent_writers_from_threads(tmp_path: Path) -> None:
    """Two stores (two engines) on one file, 8 threads writing and reading at once: no
    ``database is locked``, nothing lost."""
    path = tmp_path / "cache.sqlite"
    stores = [CacheStore(path), CacheStore(path)]
    errors: list[BaseException] = []

    def work(t: int) -> None:
        store = stores[t % 2]
        try:
            for i in range(60):
                key = f"{t}-{i}"
                store.put(key, Completion(text=key, model="m"))
                got = store.get(key)
                assert got is not None and got.text == key
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert len(stores[0]) == len(stores[1]) == 8 * 60
    for s in stores:
        s.close()


def test_concurrent_cached_calls_hit_the_endpoint_once_per_distinct_request(tmp_path: Path) -> None:
    """120 calls at once, 40 distinct: 40 requests reach the endpoint, 80 are cache hits (or wait
    for the identical call in flight), every caller gets the reply to its own prompt, and no
    per-call lock is left behind."""
    store = CacheStore(tmp_path / "cache.sqlite")
    with FaultServer(responder=scripted_reply, delay=0.02) as server:
        inner = OpenAICompatProvider(server.base_url, api_key_env=None, concurrency=16, max_retries=0)
        cached = CachedProvider(inner, store, "readwrite")

        async def one(i: int) -> tuple[int, str]:
            messages = [Message(role="user", content=f"Question number {i % 40}")]
            reply = await cached.chat("m", messages, temperature=0.0, max_tokens=8, seed=0)
            return i, reply.text

        async def go() -> list[tuple[int, str]]:
            try:
                return await asyncio.gather(*(one(i) for i in range(120)))
            finally:
                await cached.aclose()

        replies = asyncio.run(go())
        received = len(server.requests)
    assert received == 40 and (cached.misses, cached.hits) == (40, 80)
    assert all(text.startswith(f"Question number {i % 40} [") for i, text in replies)
    assert len({text for _, text in replies}) == 40
    assert cached._inflight == {}  # noqa: SLF001 - the leak this guards against is internal
    assert len(store) == 40
    store.close()
