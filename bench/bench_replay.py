"""Benchmark: a warm replay of the whole reasoning suite from the record/replay cache.

When the cache file (``--cache``, default ``.council-cache/cache.sqlite``, where ``council-harness
run`` records) already holds the suite for ``council`` and/or ``baseline`` under the current
configuration, those subjects are replayed from it. Otherwise the suite is first recorded cold
into a temporary cache (``baseline`` only, SmolLM2, short answers, rubric judge off so that each
case is one model call) and then replayed; the cold/replay ratio is printed.

Both passes use the same loop as ``harness.run.orchestrate.run_cases`` (one engine, one event loop,
each result appended to a run folder's ``results.jsonl``) without the progress bar. A replay
that meets a cache miss stops there, as ``--cache-mode replay`` does, and the cases done count.

Run: ``python bench/run.py --only replay [--cache PATH]``.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench import BenchResult, BenchRow, llama_threads, ratio, timed
from harness.common.errors import CacheMiss
from harness.common.model import Frozen
from harness.config import Settings, default_members, load_settings
from harness.data.cases import Case, load_datasets
from harness.providers.cache import CachedProvider
from harness.providers.local import LocalProvider
from harness.run.engine import Engine
from harness.run.runs import RunWriter

SUITE = Path(__file__).resolve().parent.parent / "suites" / "reasoning-100.yaml"
DEFAULT_CACHE = Path(".council-cache/cache.sqlite")
REPLAY_SUBJECTS = ("council", "baseline")


class SuitePass(Frozen):
    """One pass over the suite.

    Args:
        seconds: wall time of the whole pass (engine built, every case run and written, engine closed).
        results: case results written (cases x subjects that finished).
        hits, misses: cache hits and misses of the pass.
        stopped: the cache-miss message that stopped a replay, if one did.
    """

    seconds: float
    results: int
    hits: int
    misses: int
    stopped: str | None = None


def suite_cases(limit: int | None = None) -> list[Case]:
    """The suite's cases in file order (the first ``limit`` when given)."""
    cases = [c for d in load_datasets(SUITE) for c in d.cases]
    return cases[:limit] if limit else cases


def _use_threads(engine: Engine, threads: int) -> None:
    """Give the engine's embedded-model provider ``threads`` llama.cpp threads (no model is loaded yet)."""
    local = engine.providers.get("local")
    if isinstance(local, CachedProvider):
        local.inner = LocalProvider(n_threads=threads)
    elif local is not None:
        engine.providers["local"] = LocalProvider(n_threads=threads)  # the caller reads this same mapping


def run_suite(
    settings: Settings, cases: Sequence[Case], subjects: Sequence[str], run_dir: Path, threads: int | None = None
) -> SuitePass:
    """Run every case through every subject as ``run_cases`` does, timing the whole pass.

    Args:
        settings: configuration (its ``cache_mode`` and ``cache_path`` decide record or replay).
        cases: the cases.
        subjects: subject names.
        run_dir: where ``results.jsonl`` is written.
        threads: llama.cpp threads for embedded-model calls (``None``: the harness default).
    """

    def body() -> SuitePass:
        engine = Engine(settings, subjects)
        if threads is not None:
            _use_threads(engine, threads)
        writer = RunWriter(run_dir)
        runner = asyncio.Runner()
        done, stopped = 0, None
        try:
            for case in cases:
                for subject in subjects:
                    writer.add([runner.run(engine.run_case(case, subject))])
                    done += 1
        except CacheMiss as exc:
            stopped = str(exc)
        finally:
            hits, misses = engine.cache_stats()
            runner.run(engine.aclose())
            runner.close()
        return SuitePass(seconds=0.0, results=done, hits=hits, misses=misses, stopped=stopped)

    result, t = timed(body)
    return result.model_copy(update={"seconds": t.wall_s})


def recorded_subjects(settings: Settings, case: Case, run_dir: Path) -> list[str]:
    """The subjects among ``council`` and ``baseline`` whose replies for ``case`` are in the cache."""
    found = []
    for subject in REPLAY_SUBJECTS:
        probe = run_suite(settings, [case], [subject], run_dir / f"probe-{subject}")
        if probe.stopped is None and probe.results == 1:
            found.append(subject)
    return found


