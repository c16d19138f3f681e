"""Benchmark: scoring hostile answers (issue 10 item 9) and the cost of the code sandbox's isolation.

Run: ``python bench/bench_hostile.py [--quick]``, or ``run(quick=...)`` from the benchmark runner.

* heuristic quality of ``"but "`` repeated to 128 KB and to 1 MB (37 s for 128 KB before the fix):
  the ratio 1 MB / 128 KB is about 1 because only the first 50,000 characters are scored;
* ballot parsing of a ``FINAL RANKING:`` section followed by blank lines, 60 KB and 1 MB
  (111 s for 60 KB of such lines before): linear, and capped at 1,000,000 characters;
* one sandboxed run of a tiny solution with its tests, with the full isolation (private file
  system and namespaces, util-linux) and without it (``PATH`` without util-linux): the ratio is the
  price of isolation (``bench/bench_sandbox.py`` separates the private file system's share).

Figures are measured in this run only; nothing asserts them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import BenchResult, BenchRow, load_note, ratio, timed  # noqa: E402
from harness import sandbox  # noqa: E402
from harness.council.ranking import parse_ballot  # noqa: E402
from harness.metrics.heuristic_quality import heuristic_quality  # noqa: E402

LABELS = ["Response A", "Response B", "Response C"]


def _best(fn, repeats: int) -> float:  # noqa: ANN001 - any zero-argument callable
    return min(timed(fn)[1].wall_s for _ in range(repeats))


def _sandbox_seconds(isolated: bool, repeats: int) -> tuple[float, str]:
    code, tests = "def double(x):\n    return 2 * x\n", "assert double(21) == 42\n"
    if isolated:
        return _best(lambda: sandbox.run_python(code, tests, 10), repeats), sandbox.isolation()[1]
    saved = os.environ.get("PATH", "")
    with tempfile.TemporaryDirectory() as empty:
        os.environ["PATH"] = empty
        try:
            return _best(lambda: sandbox.run_python(code, tests, 10), repeats), sandbox.isolation()[1]
        finally:
            os.environ["PATH"] = saved


def run(quick: bool = False) -> BenchResult:
    """Measure the figures of the module docstring (``quick``: smaller inputs, one repeat)."""
    repeats = 1 if quick else 3
    small, big = (16_384, 131_072) if quick else (131_072, 1_048_576)
    hq_small = _best(lambda: heuristic_quality(("but " * small)[:small]), repeats)
    hq_big = _best(lambda: heuristic_quality(("but " * big)[:big]), repeats)
    b_small_text = "FINAL RANKING:\n" + " \n" * ((60_000 if not quick else 8_000) // 2) + "Response B, Response A"
    b_big_text = "FINAL RANKING:\n" + " \n" * ((1_048_576 if not quick else 64_000) // 2) + "Response B, Response A"
    ballot_small = _best(lambda: parse_ballot(b_small_text, LABELS), repeats)
    ballot_big = _best(lambda: parse_ballot(b_big_text, LABELS), repeats)
    iso_s, iso_how = _sandbox_seconds(True, repeats)
    bare_s, bare_how = _sandbox_seconds(False, repeats)
    figures = {
        "hq_small_ms": hq_small * 1000,
        "hq_big_ms": hq_big * 1000,
        "hq_ratio": ratio(hq_big, hq_small),
        "ballot_small_ms": ballot_small * 1000,
        "ballot_big_ms": ballot_big * 1000,
        "ballot_per_char_ratio": ratio(ballot_big / len(b_big_text), ballot_small / len(b_small_text)),
        "sandbox_isolated_ms": iso_s * 1000,
        "sandbox_bare_ms": bare_s * 1000,
        "sandbox_isolation_ratio": ratio(iso_s, bare_s),
    }
    rows = (
        BenchRow(
            name="hostile.hq",
            figure=f"{hq_small * 1000:.0f} ms / {hq_big * 1000:.0f} ms",
            ratio=f"{figures['hq_ratio']:.2f}x for {big // small}x the text",
            note=f'heuristic quality of "but " x {small:,} and {big:,} chars (scored: first 50,000)',
        ),
        BenchRow(
            name="hostile.ballot",
            figure=f"{ballot_small * 1000:.1f} ms / {ballot_big * 1000:.1f} ms",
            ratio=f"{figures['ballot_per_char_ratio']:.2f}x time per char",
            note=f"FINAL RANKING + blank lines, {len(b_small_text):,} and {len(b_big_text):,} chars",
        ),
        BenchRow(
            name="hostile.sandbox",
            figure=f"{iso_s * 1000:.0f} ms / {bare_s * 1000:.0f} ms",
            ratio=f"{figures['sandbox_isolation_ratio']:.2f}x",
            note=f"one run_python with isolation ({iso_how}) / without ({bare_how})",
        ),
    )
    return BenchResult(name="hostile", figures=figures, rows=rows, notes=(load_note(),))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, one repeat")
    result = run(quick=parser.parse_args().quick)
    for row in result.rows:
        print(f"{row.name:18} {row.figure:24} {row.ratio:28} {row.note}")
    for note in result.notes:
        print(note)


if __name__ == "__main__":
    main()
