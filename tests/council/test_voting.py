"""The ``voting`` subject (seed 002): the pure algorithm on hand-written answers, the subject over a
loopback HTTP server (time-outs, failures, a real second round), and one run on the embedded models."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest
from pydantic import ValidationError

from harness.common.errors import ConfigError
from harness.config import MemberSpec, Settings, default_members
from harness.council.calls import Caller
from harness.council.consensus_types import AgreementLevel, ConsensusResult, ModelResponse
from harness.council.voting import (
    CONFIDENCE_LEVELS,
    CONFLICT_INSTRUCTION,
    VOTE_SCHEMA,
    VotingConfig,
    VotingCouncil,
    classify_agreement,
    compute_weighted_votes,
    conflict_summary,
    consensus_confidence,
    detect_agreement,
    first_two_sentences,
    herfindahl,
    parse_vote,
    rank_by_quality,
    run_consensus,
    should_trigger_second_round,
    synthesize_response,
)
from harness.metrics.heuristic_quality import heuristic_quality
from harness.providers.local import LocalProvider
from harness.providers.openai_compat import OpenAICompatProvider
from harness.records.transcript import Transcript
from tests.fault_server import FaultServer, ok, slow

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def resp(model: str, content: str, confidence: float = 0.5, citations: tuple[str, ...] = ()) -> ModelResponse:
    return ModelResponse(model=model, content=content, confidence=confidence, citations=citations)


# Quality of a one-word answer such as "ab", by the seed's formulas:
# coherence 20 (no contradiction only), density 30 (no citation), richness 20 (diversity 1, 2 letters),
# completeness 70 (one line), error freedom 100 -> .25*20 + .2*30 + .2*20 + .2*70 + .15*100 = 44.
ONE_WORD_QUALITY = 44.0


# --- confidence weights, Herfindahl, final confidence -------------------------------------------


def test_weights_normalize_confidences() -> None:
    w = compute_weighted_votes([resp("claude", "x", 0.92), resp("deepseek", "y", 0.78), resp("gemini", "z", 0.65)])
    # 0.92/2.35, 0.78/2.35, 0.65/2.35 (the seed's example prints .42/.36/.30, which sum to 1.08)
    assert w == pytest.approx({"claude": 0.391489, "deepseek": 0.331915, "gemini": 0.276596}, abs=1e-6)
    assert sum(w.values()) == pytest.approx(1.0)


def test_weights_uniform_when_all_zero() -> None:
    assert compute_weighted_votes([resp("a", "x", 0.0), resp("b", "y", 0.0)]) == {"a": 0.5, "b": 0.5}
    assert compute_weighted_votes([]) == {}


def test_herfindahl() -> None:
    assert herfindahl({"a": 0.5, "b": 0.25, "c": 0.25}) == pytest.approx(0.375)
    assert herfindahl({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}) == pytest.approx(1 / 3)
    assert herfindahl({"a": 1.0}) == 1.0


def test_final_confidence_by_hand() -> None:
    # .35 + 80/100*.35 + 1*.30
    assert consensus_confidence(AgreementLevel.STRONG_AGREEMENT, 80.0, {"a": 1.0}) == pytest.approx(0.93)
    # .05 + .5*.35 + (1/3)*.30
    uniform = {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}
    assert consensus_confidence(AgreementLevel.DISAGREEMENT, 50.0, uniform) == pytest.approx(0.325)
    # .25 + .6*.35 + .375*.30
    assert consensus_confidence(AgreementLevel.MODERATE_AGREEMENT, 60.0, {"a": 0.5, "b": 0.25, "c": 0.25}) == (
        pytest.approx(0.5725)
    )
    assert consensus_confidence(AgreementLevel.WEAK_AGREEMENT, 0.0, {"a": 0.5, "b": 0.5}) == pytest.approx(0.30)


# --- agreement ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "level"),
    [
        (100.0, AgreementLevel.STRONG_AGREEMENT),
        (85.0, AgreementLevel.STRONG_AGREEMENT),
        (84.999, AgreementLevel.MODERATE_AGREEMENT),
        (70.0, AgreementLevel.MODERATE_AGREEMENT),
        (69.999, AgreementLevel.WEAK_AGREEMENT),
        (55.0, AgreementLevel.WEAK_AGREEMENT),
        (54.999, AgreementLevel.DISAGREEMENT),
        (0.0, AgreementLevel.DISAGREEMENT),
    ],
)
def test_agreement_thresholds(score: float, level: AgreementLevel) -> None:
    assert classify_agreement(score, VotingConfig()) is level


def test_agreement_thresholds_configurable() -> None:
    cfg = VotingConfig(strong_threshold=100, moderate_threshold=100, weak_threshold=0)
    assert classify_agreement(99.9, cfg) is AgreementLevel.WEAK_AGREEMENT
    assert classify_agreement(100.0, cfg) is AgreementLevel.STRONG_AGREEMENT


def test_second_round_trigger() -> None:
    assert should_trigger_second_round(AgreementLevel.WEAK_AGREEMENT, 2)
    assert should_trigger_second_round(AgreementLevel.DISAGREEMENT, 3)
    assert not should_trigger_second_round(AgreementLevel.DISAGREEMENT, 1)
    assert not should_trigger_second_round(AgreementLevel.MODERATE_AGREEMENT, 2)


def test_detect_agreement_pairs() -> None:
    level, sims, score = detect_agreement([resp("a", "ab"), resp("b", "ab"), resp("c", "cd")], VotingConfig())
    # identical texts: 1.0; "ab" vs "cd": no shared token, no shared character: 0.0
    assert sims == {"a_vs_b": 1.0, "a_vs_c": 0.0, "b_vs_c": 0.0}
    assert score == pytest.approx(100 / 3)
    assert level is AgreementLevel.DISAGREEMENT


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"weak_threshold": 80}, "thresholds"),
        ({"strong_threshold": 101}, "thresholds"),
        ({"token_weight": 0.7}, "must be 1"),
        ({"priority": ("a", "a")}, "repeat"),
        ({"timeout_s": 0}, "greater than 0"),
        ({"max_rounds": 0}, "greater than or equal to 1"),
    ],
)
def test_config_validation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        VotingConfig(**kwargs)


# --- quality ranking and tie-breaking ----------------------------------------------------------


def test_ties_follow_response_order_by_default() -> None:
    ranked = rank_by_quality([resp("x", "ab"), resp("y", "ab"), resp("z", "ab")], VotingConfig())
    assert [r.model for r, _ in ranked] == ["x", "y", "z"]
    assert {q.overall for _, q in ranked} == {ONE_WORD_QUALITY}


def test_ties_follow_priority_list() -> None:
    ranked = rank_by_quality([resp("x", "ab"), resp("y", "ab"), resp("z", "ab")], VotingConfig(priority=("z", "x")))
    assert [r.model for r, _ in ranked] == ["z", "x", "y"]  # unlisted y comes last


def test_quality_beats_priority() -> None:
    # "Therefore ab follows.": coherence 20 + 15 (transition) = 35; density 30; richness 20 + 10
    # (19/3 letters); 70; 100 -> 8.75 + 6 + 6 + 14 + 15 = 49.75 > 44
    ranked = rank_by_quality([resp("x", "ab"), resp("y", "Therefore ab follows.")], VotingConfig(priority=("x",)))
    assert [(r.model, q.overall) for r, q in ranked] == [("y", 49.75), ("x", ONE_WORD_QUALITY)]


def test_citation_count_comes_from_the_response() -> None:
    ranked = rank_by_quality([resp("x", "ab", citations=("[1]",))], VotingConfig())
    # coherence 20 + 3; density: 1 citation per 1 word = 100 per 100 words -> 50
    assert ranked[0][1].semantic_coherence == 23.0
    assert ranked[0][1].citation_density == 50.0


# --- synthesis ---------------------------------------------------------------------------------


def test_first_two_sentences() -> None:
    assert first_two_sentences("Water boils at 100 C. It freezes at 0 C. Ice floats.") == (
        "Water boils at 100 C. It freezes at 0 C"
    )
    assert first_two_sentences("Bananas are yellow.") == "Bananas are yellow"


def test_synthesis_merges_unique_middles_and_sources() -> None:
    best = resp("best", "Water boils at 100 C. It freezes at 0 C. Ice floats.", citations=("Smith 2023",))
    # 12 tokens, 11 not in best's 8 (only "it" shared) > 0.15*8: sentences 2-3 added; pool 19 tokens
    second = resp(
        "second", "Salt raises the boiling point. Pressure matters too. Altitude lowers it. Done.", citations=("[1]",)
    )
    # every token already in the pool: nothing added
    repeat = resp("repeat", "Water boils at 100 C. It freezes.")
    # 8 new tokens ("boils" is known) > 0.15*19: sentences 2-3 added; pool 27
    third = resp(
        "third",
        "Mercury boils hotter. Iron melts later. Gold shines forever.",
        citations=("Smith 2023", "https://x.org"),
    )
    # 7 new tokens > 0.15*27 = 4.05, but only the first two contributors are used
    fourth = resp("fourth", "Zinc is grey. Tin is soft. Lead is heavy.")
    order = [best, second, repeat, third, fourth]
    rankings = [(r, heuristic_quality(r.content)) for r in order]
    assert synthesize_response(order, rankings) == (
        "Water boils at 100 C. It freezes at 0 C. Pressure matters too. Altitude lowers it. "
        "Iron melts later. Gold shines forever. \n\nSources: Smith 2023, [1], https://x.org"
    )


def test_synthesis_keeps_at_most_five_sources() -> None:
    a = resp("a", "One. Two.", citations=("s1", "s2", "s3"))
    b = resp("b", "One. Two.", citations=("s3", "s4", "s5", "s6"))
    out = synthesize_response([a, b], [(a, heuristic_quality(a.content)), (b, heuristic_quality(b.content))])
    assert out == "One. Two. \n\nSources: s1, s2, s3, s4, s5"


# --- the pure algorithm ------------------------------------------------------------------------


def test_run_consensus_disagreement_reranks_existing_answers() -> None:
    responses = [resp("a", "ab", 0.5), resp("b", "ab", 0.5), resp("c", "cd", 0.0)]
    result = run_consensus(responses)
    assert result.agreement_level is AgreementLevel.DISAGREEMENT
    assert result.second_round_triggered and result.round_count == 2
    assert result.winning_member == "a" and result.winning_response == "ab"  # three-way tie, member order
    assert result.model_votes == {"a": 44.0, "b": 44.0, "c": 44.0}
    assert result.weights == {"a": 0.5, "b": 0.5, "c": 0.0}
    # pool {ab}; "cd" is new but has no second sentence; "ab" adds nothing -> just the opening
    assert result.synthesized_response == "ab."
    assert result.final_answer == "ab."
    # .05 + .44*.35 + (.25 + .25)*.30
    assert result.confidence_score == pytest.approx(0.354)
    assert result.similarities == {"a_vs_b": 1.0, "a_vs_c": 0.0, "b_vs_c": 0.0}
    assert result.similarity_score == pytest.approx(100 / 3)
    assert result.round2_answers == {} and result.round2_agreement_level is None
    assert "tie among a, b, c broken by priority" in result.reasoning
    assert result.consensus_id == run_consensus(responses).consensus_id  # stable


def test_run_consensus_priority_decides_the_winner() -> None:
    result = run_consensus([resp("a", "ab"), resp("b", "ab"), resp("c", "cd")], VotingConfig(priority=("c",)))
    assert result.winning_member == "c"
    assert result.synthesized_response == "cd."


def test_run_consensus_one_round_only() -> None:
    result = run_consensus([resp("a", "ab"), resp("b", "cd")], VotingConfig(max_rounds=1))
    assert not result.second_round_triggered and result.round_count == 1
    assert result.synthesized_response is None
    assert result.final_answer == "ab"


def test_run_consensus_strong_agreement() -> None:
    result = run_consensus([resp("a", "ab", 0.9), resp("b", "ab", 0.3)])
    assert result.agreement_level is AgreementLevel.STRONG_AGREEMENT
    assert not result.second_round_triggered and result.synthesized_response is None
    # .35 + .44*.35 + (.75^2 + .25^2)*.30
    assert result.confidence_score == pytest.approx(0.35 + 0.154 + 0.625 * 0.3)


def test_run_consensus_with_real_second_round_answers() -> None:
    responses = [resp("a", "ab", 0.5), resp("b", "ab", 0.5), resp("c", "cd", 0.0)]
    result = run_consensus(responses, second_round=[resp("c", "Therefore ab follows.", 1.0)])
    assert result.winning_member == "c" and result.winning_response == "Therefore ab follows."
    assert result.model_votes == {"c": 49.75, "a": 44.0, "b": 44.0}
    assert result.synthesized_response == "Therefore ab follows."  # "ab" brings no new token
    # round-1 agreement and weights: .05 + .4975*.35 + .5*.30
    assert result.confidence_score == pytest.approx(0.374125)
    assert result.round2_answers == {"c": "Therefore ab follows."}
    # a/b identical (1.0); "ab" vs "Therefore ab follows.": jaccard 1/3, sequence 2*2/23 -> .2 + .4*4/23
    mixed = 0.2 + 0.4 * 4 / 23
    assert result.round2_similarities == pytest.approx({"a_vs_b": 1.0, "a_vs_c": mixed, "b_vs_c": mixed})
    assert result.round2_agreement_level is AgreementLevel.DISAGREEMENT
    assert "re-evaluated" in result.reasoning


def test_run_consensus_single_response_is_wrapped() -> None:
    result = run_consensus([resp("solo", "ab", 0.7)])
    assert result.agreement_level is AgreementLevel.STRONG_AGREEMENT
    assert result.winning_member == "solo" and result.final_answer == "ab"
    assert result.confidence_score == 0.7  # the model's own
    assert result.model_votes == {"solo": 44.0} and result.weights == {"solo": 1.0}
    assert result.similarities == {} and not result.second_round_triggered


def test_run_consensus_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="no responses"):
        run_consensus([])
    with pytest.raises(ValueError, match="unique"):
        run_consensus([resp("a", "x"), resp("a", "y")])
    with pytest.raises(ValueError, match="does not trigger"):
        run_consensus([resp("a", "ab"), resp("b", "ab")], second_round=[resp("a", "cd")])
    with pytest.raises(ValueError, match="without a round-1 answer"):
        run_consensus([resp("a", "ab"), resp("b", "cd")], second_round=[resp("z", "cd")])


# --- prompts and replies -----------------------------------------------------------------------


def test_vote_schema_uses_a_confidence_enum() -> None:
    assert VOTE_SCHEMA["properties"]["confidence"] == {"enum": list(CONFIDENCE_LEVELS)}
    assert CONFIDENCE_LEVELS == (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@pytest.mark.parametrize(
    ("reply", "parsed"),
    [
        ('{"answer": "Paris", "confidence": 0.7}', ("Paris", 0.7)),
        ('{ "answer": "Paris", "confidence": "0.3"} ', ("Paris", 0.3)),
        ('{"answer": "Paris", "confidence": 7}', ("Paris", 1.0)),
        ('{"answer": "Paris", "confidence": true}', ("Paris", None)),
        ('{"answer": "Paris is the cap', ("Paris is the cap", None)),  # cut off by the token limit
        ('{"answer": "a \\"quoted\\" wo\\', ('a "quoted" wo', None)),
        ('{"confidence": 0.4, "answer": "Lyon and', ("Lyon and", 0.4)),
        ("Paris.", ("Paris.", None)),  # not JSON at all: a plain answer
        ('{"confidence": 0.5', None),
        ('{"answer": "  ", "confidence": 0.5}', None),
        ("   ", None),
    ],
)
def test_parse_vote(reply: str, parsed: tuple[str, float | None] | None) -> None:
    assert parse_vote(reply) == parsed


def test_conflict_summary() -> None:
    responses = [resp("a", "ab"), resp("b", "ab"), resp("c", "cd " * 20)]
    sims = {"a_vs_b": 1.0, "a_vs_c": 0.0, "b_vs_c": 0.123}
    assert conflict_summary("b", responses, sims, excerpt_chars=20) == (
        f"{CONFLICT_INSTRUCTION}\n"
        '- Other answer 1 (similarity to your answer: 100%): "ab"\n'
        '- Other answer 2 (similarity to your answer: 12%): "cd cd cd cd cd cd c\u2026"'  # 19 chars + ellipsis
    )


# --- the subject over a loopback HTTP server ----------------------------------------------------

PARIS = '{"answer": "Paris is the capital of France.", "confidence": 0.8}'
LYON = '{"answer": "Lyon is the capital of France.", "confidence": 0.6}'
BANANAS = '{"answer": "Bananas are yellow.", "confidence": 0.6}'


def http_member(member_id: str, model: str) -> MemberSpec:
    return MemberSpec(id=member_id, provider="openai", model=model, temperature=0.0)


def run_voting(server: FaultServer, members: list[MemberSpec], config: VotingConfig) -> Transcript:
    settings = Settings(base_url=server.base_url)

    async def go() -> Transcript:
        provider = OpenAICompatProvider(server.base_url, None, max_retries=0, timeout=10)
        try:
            council = VotingCouncil(members, Caller({"openai": provider}, settings), settings, config)
            return await council.answer("What is the capital of France?")
        finally:
            await provider.aclose()

    return run(go())


def test_slow_failed_and_unsure_members_degrade_gracefully() -> None:
    with FaultServer() as server:
        server.for_model("m-paris", ok(PARIS))
        server.for_model("m-plain", ok("Lyon is the capital of France."))  # no JSON: no confidence
        server.for_model("m-slow", slow(5))
        members = [
            http_member("paris", "m-paris"),
            http_member("plain", "m-plain"),
            http_member("slow", "m-slow"),
            MemberSpec(id="offline", model="smollm2-135m"),  # no local provider in this caller
        ]
        t = run_voting(server, members, VotingConfig(timeout_s=0.5))
    assert [a.member for a in t.answers] == ["paris", "plain", "slow", "offline"]
    assert [a.ok for a in t.answers] == [True, True, False, False]
    assert t.answers[0].confidence == 0.8 and t.answers[1].confidence is None
    assert t.answers[2].error == "timed out after 0.5 s"
    assert t.errors == (
        "stage1 plain: no confidence given; its vote weight is 0",
        "stage1 slow: timed out after 0.5 s",
        "stage1 offline: no 'local' provider configured",
    )
    v = t.voting
    assert v is not None
    # tokens 5/7 shared; sequence: " is the capital of France." (26 chars) of 31 + 30 -> 52/61
    assert v.similarities == pytest.approx({"paris_vs_plain": 0.6 * 5 / 7 + 0.4 * 52 / 61})
    assert v.agreement_level is AgreementLevel.MODERATE_AGREEMENT  # 76.96
    assert not v.second_round_triggered and [c.stage for c in t.calls] == ["stage1"] * 4
    # both answers: coherence 20, density 30, richness 20 + 20 (26/6 and 25/6 letters), 70, 100 -> 48
    assert v.model_votes == {"paris": 48.0, "plain": 48.0}
    assert v.winning_member == "paris" and t.final_answer == "Paris is the capital of France."
    assert v.weights == {"paris": 1.0, "plain": 0.0}
    assert v.confidence_score == pytest.approx(0.25 + 0.48 * 0.35 + 0.30)
    assert t.subject == "voting"


def test_second_round_sends_the_conflict_summary() -> None:
    with FaultServer() as server:
        server.for_model("m-a", ok(PARIS))
        server.for_model("m-b", ok(BANANAS))
        t = run_voting(server, [http_member("a", "m-a"), http_member("b", "m-b")], VotingConfig(priority=("b",)))
        bodies = [r.body or {} for r in server.requests]
    assert [c.stage for c in t.calls] == ["stage1", "stage1", "round2", "round2"]
    assert len(bodies) == 4
    assert all('"confidence": {"enum": [0.0, 0.1, 0.2' in json.dumps(b) for b in bodies)
    round2 = {b["model"]: b["messages"] for b in bodies[2:]}
    a_msgs = round2["m-a"]
    assert [m["role"] for m in a_msgs] == ["user", "assistant", "user"]
    assert a_msgs[1]["content"] == "Paris is the capital of France."
    assert a_msgs[2]["content"].startswith(CONFLICT_INSTRUCTION + "\n- Other answer 1 (similarity to your answer: ")
    assert '"Bananas are yellow."' in a_msgs[2]["content"]
    assert '"Paris is the capital of France."' in round2["m-b"][2]["content"]
    v = t.voting
    assert v is not None
    assert v.agreement_level is AgreementLevel.DISAGREEMENT  # no shared token: at most 0.4 * 100
    assert v.second_round_triggered and v.round_count == 2
    assert v.round2_answers == {"a": "Paris is the capital of France.", "b": "Bananas are yellow."}
    # both 48 (bananas: richness 20 + 20 for 17/3 letters); priority picks b
    assert v.model_votes == {"b": 48.0, "a": 48.0}
    assert v.winning_member == "b"
    assert v.synthesized_response == "Bananas are yellow." == t.final_answer
    # .05 + .48*.35 + (.8^2 + .6^2)/1.4^2 * .30
    assert v.confidence_score == pytest.approx(0.05 + 0.168 + 0.3 / 1.96)
    assert Transcript.model_validate_json(t.model_dump_json()) == t  # run records round-trip


def test_no_answers_at_all() -> None:
    settings = Settings()
    members = [MemberSpec(id="x", model="smollm2-135m"), MemberSpec(id="y", model="gemma3-270m")]
    t = run(VotingCouncil(members, Caller({}, settings), settings).answer("Q?"))
    assert t.voting is None and t.final_answer == ""
    assert t.errors[-1] == "stage1: no member produced an answer"
    assert [a.ok for a in t.answers] == [False, False]


def test_subject_configuration_errors() -> None:
    settings = Settings()
    caller = Caller({}, settings)
    with pytest.raises(ConfigError, match="at least one"):
        VotingCouncil([], caller, settings)
    dup = [MemberSpec(id="x", model="smollm2-135m"), MemberSpec(id="x", model="gemma3-270m")]
    with pytest.raises(ConfigError, match="unique"):
        VotingCouncil(dup, caller, settings)
    with pytest.raises(ConfigError, match="voting.priority"):
        VotingCouncil(dup[:1], caller, settings, VotingConfig(priority=("nobody",)))


# --- one real run on the embedded models --------------------------------------------------------


@pytest.mark.slow
def test_voting_council_on_embedded_models_with_forced_second_round() -> None:
    settings = Settings(answer_max_tokens=48)
    members = default_members()
    # Every mean similarity below 100 is "weak", so the second round must run. The generous
    # time limit keeps a busy 2-core machine from dropping members (the default is 30 s).
    config = VotingConfig(strong_threshold=100, moderate_threshold=100, weak_threshold=0, timeout_s=600)

    async def go() -> Transcript:
        provider = LocalProvider()
        try:
            council = VotingCouncil(members, Caller({"local": provider}, settings), settings, config)
            return await council.answer("Name one animal that lives in the sea and say one fact about it.")
        finally:
            await provider.aclose()

    t = run(go())
    ids = [m.id for m in members]
    assert t.subject == "voting" and [a.member for a in t.answers] == ids
    survivors = [a.member for a in t.ok_answers]
    assert len(survivors) >= 2, t.errors
    assert all(a.confidence is None or a.confidence in CONFIDENCE_LEVELS for a in t.ok_answers)
    v = t.voting
    assert isinstance(v, ConsensusResult)
    assert v.agreement_level is AgreementLevel.WEAK_AGREEMENT
    assert v.second_round_triggered and v.round_count == 2
    round1 = {c.member: c for c in t.calls if c.stage == "stage1"}
    round2 = {c.member: c for c in t.calls if c.stage == "round2"}
    assert set(round1) == set(ids) and set(round2) == set(survivors)
    for member, call in round2.items():  # real second calls, with the conflict summary in the prompt
        assert call.error is not None or call.tokens_in > round1[member].tokens_in
    assert set(v.model_votes) == set(survivors) and v.winning_member in survivors
    assert all(0 <= q <= 100 for q in v.model_votes.values())
    assert len(v.similarities) == len(survivors) * (len(survivors) - 1) // 2
    assert sum(v.weights.values()) == pytest.approx(1.0)
    assert v.synthesized_response and t.final_answer == v.synthesized_response
    assert v.confidence_score == pytest.approx(
        consensus_confidence(v.agreement_level, v.model_votes[v.winning_member], v.weights)
    )
    assert v.reasoning and v.consensus_id.startswith("consensus-") and v.total_execution_time_ms > 0
