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
from harness.providers.probe import Probe, normalise
from harness.providers.prompt_cache import PREFIX_CHUNK
from harness.records.transcript import Message

pytestmark = pytest.mark.slow

SCORES = {f" {i}": float(i) for i in range(1, 11)}
JUDGE = [
    Message(
        role="user",
        content=(
            "You are an impartial grader. Question:\nWhat is 17 + 25?\n\nReference answer:\n42\n\n"
            "Answer to grade:\n<<<Answer>>>\n17 + 25 = 42.\n<<<end Answer>>>\n\nScore the answer from 1 to 10."
        ),
    )
]
BALLOT = [
    Message(
        role="user",
        content=(
            "You are reviewing anonymized answers to a question. Judge them on correctness first.\n\n"
            "Question:\nIf David has three sisters and each sister has one brother, "
            "how many brothers does David have?\n\n"
            "<<<Response A>>>\nDavid has three brothers.\n<<<end Response A>>>\n\n"
            "<<<Response B>>>\nNone: the one brother of each sister is David himself.\n<<<end Response B>>>\n\n"
            "In one short sentence, say which answer is best and why."
        ),
    )
]


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


#: the top tokens of the F16 copy's next-token distribution on which the engines are compared
TOP = 32
#: a Q4_0 weight is rounded to a step of 1/8 of its block's largest magnitude; a Q8_1 activation to 1/127
Q4_0_STEP, Q8_1_STEP = 1 / 8, 1 / 127
#: SmolLM2-135M: 30 layers, 7 weight matrices each (q, k, v, o, gate, up, down) whose 4 distinct inputs
#: (q/k/v share one, gate/up share one) the Q4_1 kernel rounds to Q8_1; plus the output head
WEIGHT_ROUNDINGS, ACTIVATION_ROUNDINGS = 30 * 7 + 1, 30 * 4 + 1
#: the expected ratio of the two differences (see the test's docstring), and the margin allowed over it
EXPECTED_RATIO = Q8_1_STEP / Q4_0_STEP * math.sqrt(ACTIVATION_ROUNDINGS / WEIGHT_ROUNDINGS)
MARGIN = 4.0


def _next_token_logprobs(path: str, tokens: list[int]) -> Any:
    """log-softmax of the next-token logits after ``tokens`` evaluated one at a time, on the model file
    ``path``: a single token always goes through the kernel of the weights' type (Q4_1 x Q8_1, Q4_0 x Q8_0,
    F16 x F16), whereas a prompt batch may be multiplied by a build-dependent path (some builds
    dequantize the weights of a batch to F16 first, which makes Q4_1 and F16 agree bit for bit)."""
    import numpy as np

    from harness.providers.engine_setup import extra_bufts_choice, load_llama
    from harness.providers.local import _quiet_stderr

    with _quiet_stderr():
        llm = load_llama(
            path, extra_bufts=extra_bufts_choice()[0], n_ctx=1024, n_threads=1, n_threads_batch=1, seed=0, verbose=False
        )
    try:
        for token in tokens:
            llm.eval([token])
        z = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
    finally:
        llm.close()
    z -= z.max()
    return z - np.log(np.exp(z).sum())


def _requantize_q4_0(source: str, target: str) -> None:
    import ctypes

    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0
    params.nthread = 1
    assert llama_cpp.llama_model_quantize(source.encode(), target.encode(), ctypes.byref(params)) == 0


