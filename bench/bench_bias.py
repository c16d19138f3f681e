"""Benchmark: read + aggregate time of the cross-session bias audit (seed 003 target: < 100 ms for 1,000 sessions).

Run: ``python bench/bench_bias.py [--quick] [--sessions 1000 100000] [--resamples 1000]``, or ``run(quick=...)``
from the benchmark runner (returns a :class:`bench.BenchResult`).

Beside the reference: on the same generated 1,000-session store (the first size) it also times,
in the same process, ``llm-council-core``'s own ``run_aggregated_bias_audit(store_path)`` (its
read + aggregation; the package is the ``llm-council`` extra) and prints the speed-up of ours
(best of 7 interleaved runs each, CPU and wall), with the columnar index beside the store current
(what every read after the first sees) and without it (``index=False``: every line decoded).
Unless ``--quick``, it then times the two commands as
subprocesses on that store (best of 5 interleaved rounds, wall): bare ``python -c pass``,
``council-harness bias-report --format json`` (all sessions; the minimum from the settings), the same
with ``--min-sessions`` too (no settings stack), ``llm-council bias-report --format json`` and python
importing what our command imports, and prints our command against the reference command, against
"bare start-up + our in-process work" and against "its imports + that work".

For each size it writes a synthetic JSONL store (4 reviewers x 3 candidates = 12 records per
session, with a built-in length bias, a position effect and a harsh reviewer), then times, in
one process, reading (every line parsed and validated) and ``run_aggregated_bias_audit`` (all
figures, bootstrap included): through ``read_table`` (streamed into columns, what ``bias-report``
does; this first read writes the store's columnar index) for every size, and through
``BiasStore.read`` (a list of record objects) up to 10,000
sessions. It prints wall and CPU times, the time per 1,000 sessions and the ratio to the seed's
100 ms target. Figures are measured in this run only; nothing asserts them.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import BenchResult, BenchRow, Timing, load_note, ratio, timed  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
from harness.bias.aggregate import read_table, run_aggregated_bias_audit  # noqa: E402
from harness.bias.columns import read_columns  # noqa: E402
from harness.bias.store import BiasMetricRecord, BiasStore, ConsentLevel, QueryMetadata  # noqa: E402
from harness.common.model import Frozen  # noqa: E402

TARGET_MS_PER_1000 = 100.0
REVIEWERS = ("alpha", "beta", "gamma", "delta")
HARSHNESS = {"alpha": 0.0, "beta": 0.3, "gamma": -1.5, "delta": 0.5}


def _line_format() -> str:
    """A ``str.format`` pattern of one record's JSON line, derived from a real :class:`BiasMetricRecord` dump."""
    dumped = BiasMetricRecord(
        session_id="SESSION",
        timestamp=datetime(2001, 2, 3, 4, 5, 6, tzinfo=UTC),
        consent_level=ConsentLevel.LOCAL_ONLY,
        query_metadata=QueryMetadata(category="general", token_count_bucket="0-100", language="en"),
        reviewer_id="REVIEWER",
        model_id="CANDIDATE",
        position=7,
        response_length_chars=8888,
        score_value=9.25,
        council_config_version="0.1.0+bench",
    ).model_dump_json()
    fmt = dumped.replace("{", "{{").replace("}", "}}")
    for token, placeholder in (
        ("SESSION", "{s}"),
        ("2001-02-03T04:05:06Z", "{t}"),
        ("REVIEWER", "{r}"),
        ("CANDIDATE", "{m}"),
        ('"position":7,', '"position":{p},'),
        ("8888", "{n}"),
        ("9.25", "{v}"),
    ):
        assert fmt.count(token) == 1, token
        fmt = fmt.replace(token, placeholder)
    return fmt


