"""Benchmark: where the README's main command spends its model time, and how far it is from its floor.

In one process, at one moment on this machine:

1. **Speeds.** For each embedded model, just before and just after the command (the mean of the
   two is used, since the machine is shared): prompt speed (tokens/s of one
   batched evaluation of a 384-token prompt) and generation speed (200 greedy tokens with the
   end-of-text token suppressed, timed after the prompt). ``smol_200_s`` is the seconds SmolLM2
   takes to generate 200 tokens (prompt evaluation not included).
2. **The command, cold.** ``council-harness run --suite reasoning-100 --limit N`` in a subprocess
   with an empty record/replay cache and a fresh reports folder (defaults otherwise).
3. **Figures** from that run's manifest (``stage_usage``) and its recorded calls:
   * each stage's share of the model seconds;
   * the *floor*: the run's own token counts at the measured speeds,
     ``sum over calls ((tokens_in - cached_tokens) / prompt_speed + tokens_out / generation_speed)``
     of the engines that handled it (SmolLM2's prompts are evaluated on its F16 copy, whose speeds
     are measured too; its chat replies and the short critiques of its stage-2 ballots are generated
     on the shipped Q4_1 file, which is also the headline's SmolLM2);
     ``model time / floor`` says how much the calls cost beyond evaluating and generating those
     tokens (per-call overhead, two engines sharing the cores);
   * the headline ratio: wall seconds of the command per challenge over ``smol_200_s``
     (issue 16's target: at most 4).

Run: ``python bench/bench_stages.py [--limit 8] [--threads N] [--workdir DIR]`` (``--workdir``
keeps the run folder, e.g. to read the judge-validity panel of a whole-suite run). Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import BenchResult, BenchRow, load_note, print_result, ratio  # noqa: E402
from harness.records.transcript import CallRecord  # noqa: E402

PROMPT_TOKENS = 384
GEN_TOKENS = 200


def model_speeds(model: str, threads: int, probe: bool = False) -> tuple[float, float, float]:
    """(prompt tokens/s, generation tokens/s, seconds for 200 generated tokens) of one embedded model
    (``probe``: of its F16 copy, see ``harness.providers.embedded.prompt_model_path``)."""
    from harness.providers.embedded import model_path, prompt_model_path
    from harness.providers.engine_setup import extra_bufts_choice, load_llama
    from harness.providers.local import N_CTX, _quiet_stderr

    path = prompt_model_path(model) if probe else model_path(model)
    with _quiet_stderr():
        # the harness's own set-up (buffer types, OMP_WAIT_POLICY=PASSIVE): the command's engines run with it
        llm = load_llama(
            path,
            extra_bufts=extra_bufts_choice()[0],
            n_ctx=N_CTX,
            n_threads=threads,
            n_threads_batch=threads,
            seed=0,
            verbose=False,
        )
    text = " ".join(["The quick brown fox jumps over the lazy dog."] * 64)
    tokens = llm.tokenize(text.encode(), add_bos=True)[:PROMPT_TOKENS]
    llm.reset()
    started = time.perf_counter()
    llm.eval(tokens)
    prompt_s = time.perf_counter() - started
    # generation: the same prompt cached, 200 greedy tokens with end-of-text suppressed
    gen_started = time.perf_counter()
    out = llm.create_completion(
        prompt=tokens, max_tokens=GEN_TOKENS, temperature=0.0, logit_bias={llm.token_eos(): -1e9}
    )
    gen_total = time.perf_counter() - gen_started
    n = int(out["usage"]["completion_tokens"])
    llm.close()
    gen_speed = n / gen_total
    return len(tokens) / prompt_s, gen_speed, GEN_TOKENS / gen_speed


def run_command(limit: int, workdir: Path) -> tuple[float, Path, str]:
    """Run the main command cold; (wall seconds, run folder, its output tail)."""
    env = {
        **os.environ,
        "LLM_COUNCIL_CACHE_PATH": str(workdir / "cache.sqlite"),
        "LLM_COUNCIL_REPORTS_DIR": str(workdir / "reports"),
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    exe = Path(sys.executable).with_name("council-harness")
    cmd = [
        str(exe) if exe.exists() else sys.executable,
        *([] if exe.exists() else ["-m", "harness.cli"]),
        "run",
        "--suite",
        "reasoning-100",
        "--limit",
        str(limit),
    ]
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    runs = sorted((workdir / "reports" / "runs").glob("*/manifest.json"))
    if not runs:
        raise RuntimeError(f"the command wrote no run (exit {proc.returncode}): {proc.stderr[-800:]}")
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-12:])
    return seconds, runs[-1].parent, tail


def run(limit: int = 8, threads: int | None = None, workdir: Path | None = None) -> BenchResult:
    from harness.run.runs import load_run
    from harness.run.usage import result_calls, stage_shares, stage_usage

    threads = threads or os.cpu_count() or 1
    from harness.providers.embedded import EMBEDDED

    # an engine: (model, F16 copy?); SmolLM2's prompts and probes run on its F16 copy
    engines = [
        ("smollm2-135m", False),
        ("gemma3-270m", False),
        *((m, True) for m in ("smollm2-135m", "gemma3-270m") if EMBEDDED[m].f16_prompts),
    ]
    before = {e: model_speeds(e[0], threads, probe=e[1]) for e in engines}
    with tempfile.TemporaryDirectory(prefix="bench-stages-") as tmp:
        folder = Path(tmp)
        if workdir is not None:  # kept afterwards: the run folder and its report survive the benchmark
            folder = workdir
            folder.mkdir(parents=True, exist_ok=True)
            if any(folder.iterdir()):
                raise SystemExit(f"--workdir {folder} is not empty: the run must start cold")
        wall, run_dir, tail = run_command(limit, folder)
        loaded = load_run(run_dir)
        usage = loaded.manifest.stage_usage or stage_usage(loaded.results)
        after = {e: model_speeds(e[0], threads, probe=e[1]) for e in engines}
        # the machine is shared: the speeds are the mean of a measurement just before and just after
        speeds = {e: tuple((a + b) / 2 for a, b in zip(before[e], after[e], strict=True)) for e in engines}
        calls = [c for r in loaded.results for c in result_calls(r) if not c.cached and c.error is None]
        cases = len({r.case_id for r in loaded.results})
    model_s = sum(c.latency_s for c in calls)

    def seconds(c: CallRecord) -> float:
        """The call's tokens at the speeds of the engines that handled them (see the module docstring)."""
        f16 = (c.model, True) in speeds  # prompts on the F16 copy, every generation on the shipped file
        prompt_speed = speeds[(c.model, f16)][0]
        gen_speed = speeds[(c.model, False)][1]
        return (c.tokens_in - (c.cached_tokens or 0)) / prompt_speed + c.tokens_out / gen_speed

    floor_s = sum(seconds(c) for c in calls)  # prompt tokens reused from a KV cache are not evaluated
    smol_200 = speeds[("smollm2-135m", False)][2]  # the shipped file, as the issue measured it
    per_case = wall / max(cases, 1)
    headline = ratio(per_case, smol_200)
    shares = stage_shares(usage)
    figures: dict[str, float] = {
        "wall_s": wall,
        "cases": float(cases),
        "per_case_s": per_case,
        "smol_200_s": smol_200,
        "ratio_vs_smol_200": headline,
        "model_s": model_s,
        "floor_s": floor_s,
        "model_over_floor": ratio(model_s, floor_s),
    }
    rows = [
        BenchRow(
            name="stages.command",
            figure=f"{wall:.1f} s for {cases} challenges ({per_case:.1f} s each)",
            ratio=f"{headline:.2f}x SmolLM2's 200 tokens ({smol_200:.2f} s)",
            note="cold: empty cache, fresh reports folder; target <= 4x",
        ),
        BenchRow(
            name="stages.model_time",
            figure=f"{model_s:.1f} s model time, floor {floor_s:.1f} s",
            ratio=f"{ratio(model_s, floor_s):.2f}x floor",
            note="floor = the run's token counts at the speeds measured below",
        ),
    ]
    for stage, totals in usage.items():
        share = shares[stage]
        figures[f"share_{stage}"] = share if share is not None else float("nan")
        rows.append(
            BenchRow(
                name=f"stages.{stage}",
                figure=f"{totals.seconds:.1f} s, {totals.calls} calls, {totals.tokens_in} in / {totals.tokens_out} out",
                ratio=f"{share:.0%} of model time" if share is not None else "-",
            )
        )
    for (m, probe), (p, g, s200) in speeds.items():
        name = f"{m}.f16-copy" if probe else m
        figures[f"{name}.prompt_tps"], figures[f"{name}.gen_tps"] = p, g
        rows.append(
            BenchRow(
                name=f"speed.{name}",
                figure=f"prompt {p:.0f} tok/s, generation {g:.1f} tok/s",
                ratio=f"200 tokens in {s200:.2f} s",
                note=f"{threads} thread(s)",
            )
        )
    notes = (load_note(), *(f"command | {line}" for line in tail.splitlines()))
    return BenchResult(name="stages", figures=figures, rows=tuple(rows), notes=notes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=8, help="challenges to run (default 8)")
    parser.add_argument("--threads", type=int, help="llama.cpp threads for the speed measurement")
    parser.add_argument(
        "--workdir",
        type=Path,
        help="an empty folder to run in and keep (its cache and reports/); default: a temporary one",
    )
    args = parser.parse_args()
    result = run(limit=args.limit, threads=args.threads, workdir=args.workdir)
    print_result(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
