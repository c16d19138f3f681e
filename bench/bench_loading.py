"""Benchmark: loading a golden dataset at the size cap (``harness.common.yamlio.MAX_YAML_BYTES``, 8 MiB).

Issue 10 item 24: a 30 MB file of 440,000 cases took 110 s and 3.3 GB to load. The cap was lowered to
8 MiB so that the largest accepted file loads in seconds; this measures, in one process and one run,
loading a file of three-line cases filled up to the cap (``--quick``: 1 MiB), the time per 1,000
cases, the process's peak resident memory, and refusing a file just over the cap (a ``stat``, no
parse). Nothing asserts a time.

Run: ``python bench/run.py --only loading``.
"""

from __future__ import annotations

import resource
import tempfile
from pathlib import Path

from bench import BenchResult, BenchRow, load_note, ratio, timed
from harness.common.errors import DatasetError
from harness.common.yamlio import MAX_YAML_BYTES
from harness.data.cases import load_datasets


def write_cases(path: Path, size: int) -> int:
    """Fill ``path`` with three-line golden cases up to ``size`` bytes; returns how many cases."""
    with path.open("w", encoding="utf-8") as fh:
        fh.write("golden_datasets:\n  - name: many\n    queries:\n")
        n = 0
        while fh.tell() < size - 200:
            fh.write(
                f"      - id: c{n}\n        query: 'What is {n} plus one?'\n        required_mentions: ['{n + 1}']\n"
            )
            n += 1
    return n


def run(quick: bool = False) -> BenchResult:
    size = 2**20 if quick else MAX_YAML_BYTES
    with tempfile.TemporaryDirectory() as tmp:
        at_cap = Path(tmp) / "at_cap.yaml"
        n = write_cases(at_cap, size)
        datasets, load = timed(lambda: load_datasets(at_cap))
        assert len(datasets[0].cases) == n
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        over = Path(tmp) / "over.yaml"
        with over.open("wb") as fh:
            fh.truncate(MAX_YAML_BYTES + 1)

        def refuse() -> str:
            try:
                load_datasets(over)
            except DatasetError as exc:
                return str(exc)
            return "not refused"

        message, refusal = timed(refuse)
    per_1000_ms = 1000 * load.wall_s / n * 1000
    return BenchResult(
        name="loading",
        figures={
            "cases": float(n),
            "load_s": load.wall_s,
            "load_cpu_s": load.cpu_s,
            "per_1000_cases_ms": per_1000_ms,
            "peak_rss_mb": peak_mb,
            "refuse_ms": 1000 * refusal.wall_s,
        },
        rows=(
            BenchRow(
                name="loading.at_cap",
                figure=f"{load.wall_s:.2f} s",
                ratio=f"{n} cases, {size / 2**20:.0f} MiB",
                note=f"CPU {load.cpu_s:.2f} s; {per_1000_ms:.0f} ms per 1,000 cases; peak RSS {peak_mb:.0f} MB",
            ),
            BenchRow(
                name="loading.over_cap",
                figure=f"{1000 * refusal.wall_s:.2f} ms",
                ratio=f"{ratio(load.wall_s, refusal.wall_s):.0f}x faster than loading at the cap",
                note=message[-90:],
            ),
        ),
        notes=(load_note(),),
    )