def write_synthetic(path: Path, sessions: int, seed: int = 7) -> int:
    """Write ``sessions`` synthetic sessions to ``path``; returns the number of records.

    Lines are formatted from one real record dump (see :func:`_line_format`): building a million
    models just to write them would dominate the run. Reading validates every line as usual.
    """
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    fmt = _line_format()
    count = 0
    with open(path, "w", encoding="utf-8") as fh:
        lines: list[str] = []
        for s in range(sessions):
            when = (start + timedelta(minutes=5 * s)).strftime("%Y-%m-%dT%H:%M:%SZ")
            lengths = {m: rng.randint(200, 2400) for m in REVIEWERS}
            for reviewer in REVIEWERS:
                order = [m for m in REVIEWERS if m != reviewer]
                rng.shuffle(order)
                for pos, cand in enumerate(order, start=1):
                    score = 6.0 + lengths[cand] / 1200.0 + HARSHNESS[reviewer] - 0.2 * pos + rng.gauss(0, 1.2)
                    lines.append(
                        fmt.format(
                            s=f"s{s:06d}",
                            t=when,
                            r=reviewer,
                            m=cand,
                            p=pos,
                            n=lengths[cand],
                            v=min(10.0, max(1.0, round(score, 2))),
                        )
                    )
                    count += 1
            if len(lines) > 50_000:
                fh.write("\n".join(lines) + "\n")
                lines.clear()
        if lines:
            fh.write("\n".join(lines) + "\n")
    return count


class SizeFigures(Frozen):
    """What one store size measured (seconds)."""

    sessions: int
    records: int
    bytes_per_session: float
    read: Timing
    aggregate: Timing
    records_read: Timing | None = None
    records_aggregate: Timing | None = None
    pooled_r: float | None = None


def measure(sessions: int, resamples: int, folder: Path, records_path: bool) -> SizeFigures:
    """Write a synthetic store of ``sessions`` sessions and time reading and aggregating it.

    Args:
        sessions: number of synthetic sessions (12 records each).
        resamples: bootstrap resamples of the position-variance interval.
        folder: where the temporary store is written.
        records_path: also time ``BiasStore.read`` (a list of record objects) before aggregating.
    """
    path = folder / f"bias_{sessions}.jsonl"
    n_records = write_synthetic(path, sessions)
    store = BiasStore(path)
    rec_read = rec_agg = None
    if records_path:
        read, rec_read = timed(store.read)
        _, rec_agg = timed(lambda: run_aggregated_bias_audit(read.records, bootstrap_resamples=resamples))
        del read
    table, t_read = timed(lambda: read_table(store))
    report, t_agg = timed(lambda: run_aggregated_bias_audit(table.table, bootstrap_resamples=resamples))
    lc = report.length_correlation
    return SizeFigures(
        sessions=sessions,
        records=n_records,
        bytes_per_session=path.stat().st_size / sessions,
        read=t_read,
        aggregate=t_agg,
        records_read=rec_read,
        records_aggregate=rec_agg,
        pooled_r=lc.point_estimate if lc is not None else None,
    )


def best_of(fn: Callable[[], object], repeats: int) -> Timing:
    """The fastest of ``repeats`` calls (wall and CPU taken separately, each at its minimum)."""
    runs = [timed(fn)[1] for _ in range(repeats)]
    return Timing(wall_s=min(t.wall_s for t in runs), cpu_s=min(t.cpu_s for t in runs))


def _reference_audit() -> Callable[[Path], object] | None:
    """llm-council-core's ``run_aggregated_bias_audit``, or ``None`` when the package is not installed."""
    try:
        from llm_council.bias_aggregation import run_aggregated_bias_audit as reference
    except ImportError:
        return None
    return lambda path: reference(store_path=path)


def _commands_wall(argvs: dict[str, list[str]], repeats: int, cwd: Path) -> dict[str, float]:
    """Best wall seconds of running each command (exit code 0 required), in interleaved rounds so that
    every command sees the same moments of a shared machine."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    best = dict.fromkeys(argvs, float("inf"))
    for _ in range(repeats):
        for name, argv in argvs.items():
            started = time.perf_counter()
            proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
            elapsed = time.perf_counter() - started
            if proc.returncode != 0:
                raise RuntimeError(f"{argv[0]} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-300:]}")
            best[name] = min(best[name], elapsed)
    return best


def _script(name: str) -> list[str] | None:
    """A console script of this interpreter's environment (``council-harness``, ``llm-council``)."""
    found = Path(sys.executable).parent / name
    if found.exists():
        return [str(found)]
    which = shutil.which(name)
    return [which] if which else None


