"""A whole council over HTTP: three members on a real llama_cpp.server (SmolLM2-135M)."""

from __future__ import annotations

import asyncio
import json

import pytest

from harness.config import Settings, load_settings
from harness.council.calls import Caller
from harness.council.stages import Council
from harness.metrics.quality_metrics import core_quality_metrics
from harness.providers.openai_compat import OpenAICompatProvider
from harness.records.transcript import Transcript
from tests.fault_server import FaultServer, ok, status
from tests.llama_server import free_port

QUERY = "What is the capital of France?"
LABELS = ("Response A", "Response B", "Response C")


def council_settings(base_url: str, c_model: str = "smollm2", **extra: object) -> Settings:
    return load_settings(
        base_url=base_url,
        models=[
            {"id": "a", "provider": "openai", "model": "smollm2", "temperature": 0.2},
            {"id": "b", "provider": "openai", "model": "smollm2", "temperature": 0.7, "seed": 1},
            {"id": "c", "provider": "openai", "model": c_model, "temperature": 0.9, "seed": 2},
        ],
        chairman="a",
        answer_max_tokens=48,
        review_max_tokens=200,
        synthesis_max_tokens=48,
        rubric_scoring=False,
        **extra,
    )


def run_council(settings: Settings, provider: OpenAICompatProvider) -> Transcript:
    council = Council(
        list(settings.models), settings.role_spec("chairman"), Caller({"openai": provider}, settings), settings
    )

    async def go() -> Transcript:
        try:
            return await council.answer(QUERY)
        finally:
            await provider.aclose()

    return asyncio.run(go())


@pytest.mark.slow
def test_council_over_llama_server(llama_server: str) -> None:
    settings = council_settings(llama_server)
    t = run_council(settings, OpenAICompatProvider.from_settings(settings))

    assert t.errors == ()
    assert [a.member for a in t.answers] == ["a", "b", "c"]
    assert all(a.ok and a.text for a in t.answers)
    assert t.label_to_member == {"Response A": "a", "Response B": "b", "Response C": "c"}
    assert [r.reviewer for r in t.reviews] == ["a", "b", "c"]
    for review in t.reviews:
        assert review.ok and not review.ballot.abstained, review.raw_text
        # grammar-constrained JSON and nothing around it; the schema admits three labels from the
        # enum but not their uniqueness (llama.cpp ignores uniqueItems), so duplicates may be dropped
        assert review.ballot.method == "json_raw", review.raw_text
        assert review.ballot.ranking and set(review.ballot.ranking) <= set(LABELS), review.raw_text
        assert len(json.loads(review.raw_text, strict=False)["ranking"]) == 3, review.raw_text
    assert sorted(r.member for r in t.aggregate) == ["a", "b", "c"]
    # each member can only be ranked by the two reviewers other than itself (self-votes excluded)
    assert sum(r.votes for r in t.aggregate) > 0 and all(r.votes <= 2 for r in t.aggregate)
    for rank in t.aggregate:
        assert 0.0 <= rank.borda <= 1.0
        assert rank.average_position is None if rank.votes == 0 else 1.0 <= rank.average_position <= 2.0
    assert t.synthesis and t.final_answer == t.synthesis
    assert [c.stage for c in t.calls] == ["stage1"] * 3 + ["stage2"] * 3 + ["stage3"]
    assert all(c.error is None and c.tokens_in > 0 and c.tokens_out > 0 for c in t.calls)

    q = core_quality_metrics(t)
    assert q.core.deliberation_components["coverage"] == 1.0
    assert 0.0 <= q.core.consensus_strength <= 1.0
    assert 0.0 <= q.core.deliberation_depth <= 1.0
    assert all(0.0 <= v <= 1.0 for v in q.core.deliberation_components.values())
    sas = q.core.synthesis_attribution
    assert 0.0 <= sas.winner_alignment <= 1.0 and 0.0 <= sas.max_source_alignment <= 1.0
    assert sas.hallucination_risk == round(1 - sas.max_source_alignment, 3)


