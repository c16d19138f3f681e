"""Case-level concurrency for pytest: the session's pairs run ahead in a background event loop.

pytest runs items one at a time; :class:`BackgroundCases` starts every collected (case, subject)
pair at the start of the run loop, in one event loop on a background thread, with the same window
as the CLI (:func:`harness.run.orchestrate.finished_batches`), and each item then waits for its own
result. Results are appended to the run folder as they finish (so a killed session keeps them and
the report holds every finished pair), in completion order; readers order them.

Budget: every call is checked against and charged to the session's
:class:`~harness.run.ledger.Budget` (``token_limit`` / ``cost_limit``; under pytest-xdist summed over
the workers through a file in the shared limits folder, :data:`SPEND_FILE`), as in
:func:`harness.run.orchestrate.run_cases`: once it is reached no new pair or call starts, and every pair
it stopped (refused mid-way, or never started) ends in :class:`~harness.common.errors.BudgetReached`
for the item waiting on it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Sequence
from contextlib import aclosing
from pathlib import Path

from harness.common.errors import BudgetReached
from harness.config import Settings
from harness.data.cases import Case
from harness.providers.base import spend_meter
from harness.records.transcript import CallRecord
from harness.run.engine import Engine
from harness.run.ledger import Budget
from harness.run.orchestrate import Pair, case_window, finished_batches, open_engine
from harness.run.result import CaseResult
from harness.run.runs import RunWriter

Key = tuple[str, str, str]

#: the file in the shared limits folder where the workers of a session add up their live spend
SPEND_FILE = "spend.json"


class BackgroundCases:
    """Run pairs concurrently on a background thread; :meth:`result` waits for one.

    Args:
        engine: the session's engine (used only from the background loop from now on).
        writer: the run folder's writer.
        window: pairs in flight at most.
        budget: the session's budget (module docstring); ``None``: no limit.
    """

    def __init__(self, engine: Engine, writer: RunWriter, window: int, budget: Budget | None = None) -> None:
        self.engine = engine
        self.writer = writer
        self.window = window
        self.budget = budget
        self.recorded: list[CaseResult] = []  # every result written, in completion order
        self._futures: dict[Key, concurrent.futures.Future[CaseResult]] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="harness-cases", daemon=True)
        self._thread.start()
        self._main: concurrent.futures.Future[None] | None = None

    @classmethod
    def for_run(
        cls, settings: Settings, subjects: Sequence[str], run_dir: Path, shared_limits: Path | None = None
    ) -> BackgroundCases:
        """The pytest session's runner: the CLI's engine (:func:`harness.run.orchestrate.open_engine`, pairs in
        any order; ``shared_limits``: the endpoints' limits and the budget shared with the session's
        other workers) and window (:func:`harness.run.orchestrate.case_window`), writing into ``run_dir``."""
        spend = shared_limits / SPEND_FILE if shared_limits is not None else None
        return cls(
            open_engine(settings, subjects, in_order=False, shared_limits=shared_limits),
            RunWriter(run_dir),
            case_window(settings),
            Budget(settings.token_limit, settings.cost_limit, settings.pricing, shared=spend),
        )

    @property
    def stopped(self) -> str | None:
        """Why the budget stopped pairs of this session (``None`` when it stopped none)."""
        return self.budget.stopped if self.budget is not None else None

    def unrecorded(self) -> list[CallRecord]:
        """The calls made for pairs the budget stopped (paid, but in no result)."""
        return self.budget.unrecorded(self.recorded) if self.budget is not None and self.budget.stopped else []

    def cache_stats(self) -> tuple[int, int]:
        """The engine's record/replay cache (hits, misses) so far."""
        return self.engine.cache_stats()

    @staticmethod
    def key(case: Case, subject: str) -> Key:
        return (case.dataset, case.id, subject)

    def start(self, pairs: Sequence[Pair]) -> None:
        """Start running ``pairs`` (each at most once)."""
        todo = [(c, s) for c, s in pairs if self.key(c, s) not in self._futures]
        for c, s in todo:
            self._futures[self.key(c, s)] = concurrent.futures.Future()
        self._main = asyncio.run_coroutine_threadsafe(self._run(todo), self._loop)
        keys = [self.key(c, s) for c, s in todo]
        self._main.add_done_callback(lambda main: self._settle_rest(main, keys))

    def _settle_rest(self, main: concurrent.futures.Future[None], keys: Sequence[Key]) -> None:
        """When a background run ends early, none of its items may wait forever: fail or cancel what is
        left of its pairs (``keys``; pairs started later by another :meth:`start` keep running)."""
        error = None if main.cancelled() else main.exception()
        for key in keys:
            future = self._futures[key]
            if future.done():
                continue
            if error is not None:
                future.set_exception(error)
            else:
                future.cancel()

    async def _run(self, todo: Sequence[Pair]) -> None:
        spend_meter.set(self.budget)  # this task's context: every pair's task copies it
        async with aclosing(finished_batches(self.engine, todo, self.window, self.budget)) as batches:
            async for batch in batches:
                done = [t.result() for _, t in batch if t.exception() is None]
                try:
                    await asyncio.to_thread(self.writer.add, done)
                except Exception as exc:  # noqa: BLE001 - handed to the items that wait for these pairs
                    for (case, subject), _ in batch:
                        self._futures[self.key(case, subject)].set_exception(exc)
                    continue
                self.recorded += done
                for (case, subject), task in batch:
                    future = self._futures[self.key(case, subject)]
                    error = task.exception()
                    if error is not None:
                        future.set_exception(error)
                    else:
                        future.set_result(task.result())
        if self.budget is not None and self.budget.stopped is not None:  # refused mid-way or never started
            for case, subject in todo:
                future = self._futures[self.key(case, subject)]
                if not future.done():
                    future.set_exception(BudgetReached(self.budget.stopped))

    def has(self, case: Case, subject: str) -> bool:
        return self.key(case, subject) in self._futures

    def result(self, case: Case, subject: str) -> CaseResult:
        """Wait for the pair's result (re-raises what the pair raised, e.g. a replay miss)."""
        return self._futures[self.key(case, subject)].result()

    def close(self) -> None:
        """Cancel what is still running, close the engine in its loop, stop the thread."""
        if self._main is not None and not self._main.done():
            self._main.cancel()
        try:
            asyncio.run_coroutine_threadsafe(self._drain(), self._loop).result()
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()
            for future in self._futures.values():
                if not future.done():
                    future.cancel()

    async def _drain(self) -> None:
        main = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in main:
            t.cancel()
        await asyncio.gather(*main, return_exceptions=True)
        await self.engine.aclose()