def compare_with_reference(path: Path, resamples: int, commands: bool, repeats: int = 7) -> BenchResult:
    """Time ours and llm-council-core's aggregation of the same store, in process and as commands.

    Args:
        path: a bias JSONL store (both packages read its format).
        resamples: bootstrap resamples of our audit.
        commands: also time the two ``bias-report`` commands as subprocesses.
        repeats: in-process runs of each (the best counts).
    """
    store = BiasStore(path)

    def ours() -> object:
        return run_aggregated_bias_audit(read_table(store).table, bootstrap_resamples=resamples)

    def ours_cold() -> object:  # without the columnar index: every line decoded
        return run_aggregated_bias_audit(read_columns(store, index=False).table, bootstrap_resamples=resamples)

    ours()  # warm: first-use imports (scipy.special) are start-up, not work; writes the columnar index
    reference = _reference_audit()
    rows: list[BenchRow] = []
    notes: list[str] = []
    if reference is None:
        mine = best_of(ours, repeats)
        cold = best_of(ours_cold, repeats)
        notes.append("llm-council-core is not installed (extra `llm-council`): no reference figures")
    else:
        reference(path)
        # interleaved, so that both see the same moments of a shared machine; the best of each counts
        triples = [(timed(ours)[1], timed(ours_cold)[1], timed(lambda: reference(path))[1]) for _ in range(repeats)]
        mine = Timing(wall_s=min(p[0].wall_s for p in triples), cpu_s=min(p[0].cpu_s for p in triples))
        cold = Timing(wall_s=min(p[1].wall_s for p in triples), cpu_s=min(p[1].cpu_s for p in triples))
        ref = Timing(wall_s=min(p[2].wall_s for p in triples), cpu_s=min(p[2].cpu_s for p in triples))
    figures = {
        "ours_ms": mine.wall_s * 1000,
        "ours_cpu_ms": mine.cpu_s * 1000,
        "ours_no_index_ms": cold.wall_s * 1000,
        "ours_no_index_cpu_ms": cold.cpu_s * 1000,
    }
    if reference is not None:
        figures.update(
            {
                "reference_ms": ref.wall_s * 1000,
                "reference_cpu_ms": ref.cpu_s * 1000,
                "speedup_cpu": ratio(ref.cpu_s, mine.cpu_s),
                "speedup_wall": ratio(ref.wall_s, mine.wall_s),
                "speedup_no_index_cpu": ratio(ref.cpu_s, cold.cpu_s),
            }
        )
        rows.append(
            BenchRow(
                name="bias.vs reference (in process)",
                figure=f"{mine.cpu_s * 1000:,.1f} ms vs {ref.cpu_s * 1000:,.1f} ms cpu",
                ratio=f"{ratio(ref.cpu_s, mine.cpu_s):.1f}x faster (wall {ratio(ref.wall_s, mine.wall_s):.1f}x)",
                note=f"best of {repeats} interleaved runs: read_table (columnar index current) + "
                f"run_aggregated_bias_audit ({resamples} resamples) vs "
                "llm_council.bias_aggregation.run_aggregated_bias_audit(store_path); same store",
            )
        )
        rows.append(
            BenchRow(
                name="bias.vs reference, no index (in process)",
                figure=f"{cold.cpu_s * 1000:,.1f} ms vs {ref.cpu_s * 1000:,.1f} ms cpu",
                ratio=f"{ratio(ref.cpu_s, cold.cpu_s):.1f}x faster (wall {ratio(ref.wall_s, cold.wall_s):.1f}x)",
                note="read_columns(store, index=False): every line decoded, as on a first read",
            )
        )
    if commands:
        ours_cmd = _script("council-harness") or [sys.executable, "-m", "harness.cli"]
        report = [*ours_cmd, "bias-report", "--input", str(path), "--sessions", "0", "--days", "0", "--format", "json"]
        argvs = {
            "bare": [sys.executable, "-c", "pass"],
            "ours": report,
            "ours_all_options": [*report, "--min-sessions", "20"],
            "imports": [sys.executable, "-c", "import harness.cli, harness.bias.report, harness.config, numpy.random"],
        }
        ref_cmd = _script("llm-council") if reference is not None else None
        if ref_cmd is not None:
            argvs["reference"] = [*ref_cmd, "bias-report", "--input", str(path), "--format", "json"]
        with tempfile.TemporaryDirectory(prefix="bench-bias-cwd-") as cwd:
            best = _commands_wall(argvs, 5, Path(cwd))
        bare, mine_s, all_s, imports = best["bare"], best["ours"], best["ours_all_options"], best["imports"]
        floor = bare + mine.wall_s
        figures.update(
            {
                "command_bare_python_ms": bare * 1000,
                "command_imports_ms": imports * 1000,
                "command_ours_ms": mine_s * 1000,
                "command_ours_vs_floor": ratio(mine_s, floor),
                "command_ours_all_options_ms": all_s * 1000,
                "command_ours_all_options_vs_floor": ratio(all_s, floor),
                "command_ours_vs_imports_floor": ratio(mine_s, imports + mine.wall_s),
            }
        )
        rows.append(
            BenchRow(
                name="bias.bias-report command",
                figure=f"{mine_s * 1000:,.0f} ms",
                ratio=f"{ratio(mine_s, floor):.2f}x bare start-up + in-process work ({floor * 1000:,.0f} ms); "
                f"{ratio(mine_s, imports + mine.wall_s):.2f}x its imports + work",
                note=f"bare `python -c pass` {bare * 1000:,.0f} ms, python + the command's imports (numpy, pydantic, "
                f"msgspec, settings) {imports * 1000:,.0f} ms; best of 5 interleaved; --format json, minimum "
                "from the settings",
            )
        )
        rows.append(
            BenchRow(
                name="bias.bias-report, every option given",
                figure=f"{all_s * 1000:,.0f} ms",
                ratio=f"{ratio(all_s, floor):.2f}x bare start-up + in-process work",
                note="--min-sessions too: no settings stack (pydantic-settings, YAML) is imported",
            )
        )
        if "reference" in best:
            ref_s = best["reference"]
            figures.update({"command_reference_ms": ref_s * 1000, "command_speedup": ratio(ref_s, mine_s)})
            rows.append(
                BenchRow(
                    name="bias.vs reference command",
                    figure=f"{mine_s * 1000:,.0f} ms vs {ref_s * 1000:,.0f} ms",
                    ratio=f"{ratio(ref_s, mine_s):.2f}x faster",
                    note="`llm-council bias-report --format json`",
                )
            )
    return BenchResult(name="bias.reference", figures=figures, rows=tuple(rows), notes=tuple(notes))


