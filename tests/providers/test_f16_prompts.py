"""SmolLM2's prompts are evaluated on its shipped Q4_1 weights dequantized to F16 (probes run there
entirely); its chat replies are generated on the Q4_1 file from the F16 engine's KV cache.

Loads SmolLM2-135M (both files) and Gemma 3 270M through llama.cpp.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Callable
from typing import Any

import pytest

from harness.providers import embedded
from harness.providers.embedded import EMBEDDED, model_path, prompt_model_path
from harness.providers.local import LocalProvider
from harness.providers.local_prompts import prompt_tokens
from harness.providers.probe import Probe, expected_value, normalise
from harness.providers.prompt_cache import PREFIX_CHUNK
from harness.records.transcript import Message

pytestmark = pytest.mark.slow

SCORES = {f" {i}": float(i) for i in range(1, 11)}
JUDGE = [Message(role="user", content=(
    "You are an impartial grader. Question:\nWhat is 17 + 25?\n\nReference answer:\n42\n\n"
    "Answer to grade:\n<<<Answer>>>\n17 + 25 = 42.\n<<<end Answer>>>\n\nScore the answer from 1 to 10."))]
BALLOT = [Message(role="user", content=(
    "You are reviewing anonymized answers to a question. Judge them on correctness first.\n\n"
    "Question:\nIf David has three sisters and each sister has one brother, how many brothers does David have?\n\n"
    "<<<Response A>>>\nDavid has three brothers.\n<<<end Response A>>>\n\n"
    "<<<Response B>>>\nNone: the one brother of each sister is David himself.\n<<<end Response B>>>\n\n"
    "In one short sentence, say which answer is best and why."))]


def _probe(provider: LocalProvider, messages: list[Message], probe: Probe) -> dict[str, float]:
    async def go():
        return await provider.probe("smollm2-135m", messages, [probe], seed=0)

    return normalise(asyncio.run(go()).logprobs[0])


def _count_evals(llm: Any) -> tuple[list[int], Callable[[list[int]], None]]:
    """Wrap ``llm.eval`` to record the size of every evaluation; returns the sizes and the original eval."""
    evaluated: list[int] = []
    evaluate = llm.eval
    llm.eval = lambda tokens: (evaluated.append(len(tokens)), evaluate(tokens))[1]
    return evaluated, evaluate


def test_the_f16_copy_is_written_once_beside_its_source_stamp() -> None:
    path = prompt_model_path("smollm2-135m")
    source = model_path("smollm2-135m")
    assert path.name == f"{source.stem}.f16.gguf" and path.parent == embedded.cache_dir() / "models"
    stamp = path.with_suffix(".source").read_text().split()
    assert stamp[:2] == [source.name, str(source.stat().st_size)] and len(stamp[2]) == 64
    written = path.stat().st_mtime_ns
    assert prompt_model_path("smollm2-135m") == path and path.stat().st_mtime_ns == written  # not rewritten
    assert prompt_model_path("gemma3-270m") == model_path("gemma3-270m")  # Gemma probes its shipped file
    # F16 holds 16 bits per weight where Q4_1 holds 5: the file is about 2.5x the shipped one
    assert 2.2 < path.stat().st_size / source.stat().st_size < 3.2


def test_f16_probabilities_differ_from_the_q4_1_kernel_by_rounding_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same probes on the F16 engine and on the shipped Q4_1 file: the option distributions agree
    to within 3 points of probability and the expected judge score to within 0.1 (measured: 0.008
    and 0.003), and the ballot's winner is the same. (Q4_0, a real requantization, moved P(B) on a
    ballot prompt from 0.18 to 0.13.)"""
    judge = Probe(text="Accuracy (1-10):", options=tuple(SCORES))
    ballot = Probe(text="The best answer is Response", options=(" A", " B"))
    f16 = LocalProvider()
    try:
        f16_judge, f16_ballot = _probe(f16, JUDGE, judge), _probe(f16, BALLOT, ballot)
        assert f16._models.keys() == {"smollm2-135m#f16"}  # probes never loaded the Q4_1 engine
    finally:
        asyncio.run(f16.aclose())
    monkeypatch.setitem(EMBEDDED, "smollm2-135m",
                        dataclasses.replace(EMBEDDED["smollm2-135m"], f16_prompts=False))
    q41 = LocalProvider()
    try:
        q41_judge, q41_ballot = _probe(q41, JUDGE, judge), _probe(q41, BALLOT, ballot)
        assert q41._models.keys() == {"smollm2-135m"}
    finally:
        asyncio.run(q41.aclose())
    assert f16_judge != q41_judge  # two engines really ran
    assert max(abs(f16_judge[o] - q41_judge[o]) for o in SCORES) < 0.03
    assert abs(expected_value(f16_judge, SCORES) - expected_value(q41_judge, SCORES)) < 0.1
    assert max(abs(f16_ballot[o] - q41_ballot[o]) for o in (" A", " B")) < 0.03
    assert max(f16_ballot, key=f16_ballot.__getitem__) == max(q41_ballot, key=q41_ballot.__getitem__)
    assert math.isclose(sum(f16_ballot.values()), 1.0)


