"""The benchmarks' single entry point: ``python bench/run.py [--quick] [--only NAME ...]``.

Runs, in one process and one run, every benchmark (or the ``--only`` ones) and prints ratios
measured in that run, with absolute figures beside them: a compact table (name, figure, ratio,
note), the notes, and one ``BENCH_JSON {...}`` line with every figure (``null`` = not measured)
for the README to quote. Benchmarks are not tests: nothing here passes or fails on a time.

Benchmarks: ``tier1`` (Tier 1 metrics per five-member transcript vs the seed budget and a model
call), ``overhead`` (harness vs raw llama.cpp calls), ``replay`` (warm replay of the reasoning
suite), ``http`` (concurrency speedup against a loopback server), ``bias`` (bias aggregation at
1,000 and 100,000 sessions; ``bench/bench_bias.py``), ``cases`` (case-level concurrency at 20 and 200
cases, and a 10,000-case run's memory, report and export; ``bench/bench_cases.py``), ``hostile`` (scoring
1 MB hostile answers and ballots, and the code sandbox's isolation cost; ``bench/bench_hostile.py``),
``extraction`` (precision and recall of objective answer checking per expected type on the labelled
corpus, and the cost of hostile 128 KB / 1 MB answers; ``bench/bench_extraction.py``), ``loading`` (a golden
dataset at the 8 MiB size cap; ``bench/bench_loading.py``), ``startup`` (``--help`` and a usage error
against importing pydantic, httpx, yaml, jinja2 and rich alone; ``bench/bench_startup.py``), ``xdist`` (a
small golden run through ``pytest`` plainly and with ``-n 2``; ``bench/bench_xdist.py``).
``--quick`` shrinks every input (smoke test).
The exit status is 1 when a benchmark failed to run (its error is in the table), else 0.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import BenchResult, BenchRow, llama_threads, load_note  # noqa: E402
from harness.common.model import Frozen  # noqa: E402

NAMES = (
    "tier1",
    "overhead",
    "replay",
    "http",
    "bias",
    "cases",
    "hostile",
    "extraction",
    "loading",
    "startup",
    "xdist",
)


class Options(Frozen):
    """What the command line asked for.

    Args:
        quick: shrink every input (smoke test).
        threads: llama.cpp threads for the embedded-model benchmarks (chosen once for the whole run).
        cache: the cache file the replay benchmark replays (``None``: ``.council-cache/cache.sqlite``).
        config: the configuration that cache was recorded with (``None``: found as the CLI finds it).
    """

    quick: bool = False
    threads: int = 1
    cache: Path | None = None
    config: Path | None = None


def _tier1(o: Options) -> BenchResult:
    from bench import bench_tier1

    return bench_tier1.run(quick=o.quick, threads=o.threads)


def _overhead(o: Options) -> BenchResult:
    from bench import bench_overhead

    return bench_overhead.run(quick=o.quick, threads=o.threads)


def _replay(o: Options) -> BenchResult:
    from bench import bench_replay

    return bench_replay.run(quick=o.quick, cache=o.cache, config=o.config, threads=o.threads)


def _http(o: Options) -> BenchResult:
    from bench import bench_http

    return bench_http.run(quick=o.quick)


def _extraction(o: Options) -> BenchResult:
    from bench import bench_extraction

    return bench_extraction.run(quick=o.quick)


def _loading(o: Options) -> BenchResult:
    from bench import bench_loading

    return bench_loading.run(quick=o.quick)


def _startup(o: Options) -> BenchResult:
    from bench import bench_startup

    return bench_startup.run(quick=o.quick)


def _bias(o: Options) -> BenchResult:
    """``bench_bias.run`` when the module imports and has it; else ``bench_bias.py`` as a subprocess."""
    script = ROOT / "bench" / "bench_bias.py"
    if not script.exists():
        raise FileNotFoundError(f"{script} does not exist (it is written separately); nothing measured")
    try:
        module = importlib.import_module("bench.bench_bias")
        run = getattr(module, "run", None)
    except Exception as exc:  # noqa: BLE001 - a broken module falls back to the subprocess
        run, why = None, f"import failed ({type(exc).__name__}: {exc})"
    else:
        why = "it has no run() function"
    if callable(run):
        result = run(quick=o.quick)
        if isinstance(result, BenchResult):
            return result
        why = f"its run() returned {type(result).__name__}, not a BenchResult"
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(script), *(["--quick"] if o.quick else [])],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    seconds = time.perf_counter() - started
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    return BenchResult(
        name="bias",
        figures={"subprocess_s": seconds, "exit_code": float(proc.returncode)},
        rows=(
            BenchRow(
                name="bias.subprocess",
                figure=f"{seconds:.1f} s",
                ratio="see its output below",
                note=f"bench_bias.py run as a subprocess ({why}); exit code {proc.returncode}",
            ),
        ),
        notes=tuple(f"bias | {line}" for line in lines[-40:]),
    )


def _cases(o: Options) -> BenchResult:
    from bench import bench_cases

    return bench_cases.run(quick=o.quick)


def _xdist(o: Options) -> BenchResult:
    from bench import bench_xdist

    return bench_xdist.run(quick=o.quick)


def _hostile(o: Options) -> BenchResult:
    from bench import bench_hostile

    return bench_hostile.run(quick=o.quick)


BENCHES: dict[str, Callable[[Options], BenchResult]] = {
    "tier1": _tier1,
    "overhead": _overhead,
    "replay": _replay,
    "http": _http,
    "bias": _bias,
    "cases": _cases,
    "xdist": _xdist,
    "hostile": _hostile,
    "extraction": _extraction,
    "loading": _loading,
    "startup": _startup,
}


def run_one(
    name: str, options: Options, benches: Mapping[str, Callable[[Options], BenchResult]] = BENCHES
) -> tuple[BenchResult, float]:
    """Run one benchmark; a failure becomes a result whose row carries the error.

    Args:
        name: the benchmark's name.
        options: the command line's options.
        benches: the registry to look ``name`` up in.

    Returns the result and the benchmark's wall seconds.
    """
    started = time.perf_counter()
    try:
        result = benches[name](options)
    except Exception as exc:  # noqa: BLE001 - one broken benchmark must not hide the others
        detail = traceback.format_exc(limit=3).strip().splitlines()
        result = BenchResult(
            name=name,
            figures={"failed": 1.0},
            rows=(BenchRow(name=f"{name}.FAILED", figure="-", ratio="-", note=f"{type(exc).__name__}: {exc}"),),
            notes=tuple(f"{name} | {line}" for line in detail[-6:]),
        )
    return result, time.perf_counter() - started


def _finite_or_none(value: float) -> float | None:
    return value if isinstance(value, int | float) and math.isfinite(value) else None


def all_figures(results: Sequence[BenchResult]) -> dict[str, float | None]:
    """Every figure as ``<bench>.<figure>``; ``None`` for NaN (not measured)."""
    return {f"{r.name}.{k}": _finite_or_none(v) for r in results for k, v in r.figures.items()}


def json_line(results: Sequence[BenchResult], meta: dict[str, object]) -> str:
    """The ``BENCH_JSON`` line: run facts plus every figure (valid JSON: NaN becomes ``null``)."""
    return "BENCH_JSON " + json.dumps(
        {**meta, "figures": all_figures(results)}, sort_keys=True, separators=(",", ":"), allow_nan=False
    )


def table(results: Sequence[BenchResult]) -> list[str]:
    """The final table's lines: name, figure, ratio, note."""
    rows = [row for r in results for row in r.rows]
    header = BenchRow(name="name", figure="figure", ratio="ratio", note="note")
    widths = [max(len(getattr(x, f)) for x in [header, *rows]) for f in ("name", "figure", "ratio")]

    def fmt(row: BenchRow) -> str:
        return (f"{row.name:<{widths[0]}}  {row.figure:>{widths[1]}}  {row.ratio:<{widths[2]}}  {row.note}").rstrip()

    rule = "-" * min(160, sum(widths) + 6 + max(len(r.note) for r in [header, *rows]))
    return [fmt(header), rule, *(fmt(r) for r in rows)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny inputs everywhere (smoke test)")
    parser.add_argument(
        "--only",
        action="append",
        choices=NAMES,
        metavar="NAME",
        help=f"run only this benchmark (repeatable): {', '.join(NAMES)}",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="cache file for the replay benchmark (default .council-cache/cache.sqlite)",
    )
    parser.add_argument("--config", type=Path, default=None, help="the config that cache was recorded with")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="llama.cpp threads (default: all cores, or 1 when the machine is busy)",
    )
    args = parser.parse_args(argv)
    names = [n for n in NAMES if not args.only or n in args.only]
    threads, threads_note = llama_threads(args.threads)
    options = Options(quick=args.quick, threads=threads, cache=args.cache, config=args.config)
    start_note, started = load_note(), time.perf_counter()
    load_start = os.getloadavg()[0]
    print(f"bench: {', '.join(names)}{' (quick)' if args.quick else ''}; {start_note}; {threads_note}", flush=True)
    results: list[BenchResult] = []
    for name in names:
        print(f"bench: {name} ...", flush=True)
        result, seconds = run_one(name, options)
        results.append(result)
        print(f"bench: {name} done in {seconds:.1f} s", flush=True)
        for row in result.rows:
            print(f"  {row.name}: {row.figure} | {row.ratio} | {row.note}", flush=True)
    total = time.perf_counter() - started
    print()
    for line in table(results):
        print(line)
    print()
    for r in results:
        for note in r.notes:
            print(f"- {note}")
    print(f"- total {total:.1f} s; at start: {start_note}; at end: {load_note()}")
    meta = {
        "quick": args.quick,
        "cpus": os.cpu_count(),
        "threads": threads,
        "total_s": round(total, 2),
        "load_start": round(load_start, 2),
        "load_end": round(os.getloadavg()[0], 2),
        "benches": names,
    }
    print(json_line(results, meta))
    return 1 if any("failed" in r.figures for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
