"""Benchmark: command-line start-up against importing the libraries every command needs (issue 13 item 7).

The target: ``council-harness --help`` and a usage error start within 2x the time of a Python process
that only imports pydantic, httpx, yaml, jinja2 and rich. Each command runs in a fresh interpreter,
N times in turn (interleaved, so a busy moment on a shared machine hits every command alike); the
figure per command is its best (fastest) run, wall-clock, and the ratio is best command / best
reference from this one run. An empty interpreter (``python -c pass``) is shown for scale. Nothing
asserts a time; ``tests/cli/test_startup_imports.py`` checks which modules the commands import.

Run: ``python bench/bench_startup.py [--runs N]`` or ``python bench/run.py --only startup``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import BenchResult, BenchRow, ratio  # noqa: E402

#: name -> the interpreter arguments; "libs" is the reference
COMMANDS: dict[str, list[str]] = {
    "python": ["-c", "pass"],
    "libs": ["-c", "import pydantic, httpx, yaml, jinja2, rich"],
    "help": ["-m", "harness.cli", "--help"],
    "usage_error": ["-m", "harness.cli", "run", "--no-such-option"],
}
TARGET = 2.0


def _once(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def best_times(runs: int) -> dict[str, float]:
    """The fastest of ``runs`` fresh-interpreter runs of every command, in seconds (runs interleaved)."""
    best = dict.fromkeys(COMMANDS, float("inf"))
    for _ in range(runs):
        for name, args in COMMANDS.items():
            best[name] = min(best[name], _once(args))
    return best


def run(quick: bool = False, runs: int | None = None) -> BenchResult:
    n = runs if runs is not None else (2 if quick else 7)
    best = best_times(n)
    rows = [
        BenchRow(
            name=f"startup.{name}",
            figure=f"{best[name] * 1000:.0f} ms",
            ratio=f"{ratio(best[name], best['libs']):.2f}x libs",
            note=f"best of {n}; target <= {TARGET:g}x libs" if name in ("help", "usage_error") else f"best of {n}",
        )
        for name in COMMANDS
    ]
    figures = {f"{name}_ms": best[name] * 1000 for name in COMMANDS}
    figures |= {f"{name}_ratio": ratio(best[name], best["libs"]) for name in ("help", "usage_error")}
    return BenchResult(
        name="startup",
        figures=figures,
        rows=tuple(rows),
        notes=("libs = a fresh python importing pydantic, httpx, yaml, jinja2 and rich",),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command; the best counts (default 7)")
    args = parser.parse_args()
    result = run(runs=args.runs)
    for row in result.rows:
        print(f"{row.name:<22} {row.figure:>9}  {row.ratio:<12} {row.note}")
    print(
        f"--help start-up ratio: {result.figures['help_ratio']:.2f}x the libraries alone (target <= {TARGET:g}x); "
        f"usage error: {result.figures['usage_error_ratio']:.2f}x"
    )


if __name__ == "__main__":
    main()
