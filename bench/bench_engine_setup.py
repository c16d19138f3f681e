"""Benchmark: what the embedded engine's set-up costs (issue 24): buffer types, threads, OpenMP wait policy.

1. **Buffer types.** Each engine file (SmolLM2's shipped Q4_1 file and its F16 copy, Gemma's Q4_K_M
   file) is timed with llama.cpp's extra buffer types on and off (``use_extra_bufts``, as
   ``COUNCIL_HARNESS_REPACK=off`` forces on any CPU): prompt speed (one 256-token batch) and
   generation speed (64 greedy tokens). On a CPU with AMX the harness runs with them off; this
   says what that costs on a CPU where both work. ``--threads`` threads (default 1: the least noisy
   on a shared machine).
2. **Threads and wait policy under load.** SmolLM2's generation and its F16 copy's prompt speed with
   1 and 2 threads, ``OMP_WAIT_POLICY`` unset and ``PASSIVE``, with no added load and with ``--load``
   busy-looping processes (each stopped after the measurement; they run at the same priority).

Every measurement is a fresh child process (OpenMP reads its wait policy when llama.cpp is loaded),
repeated ``--reps`` times in alternation, medians reported. The machine may be shared: the load
average before each part is printed. Run: ``python bench/bench_engine_setup.py [--reps 3] [--load 3]``.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import BenchResult, BenchRow, load_note, print_result, ratio  # noqa: E402

PROMPT_TOKENS = 256
GEN_TOKENS = 64
TIMEOUT_S = 600.0
SPINNER = "import time\nend = time.monotonic() + {s}\nwhile time.monotonic() < end: pass\n"


def measure(path: str, threads: int, extra_bufts: bool) -> dict[str, float]:
    """In this process: (prompt tokens/s, generation tokens/s) of ``path`` (the child side)."""
    from harness.providers.engine_setup import load_llama
    from harness.providers.local import _quiet_stderr

    with _quiet_stderr():
        llm = load_llama(
            path, extra_bufts=extra_bufts, n_ctx=1024, n_threads=threads, n_threads_batch=threads, seed=0, verbose=False
        )
    text = " ".join(["The quick brown fox jumps over the lazy dog."] * 40)
    tokens = llm.tokenize(text.encode(), add_bos=True)[:PROMPT_TOKENS]
    llm.eval(tokens[:8])  # warm-up (first-call allocations)
    llm.reset()
    started = time.perf_counter()
    llm.eval(tokens)
    prompt_s = time.perf_counter() - started
    started = time.perf_counter()
    out = llm.create_completion(
        prompt=tokens, max_tokens=GEN_TOKENS, temperature=0.0, logit_bias={llm.token_eos(): -1e9}
    )
    gen_s = time.perf_counter() - started
    llm.close()
    return {"prompt_tps": len(tokens) / prompt_s, "gen_tps": int(out["usage"]["completion_tokens"]) / gen_s}


def child(path: str, threads: int, extra_bufts: bool, policy: str | None) -> dict[str, float]:
    """:func:`measure` in a fresh process with ``OMP_WAIT_POLICY`` = ``policy`` (None: unset)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    else:
        env["OMP_WAIT_POLICY"] = ""  # harness.prepare_openmp leaves a set variable alone; "" is OpenMP's default
    code = (
        f"import json, bench.bench_engine_setup as b; print(json.dumps(b.measure({path!r}, {threads}, {extra_bufts})))"
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:  # a loaded machine: recorded as "did not finish", not as a crash
        return {"prompt_tps": math.nan, "gen_tps": math.nan}
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    print(
        f"  {Path(path).name} threads={threads} extra_bufts={extra_bufts} OMP_WAIT_POLICY={policy or 'default'}: "
        f"prompt {figures['prompt_tps']:.0f} tok/s, gen {figures['gen_tps']:.1f} tok/s",
        flush=True,
    )
    return figures


def median_of(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def run(reps: int = 3, load: int = 3, threads: int = 1) -> BenchResult:
    from harness.providers.embedded import model_path, prompt_model_path

    files = {
        "smollm2 Q4_1": str(model_path("smollm2-135m")),
        "smollm2 F16": str(prompt_model_path("smollm2-135m")),
        "gemma Q4_K_M": str(model_path("gemma3-270m")),
    }
    figures: dict[str, float] = {}
    rows: list[BenchRow] = []
    notes = [f"part 1 (buffer types, {threads} thread(s)): {load_note()}"]
    for name, path in files.items():
        runs: dict[bool, list[dict[str, float]]] = {True: [], False: []}
        for _ in range(reps):
            for extra in (True, False):
                runs[extra].append(child(path, threads, extra, "PASSIVE"))
        for key in ("prompt_tps", "gen_tps"):
            on, off = median_of(runs[True], key), median_of(runs[False], key)
            slug = f"{name.replace(' ', '_').lower()}.{key}"
            figures[f"{slug}.extra_on"], figures[f"{slug}.extra_off"] = on, off
            rows.append(
                BenchRow(
                    name=f"{name} {key}",
                    figure=f"on {on:.0f} / off {off:.0f} tok/s",
                    ratio=f"off/on {ratio(off, on):.2f}",
                    note="extra buffer types on vs off",
                )
            )
    smol, f16 = files["smollm2 Q4_1"], files["smollm2 F16"]
    for added in (0, load):
        spinners = [subprocess.Popen([sys.executable, "-c", SPINNER.format(s=600)]) for _ in range(added)]
        try:
            time.sleep(2 if added else 0)
            notes.append(f"part 2, {added} busy process(es) added: {load_note()}")
            for n in (1, 2):
                for policy in (None, "PASSIVE"):
                    gen = [child(smol, n, True, policy) for _ in range(reps)]
                    prompt = [child(f16, n, True, policy) for _ in range(reps)]
                    label = f"load+{added} threads={n} wait={policy or 'default'}"
                    g, p = median_of(gen, "gen_tps"), median_of(prompt, "prompt_tps")
                    figures[f"{label}.gen_tps"], figures[f"{label}.prompt_tps"] = g, p
                    rows.append(
                        BenchRow(
                            name=label,
                            figure=f"gen {g:.1f} tok/s, F16 prompt {p:.0f} tok/s",
                            ratio="",
                            note=f"medians of {reps}; gen {[round(r['gen_tps'], 1) for r in gen]}",
                        )
                    )
        finally:
            for s in spinners:
                s.kill()
                s.wait()
    return BenchResult(name="engine_setup", figures=figures, rows=tuple(rows), notes=tuple(notes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--load", type=int, default=3, help="busy-looping processes added in part 2")
    parser.add_argument("--threads", type=int, default=1, help="threads of part 1")
    args = parser.parse_args()
    print_result(run(args.reps, args.load, args.threads))


if __name__ == "__main__":
    main()