def test_f16_probabilities_differ_from_the_q4_1_kernel_by_rounding_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """The F16 copy and the shipped Q4_1 file compute the same model up to rounding; the tolerance is
    derived from the kernels' precision, so it holds on any build (native, portable, AVX2 or AVX-512).

    Derivation. The copy holds each Q4_1 weight ``d * q + m`` rounded to fp16 (relative error at most
    2**-11), and the F16 kernel multiplies it by activations rounded to fp16 (2**-11). The Q4_1 kernel
    multiplies the same weights by activations rounded to Q8_1: blocks of 32 with a step of 1/127 of
    the block's largest magnitude (a single token always takes these kernels; a prompt batch may take
    a build-dependent one, which is why the tolerance measured on one build failed on another). So the
    two engines differ by the Q8_1 rounding of the
    ``ACTIVATION_ROUNDINGS`` (121) matmul inputs; fp16's 2**-11 is 16x finer and is neglected. How far
    such a rounding moves the output depends on the model, so it is measured against a yardstick of
    the same kind on the same build: the shipped weights requantized to Q4_0 (blocks of 32, a step of
    1/8 of the block's largest magnitude) perturb the ``WEIGHT_ROUNDINGS`` (211) weight matrices. In a
    product ``w . x`` a relative rounding of ``w`` or of ``x`` moves the result alike to first order, and
    independent roundings add in quadrature, so the rounding-only difference is expected at
    ``(1/127) / (1/8) * sqrt(121 / 211)`` = 0.048 of the requantization's (``EXPECTED_RATIO``).
    Measured as the root mean square difference of the next-token log-probabilities over the F16
    copy's ``TOP`` most likely tokens, after a judge prompt and a ballot prompt, it must stay within
    ``MARGIN`` (4) times that ratio: a kernel that changed the model (not just its rounding) would move
    it by as much as a requantization, ratio about 1. The probes through the provider then agree on the
    ballot's winner whenever the F16 margin exceeds twice the largest measured log-probability change.
    """
    import numpy as np

    from harness.providers.engine_setup import extra_bufts_choice, load_llama

    f16_path, q41_path = str(prompt_model_path("smollm2-135m")), str(model_path("smollm2-135m"))
    q40_path = str(tmp_path / "smollm2.q4_0.gguf")
    _requantize_q4_0(f16_path, q40_path)
    tokenizer = load_llama(q41_path, extra_bufts=extra_bufts_choice()[0], n_ctx=64, verbose=False)
    judge = Probe(text="Accuracy (1-10):", options=tuple(SCORES))
    ballot = Probe(text="The best answer is Response", options=(" A", " B"))
    ratios, largest = [], 0.0
    for messages, probe in ((JUDGE, judge), (BALLOT, ballot)):
        tokens = [
            *prompt_tokens(tokenizer, "smollm2-135m", messages),
            *tokenizer.tokenize(probe.text.encode(), add_bos=False, special=False),
        ]
        f16, q41, q40 = (_next_token_logprobs(p, tokens) for p in (f16_path, q41_path, q40_path))
        top = np.argsort(f16)[-TOP:]
        rounding = float(np.sqrt(np.mean((f16[top] - q41[top]) ** 2)))
        requantized = float(np.sqrt(np.mean((q40[top] - q41[top]) ** 2)))
        assert requantized > 0  # the yardstick is a real change of the weights
        ratios.append(rounding / requantized)
        largest = max(largest, float(np.abs(f16[top] - q41[top]).max()))
    tokenizer.close()
    assert max(ratios) < MARGIN * EXPECTED_RATIO, (ratios, EXPECTED_RATIO)

    f16_provider = LocalProvider()
    try:
        f16_judge, f16_ballot = _probe(f16_provider, JUDGE, judge), _probe(f16_provider, BALLOT, ballot)
        assert f16_provider._models.keys() == {"smollm2-135m#f16"}  # probes never loaded the Q4_1 engine
    finally:
        asyncio.run(f16_provider.aclose())
    monkeypatch.setitem(EMBEDDED, "smollm2-135m", dataclasses.replace(EMBEDDED["smollm2-135m"], f16_prompts=False))
    q41_provider = LocalProvider()
    try:
        q41_judge, q41_ballot = _probe(q41_provider, JUDGE, judge), _probe(q41_provider, BALLOT, ballot)
        assert q41_provider._models.keys() == {"smollm2-135m"}
    finally:
        asyncio.run(q41_provider.aclose())
    margin = abs(math.log(f16_ballot[" A"]) - math.log(f16_ballot[" B"]))
    if margin > 2 * largest:
        assert max(f16_ballot, key=f16_ballot.__getitem__) == max(q41_ballot, key=q41_ballot.__getitem__)
    for distribution in (f16_judge, q41_judge, f16_ballot, q41_ballot):
        assert math.isclose(sum(distribution.values()), 1.0)


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
        await provider.chat(
            "smollm2-135m", [Message(role="user", content="Say hi.")], temperature=0.0, max_tokens=4, seed=0
        )
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
            await provider.chat(
                "smollm2-135m", [Message(role="user", content="Say hi.")], temperature=0.0, max_tokens=4, seed=0
            )
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

    messages = [
        Message(role="system", content="You are precise."),
        Message(
            role="user",
            content="If David has three sisters and each sister has one brother, how many brothers does David have?",
        ),
    ]
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
