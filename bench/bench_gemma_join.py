"""Benchmark: what joining Gemma's parts in memory costs a process, against joining them into the cache (issue 30).

Gemma's GGUF ships as four parts (:mod:`harness.providers.joined_parts`). Joined in memory (the
default on Linux), every process that loads Gemma joins it again; joined into the cache
(``COUNCIL_HARNESS_JOIN=cache``), the first process writes 253 MB to disk once and later ones only
find it. Each measurement is a fresh interpreter with its own cache folder: ``model_path`` (the join,
SHA-256 included; for the warm cache, finding the file) and llama.cpp's load of the file it names, and
the process's resident memory after the load (``/proc/self/status``: all, and the part that is
in-memory-file pages, ``RssShmem``). Rounds are interleaved (memory, cache cold, cache warm), so a busy
moment on a shared machine hits each mode alike; the figures are medians. Nothing asserts a time.

Run: ``python bench/bench_gemma_join.py [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import BenchResult, BenchRow, load_note, print_result, ratio  # noqa: E402

CHILD = """
import json, time
from harness.providers.engine_setup import engine_setup, load_llama, prepare_openmp
prepare_openmp()
from harness.providers.embedded import model_path
started = time.perf_counter()
path = model_path("gemma3-270m")
joined = time.perf_counter()
llm = load_llama(path, extra_bufts=engine_setup(None).extra_bufts, n_ctx=512, verbose=False)
loaded = time.perf_counter()
status = dict(line.split(":", 1) for line in open("/proc/self/status") if line.startswith(("VmRSS", "RssShmem")))
print(json.dumps({"join_s": joined - started, "load_s": loaded - joined,
                  **{k: int(v.split()[0]) for k, v in status.items()}}))
"""

MODES = ("memory", "cache cold", "cache warm")


def _once(mode: str, cache: Path) -> dict[str, float]:
    env = {**os.environ, "COUNCIL_HARNESS_CACHE_DIR": str(cache), "COUNCIL_HARNESS_JOIN": mode.split()[0]}
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env['PYTHONPATH']}" if env.get("PYTHONPATH") else str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, cwd=ROOT, capture_output=True, text=True, check=True, timeout=600
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(rounds: int = 5) -> BenchResult:
    seen: dict[str, list[dict[str, float]]] = {m: [] for m in MODES}
    with tempfile.TemporaryDirectory(prefix="bench-gemma-join-") as tmp:
        for i in range(rounds):
            seen["memory"].append(_once("memory", Path(tmp) / f"memory{i}"))
            seen["cache cold"].append(_once("cache cold", Path(tmp) / f"cache{i}"))  # writes the joined file
            seen["cache warm"].append(_once("cache warm", Path(tmp) / f"cache{i}"))  # finds it
    med = {m: {k: statistics.median(r[k] for r in runs) for k in runs[0]} for m, runs in seen.items()}
    figures = {f"{m.replace(' ', '_')}.{k}": v for m, fig in med.items() for k, v in fig.items()}
    rows = [
        BenchRow(
            name=f"gemma_join.{mode.replace(' ', '_')}",
            figure=f"{med[mode]['join_s']:.2f} s",
            ratio=f"{ratio(med[mode]['join_s'], med[mode]['load_s']):.2f}x llama.cpp's load of it",
            note=f"load {med[mode]['load_s']:.2f} s; RSS {med[mode]['VmRSS'] / 1024:.0f} MB "
            f"({med[mode]['RssShmem'] / 1024:.0f} MB of it in-memory-file pages)",
        )
        for mode in MODES
    ]
    memory, warm = med["memory"], med["cache warm"]
    extra = memory["join_s"] + memory["load_s"] - warm["join_s"] - warm["load_s"]
    figures["memory_extra_per_process_s"] = extra
    notes = (
        f"{rounds} rounds, medians; {load_note()}",
        f"joining in memory adds {extra:.2f} s to every process that loads Gemma, against a warm cache "
        f"(and writes nothing: the cache's first join writes 253 MB once)",
    )
    return BenchResult(name="gemma_join", figures=figures, rows=tuple(rows), notes=notes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    print_result(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
