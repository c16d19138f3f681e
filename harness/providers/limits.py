"""Admission to one endpoint: requests in flight, requests and tokens per minute, and a shared pause.

Every provider instance that talks to the same endpoint (every member whose calls go to that
URL) shares one :class:`EndpointLimits`, so the limits hold for the endpoint as a whole.

Rules, in the order a request meets them:

1. **Slots**: at most ``allowed`` requests in flight (an ``asyncio.Condition``; waiters are served
   first come, first served). ``allowed`` starts at ``concurrency``; a ``429`` halves it (at least
   1) and every ``allowed`` successes in a row raise it by one again, up to ``concurrency``
   (additive increase, multiplicative decrease, as TCP does), so a run that hits an endpoint's
   limit settles just under it instead of bursting into it after every pause.
2. **Pause**: after a ``429`` every request waits until the pause is over (``Retry-After`` when the
   reply carries one, else the retry's backoff); a later, longer pause extends it, a shorter one
   never shortens it.
3. **Buckets**: ``requests_per_minute`` (cost 1 per request) and ``tokens_per_minute`` (cost: the
   estimate of :func:`estimate_tokens`, corrected by the reply's reported usage). Each is a token
   bucket refilled continuously at ``limit / 60`` per second and holding at most one second's worth
   (``max(1, limit / 60)``), so no minute ever sees more than ``limit + limit / 60``. A request
   costing more than the capacity is admitted when the bucket is full and leaves it in debt, so
   large requests are slowed, never refused.

The pause is checked again after the buckets: a 429 that arrives while a request waits for a
bucket still holds it back.

**One budget across processes** (issue 28): with ``shared_dir`` (the pytest plugin passes one per
session to every pytest-xdist worker) the two buckets are :class:`SharedTokenBucket`: their level
and time stamp live in a small JSON file per endpoint and bucket in that folder, read and written
under a ``filelock`` lock on every take and give, so every process of the session draws from the
same bucket and the endpoint sees the configured rate in total. The clock is ``time.monotonic``
(system-wide on Linux, so the processes must share one machine). Slots and the 429 pause stay per
process.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from filelock import FileLock

from harness.common.errors import ConfigError
from harness.records.transcript import Message

CHARS_PER_TOKEN = 4
#: a reply's reported usage is charged to the token bucket up to this many times the estimate
SETTLE_FACTOR = 4


def estimate_tokens(messages: Sequence[Message], max_tokens: int) -> int:
    """A request's token cost before it is sent: ``ceil(characters / 4) + max_tokens``.

    Four characters per token is the usual rule of thumb for English text with BPE tokenizers;
    counting ``max_tokens`` in full is the pessimistic side (OpenAI counts it against the limit too).
    The estimate is corrected with the reply's usage (:meth:`EndpointLimits.settle`).
    """
    chars = sum(len(m.content) for m in messages)
    return math.ceil(chars / CHARS_PER_TOKEN) + max(0, max_tokens)


class TokenBucket:
    """A token bucket holding at most one second's worth of ``per_minute``.

    Args:
        per_minute: the sustained rate (tokens, or requests, per minute); must be > 0.
        clock: seconds, monotonic (tests pass a fake one).
    """

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic) -> None:
        if not per_minute > 0:
            raise ConfigError(f"a per-minute limit must be > 0, got {per_minute}")
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self._clock = clock
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        self.level = min(self.capacity, self.level + (now - self._stamp) * self.rate)
        self._stamp = now

    def take(self, cost: float) -> float:
        """Take ``cost`` when the bucket holds ``min(cost, capacity)``; else take nothing.

        Returns 0 when taken, else the seconds until enough has been refilled.
        """
        self._refill()
        need = min(cost, self.capacity)
        if self.level >= need:
            self.level -= cost
            return 0.0
        return (need - self.level) / self.rate

    def give(self, amount: float) -> None:
        """Return ``amount`` (negative: charge more), e.g. when the real cost differs from the estimate."""
        self._refill()
        self.level = min(self.capacity, self.level + amount)


class SharedTokenBucket(TokenBucket):
    """A :class:`TokenBucket` whose state is the file ``path``, shared by every process that opens it.

    Each :meth:`take` / :meth:`give` reads the level and stamp under a file lock, applies the same rule
    as the in-process bucket, and writes them back; a missing or unreadable file is a full bucket.
    """

    def __init__(self, per_minute: float, path: Path, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(per_minute, clock)
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(str(path) + ".lock")

    def _load(self) -> None:
        try:
            state = json.loads(self.path.read_text(encoding="utf-8"))
            self.level, self._stamp = float(state["level"]), float(state["stamp"])
        except (OSError, ValueError, KeyError, TypeError):
            self.level, self._stamp = self.capacity, self._clock()

    def _save(self) -> None:
        self.path.write_text(json.dumps({"level": self.level, "stamp": self._stamp}), encoding="utf-8")

    def take(self, cost: float) -> float:
        with self._lock:
            self._load()
            wait = super().take(cost)
            self._save()
            return wait

    def give(self, amount: float) -> None:
        with self._lock:
            self._load()
            super().give(amount)
            self._save()


def _bucket(per_minute: float | None, shared: Path | None, name: str, clock: Callable[[], float]) -> TokenBucket | None:
    if not per_minute:
        return None
    return (
        SharedTokenBucket(per_minute, shared.with_name(f"{shared.name}-{name}.json"), clock)
        if shared
        else TokenBucket(per_minute, clock)
    )


class EndpointLimits:
    """The shared admission state of one endpoint.

    Args:
        endpoint: the endpoint as shown in messages (no credentials).
        concurrency: requests in flight at most.
        requests_per_minute: optional request rate limit.
        tokens_per_minute: optional token rate limit (estimated, then corrected from usage).
        clock: seconds, monotonic.
        shared_dir: where the buckets' state is shared with other processes (module docstring);
            ``None``: this process's own buckets.
    """

    def __init__(
        self,
        endpoint: str,
        concurrency: int,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        shared_dir: Path | None = None,
    ) -> None:
        if concurrency < 1:
            raise ConfigError(f"concurrency must be >= 1, got {concurrency}", endpoint)
        self.endpoint = endpoint
        self.concurrency = int(concurrency)
        shared = shared_dir / hashlib.sha256(endpoint.encode()).hexdigest()[:16] if shared_dir else None
        self.requests = _bucket(requests_per_minute, shared, "requests", clock)
        self.tokens = _bucket(tokens_per_minute, shared, "tokens", clock)
        self._clock = clock
        self._paused_until = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Condition | None = None
        self.allowed = self.concurrency
        self._successes = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.pauses = 0

    def pause(self, seconds: float) -> None:
        """A ``429``: hold every request back ``seconds`` from now (never shortening a pause); halve ``allowed``."""
        self.pauses += 1
        self.allowed = max(1, self.allowed // 2)
        self._successes = 0
        if seconds > 0:
            self._paused_until = max(self._paused_until, self._clock() + seconds)

    def succeeded(self) -> None:
        """A request answered: after ``allowed`` successes in a row, allow one more (up to ``concurrency``)."""
        if self.allowed < self.concurrency:
            self._successes += 1
            if self._successes >= self.allowed:
                self.allowed += 1
                self._successes = 0

    def paused_for(self) -> float:
        """Seconds left of the current pause (0 when none)."""
        return max(0.0, self._paused_until - self._clock())

    def settle(self, estimate: int, actual: int) -> None:
        """Correct the token bucket once the reply reports its real usage (``actual`` 0: unknown).

        At most :data:`SETTLE_FACTOR` times the estimate is charged: the estimate already counts
        ``max_tokens`` in full and a token is rarely less than a character, so a larger report is a
        broken or hostile usage block, and charging it (``prompt_tokens: 10**30``) would stall the
        endpoint for ever.
        """
        if self.tokens is not None and actual > 0:
            self.tokens.give(estimate - min(actual, SETTLE_FACTOR * max(estimate, 1)))

    def _condition(self) -> asyncio.Condition:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:  # a condition belongs to one event loop
            self._loop = loop
            self._slots = asyncio.Condition()
            self.in_flight = 0
        return self._slots

    async def _admit(self, tokens: int) -> None:
        while True:
            wait = self.paused_for()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            if self.requests is not None and (wait := self.requests.take(1)) > 0:
                await asyncio.sleep(wait)
                continue
            if self.tokens is not None and (wait := self.tokens.take(tokens)) > 0:
                if self.requests is not None:
                    self.requests.give(1)  # not sent yet: the request's share goes back
                await asyncio.sleep(wait)
                continue
            if self.paused_for() > 0:  # a 429 arrived meanwhile: give the shares back and wait
                if self.requests is not None:
                    self.requests.give(1)
                if self.tokens is not None:
                    self.tokens.give(tokens)
                continue
            return

    @asynccontextmanager
    async def slot(self, tokens: int = 0) -> AsyncIterator[None]:
        """Hold one request slot, admitted by the pause and the buckets, for the body of the ``with``."""
        slots = self._condition()
        async with slots:
            await slots.wait_for(lambda: self.in_flight < self.allowed)
            self.in_flight += 1
        try:
            await self._admit(tokens)
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            yield
        finally:
            async with slots:
                self.in_flight -= 1
                slots.notify(max(1, self.allowed - self.in_flight))