def test_a_chat_between_two_probes_keeps_the_probe_engine_cache() -> None:
    """Chats run on the Q4_1 engine, so a chat no longer clears the probes' KV cache: the second
    order of a ballot reuses the shared opening even when a chat ran in between."""
    opening = "You are reviewing answers to a question. " * 12 + "Question: What is the capital of France?\n\n"
    first = [Message(role="user", content=opening + "A: Paris.\nB: Lyon.\nWhich is best?")]
    second = [Message(role="user", content=opening + "B: Lyon.\nA: Paris.\nWhich is best?")]
    probes = [Probe(text="The best answer is", options=(" A", " B"))]
    provider = LocalProvider()

    async def go():
        await provider.probe("smollm2-135m", first, probes, seed=0)
        await provider.chat("smollm2-135m", [Message(role="user", content="Say hi.")], temperature=0.0,
                            max_tokens=4, seed=0)
        return await provider.probe("smollm2-135m", second, probes, seed=0)

    try:
        reply = asyncio.run(go())
    finally:
        asyncio.run(provider.aclose())
    # recordings of the Q4_1-only engine, or of another chunk grid, miss
    assert provider.identity("smollm2-135m").endswith(f":f16-prompts:chunk{PREFIX_CHUNK}")
    gemma_size = model_path("gemma3-270m").stat().st_size
    assert provider.identity("gemma3-270m").endswith(f".gguf:{gemma_size}:chunk{PREFIX_CHUNK}")
    assert reply.cached_tokens >= 2 * PREFIX_CHUNK and reply.cached_tokens % PREFIX_CHUNK == 0


def test_a_probe_critique_is_generated_on_q4_1_from_the_f16_prompt_cache() -> None:
    """A probe's free text (a ballot's critique) is generated by the shipped Q4_1 file, which evaluates
    one token at a time (the prompt's last token, then each reply token): the prompt itself came
    from the F16 copy's KV cache. The text depends on the call alone: a chat in between and a
    second run give the same text."""
    probes = [Probe(text="The best answer is Response", options=(" A", " B"))]
    provider = LocalProvider()
    try:
        llm, _ = provider._llama("smollm2-135m")
        evaluated, evaluate = _count_evals(llm)

        async def go():
            first = await provider.probe("smollm2-135m", BALLOT, probes, seed=0, max_tokens=8, temperature=0.3)
            count = len(evaluated)
            await provider.chat("smollm2-135m", [Message(role="user", content="Say hi.")], temperature=0.0,
                                max_tokens=4, seed=0)
            again = await provider.probe("smollm2-135m", BALLOT, probes, seed=0, max_tokens=8, temperature=0.3)
            return first, count, again

        first, count, again = asyncio.run(go())
    finally:
        asyncio.run(provider.aclose())
    assert first.text.strip() and first.tokens_out > 0
    # the prompt's last token, then every reply token but a final one (none after the end-of-text token)
    assert count == first.tokens_out + (first.finish_reason == "stop")
    assert set(evaluated) == {1}  # no prompt chunk was evaluated on Q4_1
    assert (again.text, again.logprobs) == (first.text, first.logprobs)
    assert again.cached_tokens and again.cached_tokens >= PREFIX_CHUNK  # the F16 copy kept the prompt's opening


@pytest.mark.parametrize("model", ["smollm2-135m", "gemma3-270m"])
def test_the_numbers_do_not_depend_on_the_thread_count(model: str) -> None:
    """The provider gives each engine ``n_threads // engines computing`` threads; that is only sound
    because llama.cpp's results do not depend on the thread count: probes and chats on 1 and on 2
    threads give the same log-probabilities and the same text."""
    probes = [Probe(text="The best answer is Response", options=(" A", " B"))]
    chat = [Message(role="user", content="Name three colours.")]

    async def go(p: LocalProvider):
        reply = await p.probe(model, BALLOT, probes, seed=0, max_tokens=8)
        done = await p.chat(model, chat, temperature=0.7, max_tokens=16, seed=3)
        return reply.logprobs, reply.text, done.text

    results = []
    for threads in (1, 2):
        p = LocalProvider(n_threads=threads)
        try:
            results.append(asyncio.run(go(p)))
        finally:
            asyncio.run(p.aclose())
    assert results[0] == results[1]
    assert results[0][2].strip()  # a real reply was compared


def test_a_chat_reply_is_generated_on_q4_1_from_the_f16_prompt_cache() -> None:
    """The chat engine (Q4_1) evaluates only the prompt's last token and the reply; the rest of the
    prompt comes from the F16 engine's KV cache. The next-token distribution it then reads differs
    from the Q4_1 engine's alone by rounding: total variation below 0.12 (measured 0.060, the same
    as between the F16 and Q4_1 engines alone, 0.066) and closer to the F16 engine's (0.021).
    On this prompt the two most likely first tokens are within 0.003 of each other, so the greedy
    reply may start differently: that is the size of the change."""
    import numpy as np

    messages = [Message(role="system", content="You are precise."),
                Message(role="user", content="If David has three sisters and each sister has one brother, "
                                             "how many brothers does David have?")]
    provider = LocalProvider()
    try:
        llm, _ = provider._llama("smollm2-135m")
        evaluated, evaluate = _count_evals(llm)
        reply = asyncio.run(provider.chat("smollm2-135m", messages, temperature=0.0, max_tokens=12, seed=0))
        assert reply.tokens_in > 20 and reply.tokens_out == len(evaluated) and set(evaluated) == {1}

        prompt = prompt_tokens(llm, "smollm2-135m", messages)
        llm.reset()
        assert provider._prefill(llm, "smollm2-135m", messages) == len(prompt) - 1
        evaluate([prompt[-1]])
        mixed = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
        llm.reset()
        evaluate(prompt)
        alone = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
    finally:
        asyncio.run(provider.aclose())

    from scipy.special import softmax

    p_mixed, p_alone = softmax(mixed), softmax(alone)
    assert not np.array_equal(p_mixed, p_alone)  # two engines really computed
    assert 0.5 * np.abs(p_mixed - p_alone).sum() < 0.12
    assert np.abs(p_mixed - p_alone).max() < 0.05