def cold_settings(cache_path: Path, reports_dir: Path, answer_tokens: int) -> Settings:
    """Settings for the temporary cold record: SmolLM2 baseline, short answers, rubric judge off.

    Args:
        cache_path: the temporary cache file.
        reports_dir: a scratch folder.
        answer_tokens: ``answer_max_tokens``.
    """
    spec = default_members()[0]
    return load_settings(
        models=[spec],
        baseline=spec.id,
        cache_mode="readwrite",
        cache_path=cache_path,
        reports_dir=reports_dir,
        answer_max_tokens=answer_tokens,
        rubric_scoring=False,
        quality_webhook_url="",
    )


def run(
    quick: bool = False,
    cache: Path | None = None,
    config: Path | None = None,
    limit: int | None = None,
    answer_tokens: int | None = None,
    threads: int | None = None,
) -> BenchResult:
    """Replay the suite from the cache (recording it cold first when the cache lacks it).

    Args:
        quick: the first 3 cases and 8-token answers (smoke test).
        cache: the cache file to replay (default ``.council-cache/cache.sqlite``).
        config: the configuration file the cache was recorded with (default: as ``council-harness``
            finds it: ``$COUNCIL_HARNESS_CONFIG`` or ``./council-harness.yaml``).
        limit: only the first ``limit`` cases (default: all 100; quick 3).
        answer_tokens: answer limit of a cold record (default 16, quick 8).
        threads: llama.cpp threads of a cold record (default: see :func:`bench.llama_threads`).
    """
    cases = suite_cases(limit or (3 if quick else None))
    cache_path = Path(cache) if cache is not None else DEFAULT_CACHE
    answer_tokens = answer_tokens or (8 if quick else 16)
    notes: list[str] = []
    cold: SuitePass | None = None
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as tmp_name:
        tmp = Path(tmp_name)
        subjects: list[str] = []
        if cache_path.exists():
            settings = load_settings(
                config, cache_mode="replay", cache_path=cache_path, reports_dir=tmp, quality_webhook_url=""
            )
            subjects = recorded_subjects(settings, cases[0], tmp)
            if subjects:
                notes.append(f"replay: {cache_path} holds the suite for {', '.join(subjects)}: replayed as recorded")
            else:
                notes.append(
                    f"replay: {cache_path} exists but has no reply for the suite's first case under this "
                    "configuration (pass --cache/--config): recording cold instead"
                )
        else:
            notes.append(f"replay: no cache at {cache_path}: recording the suite cold first")
        if not subjects:
            n_threads, threads_note = llama_threads(threads)
            record = cold_settings(tmp / "cache.sqlite", tmp, answer_tokens)
            subjects = ["baseline"]
            cold = run_suite(record, cases, subjects, tmp / "cold", threads=n_threads)
            notes.append(
                f"replay: cold record into a temporary cache: baseline (smollm2-135m, {answer_tokens}-token "
                f"answers, rubric judge off), {cold.results} results, {cold.misses} model calls, "
                f"{cold.seconds:.1f} s, {threads_note}"
            )
            settings = record.model_copy(update={"cache_mode": "replay"})
        replay = run_suite(settings, cases, subjects, tmp / "replay")
    if replay.stopped:
        notes.append(f"replay: stopped after {replay.results} results at a cache miss: {replay.stopped}")
    per_result_ms = 1000 * ratio(replay.seconds, replay.results)
    figures = {
        "cases": float(len(cases)),
        "subjects": float(len(subjects)),
        "results": float(replay.results),
        "replay_s": replay.seconds,
        "replay_per_result_ms": per_result_ms,
        "replay_hits": float(replay.hits),
        "cold_s": cold.seconds if cold else float("nan"),
        "cold_per_result_ms": 1000 * ratio(cold.seconds, cold.results) if cold else float("nan"),
        "cold_over_replay": ratio(cold.seconds, replay.seconds) if cold else float("nan"),
    }
    rows = [
        BenchRow(
            name="replay.suite",
            figure=f"{replay.seconds:.2f} s",
            ratio=f"{per_result_ms:.1f} ms/result",
            note=f"warm replay, {len(cases)} cases x {'+'.join(subjects)} = {replay.results} results, "
            f"{replay.hits} cache hits, scoring and results.jsonl included",
        ),
    ]
    if cold is not None:
        rows.append(
            BenchRow(
                name="replay.cold_vs_replay",
                figure=f"{cold.seconds:.1f} s cold",
                ratio=f"{figures['cold_over_replay']:.1f}x faster replayed",
                note="cold record (same cases, model calls) / warm replay, measured in this run",
            )
        )
    return BenchResult(name="replay", figures=figures, rows=tuple(rows), notes=tuple(notes))
