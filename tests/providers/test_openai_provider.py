"""The OpenAI-compatible provider against a real ``llama_cpp.server`` (SmolLM2-135M on loopback)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from harness.common.errors import ProviderError
from harness.council.prompts import ballot_schema
from harness.providers.openai_compat import OpenAICompatProvider
from harness.records.transcript import Completion, Message
from tests.fault_server import FaultServer, status

QUESTION = [Message(role="user", content="What is the capital of France?")]
KEY_ENV = "COUNCIL_HARNESS_TEST_PROVIDER_KEY"
SECRET = "sk-test-provider-9f8e7d6c5b4a"


def run_chats(provider: OpenAICompatProvider, *calls: dict[str, Any]) -> list[Completion]:
    """Make the calls one after another with ``provider`` (closed afterwards)."""

    async def go() -> list[Completion]:
        try:
            return [await provider.chat("smollm2", **call) for call in calls]
        finally:
            await provider.aclose()

    return asyncio.run(go())


@pytest.mark.slow
def test_plain_chat_returns_text_and_usage(llama_server: str) -> None:
    [c] = run_chats(
        OpenAICompatProvider(llama_server, None),
        {"messages": QUESTION, "temperature": 0.2, "max_tokens": 24, "seed": 3},
    )
    assert c.text.strip()
    assert c.model == "smollm2"
    assert c.tokens_in > 5  # the question plus the chat template
    assert 1 <= c.tokens_out <= 24
    assert c.finish_reason in ("stop", "length")
    assert c.latency_s > 0


@pytest.mark.slow
def test_json_schema_reply_is_a_valid_ballot(llama_server: str) -> None:
    labels = ["Response A", "Response B"]
    schema = ballot_schema(labels, rubric=False)
    messages = [
        Message(
            role="user",
            content=(
                "Question: What is the capital of France?\n<<<Response A>>>\nParis.\n<<<end Response A>>>\n"
                "<<<Response B>>>\nLyon.\n<<<end Response B>>>\nReply with JSON: a short critique, then the ranking."
            ),
        )
    ]
    provider = OpenAICompatProvider(llama_server, None)
    [c] = run_chats(
        provider, {"messages": messages, "temperature": 0.2, "max_tokens": 200, "seed": 1, "json_schema": schema}
    )
    # llama_cpp.server rejects the json_schema type; the provider switched to json_object + schema
    assert provider.schema_style == "json_object"
    ballot = json.loads(c.text, strict=False)  # llama.cpp grammars allow raw newlines in strings
    assert set(ballot) == {"critique", "ranking"}
    assert isinstance(ballot["critique"], str)
    assert sorted(ballot["ranking"]) == labels


@pytest.mark.slow
def test_same_seed_gives_the_same_text(llama_server: str) -> None:
    """Identical requests at a fixed seed give identical text once the server holds the prompt.

    llama_cpp.server reuses the longest cached KV prefix of the previous request, and how much
    of the prompt is re-evaluated changes the logits in the last bits; so the first call after a
    different prompt may sample differently at a high temperature. The first call brings the
    server to the same state for the two calls compared.
    """
    call = {"messages": QUESTION, "temperature": 0.9, "max_tokens": 24, "seed": 11}
    _, first, second = run_chats(OpenAICompatProvider(llama_server, None), call, call, call)
    assert first.text.strip()
    assert first.text == second.text
    assert first.tokens_out == second.tokens_out


def test_authorization_header_carries_the_named_key(fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    provider = OpenAICompatProvider(fault_server.base_url, KEY_ENV, max_retries=0)
    monkeypatch.delenv(KEY_ENV)  # read at construction: later changes do not matter
    [c] = run_chats(provider, {"messages": QUESTION, "temperature": 0.0, "max_tokens": 8, "seed": 0})
    assert c.text == "The capital of France is Paris."
    fault_server.script(status(401, body='{"error": "bad key"}'))
    with pytest.raises(ProviderError) as info:
        run_chats(provider, {"messages": QUESTION, "temperature": 0.0, "max_tokens": 8, "seed": 0})
    headers = [r.headers.get("authorization") for r in fault_server.requests]
    assert headers == [f"Bearer {SECRET}", f"Bearer {SECRET}"]
    assert SECRET not in str(info.value)
    assert str(info.value) == (
        f"openai endpoint {fault_server.base_url} (model 'smollm2'): "
        f'HTTP 401 (not authorized; check the key in ${KEY_ENV}): {{"error": "bad key"}}'
    )


def test_missing_key_variable_sends_no_header(fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    provider = OpenAICompatProvider(fault_server.base_url, KEY_ENV)
    run_chats(provider, {"messages": QUESTION, "temperature": 0.0, "max_tokens": 8, "seed": 0})
    [req] = fault_server.requests
    assert "authorization" not in req.headers
    assert provider.has_key is False


@pytest.mark.slow
def test_endpoint_judge_reads_top_logprobs(llama_server: str, tmp_path) -> None:
    """The rubric judge on an endpoint that returns ``top_logprobs`` (llama_cpp.server does): the
    accuracy score is the expected value over the alternatives at the value's position, and is
    recomputed here from the returned tokens."""
    import math
    import re

    from harness.config import MemberSpec, Settings
    from harness.council.calls import Caller
    from harness.data.cases import Case
    from harness.metrics.judge_rubric import judge_messages, judge_schema, run_rubric_judge
    from harness.records.transcript import Answer, Transcript

    case = Case(id="capital", query="What is the capital of Australia?", ground_truth="Canberra.")
    settings = Settings(
        models=[MemberSpec(id="j", provider="openai", model="smollm2")],
        judge="j",
        base_url=llama_server,
        member_timeout=600.0,
    )
    answer = "Canberra is the capital of Australia."
    t = Transcript(
        subject="baseline",
        query=case.query,
        final_answer=answer,
        answers=(Answer(member="j", model="smollm2", text=answer),),
    )
    from harness.providers.cache import CachedProvider, CacheStore

    provider = CachedProvider(
        OpenAICompatProvider(llama_server, None, timeout=600.0), CacheStore(tmp_path / "c.sqlite"), "readwrite"
    )

    async def go():
        try:
            caller = Caller({"openai": provider}, settings)
            # 40 tokens reach past the accuracy value (the first key); the cut-off reply is not needed
            judged = await run_rubric_judge(case, t, caller, settings, max_tokens=40)
            # the very reply the judge read, from the cache
            raw = await provider.chat(
                "smollm2",
                judge_messages(case, answer),
                temperature=0.0,
                top_p=1.0,
                max_tokens=40,
                seed=settings.seed,
                json_schema=judge_schema(),
                top_logprobs=20,
            )
            return judged, raw
        finally:
            await provider.aclose()

    run, raw = asyncio.run(go())
    assert raw.cached
    j = run.judgement
    assert j is not None and j.method == "top_logprobs" and j.error is None
    assert raw.token_logprobs and all(tok.top for tok in raw.token_logprobs)
    # by hand: the token where the accuracy value starts, its alternatives that are numbers 2..9
    text, starts = "", []
    for tok in raw.token_logprobs:
        starts.append(len(text))
        text += tok.token
    at = re.search(r'"accuracy"\s*:\s*', text).end()
    i = next(k for k, s0 in enumerate(starts) if s0 <= at < s0 + len(raw.token_logprobs[k].token))
    tok = raw.token_logprobs[i]
    prefix = tok.token[: at - starts[i]]
    lps = j.score_logprobs["accuracy"]
    for alt, lp in tok.top.items():
        rest = alt[len(prefix) :] if alt.startswith(prefix) else ""
        if rest.isdigit() and 2 <= int(rest) <= 9:
            assert lps[f" {int(rest)}"] == pytest.approx(lp)
    weights = {int(o): math.exp(v) for o, v in lps.items()}
    by_hand = sum(s * w for s, w in weights.items()) / sum(weights.values())
    assert j.scores["accuracy"] == pytest.approx(by_hand, rel=1e-12)
    assert 1.0 <= j.scores["accuracy"] <= 10.0
