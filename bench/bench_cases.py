"""Benchmark: case-level concurrency of ``run_cases`` against a loopback endpoint, and a 10,000-case run.

**Throughput.** N cases x (council, baseline) run through the real ``run_cases`` against
:class:`tests.fault_server.FaultServer` answering every request after a fixed delay (0.25 s) with
:func:`tests.scripted.scripted_reply` (ballots and rubric judgements are valid JSON, so every stage
and the LLM judge run: 3 + 3 + 1 + 1 council requests and 1 + 1 baseline requests per case).
Printed per N: the peak requests in flight at the server, the wall time, ``wall / sum of request
times`` (the issue's figure: 0.68 when cases ran one at a time) and ``wall / ideal`` where
``ideal = max(sum of request times / concurrency, critical path)`` and the critical path is the
longest chain of sequential requests of one case (4 x 0.25 s for the council: answers, reviews,
synthesis, judge). N = 20 is also run one case at a time (``window=1``, the old loop) for reference.

**Scale.** A 10,000-case dataset through the ``baseline`` subject against the endpoint with no
delay, as the real CLI in a subprocess: its peak RSS (``ru_maxrss`` of that process, which also
builds the report at the end), the time to load the YAML, the ``report`` command's time, the
``index.html`` size, and the ``export`` command's time.

Run: ``python bench/run.py --only cases``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from bench import BenchResult, BenchRow, ratio
from harness.common.model import Frozen
from harness.config import load_settings
from harness.data.cases import load_datasets
from harness.run.orchestrate import run_cases
from tests.fault_server import FaultServer
from tests.scripted import scripted_dataset, scripted_reply

DELAY_S = 0.25
CONCURRENCY = 16
MEMBERS = [
    {"id": "a", "provider": "openai", "model": "m-a", "temperature": 0.2},
    {"id": "b", "provider": "openai", "model": "m-b", "temperature": 0.7, "seed": 1},
    {"id": "c", "provider": "openai", "model": "m-c", "temperature": 0.9, "seed": 2},
]


class Throughput(Frozen):
    """One throughput measurement.

    Args:
        cases: cases run (each through council and baseline).
        window: pairs in flight at most (``None``: the default, twice the request slots).
        requests: requests the server received.
        peak_in_flight: the most requests the server had at once.
        wall_s: the run's wall time.
        sum_s: requests x delay (the sum of request times).
        critical_s: the longest chain of sequential requests of one case, in seconds.
        ideal_s: ``max(sum_s / concurrency, critical_s)``.
        failed: pairs that ended in ``error`` (should be 0).
    """

    cases: int
    window: int | None
    requests: int
    peak_in_flight: int
    wall_s: float
    sum_s: float
    critical_s: float
    ideal_s: float
    failed: int


def measure(
    cases: int,
    delay: float = DELAY_S,
    concurrency: int = CONCURRENCY,
    window: int | None = None,
) -> Throughput:
    """Run ``cases`` x (council, baseline) at ``concurrency`` against a fresh server with ``delay``."""
    with (
        tempfile.TemporaryDirectory(prefix="bench-cases-") as tmp,
        FaultServer(responder=scripted_reply, delay=delay) as server,
    ):
        data = scripted_dataset(Path(tmp) / "scripted.yaml", cases)
        settings = load_settings(
            base_url=server.base_url,
            api_key_env="NO_SUCH_KEY_VARIABLE",
            models=MEMBERS,
            chairman="a",
            cache_mode="off",
            rubric_scoring=True,
            reports_dir=Path(tmp) / "reports",
            concurrency=concurrency,
            max_retries=0,
        )
        started = time.perf_counter()
        run = run_cases(
            settings,
            load_datasets(data),
            ["council", "baseline"],
            console=Console(stderr=True, quiet=True),
            window=window,
        )
        wall = time.perf_counter() - started
        requests, peak = len(server.requests), server.max_in_flight
    chains = []
    for r in run.results:
        stages = {c.stage for c in r.transcript.calls} if r.transcript else set()
        chains.append(len(stages) + len(r.scoring_calls))
    critical = max(chains, default=0) * delay
    total = requests * delay
    return Throughput(
        cases=cases,
        window=window,
        requests=requests,
        peak_in_flight=peak,
        wall_s=wall,
        sum_s=total,
        critical_s=critical,
        ideal_s=max(total / concurrency, critical),
        failed=sum(r.status == "error" for r in run.results),
    )


class Scale(Frozen):
    """The 10,000-case figures (see the module docstring)."""

    cases: int
    run_s: float
    peak_rss_mb: float
    yaml_load_s: float
    report_s: float
    report_mb: float
    export_s: float
    results: int


_MAXRSS = (
    "import resource, sys\n"
    "from harness.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(f'MAXRSS_KB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Run the CLI in a subprocess; return its wall seconds, its peak RSS in MB and its stderr."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _MAXRSS, *args], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"council-harness {' '.join(args)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    kb = next((int(x.split()[1]) for x in proc.stderr.splitlines() if x.startswith("MAXRSS_KB")), 0)
    return wall, kb / 1024, proc.stderr


def scale(cases: int = 10_000, concurrency: int = 32) -> Scale:
    """Run ``cases`` through the baseline with the CLI against a no-delay server; time the report and export."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp, FaultServer(responder=scripted_reply) as server:
        work = Path(tmp)
        data = scripted_dataset(work / "big.yaml", cases, name="big")
        started = time.perf_counter()
        loaded = load_datasets(data)
        yaml_s = time.perf_counter() - started
        assert len(loaded[0].cases) == cases
        del loaded
        env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_COUNCIL_")}
        env.update(
            {
                "PYTHONPATH": str(root),
                "LLM_COUNCIL_BASE_URL": server.base_url,
                "LLM_COUNCIL_MODELS": "m-a",
                "LLM_COUNCIL_CONCURRENCY": str(concurrency),
                "LLM_COUNCIL_CACHE_MODE": "off",
                "LLM_COUNCIL_RUBRIC_SCORING": "false",
                "LLM_COUNCIL_REPORTS_DIR": str(work / "reports"),
                "LLM_COUNCIL_MAX_RETRIES": "0",
            }
        )
        run_s, rss, _ = _cli(["run", "--data", str(data), "--dataset", "big", "--subjects", "baseline"], env, work)
        run_dir = next((work / "reports" / "runs").iterdir())
        results = sum(1 for _ in (run_dir / "results.jsonl").open(encoding="utf-8"))
        report_s, _, _ = _cli(["report", str(run_dir), "--reports-dir", str(work / "reports")], env, work)
        size = (run_dir / "index.html").stat().st_size / 2**20
        export_s, _, _ = _cli(["export", str(run_dir), "--output", str(work / "big.parquet")], env, work)
    return Scale(
        cases=cases,
        run_s=run_s,
        peak_rss_mb=rss,
        yaml_load_s=yaml_s,
        report_s=report_s,
        report_mb=size,
        export_s=export_s,
        results=results,
    )


