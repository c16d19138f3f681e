"""Benchmarks (not tests): each ``bench_*`` module has a ``run(quick=...)`` that measures in one process
and returns a :class:`BenchResult`; ``python bench/run.py`` prints them as ratios measured in the same run.

Nothing here asserts a time. Figures are wall-clock (``perf_counter``) and, where it helps on a
shared machine, this process's CPU time (``process_time``, which counts llama.cpp's threads too).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from harness.common.model import Frozen

T = TypeVar("T")


class BenchRow(Frozen):
    """One line of the final table.

    Args:
        name: what was measured (``tier1.metrics``).
        figure: the measured figure, formatted with its unit (``1.84 ms``).
        ratio: the figure as a ratio to something measured in the same run or to a seed target.
        note: how it was measured, or what to keep in mind when reading it.
    """

    name: str
    figure: str
    ratio: str
    note: str = ""


class BenchResult(Frozen):
    """What one benchmark module measured.

    Args:
        name: the benchmark's name (``tier1``, ``overhead``, ``replay``, ``http``, ``bias``).
        figures: every number, by a dotted name with its unit as suffix (``metrics_ms``); these go
            into the final JSON line. ``NaN`` means "not measured" (the reason is in ``notes``).
        rows: the table lines.
        notes: free-text remarks printed under the table (what was recorded, what was skipped).
    """

    name: str
    figures: dict[str, float]
    rows: tuple[BenchRow, ...]
    notes: tuple[str, ...] = ()


class Timing(Frozen):
    """Wall and CPU seconds of one measured call."""

    wall_s: float
    cpu_s: float


def timed(fn: Callable[[], T]) -> tuple[T, Timing]:
    """Call ``fn`` once and return its result with the wall and process-CPU seconds it took."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, Timing(wall_s=time.perf_counter() - wall, cpu_s=time.process_time() - cpu)


async def atimed(awaitable: Awaitable[T]) -> tuple[T, Timing]:
    """Await ``awaitable`` and return its result with the wall and process-CPU seconds it took."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = await awaitable
    return out, Timing(wall_s=time.perf_counter() - wall, cpu_s=time.process_time() - cpu)


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, or NaN when the denominator is zero or not finite."""
    if not math.isfinite(denominator) or denominator == 0 or not math.isfinite(numerator):
        return math.nan
    return numerator / denominator


def print_result(result: BenchResult) -> None:
    """Print a standalone benchmark's rows (name, figure, ratio, note; columns as wide as their
    longest entry), its notes, and one ``BENCH_JSON {...}`` line of its figures (NaN: ``null``)."""
    rows = result.rows
    name_w = max((len(r.name) for r in rows), default=0)
    figure_w = max((len(r.figure) for r in rows), default=0)
    for row in rows:
        print(f"{row.name:<{name_w}}  {row.figure:<{figure_w}}  {row.ratio}" + (f"  ({row.note})" if row.note else ""))
    for note in result.notes:
        print(note)
    print("BENCH_JSON " + json.dumps({k: (None if v != v else round(v, 4)) for k, v in result.figures.items()}))


def load_note() -> str:
    """The one-minute load average against the CPU count, and whether the figures will be noisy."""
    load = os.getloadavg()[0]
    cpus = os.cpu_count() or 1
    busy = " - the machine is busy: wall-clock figures are noisy (CPU-time figures less so)"
    busy = busy if load > 0.75 * cpus else ""
    return f"load average {load:.2f} on {cpus} CPUs{busy}"


def llama_threads(requested: int | None = None) -> tuple[int, str]:
    """llama.cpp threads for the benchmarks' embedded-model calls, and why.

    Args:
        requested: an explicit count (``--threads``); ``None`` chooses: all cores on a quiet machine,
            1 when the load average is above 0.75 per core (llama.cpp's threads wait for each other at
            every step, so on a shared, busy machine 2 threads can be several times slower than 1).
    """
    cpus = os.cpu_count() or 1
    if requested is not None:
        return max(1, requested), f"{max(1, requested)} llama.cpp thread(s)"
    load = os.getloadavg()[0]
    if load > 0.75 * cpus:
        return 1, f"1 llama.cpp thread (load {load:.1f} on {cpus} CPUs; the harness default is {cpus})"
    return cpus, f"{cpus} llama.cpp threads (the harness default)"
