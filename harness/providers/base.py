"""The provider protocol every model backend implements."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar, runtime_checkable

from harness.records.transcript import CallRecord, Completion, Message

#: The case id being evaluated, so that errors (a replay-cache miss, an endpoint failure) can
#: name it. Set by the runner around each case.
current_case: ContextVar[str] = ContextVar("current_case", default="?")

T = TypeVar("T")
_on_admitted: ContextVar[Callable[[], None] | None] = ContextVar("_on_admitted", default=None)


class SpendMeter(Protocol):
    """The run's budget as calls see it (:class:`harness.run.ledger.Budget`)."""

    def check(self) -> None:
        """Raise :class:`~harness.common.errors.BudgetReached` when no new call may start."""

    def charge(self, record: CallRecord) -> None:
        """Count one finished call."""


#: The budget every model call of the run is checked against and charged to; ``None``: no limit.
#: Checked before a call starts (:func:`with_time_limit`) and again when it leaves its provider's
#: queue (:func:`mark_admitted`); charged by whoever records the call (:func:`charge_call`).
spend_meter: ContextVar[SpendMeter | None] = ContextVar("spend_meter", default=None)


def check_budget() -> None:
    """Raise :class:`~harness.common.errors.BudgetReached` when the run's budget refuses new calls."""
    meter = spend_meter.get()
    if meter is not None:
        meter.check()


def charge_call(record: CallRecord) -> None:
    """Charge one finished call to the run's budget (when there is one)."""
    meter = spend_meter.get()
    if meter is not None:
        meter.charge(record)


def mark_admitted() -> None:
    """Called by a provider when a request leaves its queue (it holds a slot): starts the call's time limit.

    Providers that queue requests (an endpoint's slots and rate limits, an embedded model's lock)
    set ``reports_admission = True`` and call this; see :func:`with_time_limit`.
    """
    check_budget()  # a call that waited in the queue while the budget ran out does not start
    start = _on_admitted.get()
    if start is not None:
        start()


async def with_time_limit(provider: object, call: Awaitable[T], timeout: float | None) -> T:
    """Await ``call`` (a ``provider.chat(...)``) with a limit of ``timeout`` seconds.

    For a provider with ``reports_admission`` the seconds count from :func:`mark_admitted`, not from
    the start: time spent queued behind other cases' requests (or a rate-limit pause) never makes a
    call time out, so a run with more cases in flight fails no call that a slower run would pass.
    A call answered without being queued (a cache hit) has no limit to reach. Other providers get
    the limit from the start; ``timeout=None`` is no limit. Raises ``TimeoutError`` when the limit is reached.
    """
    try:
        check_budget()
    except BaseException:
        if inspect.iscoroutine(call):
            call.close()  # never started: no "coroutine was never awaited"
        raise
    if timeout is None:
        return await call
    if not getattr(provider, "reports_admission", False):
        return await asyncio.wait_for(call, timeout)
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(None) as limit:

        def start() -> None:
            if limit.when() is None:
                limit.reschedule(loop.time() + timeout)

        token = _on_admitted.set(start)
        try:
            return await call
        finally:
            _on_admitted.reset(token)


@runtime_checkable
class Provider(Protocol):
    """An async chat backend.

    ``chat`` arguments:
        model: the backend's model name.
        messages: the conversation.
        temperature, top_p: sampling parameters, always passed explicitly.
        max_tokens: generation limit.
        seed: sampling seed (deterministic where the backend supports it).
        json_schema: when given, the reply must be JSON matching this schema (grammar- or
            schema-constrained decoding where the backend supports it).
        top_logprobs: when above 0, ask for that many top alternatives per generated token
            (``Completion.token_logprobs``; backends that cannot return them leave it empty).
    """

    name: str

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
    ) -> Completion: ...

    def identity(self, model: str) -> str:
        """A stable, secret-free description of what answers for ``model`` (for cache keys)."""
        ...

    async def aclose(self) -> None: ...