def _rows(t: Throughput, label: str) -> tuple[list[BenchRow], dict[str, float]]:
    per_sum, per_ideal = ratio(t.wall_s, t.sum_s), ratio(t.wall_s, t.ideal_s)
    figures = {
        f"{label}_wall_s": t.wall_s,
        f"{label}_peak_in_flight": float(t.peak_in_flight),
        f"{label}_requests": float(t.requests),
        f"{label}_wall_per_sum": per_sum,
        f"{label}_wall_per_ideal": per_ideal,
        f"{label}_ideal_s": t.ideal_s,
        f"{label}_errors": float(t.failed),
    }
    window = "one case at a time" if t.window == 1 else f"concurrency {CONCURRENCY}"
    row = BenchRow(
        name=f"cases.{label}",
        figure=f"{t.wall_s:.2f} s",
        ratio=f"{per_sum:.3f} of sum, {per_ideal:.2f}x ideal",
        note=(
            f"{t.cases} cases x (council, baseline), {window}: {t.requests} requests x {DELAY_S * 1000:.0f} ms "
            f"(sum {t.sum_s:.1f} s, ideal {t.ideal_s:.2f} s), peak {t.peak_in_flight} in flight"
        ),
    )
    return [row], figures


def run(quick: bool = False, scale_cases: int | None = None) -> BenchResult:
    """Measure throughput at 20 and 200 cases (and 20 one at a time), then the scale run.

    Args:
        quick: 4 cases at 100 ms, and a 200-case scale run (smoke test).
        scale_cases: cases of the scale run (default 10,000).
    """
    rows: list[BenchRow] = []
    figures: dict[str, Any] = {}
    plans = [("c20_serial", 4 if quick else 20, 1), ("c20", 4 if quick else 20, None)]
    if not quick:
        plans.append(("c200", 200, None))
    delay = 0.1 if quick else DELAY_S
    for label, n, window in plans:
        t = measure(n, delay=delay, window=window)
        r, f = _rows(t, label)
        rows += r
        figures.update(f)
    s = scale(scale_cases or (200 if quick else 10_000))
    figures.update(
        {
            "scale_cases": float(s.cases),
            "scale_run_s": s.run_s,
            "scale_peak_rss_mb": s.peak_rss_mb,
            "scale_yaml_load_s": s.yaml_load_s,
            "scale_report_s": s.report_s,
            "scale_report_mb": s.report_mb,
            "scale_export_s": s.export_s,
            "scale_results": float(s.results),
        }
    )
    rows += [
        BenchRow(
            name="cases.scale_run",
            figure=f"{s.run_s:.1f} s",
            ratio=f"peak RSS {s.peak_rss_mb:.0f} MB",
            note=f"{s.cases} cases through the baseline, CLI subprocess incl. report ({s.results} result lines)",
        ),
        BenchRow(
            name="cases.scale_yaml",
            figure=f"{s.yaml_load_s:.2f} s",
            ratio=f"{s.cases} cases",
            note="load_datasets of the generated YAML",
        ),
        BenchRow(
            name="cases.scale_report",
            figure=f"{s.report_s:.1f} s",
            ratio=f"{s.report_mb:.1f} MB",
            note="`council-harness report` subprocess (start-up, load, render, write)",
        ),
        BenchRow(
            name="cases.scale_export",
            figure=f"{s.export_s:.1f} s",
            ratio="parquet",
            note="`council-harness export` subprocess",
        ),
    ]
    notes = (
        f"cases: loopback FaultServer, {delay * 1000:.0f} ms per reply, scripted replies (valid ballots and "
        "judgements); sum of request times = requests x delay; ideal = max(sum / concurrency, critical path)",
    )
    return BenchResult(name="cases", figures=figures, rows=tuple(rows), notes=notes)