def test_council_with_one_failing_member_completes() -> None:
    """Member c's model fails at the endpoint (always 503); a and b get scripted replies.

    The Caller routes calls by provider kind, so two 'openai' members cannot point at two
    different endpoints; the failing member is a model that the one endpoint refuses.
    """
    ballot = '{"critique": "Both say Paris, which is right.", "ranking": ["Response A", "Response B"]}'
    with FaultServer() as server:
        base = server.base_url
        server.for_model("broken", status(503, body='{"error": {"message": "model overloaded"}}'))
        server.script(ok("Paris."), ok("Paris."), ok(ballot), ok(ballot), ok("The capital of France is Paris."))
        settings = council_settings(base, c_model="broken", max_retries=1)
        t = run_council(settings, OpenAICompatProvider.from_settings(settings, backoff_base=0.01))
        models = [(r.body or {}).get("model") for r in server.requests]

    assert sorted(models) == ["broken"] * 2 + ["smollm2"] * 5  # c: max_retries=1 -> two attempts
    error = (
        f"openai endpoint {base} (model 'broken'): "
        'failed after 2 attempts: HTTP 503: {"error": {"message": "model overloaded"}}'
    )
    assert [(a.member, a.text, a.error) for a in t.answers] == [
        ("a", "Paris.", None),
        ("b", "Paris.", None),
        ("c", "", error),
    ]
    assert t.errors == (f"stage1 c: {error}",)
    assert [c.error for c in t.calls if c.member == "c"] == [error]
    assert t.label_to_member == {"Response A": "a", "Response B": "b"}
    # each reviewer saw its own labels (recorded): its "A > B" is translated back to the transcript's labels
    for r in t.reviews:
        back = {shown: label for label, shown in r.shown_labels.items()}
        assert sorted(r.shown_labels) == sorted(r.shown_labels.values()) == ["Response A", "Response B"]
        assert r.ballot.ranking == (back["Response A"], back["Response B"])
    assert [r.reviewer for r in t.reviews] == ["a", "b"]
    # self-votes dropped: a's ballot ranks only b, b's only a -> a tie broken by member id
    assert [(r.member, r.borda, r.average_position, r.votes) for r in t.aggregate] == [
        ("a", 1.0, 1.0, 1),
        ("b", 1.0, 1.0, 1),
    ]
    assert t.synthesis == t.final_answer == "The capital of France is Paris."
    assert core_quality_metrics(t).core.deliberation_components["coverage"] == 1.0  # 2 reviews / 2 answers


def test_council_on_a_dead_port_records_every_failure() -> None:
    base = f"http://127.0.0.1:{free_port()}/v1"
    settings = council_settings(base, max_retries=0)
    t = run_council(settings, OpenAICompatProvider.from_settings(settings))
    assert [a.ok for a in t.answers] == [False, False, False]
    assert all(
        a.error and a.error.startswith(f"openai endpoint {base} (model 'smollm2'): failed after 1 attempt: ")
        for a in t.answers
    )
    assert t.errors[-1] == "stage1: no member produced an answer"
    assert t.reviews == () and t.synthesis is None and t.final_answer == ""


def test_members_on_their_own_endpoints() -> None:
    """A member may name its own endpoint: one healthy server, one member on a closed port."""
    import asyncio

    from harness.config import load_settings
    from harness.run.engine import Engine
    from tests.fault_server import FaultServer, ok

    with FaultServer(default=ok('{"critique": "fine", "ranking": ["Response A", "Response B"]}')) as srv:
        settings = load_settings(
            models=[
                {"id": "a", "provider": "openai", "model": "m1", "base_url": srv.base_url},
                {"id": "b", "provider": "openai", "model": "m2", "base_url": srv.base_url},
                {"id": "dead", "provider": "openai", "model": "m3", "base_url": "http://127.0.0.1:9/v1"},
            ],
            chairman="a",
            cache_mode="off",
            max_retries=0,
            request_timeout=2,
        )
        engine = Engine(settings, ["council"])
        assert sorted(engine.providers) == [f"openai@{srv.base_url}|", "openai@http://127.0.0.1:9/v1|"]

        async def go():  # noqa: ANN202 - one event loop for the calls and the client's shutdown
            try:
                return await engine.subjects["council"].answer("q?")
            finally:
                await engine.aclose()

        t = asyncio.run(go())
    assert [a.member for a in t.answers if a.ok] == ["a", "b"]
    assert any(e.startswith("stage1 dead:") for e in t.errors)
    assert {r.reviewer for r in t.reviews} == {"a", "b"} and t.synthesis
