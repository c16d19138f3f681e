"""Running datasets through subjects into a run folder, cases concurrently; shared by the CLI and pytest.

``council-harness run`` calls :func:`run_cases`; the pytest plugin runs its items through
:class:`harness.run.background.BackgroundCases` (:meth:`~harness.run.background.BackgroundCases.for_run`).
Both build their engine with :func:`open_engine`, keep :func:`case_window` pairs in flight through
:func:`finished_batches`, append each result to the run folder as it finishes, and close the run
with :func:`finish_manifest`; what comes after (prediction, gate, report) is
:func:`harness.finish.finish_run`.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import aclosing
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console

from harness.common.console import plain_console
from harness.common.errors import BudgetReached, ConfigError
from harness.common.untrusted import printable_line
from harness.config import Settings
from harness.data.cases import Case, Dataset
from harness.providers.base import spend_meter
from harness.providers.engine_setup import EngineSetup
from harness.records.transcript import CallRecord
from harness.run.engine import Engine, embedded_setup, request_slots
from harness.run.ledger import Budget
from harness.run.progress import RunProgress
from harness.run.result import CaseResult
from harness.run.resume import limit_difference, recorded_limit, run_lock
from harness.run.runs import (
    RESULTS,
    Manifest,
    Run,
    RunWriter,
    load_run,
    new_manifest,
    new_run_id,
    now_iso,
    read_results,
    runs_dir,
)
from harness.run.summary import mark_unfinished
from harness.scorers.names import check_scorer_names


def selected_cases(datasets: Sequence[Dataset], limit: int | None = None) -> list[Case]:
    cases = [c for d in datasets for c in d.cases]
    return cases[:limit] if limit else cases


def case_window(settings: Settings) -> int:
    """(case, subject) pairs kept in flight: twice the request slots (:func:`harness.run.engine.request_slots`).

    The binding limit is the requests in flight per endpoint: a running pair has one or more
    calls in flight or queued except while it is between stages or being scored, so twice as many
    pairs as slots keep every slot busy. The window only stops a 10,000-case run from holding
    10,000 half-done cases in memory.
    """
    return 2 * request_slots(settings)


def open_engine(
    settings: Settings,
    subjects: Sequence[str],
    *,
    in_order: bool = True,
    shared_limits: Path | None = None,
    setup: EngineSetup | None = None,
) -> Engine:
    """The engine that runs a run's (case, subject) pairs.

    Args:
        in_order: whether pairs start in case order with the council first, so that a member arm
            (self-consistency) may wait for the council's tokens on the same case. pytest items may
            run in any order (``-k``, xdist), so the plugin passes ``False``: an arm never waits.
        setup: the embedded engine's set-up (:func:`harness.run.engine.embedded_setup`).
    """
    engine = Engine(settings, subjects, shared_limits, setup)
    engine.board.waits = in_order
    return engine


def finish_manifest(
    run_dir: Path,
    manifest: Manifest,
    cache_hits: int,
    cache_misses: int,
    *,
    results: Sequence[CaseResult] | None = None,
    stopped: str | None = None,
    warnings: Sequence[str] = (),
    unrecorded: Sequence[CallRecord] = (),
) -> Manifest:
    """Write the finished manifest: finish time, the cache statistics added to the manifest's, the
    usage per stage of the results on disk (``results`` when already read), whether a budget
    stopped the run (``stopped``: why; the run is then ``partial``), this invocation's ``warnings``
    and the calls of the pairs the budget stopped (``unrecorded``), both added to those of earlier
    invocations."""
    from harness.run.usage import stage_usage

    finished = manifest.model_copy(
        update={
            "finished_at": now_iso(),
            "cache_hits": manifest.cache_hits + cache_hits,
            "cache_misses": manifest.cache_misses + cache_misses,
            "stage_usage": stage_usage(read_results(run_dir / RESULTS)[0] if results is None else results),
            "partial": stopped is not None,
            "stopped": stopped,
            "warnings": (*manifest.warnings, *warnings),
            "unrecorded_calls": (*manifest.unrecorded_calls, *unrecorded),
        }
    )
    RunWriter(run_dir).write_manifest(finished)
    return finished


def run_cases(
    settings: Settings,
    datasets: Sequence[Dataset],
    subjects: Sequence[str],
    *,
    limit: int | None = None,
    run_dir: Path | None = None,
    resume: bool = False,
    console: Console | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
    window: int | None = None,
    resume_args: Sequence[str] = (),
) -> Run:
    """Run every case of ``datasets`` through every subject and record the run.

    (case, subject) pairs run concurrently in one event loop, at most ``window`` at a time, so
    requests in flight are bounded by each endpoint's ``concurrency`` (and rate limits), not by a
    number of cases; the stages within a case keep their order. Each result is appended to
    ``results.jsonl`` as it finishes (one whole line, fsynced), so a killed run loses only the
    cases in flight and ``--resume`` runs exactly those. Readers order results by
    (dataset, case, subject), never by completion order. A replay-cache miss cancels the run.

    Args:
        settings: configuration.
        datasets: the datasets to run.
        subjects: subject names.
        limit: run only the first ``limit`` cases. A resume selects the cases of the run it completes
            (:func:`harness.run.resume.recorded_limit`): ``limit`` must then be ``None`` or that limit.
        run_dir: the run folder (default ``<reports_dir>/runs/<new run id>``).
        resume: keep the results already in ``run_dir`` and run only the missing ones.
        console: where the progress goes.
        on_result: called with each new result, in completion order.
        window: pairs in flight at most (default :func:`case_window`; 1 runs them one by one).
        resume_args: the command-line arguments the run needs besides ``--resume ID`` (``--data``,
            ``--config``, ...), repeated in the command printed when a budget stops the run.

    Called while an event loop runs in this thread (a Jupyter cell, ``asyncio.run`` of a coroutine),
    the run goes to a worker thread with its own loop and this call waits for it (:func:`in_own_thread`):
    the caller's loop cannot run the run's coroutines while it is blocked in this call.
    """
    if loop_running():
        return in_own_thread(
            run_cases,
            settings,
            datasets,
            subjects,
            limit=limit,
            run_dir=run_dir,
            resume=resume,
            console=console,
            on_result=on_result,
            window=window,
            resume_args=resume_args,
        )
    check_scorer_names(datasets, settings)  # before any model call: a dataset names only configured scorers
    console = console or plain_console()
    setup = embedded_setup(settings)  # the start-up guard: a crashing engine stops here, before any folder
    run_id = run_dir.name if run_dir else new_run_id()
    run_dir = run_dir or runs_dir(settings) / run_id
    writer = RunWriter(run_dir)
    with run_lock(run_dir):  # held from reading the results already there to the finished manifest
        done: set[tuple[str, str, str]] = set()
        if resume:
            existing, _ = read_results(run_dir / RESULTS)
            done = {r.key for r in existing}
            council_done = {(r.dataset, r.case_id): r for r in existing if r.subject == "council"}
            del existing
            previous = load_run(run_dir).manifest
            if (other := limit_difference(previous, limit)) is not None:
                raise ConfigError(
                    f"cannot resume run {previous.run_id} with a different case selection ({other}); "
                    "a resume completes the cases the run started with",
                    str(run_dir / "manifest.json"),
                )
            limit = recorded_limit(previous)
            manifest = previous.model_copy(
                update={"finished_at": None, "engine": setup or previous.engine, "limit": limit}
            )
        else:
            manifest = new_manifest(settings, run_id, [d.name for d in datasets], subjects, engine=setup, limit=limit)
        cases = selected_cases(datasets, limit)
        manifest = manifest.model_copy(update={"planned": len(cases) * len(subjects)})
        writer.write_manifest(manifest)
        mark_unfinished(run_dir, manifest.run_id, len(cases) * len(subjects))  # replaced when the run finishes
        # the council first within each case: self-consistency waits for its tokens on the same case
        ordered = sorted(subjects, key=lambda s: s != "council")
        todo = [(c, s) for c in cases for s in ordered if (c.dataset, c.id, s) not in done]
        engine = open_engine(settings, subjects, setup=setup)
        budget = Budget(settings.token_limit, settings.cost_limit, settings.pricing)
        metered = spend_meter.set(budget)  # before the Runner: it copies this context for every task
        if resume:
            for c in cases:  # a council case finished before the resume still sets self-consistency's n
                prior = council_done.get((c.dataset, c.id))
                if prior is not None:
                    engine.board.publish(c.nodeid_part, prior.transcript.calls if prior.transcript else None)
            del council_done
        recorded: list[CaseResult] = []

        def record(result: CaseResult) -> None:
            recorded.append(result)
            if on_result is not None:
                on_result(result)

        runner = asyncio.Runner()
        try:
            with RunProgress(console, len(todo)) as progress:
                runner.run(_run_pairs(engine, todo, writer, progress, record, window or case_window(settings), budget))
            hits, misses = engine.cache_stats()
        finally:
            runner.run(engine.aclose())
            runner.close()
            spend_meter.reset(metered)
        warnings = [w for w in (engine.webhooks.warning(),) if w]
        for line in warnings:
            console.print(f"warning: {line}", markup=False)
        finish_manifest(
            run_dir,
            manifest,
            hits,
            misses,
            stopped=budget.stopped,
            warnings=warnings,
            unrecorded=budget.unrecorded(recorded) if budget.stopped else (),
        )
        if budget.stopped is not None:
            command = shlex.join(["council-harness", "run", "--resume", run_id, *resume_args])
            console.print(
                f"run stopped early: {budget.stopped}; the run is partial, finish it with: {command}",
                markup=False,
                soft_wrap=True,
                highlight=False,
            )
    return load_run(run_dir)


Pair = tuple[Case, str]
T = TypeVar("T")


def loop_running() -> bool:
    """Whether an event loop is running in this thread (``asyncio.Runner`` would refuse to start)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def in_own_thread(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a new worker thread (no event loop running there), waiting for it; its
    exception is raised here."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="council-harness-run") as pool:
        return pool.submit(fn, *args, **kwargs).result()


async def finished_batches(
    engine: Engine,
    todo: Iterable[Pair],
    window: int,
    budget: Budget | None = None,
) -> AsyncGenerator[list[tuple[Pair, asyncio.Task[CaseResult]]], None]:
    """Run ``todo`` through ``engine`` with at most ``window`` pairs in flight; yield the pairs that
    finished together (each with its done task: a result, or the exception it raised).

    With a ``budget`` (charged by every call, :class:`harness.run.ledger.Budget`), no new pair starts
    once it is reached (``budget.stopped`` then says why); a pair one of whose calls the budget
    refused (:class:`~harness.common.errors.BudgetReached`) is dropped, not yielded, and not recorded.

    New pairs are started before each yield, so the endpoints stay busy while the caller records a
    batch. Closing the generator (``contextlib.aclosing``) cancels the pairs still running.
    """
    pending = iter(todo)
    running: dict[asyncio.Task[CaseResult], Pair] = {}

    held: list[Pair] = []  # the next pair, held back once the budget is reached

    def start() -> None:
        while len(running) < window:
            pair = held.pop() if held else next(pending, None)
            if pair is None:
                return
            if budget is not None and budget.reached is not None:
                budget.stopped = budget.stopped or budget.reached
                held.append(pair)
                return
            running[asyncio.create_task(engine.run_case(*pair))] = pair

    try:
        start()
        while running:
            finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            batch = [(running.pop(t), t) for t in finished]
            for _, t in batch:
                if isinstance(exc := t.exception(), BudgetReached) and budget is not None:
                    budget.stopped = budget.stopped or str(exc)
            batch = [(p, t) for p, t in batch if not isinstance(t.exception(), BudgetReached)]
            start()
            yield batch
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)


async def _run_pairs(
    engine: Engine,
    todo: Sequence[Pair],
    writer: RunWriter,
    progress: RunProgress,
    on_result: Callable[[CaseResult], None] | None,
    window: int,
    budget: Budget | None = None,
) -> None:
    """Run ``todo``, recording each result as it finishes (:func:`finished_batches`).

    Results finished together are appended in one write (one fsync) in a worker thread, so the
    event loop keeps the other cases moving while the disk works. An exception from a pair (a
    replay-cache miss) is raised once the results finished with it are written; the pairs still
    running are cancelled.
    """
    async with aclosing(finished_batches(engine, todo, window, budget)) as batches:
        async for batch in batches:
            failure = next((t.exception() for _, t in batch if t.exception() is not None), None)
            results = [t.result() for _, t in batch if t.exception() is None]
            await asyncio.to_thread(writer.add, results)
            for result in results:
                progress.advance(
                    printable_line(f"{result.dataset}::{result.case_id} [{result.subject}]"),
                    failed=result.status in ("failed", "error"),
                )
                if on_result:
                    on_result(result)
            if failure is not None:
                raise failure
