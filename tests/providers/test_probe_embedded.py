"""Probes on the real embedded models: option probabilities, the record/replay cache, two-order ballots.

Loads SmolLM2-135M (and Gemma 3 270M for the completion-style ballot) through llama.cpp.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from harness.common.errors import CacheMiss
from harness.config import MemberSpec, Settings
from harness.council.ballots import BEST_PROBE, probability_review
from harness.council.calls import Caller
from harness.council.ranking import label_assignment, labels_for, presentation_order
from harness.providers.cache import CachedProvider, CacheStore
from harness.providers.local import LocalProvider
from harness.providers.probe import Probe
from harness.providers.prompt_cache import PREFIX_CHUNK
from harness.records.transcript import Message

pytestmark = pytest.mark.slow  # every test probes the real embedded models

MESSAGES = [Message(role="user", content="Rate the answer 'Paris' to 'What is the capital of France?' from 1 to 10.")]
DIGITS = tuple(f" {i}" for i in range(1, 11))


@pytest.fixture(scope="module")
def provider():
    p = LocalProvider()
    yield p
    asyncio.run(p.aclose())


def test_options_are_exclusive_events(provider: LocalProvider) -> None:
    """With " 1" and " 10" both options (digits are single tokens), P(" 1" alone as an option) splits
    exactly into P(score 1) + P(score 10): the law of total probability over the next token."""

    async def go():
        both = await provider.probe(
            "smollm2-135m",
            MESSAGES,
            [Probe(text="Score:", options=DIGITS), Probe(text="Score:", options=(" 1",))],
            seed=0,
        )
        return both

    reply = asyncio.run(go())
    full, alone = reply.logprobs
    assert math.exp(full[" 1"]) + math.exp(full[" 10"]) == pytest.approx(math.exp(alone[" 1"]), rel=1e-5)
    assert sum(math.exp(v) for v in full.values()) <= 1.0 + 1e-9
    assert reply.method == "logits" and reply.tokens_out == 0 and reply.text == ""


def test_probe_is_recorded_replayed_and_keyed_by_the_request(provider: LocalProvider, tmp_path: Path) -> None:
    store = CacheStore(tmp_path / "cache.sqlite")
    probes = [Probe(text="Score:", options=DIGITS)]

    async def go():
        rw = CachedProvider(provider, store, "readwrite")
        first = await rw.probe("smollm2-135m", MESSAGES, probes, seed=0)
        second = await rw.probe("smollm2-135m", MESSAGES, probes, seed=0)
        other = await rw.probe("smollm2-135m", MESSAGES, [Probe(text="Score:", options=DIGITS[:5])], seed=0)
        # two identical probes at once: one reaches the model, the other waits and hits the cache
        twins = await asyncio.gather(
            *(rw.probe("smollm2-135m", MESSAGES, [Probe(text="Grade:", options=DIGITS)], seed=0) for _ in range(2))
        )
        assert sorted(t.cached for t in twins) == [False, True] and twins[0].logprobs == twins[1].logprobs
        assert rw._inflight == {}  # noqa: SLF001 - no per-key lock is left behind (it was, for probes)
        replay = CachedProvider(provider, store, "replay")
        replayed = await replay.probe("smollm2-135m", MESSAGES, probes, seed=0)
        with pytest.raises(CacheMiss):
            await replay.probe("smollm2-135m", MESSAGES, [Probe(text="Mark:", options=DIGITS)], seed=0)
        return rw, first, second, other, replayed

    rw, first, second, other, replayed = asyncio.run(go())
    assert (rw.hits, rw.misses) == (2, 3)  # the changed options made a new key; one twin was a hit
    assert not first.cached and second.cached and replayed.cached
    assert second.logprobs == first.logprobs == replayed.logprobs
    assert set(other.logprobs[0]) == set(DIGITS[:5])
    store.close()


@pytest.mark.parametrize("model", ["smollm2-135m", "gemma3-270m"])
def test_two_order_probability_ballot(provider: LocalProvider, model: str) -> None:
    settings = Settings()
    caller = Caller({"local": provider}, settings)
    member = MemberSpec(id="rev", model=model, temperature=0.2)
    labels = labels_for(3)
    texts = {
        "Response A": "The capital of France is Paris.",
        "Response B": "It is Lyon.",
        "Response C": "France's capital is Marseille.",
    }
    order = presentation_order(labels, 7)
    shown = label_assignment(labels, 7)

    review, records = asyncio.run(
        probability_review(
            caller, member, "What is the capital of France?", order, texts, shown, 7, critique_max_tokens=16
        )
    )
    assert review.error is None and review.ballot.method == "probabilities"
    assert [r.stage for r in records] == ["stage2", "stage2"]
    assert records[0].tokens_out > 0 and records[1].tokens_out == 0  # the critique is generated once
    # one line after the lead: the reviewer names its pick, then says why
    assert review.ballot.critique.startswith(BEST_PROBE + " ") and "\n" not in review.ballot.critique
    first, second = review.passes
    assert first.order == order and second.order == tuple(reversed(order))
    for p in review.passes:
        assert sum(p.probabilities.values()) == pytest.approx(1.0)
        assert p.winner == max(p.probabilities, key=lambda lab: (p.probabilities[lab], -ord(lab[-1])))
    mean = {lab: (first.probabilities[lab] + second.probabilities[lab]) / 2 for lab in labels}
    assert list(review.ballot.ranking) == sorted(labels, key=lambda lab: (-mean[lab], lab))
    assert review.position_consistent == (first.winner == second.winner)
    assert review.shown_labels == shown and review.raw_text == review.ballot.critique


@pytest.mark.parametrize("model", ["smollm2-135m", "gemma3-270m"])
def test_a_critique_stops_at_its_first_line_break(provider: LocalProvider, model: str, tmp_path: Path) -> None:
    """``stop`` ends the free text at the first stop string: the same call (same seed) without it
    generates the same text and goes on past the line break. The stop strings are part of the
    record/replay key."""
    messages = [
        Message(
            role="user",
            content=(
                "Question: What is the capital of France?\n\nResponse A: Paris.\nResponse B: Lyon.\n"
                "Response C: Marseille.\n\nFor each response, say on its own line whether it is right."
            ),
        )
    ]
    probes = [Probe(text="The best answer is Response", options=(" A", " B", " C"))]
    store = CacheStore(tmp_path / "cache.sqlite")

    async def go():
        rw = CachedProvider(provider, store, "readwrite")
        free = await rw.probe(model, messages, probes, seed=0, max_tokens=48, temperature=0.0)
        # Gemma (a base model) writes one line per response; SmolLM2 ends by itself, so a piece of its text
        stop = "\n" if model == "gemma3-270m" else free.text[10:13]
        cut = await rw.probe(model, messages, probes, seed=0, max_tokens=48, temperature=0.0, stop=(stop,))
        return rw, free, cut, stop

    rw, free, line, stop = asyncio.run(go())
    store.close()
    assert stop in free.text.strip()  # without the stop the model writes past it
    assert line.text == free.text.split(stop)[0] and line.finish_reason == "stop"
    assert line.tokens_out < free.tokens_out and line.logprobs == free.logprobs
    assert (rw.hits, rw.misses) == (0, 2)  # two keys


def test_the_free_text_continues_the_prompt_not_the_last_probe(provider: LocalProvider) -> None:
    """After the probes the engine's logits are those of the last option it evaluated; the free text
    must start from the prompt's own next-token distribution (a bug sampled its first token from the
    probe's, so Gemma's critiques began with a label). Greedy, it equals a generation on an engine
    that evaluated only the prompt, on the same chunk grid. (SmolLM2 generates on another engine
    from the prompt's KV cache, which evaluates the last prompt token: ``test_f16_prompts.py``.)"""
    model = "gemma3-270m"
    from harness.providers.local_prompts import STOP_COMPLETION, prompt_tokens
    from harness.providers.prompt_cache import PromptCache

    messages = [
        Message(
            role="user",
            content=(
                "Question: What is the capital of France?\n\nResponse A: Paris.\nResponse B: Lyon.\n\n"
                "In one short sentence, say which answer is best and why."
            ),
        )
    ]
    probes = [Probe(text="The best answer is Response", options=(" A", " B"))]
    reply = asyncio.run(provider.probe(model, messages, probes, seed=0, max_tokens=12, temperature=0.0))
    fresh = LocalProvider()
    try:
        llm, _ = fresh._llama(model)  # the shipped file, as the free text of either model is generated there
        tokens = prompt_tokens(llm, model, messages)
        PromptCache().evaluate(llm, tokens, reuse=False)
        llm.n_tokens = len(tokens) - 1
        out = llm.create_completion(
            prompt=tokens,
            max_tokens=12,
            temperature=0.0,
            repeat_penalty=1.1,
            seed=0,
            stop=STOP_COMPLETION if model == "gemma3-270m" else None,
        )
    finally:
        asyncio.run(fresh.aclose())
    assert reply.text.strip() and reply.text == out["choices"][0]["text"]


def test_a_reused_prompt_prefix_gives_the_same_numbers(provider: LocalProvider) -> None:
    """The two orders of one ballot share the instructions and the question: the second probe
    reuses the cached chunks of that opening (fewer tokens evaluated) and its log-probabilities are
    bit for bit those of the same probe on a fresh context, and of the same probe repeated."""
    opening = "You are reviewing answers to a question. " * 12 + "Question: What is the capital of France?\n\n"
    first = [Message(role="user", content=opening + "A: Paris.\nB: Lyon.\nWhich is best?")]
    second = [Message(role="user", content=opening + "B: Lyon.\nA: Paris.\nWhich is best?")]
    probes = [Probe(text="The best answer is", options=(" A", " B"))]

    async def go(p: LocalProvider, calls: list[list[Message]]):
        return [await p.probe("smollm2-135m", m, probes, seed=0) for m in calls]

    warm = asyncio.run(go(provider, [first, second]))
    fresh = LocalProvider()
    try:
        (alone,) = asyncio.run(go(fresh, [second]))
        again = asyncio.run(go(fresh, [second]))[0]  # the whole prompt cached except its last chunk
        fresh.reuse_prefix = False  # the benchmark's "off": every chunk evaluated again
        (off,) = asyncio.run(go(fresh, [second]))
    finally:
        asyncio.run(fresh.aclose())
    assert warm[1].logprobs == alone.logprobs == again.logprobs == off.logprobs
    assert warm[1].tokens_in == alone.tokens_in == again.tokens_in == off.tokens_in  # the whole prompt counts
    assert alone.cached_tokens == 0 and off.cached_tokens == 0
    assert 0 < warm[1].cached_tokens <= again.cached_tokens < alone.tokens_in  # the shared opening was reused
    n_prompt = warm[1].cached_tokens
    assert n_prompt % PREFIX_CHUNK == 0 and n_prompt >= 96  # whole chunks of the (>100-token) opening


@pytest.mark.parametrize("model", ["smollm2-135m", "gemma3-270m"])
def test_a_saved_opening_is_restored_after_other_prompts_and_gives_the_same_numbers(model: str) -> None:
    """Judge prompts for two answers to one question share the opening, but other cases' probes
    run in between: the opening is restored from a saved KV state, and the numbers are bit for bit
    those of a fresh evaluation."""
    opening = "You are an impartial grader. " * 10 + "Question: What is 17 + 25?\nReference: 42\n\n"
    first = [Message(role="user", content=opening + "Answer: 42.\nScore:")]
    other = [Message(role="user", content="An unrelated prompt about the colour of the sky. " * 8 + "Score:")]
    third = [Message(role="user", content=opening + "Answer: 43.\nScore:")]
    probes = [Probe(text=" The score is", options=DIGITS)]

    async def go(p: LocalProvider, calls: list[list[Message]]):
        return [await p.probe(model, m, probes, seed=0) for m in calls]

    warm, fresh = LocalProvider(), LocalProvider()
    try:
        replies = asyncio.run(go(warm, [first, other, third]))
        (alone,) = asyncio.run(go(fresh, [third]))
    finally:
        asyncio.run(warm.aclose())
        asyncio.run(fresh.aclose())
    assert replies[1].cached_tokens == 0  # nothing shared with the first prompt
    restored = replies[2].cached_tokens  # from the saved opening, not the live cache
    assert restored is not None and restored >= PREFIX_CHUNK and restored % PREFIX_CHUNK == 0
    assert alone.cached_tokens == 0
    assert replies[2].logprobs == alone.logprobs and replies[2].tokens_in == alone.tokens_in
