"""Running datasets through subjects into a run folder, with a progress bar; shared by CLI and pytest."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from harness.cases import Case, Dataset
from harness.config import Settings
from harness.engine import Engine
from harness.result import CaseResult
from harness.runs import RESULTS, Run, RunWriter, load_run, new_manifest, new_run_id, now_iso, read_results


def selected_cases(datasets: Sequence[Dataset], limit: int | None = None) -> list[Case]:
    cases = [c for d in datasets for c in d.cases]
    return cases[:limit] if limit else cases


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
) -> Run:
    """Run every case of ``datasets`` through every subject and record the run.

    Args:
        settings: configuration.
        datasets: the datasets to run.
        subjects: subject names.
        limit: run only the first ``limit`` cases.
        run_dir: the run folder (default ``<reports_dir>/runs/<new run id>``).
        resume: keep the results already in ``run_dir`` and run only the missing ones.
        console: where the progress bar goes.
        on_result: called with each new result.
    """
    console = console or Console(stderr=True)
    run_id = run_dir.name if run_dir else new_run_id()
    run_dir = run_dir or settings.reports_dir / "runs" / run_id
    writer = RunWriter(run_dir)
    done: set[tuple[str, str, str]] = set()
    if resume:
        existing, _ = read_results(run_dir / RESULTS)
        done = {r.key for r in existing}
        previous = load_run(run_dir).manifest
        manifest = previous.model_copy(update={"finished_at": None})
    else:
        manifest = new_manifest(settings, run_id, [d.name for d in datasets], subjects)
    writer.write_manifest(manifest)
    cases = selected_cases(datasets, limit)
    todo = [(c, s) for c in cases for s in subjects if (c.dataset, c.id, s) not in done]
    engine = Engine(settings, subjects)
    runner = asyncio.Runner()
    columns = (
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
    )
    try:
        with Progress(*columns, console=console, transient=False) as progress:
            task = progress.add_task("cases", total=len(todo))
            for case, subject in todo:
                progress.update(task, description=f"{case.dataset}::{case.id} [{subject}]")
                result = runner.run(engine.run_case(case, subject))
                writer.add([result])
                if on_result:
                    on_result(result)
                progress.advance(task)
        hits, misses = engine.cache_stats()
    finally:
        runner.run(engine.aclose())
        runner.close()
    writer.write_manifest(manifest.model_copy(update={
        "finished_at": now_iso(), "cache_hits": manifest.cache_hits + hits,
        "cache_misses": manifest.cache_misses + misses,
    }))
    return load_run(run_dir)
