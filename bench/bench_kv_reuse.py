"""Benchmark: two-order probability ballots on the embedded models with and without KV-cache reuse.

Embedded probes evaluate their prompt in 32-token chunks at fixed positions and keep the chunks of
the previous probe's prompt that match (``harness.providers.local``): the second presentation order
of a ballot re-evaluates only what follows the shared opening. This times, in one process and with
the models loaded once, the same ballots (3 questions x 3 answers, both orders, twice) with reuse on
and off (``LocalProvider.reuse_prefix``; off, every chunk is evaluated, so the numbers are the same
and the test suite checks that they are), interleaved, and prints the time and tokens evaluated of
each and their ratio, and whether the log-probabilities are identical.

Run: ``python bench/bench_kv_reuse.py [--rounds 2]``. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import BenchResult, BenchRow, load_note, print_result, ratio  # noqa: E402

QUESTIONS = (
    (
        "If a train travels 60 miles in 1.5 hours, what is its average speed in miles per hour?",
        (
            "The average speed is distance divided by time: 60 / 1.5 = 40 miles per hour.",
            "It goes 60 miles in 1.5 hours, so in one hour it goes 60 miles, the speed is 60 mph.",
            "Speed = 60 miles / 1.5 h = 40 mph. So the train averages 40 miles per hour over the trip.",
        ),
    ),
    (
        "Sally has 3 brothers. Each of her brothers has 2 sisters. How many sisters does Sally have?",
        (
            "Each brother has 2 sisters, one of them is Sally, so Sally has 1 sister.",
            "Sally has 2 sisters because each brother has 2 sisters.",
            "There are 2 girls in the family: Sally and one more. Sally has one sister.",
        ),
    ),
    (
        "What is the next number in the sequence 2, 6, 12, 20, 30?",
        (
            "The differences are 4, 6, 8, 10, so the next difference is 12 and the answer is 42.",
            "The numbers are n(n+1): 1*2, 2*3, 3*4, 4*5, 5*6, so next is 6*7 = 42.",
            "It adds even numbers; next is 30 + 10 = 40.",
        ),
    ),
)
LABELS = ("Response A", "Response B", "Response C")


async def _ballots(provider, model: str, rounds: int) -> tuple[float, float, int, list]:  # noqa: ANN001
    """(wall s, CPU s, prompt tokens evaluated, log-probabilities) of the ballots, both orders each."""
    from harness.council.ballots import BEST_PROBE, letter, probability_review_messages
    from harness.providers.probe import Probe

    probe = Probe(text=BEST_PROBE, options=tuple(letter(label) for label in LABELS))
    wall, cpu = time.perf_counter(), time.process_time()
    tokens, logprobs = 0, []
    for _ in range(rounds):
        for question, answers in QUESTIONS:
            texts = dict(zip(LABELS, answers, strict=True))
            for order in (LABELS, LABELS[::-1]):
                reply = await provider.probe(
                    model, probability_review_messages(question, order, texts), [probe], seed=0
                )
                tokens += reply.tokens_in - (reply.cached_tokens or 0)  # evaluated, not reused
                logprobs.append(reply.logprobs)
    return time.perf_counter() - wall, time.process_time() - cpu, tokens, logprobs


async def _run(rounds: int, threads: int | None) -> BenchResult:
    from harness.providers.local import LocalProvider
    from harness.records.transcript import Message

    provider = LocalProvider(n_threads=threads)
    figures: dict[str, float] = {}
    rows: list[BenchRow] = []
    try:
        for model in ("smollm2-135m", "gemma3-270m"):
            await provider.probe(model, [Message(role="user", content="Hello")], [], seed=0)  # load the model
            best: dict[bool, tuple[float, float, int, list]] = {}
            for _ in range(2):  # interleaved, the better of two each
                for reuse in (False, True):
                    provider.reuse_prefix = reuse
                    got = await _ballots(provider, model, rounds)
                    if reuse not in best or got[0] < best[reuse][0]:
                        best[reuse] = got
            off, on = best[False], best[True]
            same = json.dumps(off[3]) == json.dumps(on[3])
            figures.update(
                {
                    f"{model}.off_s": off[0],
                    f"{model}.on_s": on[0],
                    f"{model}.off_tokens": off[2],
                    f"{model}.on_tokens": on[2],
                    f"{model}.time_ratio": ratio(on[0], off[0]),
                    f"{model}.identical": float(same),
                }
            )
            rows.append(
                BenchRow(
                    name=f"kv_reuse.{model}",
                    figure=f"{on[0]:.2f} s vs {off[0]:.2f} s ({on[2]} vs {off[2]} prompt tokens evaluated)",
                    ratio=f"{ratio(on[0], off[0]):.2f}x the time, {ratio(on[2], off[2]):.2f}x the tokens",
                    note=f"{len(on[3])} probes; log-probabilities {'identical' if same else 'DIFFER'}",
                )
            )
    finally:
        await provider.aclose()
    return BenchResult(name="kv_reuse", figures=figures, rows=tuple(rows), notes=(load_note(),))


def run(rounds: int = 2, threads: int | None = None) -> BenchResult:
    """Time the ballots with reuse on and off (see the module docstring)."""
    return asyncio.run(_run(rounds, threads))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="passes over the 3 questions (default 2)")
    parser.add_argument("--threads", type=int, help="llama.cpp threads (default: all cores)")
    args = parser.parse_args()
    result = run(rounds=args.rounds, threads=args.threads)
    print_result(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