def run(quick: bool = False, resamples: int = 1000, sizes: tuple[int, ...] | None = None) -> BenchResult:
    """Measure read + aggregate at 1,000 sessions and (unless ``quick``) 100,000 sessions.

    Args:
        quick: only the 1,000-session store (a few seconds).
        resamples: bootstrap resamples of the position-variance interval.
        sizes: session counts to measure instead of the defaults.
    """
    sizes = sizes or ((1000,) if quick else (1000, 100_000))
    figures: dict[str, float] = {}
    rows: list[BenchRow] = []
    notes = [
        load_note(),
        "12 records per session (4 reviewers x 3 candidates); read = parse + validate every line; "
        "aggregate = run_aggregated_bias_audit with every figure (bootstrap included)",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-bias-") as tmp:
        for i, n in enumerate(sizes):
            f = measure(n, resamples, Path(tmp), records_path=n <= 10_000)
            if i == 0:
                ref = compare_with_reference(Path(tmp) / f"bias_{n}.jsonl", resamples, commands=not quick)
                figures.update({f"sessions_{n}.{k}": v for k, v in ref.figures.items()})
                rows.extend(ref.rows)
                notes.extend(ref.notes)
            per_k = n / 1000
            wall_ms = (f.read.wall_s + f.aggregate.wall_s) * 1000
            cpu_ms = (f.read.cpu_s + f.aggregate.cpu_s) * 1000
            key = f"sessions_{n}"
            figures.update(
                {
                    f"{key}.records": float(f.records),
                    f"{key}.bytes_per_session": f.bytes_per_session,
                    f"{key}.read_ms": f.read.wall_s * 1000,
                    f"{key}.read_cpu_ms": f.read.cpu_s * 1000,
                    f"{key}.aggregate_ms": f.aggregate.wall_s * 1000,
                    f"{key}.aggregate_cpu_ms": f.aggregate.cpu_s * 1000,
                    f"{key}.per_1000_sessions_ms": wall_ms / per_k,
                    f"{key}.per_1000_sessions_cpu_ms": cpu_ms / per_k,
                    f"{key}.ratio_to_target": ratio(wall_ms / per_k, TARGET_MS_PER_1000),
                    f"{key}.cpu_ratio_to_target": ratio(cpu_ms / per_k, TARGET_MS_PER_1000),
                }
            )
            rows.append(
                BenchRow(
                    name=f"bias.read+aggregate {n:,} sessions",
                    figure=f"{wall_ms:,.0f} ms (cpu {cpu_ms:,.0f} ms)",
                    ratio=f"{wall_ms / per_k / TARGET_MS_PER_1000:.2f}x "
                    f"(cpu {cpu_ms / per_k / TARGET_MS_PER_1000:.2f}x) "
                    "the 100 ms / 1,000 sessions target",
                    note=f"per 1,000 sessions; read {f.read.cpu_s * 1000 / per_k:,.0f} + aggregate "
                    f"{f.aggregate.cpu_s * 1000 / per_k:,.0f} ms cpu; streamed into columns (read_table)",
                )
            )
            if f.records_read is not None and f.records_aggregate is not None:
                rec_ms = (f.records_read.wall_s + f.records_aggregate.wall_s) * 1000
                rec_cpu = (f.records_read.cpu_s + f.records_aggregate.cpu_s) * 1000
                figures[f"{key}.records_path_ms"] = rec_ms
                figures[f"{key}.records_path_cpu_ms"] = rec_cpu
                rows.append(
                    BenchRow(
                        name=f"bias.records path {n:,} sessions",
                        figure=f"{rec_ms:,.0f} ms (cpu {rec_cpu:,.0f} ms)",
                        ratio=f"{ratio(rec_cpu, cpu_ms):.2f}x the table path (cpu)",
                        note="BiasStore.read (a list of record objects) then aggregate",
                    )
                )
            rows.append(
                BenchRow(
                    name=f"bias.storage {n:,} sessions",
                    figure=f"{f.bytes_per_session:,.0f} B/session",
                    ratio=f"{f.bytes_per_session / 1024:.2f}x the 1 KiB/session target",
                    note="the seed's record schema, one line per (reviewer, candidate)",
                )
            )
            if f.pooled_r is not None:
                notes.append(f"{n:,} sessions: pooled length-score r = {f.pooled_r:.3f} (synthetic bias built in)")
    return BenchResult(name="bias", figures=figures, rows=tuple(rows), notes=tuple(notes))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=None, help="session counts (default 1000 100000)")
    parser.add_argument("--quick", action="store_true", help="only 1,000 sessions")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for position variance")
    args = parser.parse_args()
    result = run(quick=args.quick, resamples=args.resamples, sizes=tuple(args.sessions) if args.sessions else None)
    width = max(len(r.name) for r in result.rows)
    for row in result.rows:
        print(f"{row.name:<{width}}  {row.figure:>26}  {row.ratio}")
        if row.note:
            print(f"{'':<{width}}  {'':>26}  ({row.note})")
    for note in result.notes:
        print(f"- {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
