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
session to every pytest-xdist worker: the run folder's ``limits/``) every rule above holds for the
endpoint as a whole, whatever the number of processes, through files in that folder
(:mod:`harness.common.shared_state`; names start with a hash of the endpoint URL):

* **Slots**: ``concurrency`` lock files ``<hash>-slot-<i>.lock``. A request holds one (an ``flock``)
  from admission to the end of its reply; a request may take only a slot numbered below ``allowed``.
  Within a process the ``asyncio.Condition`` still queues requests first (at most ``concurrency`` of
  them then try the files); a request that finds every slot held tries again after an
  ``asyncio.sleep`` of :data:`SLOT_POLL_MIN` s, doubling up to :data:`SLOT_POLL_MAX` s, so the event
  loop never blocks on a lock.
* **Pause and allowed**: ``<hash>-endpoint.json`` holds ``paused_until`` (a ``time.monotonic``
  instant), ``allowed`` and the successes in a row; a ``429`` in any process writes them (under a
  lock, the file replaced atomically) and every process reads them before each request.
* **Buckets**: :class:`SharedTokenBucket`, their level and time stamp in ``<hash>-requests.json`` and
  ``<hash>-tokens.json``, read and written under the lock on every take and give.

The clock is ``time.monotonic`` (system-wide on Linux, so the processes must share one machine).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from harness.common.errors import ConfigError
from harness.common.shared_state import SharedSlots, SharedState
from harness.records.transcript import Message

CHARS_PER_TOKEN = 4
#: a reply's reported usage is charged to the token bucket up to this many times the estimate
SETTLE_FACTOR = 4
#: seconds between two tries for a slot held by another process (doubling up to SLOT_POLL_MAX)
SLOT_POLL_MIN = 0.005
SLOT_POLL_MAX = 0.05


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

    Each :meth:`take` / :meth:`give` reads the level and stamp under the file's lock
    (:meth:`SharedState.update`), applies the same rule as the in-process bucket, and writes them back;
    a missing or unreadable file is a full bucket.
    """

    def __init__(self, per_minute: float, path: Path, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(per_minute, clock)
        self.path = path
        self._state = SharedState(path)

    def take(self, cost: float) -> float:
        with self._state.update() as state:
            self._load(state)
            wait = super().take(cost)
            state.update(level=self.level, stamp=self._stamp)
            return wait

    def give(self, amount: float) -> None:
        with self._state.update() as state:
            self._load(state)
            super().give(amount)
            state.update(level=self.level, stamp=self._stamp)

    def _load(self, state: dict[str, float]) -> None:
        if "level" in state and "stamp" in state:
            self.level, self._stamp = state["level"], state["stamp"]
        else:
            self.level, self._stamp = self.capacity, self._clock()


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
        shared_dir: where the slots, the pause and the buckets are shared with other processes
            (module docstring); ``None``: this process's own.
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
        self._shared = SharedState(shared.with_name(f"{shared.name}-endpoint.json")) if shared else None
        self._files = SharedSlots(shared, self.concurrency) if shared else None
        self._clock = clock
        self._paused_until = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Condition | None = None
        self._allowed = self.concurrency
        self._successes = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.pauses = 0

    @property
    def allowed(self) -> int:
        """Requests allowed in flight now (``concurrency``, halved by each ``429``; rule 1)."""
        if self._shared is not None:
            return int(self._shared.read().get("allowed", self.concurrency))
        return self._allowed

    def pause(self, seconds: float) -> None:
        """A ``429``: hold every request back ``seconds`` from now (never shortening a pause); halve ``allowed``."""
        self.pauses += 1
        if self._shared is not None:
            with self._shared.update() as state:
                state["allowed"] = max(1, int(state.get("allowed", self.concurrency)) // 2)
                state["successes"] = 0
                if seconds > 0:
                    state["paused_until"] = max(state.get("paused_until", 0.0), self._clock() + seconds)
            return
        self._allowed = max(1, self._allowed // 2)
        self._successes = 0
        if seconds > 0:
            self._paused_until = max(self._paused_until, self._clock() + seconds)

    def succeeded(self) -> None:
        """A request answered: after ``allowed`` successes in a row, allow one more (up to ``concurrency``)."""
        if self._shared is not None:
            if self.allowed >= self.concurrency:
                return
            with self._shared.update() as state:
                allowed = int(state.get("allowed", self.concurrency))
                if allowed < self.concurrency:
                    state["successes"] = state.get("successes", 0.0) + 1
                    if state["successes"] >= allowed:
                        state["allowed"], state["successes"] = allowed + 1, 0
            return
        if self._allowed < self.concurrency:
            self._successes += 1
            if self._successes >= self._allowed:
                self._allowed += 1
                self._successes = 0

    def paused_for(self) -> float:
        """Seconds left of the current pause (0 when none)."""
        until = self._shared.read().get("paused_until", 0.0) if self._shared is not None else self._paused_until
        return max(0.0, until - self._clock())

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

    async def _file_slot(self, files: SharedSlots) -> int:
        """One of the session's slots (module docstring), polled with ``asyncio.sleep`` between tries."""
        delay = SLOT_POLL_MIN
        while (got := files.take(self.allowed)) is None:
            await asyncio.sleep(delay)
            delay = min(2 * delay, SLOT_POLL_MAX)
        return got

    @asynccontextmanager
    async def slot(self, tokens: int = 0) -> AsyncIterator[None]:
        """Hold one request slot, admitted by the pause and the buckets, for the body of the ``with``."""
        slots = self._condition()
        local = self.concurrency if self._files is not None else None  # shared: the files bound ``allowed``
        async with slots:
            await slots.wait_for(lambda: self.in_flight < (local or self._allowed))
            self.in_flight += 1
        held: int | None = None
        try:
            if self._files is not None:
                held = await self._file_slot(self._files)
            await self._admit(tokens)
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            yield
        finally:
            if held is not None and self._files is not None:
                self._files.give(held)
            async with slots:
                self.in_flight -= 1
                slots.notify(max(1, (local or self._allowed) - self.in_flight))
