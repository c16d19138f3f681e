"""Record/replay cache around any provider, stored in SQLite.

Keys are a SHA-256 of the provider identity, model, messages and sampling parameters; API keys
and headers are never part of a key or a stored row. Modes: ``off`` (pass through),
``readwrite`` (serve hits, record misses), ``replay`` (serve hits, a miss is an error naming the
case and model). A stored row that is not a completion is re-fetched and overwritten in
``readwrite`` mode and an error in ``replay`` mode; a database locked by another process for longer
than the busy timeout is reported as locked (it is not damaged, so deleting it is not advised).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

from pydantic import BaseModel

from harness.common.errors import CacheMiss, StoreError
from harness.providers.base import Provider, current_case
from harness.providers.probe import Probe, ProbeReply
from harness.records.transcript import Completion, Message

R = TypeVar("R", bound=BaseModel)

CacheMode = Literal["off", "readwrite", "replay"]
BUSY_TIMEOUT_S = 30.0
log = logging.getLogger(__name__)


class CorruptRow(StoreError):
    """A stored row that is not a completion (another writer or a disk error left it)."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    completion TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now'))
)
"""


class CacheStore:
    """The SQLite file behind the cache; safe across threads and processes.

    One connection per store, used under a lock (many concurrent cases in one process take turns
    in microseconds); other processes (pytest-xdist workers, a second run) are serialized by SQLite
    itself: WAL journal, a 30 s busy timeout, and ``BEGIN IMMEDIATE`` for writes so that a writer
    waits for the lock up front instead of failing with ``database is locked`` when it upgrades a
    read transaction. ``synchronous=NORMAL`` (safe with WAL: a crash loses at most the last replies,
    which are recomputed, never corrupts the file).

    Args:
        path: the database file (its folder is created).
        busy_timeout: seconds to wait for another process's lock before giving up.
    """

    def __init__(self, path: Path, busy_timeout: float = BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the cache folder {self.path.parent} ({exc.strerror or exc}); point "
                "LLM_COUNCIL_CACHE_PATH (cache_path) at a writable place",
                str(self.path),
            ) from None
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, timeout=busy_timeout, check_same_thread=False, isolation_level=None)
            self._db.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            if _is_locked(exc):
                raise self._locked() from None
            raise StoreError(
                f"the cache database cannot be opened ({exc}); delete it or point "
                "LLM_COUNCIL_CACHE_PATH elsewhere (a cache holds nothing that cannot be recomputed)",
                str(self.path),
            ) from None

    def _locked(self) -> StoreError:
        return StoreError(
            f"the cache database is locked by another process (waited {self.busy_timeout:g} s); let that "
            "process finish, or point LLM_COUNCIL_CACHE_PATH at another file for this run (the cache is not "
            "damaged: do not delete it)",
            str(self.path),
        )

    def _failure(self, exc: sqlite3.DatabaseError, what: str) -> StoreError:
        return self._locked() if _is_locked(exc) else StoreError(f"the cache database {what} ({exc})", str(self.path))

    @overload
    def get(self, key: str) -> Completion | None: ...

    @overload
    def get(self, key: str, cls: type[R]) -> R | None: ...

    def get(self, key: str, cls: type[BaseModel] = Completion) -> BaseModel | None:
        """The stored reply under ``key`` (a :class:`Completion`, or ``cls``), ``None`` when absent."""
        with self._lock:
            try:
                row = self._db.execute("SELECT completion FROM completions WHERE key = ?", (key,)).fetchone()
            except sqlite3.DatabaseError as exc:
                raise self._failure(exc, "is unreadable") from None
        if not row:
            return None
        try:
            return cls.model_validate_json(row[0])
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise CorruptRow(
                f"the cached reply {key[:12]}... is corrupt ({str(exc).splitlines()[0]}); run with "
                "--cache-mode readwrite to re-fetch and overwrite it",
                str(self.path),
            ) from None

    def put(self, key: str, completion: Completion | ProbeReply) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.execute(
                        "INSERT OR REPLACE INTO completions (key, model, completion) VALUES (?, ?, ?)",
                        (key, completion.model, completion.model_dump_json()),
                    )
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                raise self._failure(exc, "cannot be written") from None

    def __len__(self) -> int:
        with self._lock:
            try:
                return self._db.execute("SELECT COUNT(*) FROM completions").fetchone()[0]
            except sqlite3.DatabaseError as exc:
                raise self._failure(exc, "is unreadable") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _is_locked(exc: sqlite3.DatabaseError) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)


def cache_key(
    identity: str,
    model: str,
    messages: Sequence[Message],
    params: dict[str, Any],
) -> str:
    """A stable hash of everything that determines a reply (never a secret)."""
    payload = {
        "identity": identity,
        "model": model,
        "messages": [m.model_dump() for m in messages],
        "params": params,
    }
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class CachedProvider:
    """Wrap ``inner`` with a record/replay cache.

    Args:
        inner: the provider that really answers.
        store: the SQLite store.
        mode: ``off``, ``readwrite`` or ``replay``.
    """

    def __init__(self, inner: Provider, store: CacheStore, mode: CacheMode) -> None:
        self.inner = inner
        self.store = store
        self.mode = mode
        self.name = inner.name
        self.reports_admission = getattr(inner, "reports_admission", False)
        self.hits = 0
        self.misses = 0
        self._inflight: dict[str, tuple[asyncio.Lock, int]] = {}  # key -> (lock, callers holding or awaiting it)

    def identity(self, model: str) -> str:
        return self.inner.identity(model)

    async def chat(
        self,
        model: str,
        messages: Sequence[Message],
        *,
        temperature: float,
        max_tokens: int,
        seed: int,
        top_p: float = 1.0,
        json_schema: dict[str, Any] | None = None,
        top_logprobs: int = 0,
    ) -> Completion:
        kwargs: dict[str, Any] = dict(
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            top_p=top_p,
            json_schema=json_schema,
        )
        if top_logprobs:  # only then part of the key: keys recorded before it existed stay valid
            kwargs["top_logprobs"] = top_logprobs
        if self.mode == "off":
            return await self.inner.chat(model, messages, **kwargs)
        key = cache_key(self.inner.identity(model), model, messages, kwargs)
        return await self._through(key, Completion, "reply", model, lambda: self.inner.chat(model, messages, **kwargs))

    async def _through(self, key: str, cls: type[R], what: str, model: str, fetch: Callable[[], Awaitable[R]]) -> R:
        """The reply recorded under ``key`` (marked ``cached``); on a miss, ``fetch()`` recorded, or in
        replay mode a :class:`CacheMiss` naming the model and the case. A corrupt row is re-fetched and
        overwritten (replay: the :class:`CorruptRow` error). Identical concurrent calls fetch once."""
        async with self._once(key):
            try:
                hit = await asyncio.to_thread(self.store.get, key, cls)
            except CorruptRow as exc:
                if self.mode == "replay":
                    raise
                log.warning("%s; re-fetching it", exc)
                hit = None  # readwrite: fetched again below, and the row is overwritten
            if hit is not None:
                self.hits += 1
                return hit.model_copy(update={"cached": True})
            if self.mode == "replay":
                raise CacheMiss(
                    f"replay mode: no cached {what} for model '{model}' in case "
                    f"'{current_case.get()}'; run once with --cache-mode readwrite to record it",
                    "cache",
                )
            self.misses += 1
            reply = await fetch()
            await asyncio.to_thread(self.store.put, key, reply)  # type: ignore[arg-type]
            return reply

    @asynccontextmanager
    async def _once(self, key: str) -> AsyncIterator[None]:
        """Identical concurrent calls are made once: callers of one key take turns on one lock, and the
        lock is dropped when its last caller is done (a long run keeps no lock per call made)."""
        lock, users = self._inflight.get(key, (asyncio.Lock(), 0))
        self._inflight[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._inflight[key]
            if users == 1:
                del self._inflight[key]
            else:
                self._inflight[key] = (lock, users - 1)

    async def probe(
        self,
        model: str,
        messages: Sequence[Message],
        probes: Sequence[Probe],
        *,
        seed: int,
        lead: str = "",
        max_tokens: int = 0,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
    ) -> ProbeReply:
        """The inner provider's :meth:`probe`, recorded and replayed like :meth:`chat`.

        The key holds ``kind: probe``, every probe's text and options and the generation
        parameters, so it differs from any chat key and changes whenever the request does.
        """
        kwargs: dict[str, Any] = dict(
            seed=seed,
            lead=lead,
            max_tokens=max_tokens,
            temperature=temperature,
            top_p=top_p,
        )
        if stop:  # in the key only when given: probes without a free text keep their keys
            kwargs["stop"] = list(stop)
        inner_probe = getattr(self.inner, "probe")  # noqa: B009 - callers check support first
        if self.mode == "off":
            return await inner_probe(model, messages, probes, **kwargs)
        params = {**kwargs, "kind": "probe", "probes": [p.model_dump() for p in probes]}
        key = cache_key(self.inner.identity(model), model, messages, params)
        return await self._through(
            key, ProbeReply, "probe reply", model, lambda: inner_probe(model, messages, probes, **kwargs)
        )

    def supports_probe(self) -> bool:
        return supports_probe(self.inner)

    async def aclose(self) -> None:
        await self.inner.aclose()


def supports_probe(provider: Any) -> bool:
    """Whether ``provider`` (or the provider a cache wraps) can return option probabilities."""
    check = getattr(provider, "supports_probe", None)
    if callable(check):
        return bool(check())
    return callable(getattr(provider, "probe", None))
