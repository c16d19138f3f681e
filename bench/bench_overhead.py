"""Benchmark: the harness's overhead over raw llama.cpp calls on the embedded model (target < 5 %).

The same prompts (the first challenge of each category of ``suites/reasoning-100.yaml``) go
through three arms, with the same model file, sampling parameters and seed:

- ``raw``: ``llama_cpp.Llama.create_chat_completion`` after ``llm.reset()`` and ``set_seed``,
  exactly as ``harness/providers/local.py`` calls it;
- ``provider``: ``LocalProvider.chat`` (worker thread, message models, the Completion record);
- ``harness``: ``Engine.run_case`` with the ``baseline`` subject and ``cache_mode=off`` — the model
  call plus transcript, scoring (correctness, mentions, heuristic quality) and the case result,
  which is what a user pays per case; the rubric judge is off here, so this arm makes the same
  single model call as the others;
- ``harness_judge`` (on the first prompts only): the same with default scoring, where the rubric
  judge makes a second model call per case; its overhead is measured in-run only.

The model is warmed up first; the arms' order rotates from prompt to prompt to spread drift.
Overhead = (arm - raw) / raw over the summed times. The in-run figure needs no second call: the
harness arm's wall time minus the model latencies that the provider recorded inside the same case.
Outputs are compared to check that the arms did the same work.

Run: ``python bench/run.py --only overhead``.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import BenchResult, BenchRow, Timing, llama_threads, ratio, timed
from harness.common.model import Frozen
from harness.config import Settings, default_members, load_settings
from harness.council.prompts import answer_messages
from harness.data.cases import Case, load_datasets
from harness.providers.embedded import model_path
from harness.providers.local import N_CTX, REPEAT_PENALTY, LocalProvider, _quiet_stderr
from harness.records.transcript import Completion, Message
from harness.run.engine import Engine

MODEL = "smollm2-135m"
SUITE = Path(__file__).resolve().parent.parent / "suites" / "reasoning-100.yaml"
ARMS = ("raw", "provider", "harness")


def one_per_category(n: int) -> list[Case]:
    """The first ``n`` cases of the suite taking one per category in turn (the suite's order)."""
    cases = [c for d in load_datasets(SUITE) for c in d.cases]
    firsts: dict[str | None, Case] = {}
    for c in cases:
        firsts.setdefault(c.category, c)
    picked = list(firsts.values())
    rest = [c for c in cases if c not in picked]
    return (picked + rest)[:n]


def raw_llama(threads: int) -> Any:
    """A ``llama_cpp.Llama`` for the embedded SmolLM2 file, built as ``LocalProvider`` builds it."""
    from llama_cpp import Llama

    with _quiet_stderr():
        return Llama(
            model_path=str(model_path(MODEL)),
            n_ctx=N_CTX,
            n_threads=threads,
            n_threads_batch=threads,
            seed=0,
            verbose=False,
        )


def raw_call(
    llm: Any, messages: list[dict[str, str]], temperature: float, top_p: float, max_tokens: int, seed: int
) -> str:
    """One raw chat completion, as ``LocalProvider`` makes it (reset, seed, explicit sampling)."""
    llm.reset()
    llm.set_seed(seed)
    out = llm.create_chat_completion(
        messages=messages,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        seed=seed,
        repeat_penalty=REPEAT_PENALTY,
    )
    return out["choices"][0]["message"].get("content") or ""


def bench_settings(max_tokens: int, reports_dir: Path, rubric_judge: bool, judge_tokens: int | None = None) -> Settings:
    """One SmolLM2 member (the default council's first) as the baseline and judge; no cache, no webhooks.

    Args:
        max_tokens: the answer limit.
        reports_dir: a scratch folder (the engine looks for a reviewers' verdict file there).
        rubric_judge: whether scoring asks the rubric judge (a second model call per case).
        judge_tokens: the judge's limit (``review_max_tokens``; ``None`` keeps the default).
    """
    spec = default_members()[0]
    return load_settings(
        models=[spec],
        baseline=spec.id,
        cache_mode="off",
        answer_max_tokens=max_tokens,
        final_answer_max_tokens=max_tokens,
        reports_dir=reports_dir,
        quality_webhook_url="",
        rubric_scoring=rubric_judge,
        review_max_tokens=judge_tokens,
    )


class RecordingProvider:
    """Passes every call to ``inner`` and keeps the model latency each completion reports.

    Args:
        inner: the provider that answers.
    """

    def __init__(self, inner: LocalProvider) -> None:
        self.inner = inner
        self.name = inner.name
        self.latencies: list[float] = []

    def identity(self, model: str) -> str:
        return self.inner.identity(model)

    async def chat(self, model: str, messages: Sequence[Message], **kwargs: Any) -> Completion:
        completion = await self.inner.chat(model, messages, **kwargs)
        self.latencies.append(completion.latency_s)
        return completion

    async def aclose(self) -> None:
        await self.inner.aclose()


class CallTime(Frozen):
    """One measured call of an arm.

    Args:
        text: the final answer text (stripped).
        timing: the arm's wall and CPU time.
        model_s: the model latency recorded inside the arm (0 for the raw arm).
        model_calls: how many model calls the arm made.
    """

    text: str
    timing: Timing
    model_s: float = 0.0
    model_calls: int = 1


class _Arms:
    """The arms sharing one event loop; both engines send their model calls through ``provider``."""

    def __init__(self, max_tokens: int, reports_dir: Path, threads: int, judge_tokens: int | None) -> None:
        self.settings = bench_settings(max_tokens, reports_dir, rubric_judge=False)
        self.spec = self.settings.role_spec("baseline")
        self.llm = raw_llama(threads)
        self.provider = LocalProvider(n_threads=threads)
        self.recording = RecordingProvider(self.provider)
        self.engines = {
            "harness": Engine(self.settings, ["baseline"]),
            "harness_judge": Engine(bench_settings(max_tokens, reports_dir, True, judge_tokens), ["baseline"]),
        }
        for engine in self.engines.values():
            # the engine's caller reads this same mapping: its calls now use our provider (same threads)
            engine.providers["local"] = self.recording
        self.runner = asyncio.Runner()
        self.seed = self.settings.seed + self.spec.seed

    def _messages(self, case: Case) -> list[Message]:
        return answer_messages(case.query, self.spec.system_prompt)

    def raw(self, case: Case) -> CallTime:
        dicts = [m.model_dump() for m in self._messages(case)]
        text, t = timed(
            lambda: raw_call(
                self.llm, dicts, self.spec.temperature, self.spec.top_p, self.settings.answer_max_tokens, self.seed
            )
        )
        return CallTime(text=text.strip(), timing=t)

    def via_provider(self, case: Case) -> CallTime:
        completion, t = timed(
            lambda: self.runner.run(
                self.provider.chat(
                    self.spec.model,
                    self._messages(case),
                    temperature=self.spec.temperature,
                    top_p=self.spec.top_p,
                    max_tokens=self.settings.answer_max_tokens,
                    seed=self.seed,
                )
            )
        )
        return CallTime(text=completion.text.strip(), timing=t, model_s=completion.latency_s)

    def via_engine(self, arm: str, case: Case) -> CallTime:
        self.recording.latencies.clear()
        result, t = timed(lambda: self.runner.run(self.engines[arm].run_case(case, "baseline")))
        if result.transcript is None:
            raise RuntimeError(f"the {arm} arm failed on {case.id}: {result.error}")
        return CallTime(
            text=result.transcript.final_answer,
            timing=t,
            model_s=sum(self.recording.latencies),
            model_calls=len(self.recording.latencies),
        )

    def call(self, arm: str, case: Case) -> CallTime:
        if arm == "raw":
            return self.raw(case)
        if arm == "provider":
            return self.via_provider(case)
        return self.via_engine(arm, case)

    def close(self) -> None:
        for engine in self.engines.values():
            self.runner.run(engine.aclose())  # closes the provider too (a second close does nothing)
        self.runner.close()
        self.llm.close()


class _Totals:
    """Summed wall, CPU and model seconds per arm."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.model: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.count: dict[str, int] = {}

    def add(self, arm: str, c: CallTime) -> None:
        for table, value in ((self.wall, c.timing.wall_s), (self.cpu, c.timing.cpu_s), (self.model, c.model_s)):
            table[arm] = table.get(arm, 0.0) + value
        self.calls[arm] = self.calls.get(arm, 0) + c.model_calls
        self.count[arm] = self.count.get(arm, 0) + 1

    def vs_raw_pct(self, arm: str, table: dict[str, float]) -> float:
        return 100 * ratio(table[arm] - table["raw"], table["raw"])

    def inrun_pct(self, arm: str) -> float:
        return 100 * ratio(self.wall[arm] - self.model[arm], self.model[arm])

    def mean_ms(self, arm: str, table: dict[str, float]) -> float:
        return 1000 * table[arm] / self.count[arm]


def run(
    quick: bool = False,
    prompts: int | None = None,
    max_tokens: int | None = None,
    threads: int | None = None,
    judge_prompts: int | None = None,
) -> BenchResult:
    """Time the same prompts raw, through ``LocalProvider`` and through the harness.

    Args:
        quick: one prompt of 8 tokens and no warm-up (smoke test).
        prompts: how many prompts (default 8: one per suite category).
        max_tokens: answer limit per call (default 48).
        threads: llama.cpp threads for every arm (default: see :func:`bench.llama_threads`).
        judge_prompts: how many of the prompts also go through the harness with the rubric judge on
            (default 2, quick 1); the judge is a second model call of up to ``review_max_tokens`` (320 by
            default, 16 in quick mode).
    """
    prompts = prompts or (1 if quick else 8)
    max_tokens = max_tokens or (8 if quick else 48)
    judge_prompts = min(prompts, judge_prompts or (1 if quick else 2))
    n_threads, threads_note = llama_threads(threads)
    cases = one_per_category(prompts)
    totals = _Totals()
    same = {"provider": 0, "harness": 0}
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp:
        arms = _Arms(max_tokens, Path(tmp), n_threads, 16 if quick else None)
        try:
            for arm in ARMS if not quick else ():  # loads both model instances and warms every code path
                arms.call(arm, cases[0])
            for i, case in enumerate(cases):
                order = ARMS[i % 3 :] + ARMS[: i % 3]
                got = {arm: arms.call(arm, case) for arm in order}
                for arm, c in got.items():
                    totals.add(arm, c)
                for arm in same:
                    same[arm] += got[arm].text == got["raw"].text
            for case in cases[:judge_prompts]:
                totals.add("harness_judge", arms.call("harness_judge", case))
        finally:
            arms.close()
    n = len(cases)
    judge_model_ms = totals.mean_ms("harness_judge", totals.model)
    figures = {
        "prompts": float(n),
        "max_tokens": float(max_tokens),
        "threads": float(n_threads),
        "raw_ms": totals.mean_ms("raw", totals.wall),
        "provider_ms": totals.mean_ms("provider", totals.wall),
        "harness_ms": totals.mean_ms("harness", totals.wall),
        "provider_pct": totals.vs_raw_pct("provider", totals.wall),
        "harness_pct": totals.vs_raw_pct("harness", totals.wall),
        "provider_cpu_pct": totals.vs_raw_pct("provider", totals.cpu),
        "harness_cpu_pct": totals.vs_raw_pct("harness", totals.cpu),
        "provider_inrun_pct": totals.inrun_pct("provider"),
        "harness_inrun_ms": totals.mean_ms("harness", totals.wall) - totals.mean_ms("harness", totals.model),
        "harness_inrun_pct": totals.inrun_pct("harness"),
        "identical_outputs": float(min(same.values())),
        "judge_prompts": float(judge_prompts),
        "judge_case_ms": totals.mean_ms("harness_judge", totals.wall),
        "judge_inrun_pct": totals.inrun_pct("harness_judge"),
        "judge_model_ratio": ratio(judge_model_ms, totals.mean_ms("harness", totals.model)),
    }
    rows = (
        BenchRow(
            name="overhead.harness",
            figure=f"{figures['harness_ms']:.0f} ms/case",
            ratio=f"{figures['harness_pct']:+.1f}% vs raw (target < 5%)",
            note=f"Engine.run_case baseline (judge off) incl. scoring vs raw llama.cpp, {n} prompts x {max_tokens} "
            f"tok; raw {figures['raw_ms']:.0f} ms; cpu {figures['harness_cpu_pct']:+.1f}%",
        ),
        BenchRow(
            name="overhead.harness_inrun",
            figure=f"{figures['harness_inrun_ms']:.1f} ms/case",
            ratio=f"{figures['harness_inrun_pct']:+.2f}% of model time",
            note="same calls: harness wall minus the model latency recorded inside them",
        ),
        BenchRow(
            name="overhead.provider",
            figure=f"{figures['provider_ms']:.0f} ms/call",
            ratio=f"{figures['provider_pct']:+.1f}% vs raw",
            note=f"LocalProvider.chat vs raw; cpu {figures['provider_cpu_pct']:+.1f}%; "
            f"in-run {figures['provider_inrun_pct']:+.2f}%",
        ),
        BenchRow(
            name="overhead.judge_on",
            figure=f"{figures['judge_case_ms']:.0f} ms/case",
            ratio=f"{figures['judge_inrun_pct']:+.2f}% of model time",
            note=f"default scoring (rubric judge on), {judge_prompts} prompt(s): {totals.calls['harness_judge']} "
            f"model calls; model time {figures['judge_model_ratio']:.1f}x the judge-off case",
        ),
    )
    notes = (
        f"overhead: {threads_note}; outputs identical to raw: provider {same['provider']}/{n}, "
        f"harness {same['harness']}/{n} (same prompt, sampling and seed)",
        "overhead: the vs-raw figures compare different calls, so on a busy machine their noise can exceed the "
        "overhead; the in-run figures (harness time outside the model calls it made) are the steadier ones",
    )
    return BenchResult(name="overhead", figures=figures, rows=rows, notes=notes)
