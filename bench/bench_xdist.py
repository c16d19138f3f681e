"""Benchmark: a small golden run through ``pytest`` plainly and with ``pytest -n 2``, against one endpoint.

The endpoint is the tests' scripted loopback server (:class:`tests.fault_server.FaultServer` with
:func:`tests.scripted.scripted_reply`, every reply after ``DELAY_S``); the project is 24 scripted cases
through the council (three members) and the baseline, ``concurrency: 4``. The same session runs
plainly (every pair in one background loop, the endpoint's four slots kept busy) and with two
pytest-xdist workers (which share the four slots, the pause and the rate buckets through files, and
run their items one at a time). Figures: wall seconds of each whole ``pytest`` subprocess (start-up
included), the ratio ``-n 2 / plain``, and the requests the endpoint had in flight at most (never above
``concurrency`` in either). Nothing is asserted.

Run: ``python bench/run.py --only xdist``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench import BenchResult, BenchRow, ratio
from tests.fault_server import FaultServer
from tests.run.test_concurrency import run_pytest
from tests.scripted import scripted_dataset, scripted_reply

DELAY_S = 0.2
CASES = 24
CONCURRENCY = 4


def measure(cases: int, delay: float, workers: int) -> tuple[float, int, int]:
    """One session: (wall seconds, requests the endpoint received, the most it had unanswered at once)."""
    with tempfile.TemporaryDirectory(prefix="bench-xdist-") as tmp:
        project = Path(tmp)
        (project / "golden").mkdir()
        scripted_dataset(project / "golden" / "scripted.yaml", cases)
        (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        with FaultServer(responder=scripted_reply, delay=delay) as server:
            started = time.perf_counter()
            run_pytest(
                project,
                server.base_url,
                *(["-n", str(workers)] if workers else []),
                "--harness-subjects",
                "council,baseline",
                extra_env={"LLM_COUNCIL_CONCURRENCY": str(CONCURRENCY)},
            )
            seconds = time.perf_counter() - started
            return seconds, len(server.requests), server.max_unanswered


def run(quick: bool = False) -> BenchResult:
    """Plain, then ``-n 2`` (``quick``: 4 cases at 50 ms)."""
    cases, delay = (4, 0.05) if quick else (CASES, DELAY_S)
    plain_s, plain_n, plain_peak = measure(cases, delay, 0)
    xdist_s, xdist_n, xdist_peak = measure(cases, delay, 2)
    setup = f"{cases} cases x council+baseline, {delay * 1000:.0f} ms replies, concurrency {CONCURRENCY}"
    return BenchResult(
        name="xdist",
        figures={
            "plain_s": plain_s,
            "n2_s": xdist_s,
            "n2_over_plain": ratio(xdist_s, plain_s),
            "plain_requests": float(plain_n),
            "n2_requests": float(xdist_n),
            "plain_peak_in_flight": float(plain_peak),
            "n2_peak_in_flight": float(xdist_peak),
        },
        rows=(
            BenchRow(
                name="xdist.plain",
                figure=f"{plain_s:.1f} s",
                ratio="1.00x",
                note=f"{setup}; {plain_n} requests, at most {plain_peak} in flight",
            ),
            BenchRow(
                name="xdist.n2",
                figure=f"{xdist_s:.1f} s",
                ratio=f"{ratio(xdist_s, plain_s):.2f}x",
                note=f"pytest -n 2 on the same; {xdist_n} requests, at most {xdist_peak} in flight (shared slots)",
            ),
        ),
    )
