"""The ``llm-council`` subject (llm-council-core 0.53.0) and the comparison of its self-reported metrics.

Fast tests use hand-made package output (in the package's own dict shapes) and a transcript recorded
from a real run (``tests/fixtures/llm_council_transcript.json``); one slow test runs the package's full
council on the embedded SmolLM2 served by ``llama_cpp.server`` and scores a two-case golden dataset.

Re-record the data file (a llama_cpp.server with SmolLM2 must be listening)::

    python -m tests.council.test_external_council --record http://127.0.0.1:PORT/v1

The hand-made council (members a, b, c with models m-a, m-b, m-c; chairman ``chair``/``m-chair``):

- answers a "red green blue", b "red green yellow", c "cat dog"; labels A->a, B->b, C->c;
- every reviewer writes 25 words and ``FINAL RANKING: 1. Response A 2. Response B 3. Response C``;
- the synthesis is a's answer verbatim.

Worked by hand (harness): each ballot drops the reviewer's own answer and is re-indexed, so
a is 1st twice (1.0), b 1st for a and 2nd for c (1.5), c 2nd twice (2.0).
CSS over (1, 1.5, 2): wm = min(1, .5/2) = .25, range_ratio = 1/2, gaps (.5, .5) -> gap_consistency 1,
ordering .75, non_tie 1 -> .4*.25 + .4*.75 + .2 = 0.6.
DDI: J(a,b) = |{red,green}| / |{red,green,blue,yellow}| = .5, J(a,c) = J(b,c) = 0 -> diversity
(.5 + 1 + 1)/3 = .8333; coverage 3/3; richness 25/50 = .5 -> .35*.8333 + .35 + .3*.5 = 0.792.
SAS: winners a, b -> (1 + .5)/2 = 0.75; max 1.0; risk 0.0; grounded.

The package (its own code, see ``test_package_computes_the_hand_made_self_report``) keeps positions
after dropping self-votes: a (1, 1) = 1.0, b (2, 2) = 2.0, c (3, 3) = 3.0 -> CSS over (1, 2, 3):
wm = .5, range 1, gap_consistency 1 -> .4*.5 + .4*1 + .2 = 0.8. It reads the review text from keys
its stage 2 does not write (richness 0): DDI = .35*.8333 + .35 = 0.642; and the synthesis from a key
its stage 3 does not write: SAS (0, 0, 1, not grounded).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from harness.common.errors import ConfigError
from harness.config import MemberSpec, Settings, load_settings
from harness.council.external import (
    PLACEHOLDER_KEY,
    LLMCouncilConfig,
    LLMCouncilSubject,
    chat_completions_url,
    package_environment,
    parse_package_output,
    transcript_from_package,
)
from harness.council.external_relay import (
    STAGE2_PREFIX,
    STAGE3_PREFIX,
    Pin,
    SamplingRelay,
    StageLimits,
    classify_stage,
)
from harness.council.external_types import SelfReportedAttribution, SelfReportedMetrics
from harness.data.cases import load_datasets
from harness.metrics.quality_metrics import core_quality_metrics
from harness.metrics.self_reported import HEADERS, compare_self_reported
from harness.records.transcript import CallRecord, Transcript
from harness.report.html import write_report
from harness.run.engine import Engine
from harness.run.runs import RunWriter, load_run, new_manifest
from tests.paths import TEST_DATA

DATA = TEST_DATA / "llm_council_transcript.json"
LABELS = ("Response A", "Response B", "Response C")
JUSTIFICATION = " ".join(["fine"] * 25)
REVIEW = f"{JUSTIFICATION}\nFINAL RANKING:\n1. Response A\n2. Response B\n3. Response C"
GOLDEN = """\
golden_datasets:
  - name: llm-council-mini
    description: two quick facts through llm-council-core
    queries:
      - id: capital-fr
        query: "What is the capital of France? Answer in one sentence."
        ground_truth: "Paris is the capital of France."
        required_mentions: ["Paris"]
      - id: add-small
        query: "What is 2 plus 3? Answer in one sentence."
        ground_truth: "5"
        required_mentions: ["5"]
"""
SERVER_MODELS = ("council-a", "council-b", "council-c")


def hand_config() -> LLMCouncilConfig:
    return LLMCouncilConfig(
        endpoint="http://127.0.0.1:9/v1/chat/completions",
        api_key=SecretStr("k"),
        members=tuple(MemberSpec(id=m, provider="openai", model=f"m-{m}") for m in "abc"),
        chairman=MemberSpec(id="chair", provider="openai", model="m-chair"),
    )


def hand_package_output() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """The four values run_full_council returns, for the hand-made council of the module docstring."""
    stage1 = [
        {"model": "m-a", "response": "red green blue"},
        {"model": "m-b", "response": "red green yellow"},
        {"model": "m-c", "response": "cat dog"},
    ]
    stage2 = [
        {"model": f"m-{m}", "ranking": REVIEW, "parsed_ranking": {"ranking": list(LABELS), "scores": {}}} for m in "abc"
    ]
    stage3 = {"model": "m-chair", "response": "red green blue"}
    metadata = {
        "label_to_model": {
            label: {"model": f"m-{m}", "display_index": i}
            for i, (label, m) in enumerate(zip(LABELS, "abc", strict=True))
        },
        "aggregate_rankings": [
            {"model": "m-a", "borda_score": 1.0, "average_position": 1.0, "vote_count": 2, "rank": 1},
            {"model": "m-b", "borda_score": 0.5, "average_position": 2.0, "vote_count": 2, "rank": 2},
            {"model": "m-c", "borda_score": 0.0, "average_position": 3.0, "vote_count": 2, "rank": 3},
        ],
        "quality_metrics": {
            "tier": "core",
            "core": {
                "consensus_strength": 0.8,
                "deliberation_depth": 0.642,
                "synthesis_attribution": {
                    "winner_alignment": 0.0,
                    "max_source_alignment": 0.0,
                    "hallucination_risk": 1.0,
                    "grounded": False,
                },
            },
            "quality_alerts": ["hallucination_risk", "synthesis_not_grounded"],
        },
        "usage": {"by_stage": {"stage1": {"by_model": {"m-a": {"prompt_tokens": 7, "completion_tokens": 3}}}}},
    }
    return stage1, stage2, stage3, metadata


def hand_transcript(**metadata_updates: Any) -> Transcript:
    stage1, stage2, stage3, metadata = hand_package_output()
    metadata.update(metadata_updates)
    output = parse_package_output(stage1, stage2, stage3, metadata)
    return transcript_from_package("Name three colours.", output, hand_config(), version="0.53.0", shuffle_seed=7)


# --- mapping -------------------------------------------------------------------------------------


def test_package_output_maps_to_a_transcript() -> None:
    t = hand_transcript()
    assert t.subject == "llm-council" and t.chairman == "chair" and t.errors == ()
    assert [(a.member, a.model, a.text) for a in t.answers] == [
        ("a", "m-a", "red green blue"),
        ("b", "m-b", "red green yellow"),
        ("c", "m-c", "cat dog"),
    ]
    assert t.label_to_member == {"Response A": "a", "Response B": "b", "Response C": "c"}
    assert [r.reviewer for r in t.reviews] == ["a", "b", "c"]
    for review in t.reviews:
        assert review.raw_text == REVIEW and review.shuffle_seed == 7 and review.presentation_order == LABELS
        assert review.ballot.ranking == LABELS and review.ballot.method == "final_ranking"
    assert [(r.member, r.borda, r.average_position, r.votes) for r in t.aggregate] == [
        ("a", 1.0, 1.0, 2),
        ("b", 0.5, 1.5, 2),
        ("c", 0.0, 2.0, 2),
    ]
    assert t.synthesis == t.final_answer == "red green blue"
    # without the relay only the package's per-stage tokens are known
    assert t.calls == (CallRecord(stage="stage1", member="a", model="m-a", tokens_in=7, tokens_out=3),)
    record = t.external
    assert record is not None and record.package == "llm-council-core" and not record.sampling_pinned
    assert [(r.member, r.average_position, r.votes) for r in record.aggregate] == [
        ("a", 1.0, 2),
        ("b", 2.0, 2),
        ("c", 3.0, 2),
    ]
    assert [(b.reviewer, b.ranking) for b in record.ballots] == [(m, LABELS) for m in "abc"]
    assert record.self_reported == SelfReportedMetrics(
        tier="core",
        consensus_strength=0.8,
        deliberation_depth=0.642,
        synthesis_attribution=SelfReportedAttribution(
            winner_alignment=0.0, max_source_alignment=0.0, hallucination_risk=1.0, grounded=False
        ),
        warnings=("hallucination_risk", "synthesis_not_grounded"),
    )
    assert Transcript.model_validate_json(t.model_dump_json()) == t


def test_failures_of_the_package_become_errors() -> None:
    stage1, stage2, _, _ = hand_package_output()
    del stage1[2]  # m-c gave no answer; the package drops it silently
    stage2 = stage2[:1]  # only m-a reviewed
    stage3 = {
        "model": "m-chair",
        "response": "Error: Unable to generate final synthesis (timeout: Timeout after 1s)",
        "error_status": "timeout",
        "error_detail": "Timeout after 1s",
    }
    metadata = {"label_to_model": {"Response A": {"model": "m-a"}, "Response B": {"model": "m-b"}}}
    output = parse_package_output(stage1, stage2, stage3, metadata)
    calls = [CallRecord(stage="stage1", member="c", model="m-c", latency_s=1.0, error="HTTP 500: boom")]
    t = transcript_from_package("q", output, hand_config(), version="0.53.0", shuffle_seed=1, calls=calls)
    assert t.errors == (
        "stage1 c: HTTP 500: boom",
        "stage2 b: no review (llm-council-core dropped it)",
        "stage3 chair: timeout: Timeout after 1s",
    )
    assert t.answers[2].error == "HTTP 500: boom" and not t.answers[2].ok
    assert [r.reviewer for r in t.reviews] == ["a", "b"] and t.reviews[1].error is not None
    # the package's answer is its error text: the harness does not substitute a better one
    assert t.synthesis is None and t.final_answer == ""
    assert t.external is not None and t.external.self_reported is None
    assert t.external.notes[0] == "llm-council-core reported no quality metrics (0 ranked candidate(s); it needs 2)"
    # a's review names Response C, which this run did not have: the harness drops the unknown label
    assert t.label_to_member == {"Response A": "a", "Response B": "b"}
    assert t.reviews[0].ballot.ranking == ("Response A", "Response B")
    assert [(r.member, r.votes) for r in t.aggregate] == [("b", 1), ("a", 0)]


def test_malformed_package_output_does_not_crash() -> None:
    output = parse_package_output(None, [{"model": 3, "ranking": None, "parsed_ranking": None}], "x", {"usage": 1})
    t = transcript_from_package("q", output, hand_config(), version="0.53.0", shuffle_seed=1)
    assert [a.error for a in t.answers] == ["no answer (llm-council-core gave no reason)"] * 3
    assert t.reviews == () and t.final_answer == "" and t.external is not None


# --- the comparison ------------------------------------------------------------------------------


def test_comparison_with_hand_worked_numbers() -> None:
    t = hand_transcript()
    q = core_quality_metrics(t)
    assert (q.core.consensus_strength, q.core.deliberation_depth) == (0.6, 0.792)
    assert q.core.deliberation_components == {"diversity": 0.833, "coverage": 1.0, "richness": 0.5}
    c = compare_self_reported(t)
    assert c is not None and c.reported and not c.agrees and c.package == "llm-council-core 0.53.0"
    assert [(m.metric, m.self_reported, m.harness, m.abs_diff, m.agree) for m in c.metrics] == [
        ("consensus_strength", 0.8, 0.6, 0.2, False),
        ("deliberation_depth", 0.642, 0.792, 0.15, False),
        ("winner_alignment", 0.0, 0.75, 0.75, False),
        ("max_source_alignment", 0.0, 1.0, 1.0, False),
        ("hallucination_risk", 1.0, 0.0, 1.0, False),
        ("grounded", 0.0, 1.0, 1.0, False),
    ]
    assert HEADERS == ("metric", "self-reported", "harness", "|diff|", "agree")
    assert c.rows()[0] == ("consensus_strength", "0.800", "0.600", "0.200", "no")
    assert c.rows()[5] == ("grounded", "no", "yes", "1.000", "no")
    assert [f.code for f in c.flags] == [
        "ungrounded_but_sourced",
        "empty_synthesis_scored",
        "richness_not_counted",
        "warnings_differ",
        "aggregate_differs",
    ]
    messages = [f.message for f in c.flags]
    assert messages[0] == (
        "package says ungrounded while the synthesis is copied from an answer "
        "(harness max_source_alignment 1.0 >= threshold 0.6)"
    )
    assert "synthesis has 3 words" in messages[1]
    assert messages[2] == (
        "package DDI 0.642 equals the harness DDI with critique richness 0 (0.642); "
        "the reviews' justifications give richness 0.5"
    )
    assert messages[3] == (
        "warnings only the package raised: ['hallucination_risk', 'synthesis_not_grounded']; only the harness: none"
    )
    assert messages[4].startswith(
        "average positions differ: package a 1 (2 votes), b 2 (2 votes), c 3 (2 votes); "
        "harness a 1 (2 votes), b 1.5 (2 votes), c 2 (2 votes); the ballots are the same"
    )
    assert (c.self_warnings, c.harness_warnings) == (("hallucination_risk", "synthesis_not_grounded"), ())


def test_a_self_report_equal_to_the_harness_agrees() -> None:
    agreeing = {
        "tier": "core",
        "core": {
            "consensus_strength": 0.6 + 0.05,
            "deliberation_depth": 0.792,
            "synthesis_attribution": {
                "winner_alignment": 0.75,
                "max_source_alignment": 1.0,
                "hallucination_risk": 0.0,
                "grounded": True,
            },
        },
    }
    positions = [
        {"model": "m-a", "average_position": 1.0, "vote_count": 2},
        {"model": "m-b", "average_position": 1.5, "vote_count": 2},
        {"model": "m-c", "average_position": 2.0, "vote_count": 2},
    ]
    c = compare_self_reported(hand_transcript(quality_metrics=agreeing, aggregate_rankings=positions))
    assert c is not None and c.agrees and c.flags == ()
    assert c.metric("consensus_strength").abs_diff == 0.05  # on the tolerance still agrees
    off = dict(agreeing, core=dict(agreeing["core"], consensus_strength=0.6 + 0.051))
    c = compare_self_reported(hand_transcript(quality_metrics=off, aggregate_rankings=positions))
    assert c is not None and not c.agrees and c.metric("consensus_strength").abs_diff == 0.051


def test_grounded_by_the_package_but_not_by_the_harness() -> None:
    claims = {
        "tier": "core",
        "core": {
            "consensus_strength": 0.6,
            "deliberation_depth": 0.792,
            "synthesis_attribution": {
                "winner_alignment": 0.9,
                "max_source_alignment": 0.9,
                "hallucination_risk": 0.1,
                "grounded": True,
            },
        },
    }
    t = hand_transcript(quality_metrics=claims)
    t = t.model_copy(update={"synthesis": "purple orange", "final_answer": "purple orange"})
    c = compare_self_reported(t)
    assert c is not None and c.flags[0].code == "grounded_but_unsourced"
    assert c.flags[0].message == (
        "package says grounded while no answer supports the synthesis "
        "(harness max_source_alignment 0.0 < threshold 0.6)"
    )


def test_nothing_reported() -> None:
    t = hand_transcript(quality_metrics=None)
    c = compare_self_reported(t)
    assert c is not None and not c.reported and not c.agrees
    assert all(m.self_reported is None and m.abs_diff is None and not m.agree for m in c.metrics)
    assert c.rows()[0] == ("consensus_strength", "—", "0.600", "—", "no")
    assert c.flags[0].code == "not_reported"
    assert c.flags[0].message == "llm-council-core reported no quality metrics although 3 candidates were ranked"
    native = t.model_copy(update={"external": None})
    assert compare_self_reported(native) is None


def test_package_computes_the_hand_made_self_report() -> None:
    """The self-report used above is what llm-council-core itself computes from that output."""
    pytest.importorskip("llm_council")
    from llm_council.quality import calculate_quality_metrics

    stage1, stage2, stage3, metadata = hand_package_output()
    got = calculate_quality_metrics(
        stage1_responses={r["model"]: {"content": r["response"]} for r in stage1},
        stage2_rankings=stage2,
        stage3_synthesis=stage3,
        aggregate_rankings=[("m-a", 1.0), ("m-b", 2.0), ("m-c", 3.0)],
        label_to_model=metadata["label_to_model"],
    ).to_dict()
    assert got == metadata["quality_metrics"]


# --- configuration, environment and relay --------------------------------------------------------


def _settings(base_url: str, **extra: Any) -> Settings:
    models = extra.pop(
        "models",
        [
            {"id": m.removeprefix("council-"), "provider": "openai", "model": m, "temperature": 0.2, "seed": i}
            for i, m in enumerate(SERVER_MODELS)
        ],
    )
    return load_settings(
        base_url=base_url,
        models=models,
        chairman=extra.pop("chairman", "council-chair"),
        cache_mode=extra.pop("cache_mode", "off"),
        **extra,
    )


def test_config_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = LLMCouncilConfig.from_settings(_settings("http://127.0.0.1:8000/v1/", answer_max_tokens=32))
    assert config.endpoint == "http://127.0.0.1:8000/v1/chat/completions"
    assert config.api_key.get_secret_value() == PLACEHOLDER_KEY  # loopback without a key
    assert [m.model for m in config.members] == list(SERVER_MODELS) and config.chairman.model == "council-chair"
    assert config.limits == StageLimits(stage1=32, stage2=320, stage3=200)
    assert config.ballot_style == "off"  # the default leaves the package's stage-2 replies free
    assert (
        chat_completions_url("https://x.example/api/v1/chat/completions") == "https://x.example/api/v1/chat/completions"
    )
    with pytest.raises(ConfigError, match="needs an API key .* set the variable OPENAI_API_KEY"):
        LLMCouncilConfig.from_settings(_settings("https://openrouter.example/api/v1"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = LLMCouncilConfig.from_settings(_settings("https://openrouter.example/api/v1"))
    assert config.api_key.get_secret_value() == "sk-test" and "sk-test" not in repr(config)
    same = [{"id": m, "provider": "openai", "model": "one"} for m in "ab"]
    with pytest.raises(ConfigError, match=r"repeated: \['one'\]"):
        LLMCouncilConfig.from_settings(_settings("http://127.0.0.1:1/v1", models=same, chairman="a"))
    local = load_settings(models=[{"id": "s", "model": "smollm2-135m"}], cache_mode="off")
    with pytest.raises(ConfigError, match="'s' uses provider 'local'"):
        LLMCouncilConfig.from_settings(local)
    split = [
        {"id": "a", "provider": "openai", "model": "x", "base_url": "http://127.0.0.1:2/v1"},
        {"id": "b", "provider": "openai", "model": "y"},
    ]
    with pytest.raises(
        ConfigError,
        match=r"one endpoint with one key; the members name endpoints "
        r"\['http://127.0.0.1:1/v1', 'http://127.0.0.1:2/v1'\]",
    ):
        LLMCouncilConfig.from_settings(_settings("http://127.0.0.1:1/v1", models=split, chairman="a"))
    shared = [dict(m, base_url="http://127.0.0.1:2/v1") for m in split]
    config = LLMCouncilConfig.from_settings(_settings("http://127.0.0.1:1/v1", models=shared, chairman="a"))
    assert config.endpoint == "http://127.0.0.1:2/v1/chat/completions"
    with pytest.raises(ConfigError, match="cannot run with cache_mode 'replay'"):
        LLMCouncilConfig.from_settings(_settings("http://127.0.0.1:1/v1", cache_mode="replay"))


def test_ballot_style_from_config_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (
        LLMCouncilConfig.from_settings(_settings("http://127.0.0.1:1/v1", ballot_style="json_schema")).ballot_style
        == "json_schema"
    )
    monkeypatch.setenv("LLM_COUNCIL_BALLOT_STYLE", "json_object")
    assert LLMCouncilConfig.from_settings(_settings("http://127.0.0.1:1/v1")).ballot_style == "json_object"
    monkeypatch.setenv("LLM_COUNCIL_BALLOT_STYLE", "grammar")
    with pytest.raises(ConfigError, match="LLM_COUNCIL_BALLOT_STYLE"):
        _settings("http://127.0.0.1:1/v1")


def test_package_environment_is_restored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LLM_COUNCIL_MODELS", "smollm2")
    monkeypatch.setenv("OPENROUTER_API_KEY", "real-key")
    monkeypatch.delenv("LLM_COUNCIL_QUALITY_TIER", raising=False)
    before = dict(os.environ)
    with package_environment(tmp_path, tmp_path / "llm_council.yaml"):
        assert os.environ["HOME"] == str(tmp_path)
        assert os.environ["LLM_COUNCIL_CONFIG"] == str(tmp_path / "llm_council.yaml")
        assert os.environ["LLM_COUNCIL_QUALITY_TIER"] == "core"
        assert "LLM_COUNCIL_MODELS" not in os.environ and "OPENROUTER_API_KEY" not in os.environ
    assert dict(os.environ) == before
    with pytest.raises(RuntimeError), package_environment(tmp_path, tmp_path / "x.yaml"):
        raise RuntimeError("boom")
    assert dict(os.environ) == before


def test_relay_classifies_and_pins() -> None:
    members = {"council-a": Pin(member="a", temperature=0.9, top_p=0.8, seed=42)}
    relay = SamplingRelay(
        "http://127.0.0.1:9/v1/chat/completions",
        members,
        "council-chair",
        Pin(member="chair", temperature=0.2, seed=50),
        StageLimits(stage1=10, stage2=20, stage3=30),
        timeout=5.0,
        ballot_style="json_object",
    )
    prompt2 = (
        f'{STAGE2_PREFIX}\n<candidate_response id="A">\nx\n</candidate_response>\n'
        f'<candidate_response id="B">\ny\n</candidate_response>'
    )
    stage, body = relay.pinned({"model": "council-a", "messages": [{"role": "user", "content": prompt2}]})
    assert stage == "stage2"
    assert (body["max_tokens"], body["temperature"], body["top_p"], body["seed"]) == (20, 0.3, 0.8, 43)
    schema = body["response_format"]["schema"]
    assert body["response_format"]["type"] == "json_object" and list(schema["properties"]) == ["ranking", "critique"]
    assert schema["properties"]["ranking"]["items"]["enum"] == ["Response A", "Response B"]
    stage, body = relay.pinned({"model": "council-a", "messages": [{"role": "user", "content": "Hi?"}]})
    assert stage == "stage1" and (body["max_tokens"], body["temperature"], body["seed"]) == (10, 0.9, 42)
    assert "response_format" not in body
    stage, body = relay.pinned({"model": "council-chair", "messages": [{"role": "user", "content": STAGE3_PREFIX}]})
    assert stage == "stage3" and (body["max_tokens"], body["temperature"], body["seed"]) == (30, 0.2, 52)
    assert classify_stage({"model": "council-chair", "messages": []}, "council-chair", frozenset(members)) == "stage3"


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_relay_reports_an_unreachable_endpoint() -> None:
    upstream = f"http://127.0.0.1:{_closed_port()}/v1/chat/completions"
    relay = SamplingRelay(
        upstream,
        {"council-a": Pin(member="a", temperature=0.5)},
        "council-chair",
        Pin(member="chair", temperature=0.2),
        StageLimits(stage1=8, stage2=8, stage3=8),
        timeout=5.0,
    )

    async def go() -> tuple[httpx.Response, httpx.Response]:
        async with relay, httpx.AsyncClient() as client:
            ok_path = await client.post(
                relay.url, json={"model": "council-a", "messages": []}, headers={"Authorization": "Bearer secret"}
            )
            wrong = await client.get(relay.url.replace("/chat/completions", "/models"))
            return ok_path, wrong

    reply, wrong = asyncio.run(go())
    assert reply.status_code == 502 and "upstream call failed: ConnectError" in reply.json()["error"]["message"]
    assert wrong.status_code == 404
    assert len(relay.calls) == 1
    call = relay.calls[0]
    assert (call.stage, call.member, call.model) == ("stage1", "a", "council-a")
    assert call.error is not None and call.error.startswith("ConnectError") and "secret" not in call.error


# --- the recorded real run -----------------------------------------------------------------------


def _recorded() -> tuple[dict[str, Any], Transcript]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return data, Transcript.model_validate(data["transcript"])


def test_recorded_run_maps_the_same_way() -> None:
    """The recorded raw package output, mapped again, gives the recorded transcript."""
    data, recorded = _recorded()
    config = LLMCouncilConfig(
        endpoint="http://127.0.0.1:9/v1/chat/completions", api_key=SecretStr("k"), **data["config"]
    )
    raw = data["raw"]
    output = parse_package_output(raw["stage1"], raw["stage2"], raw["stage3"], raw["metadata"])
    again = transcript_from_package(
        data["query"],
        output,
        config,
        version="0.53.0",
        shuffle_seed=recorded.reviews[0].shuffle_seed,
        calls=recorded.calls,
        duration_s=recorded.duration_s,
    )
    assert again == recorded
    assert recorded.external is not None and recorded.external.version == "0.53.0"
    assert [c.stage for c in recorded.calls] == ["stage1"] * 3 + ["stage2"] * 3 + ["stage3"]


def test_recorded_comparison_with_hand_checked_numbers() -> None:
    """Worked by hand from the recorded texts.

    Every member answered "The capital of France is Paris." (tokens the, capital, of, france, is, paris):
    diversity 0. Three reviews: coverage 1. Their JSON ballots carry the critiques ".95, ", "" and "][":
    justifications of 1 and 1 words (the empty one does not count): richness 1/50 = .02, so
    DDI = .35*0 + .35*1 + .3*.02 = 0.356; the package says 0.35 (richness 0).
    Labels A->b, B->a, C->c and every ballot is A, B, C: harness positions b (1, 1), a (1, 2), c (2, 2) =
    1, 1.5, 2 -> CSS 0.6; the package's b 1, a 2, c 3 -> CSS 0.8.
    Synthesis "The answer to the original question is: The capital of France is Paris." has 10 tokens
    (the, answer, to, original, question, is, capital, of, france, paris) and contains all 6 of the
    answer's: Jaccard 6/10 = 0.6 with every answer -> winner and max alignment 0.6, risk 0.4,
    grounded (0.6 >= 0.6); the package says (0, 0, 1, not grounded).
    """
    data, t = _recorded()
    assert data["raw"]["stage3"]["response"] == t.synthesis
    assert [a.text for a in t.answers] == ["The capital of France is Paris."] * 3
    assert t.label_to_member == {"Response A": "b", "Response B": "a", "Response C": "c"}
    assert [(r.member, r.average_position) for r in t.aggregate] == [("b", 1.0), ("a", 1.5), ("c", 2.0)]
    q = core_quality_metrics(t)
    assert q.core.deliberation_components == {"diversity": 0.0, "coverage": 1.0, "richness": 0.02}
    assert q.warnings == ("shallow_deliberation",)
    c = compare_self_reported(t, q)
    assert c is not None
    assert [(m.metric, m.self_reported, m.harness, m.abs_diff, m.agree) for m in c.metrics] == [
        ("consensus_strength", 0.8, 0.6, 0.2, False),
        ("deliberation_depth", 0.35, 0.356, 0.006, True),
        ("winner_alignment", 0.0, 0.6, 0.6, False),
        ("max_source_alignment", 0.0, 0.6, 0.6, False),
        ("hallucination_risk", 1.0, 0.4, 0.6, False),
        ("grounded", 0.0, 1.0, 1.0, False),
    ]
    assert [f.code for f in c.flags] == [
        "ungrounded_but_sourced",
        "empty_synthesis_scored",
        "warnings_differ",
        "aggregate_differs",
    ]
    assert c.flags[0].message == (
        "package says ungrounded while the synthesis closely matches an answer "
        "(harness max_source_alignment 0.6 >= threshold 0.6)"
    )
    assert "synthesis has 13 words" in c.flags[1].message
    # the package's block is exactly what it put in its metadata
    assert t.external is not None
    assert t.external.self_reported == parse_package_output([], [], {}, data["raw"]["metadata"]).quality


def test_recorded_variant_with_a_copied_synthesis() -> None:
    """The synthesis replaced by a's answer verbatim; the package's block (grounded false) unchanged."""
    _, t = _recorded()
    copied = t.answers[1].text
    variant = t.model_copy(update={"synthesis": copied, "final_answer": copied})
    c = compare_self_reported(variant)
    assert c is not None
    assert [(m.metric, m.self_reported, m.harness, m.abs_diff, m.agree) for m in c.metrics][2:] == [
        ("winner_alignment", 0.0, 1.0, 1.0, False),
        ("max_source_alignment", 0.0, 1.0, 1.0, False),
        ("hallucination_risk", 1.0, 0.0, 1.0, False),
        ("grounded", 0.0, 1.0, 1.0, False),
    ]
    assert c.flags[0].code == "ungrounded_but_sourced"
    assert c.flags[0].message == (
        "package says ungrounded while the synthesis is copied from an answer "
        "(harness max_source_alignment 1.0 >= threshold 0.6)"
    )
    assert "synthesis has 6 words" in c.flags[1].message
    # with the package's grounded set to true the disagreement flag goes away
    assert t.external is not None and t.external.self_reported is not None
    fixed_sas = t.external.self_reported.synthesis_attribution.model_copy(update={"grounded": True})
    fixed = t.external.model_copy(
        update={"self_reported": t.external.self_reported.model_copy(update={"synthesis_attribution": fixed_sas})}
    )
    c = compare_self_reported(variant.model_copy(update={"external": fixed}))
    assert c is not None and "ungrounded_but_sourced" not in [f.code for f in c.flags]
    assert c.metric("grounded").agree


# --- end to end on the embedded model ------------------------------------------------------------


def e2e_config(base_url: str) -> LLMCouncilConfig:
    """Three 'models' and a chairman, all SmolLM2 behind one llama_cpp.server, with small limits.

    SmolLM2-135M cannot follow the package's ranking prompt, so stage 2 is constrained to a JSON
    ballot (ranking first) through llama.cpp's JSON-schema grammar.
    """
    settings = _settings(base_url, answer_max_tokens=24, review_max_tokens=48, synthesis_max_tokens=32)
    return LLMCouncilConfig.from_settings(settings.model_copy(update={"ballot_style": "json_object"}))


@pytest.mark.slow
def test_llm_council_end_to_end(llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("llm_council")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "golden.yaml").write_text(GOLDEN)
    datasets = load_datasets(tmp_path / "golden.yaml")
    cases = [c for d in datasets for c in d.cases]
    settings = _settings(llama_server, answer_max_tokens=24, review_max_tokens=48, synthesis_max_tokens=32)

    async def go() -> list:
        engine = Engine(settings, ["llm-council"])
        assert isinstance(engine.subjects["llm-council"], LLMCouncilSubject)  # built through the registry
        engine.subjects["llm-council"] = LLMCouncilSubject(e2e_config(llama_server))
        try:
            return [await engine.run_case(case, "llm-council") for case in cases]
        finally:
            await engine.aclose()

    results = asyncio.run(go())
    # the package wrote nothing outside its temporary directory (checked before the report's plots
    # give matplotlib a reason to write its font cache into HOME)
    assert list(home.iterdir()) == [] and not (tmp_path / ".council").exists()
    assert os.environ["HOME"] == str(home)
    writer = RunWriter(tmp_path / "run")
    writer.write_manifest(new_manifest(settings, "run", ["llm-council-mini"], ["llm-council"]))
    writer.add(results)
    run = load_run(tmp_path / "run")
    report = write_report(run)

    assert [r.case_id for r in run.results] == ["add-small", "capital-fr"] and run.corrupt_lines == []  # sorted
    html = report.read_text()
    assert "llm-council" in html and "capital-fr" in html and "add-small" in html
    for result in run.results:
        assert result.status in ("passed", "failed"), result.error
        t = result.transcript
        assert t is not None and t.subject == "llm-council"
        assert [a.member for a in t.answers] == ["a", "b", "c"] and all(a.ok for a in t.answers), t.errors
        assert sorted(t.label_to_member.values()) == ["a", "b", "c"]
        assert [r.reviewer for r in t.reviews] == ["a", "b", "c"] and all(r.ok for r in t.reviews)
        assert all(not r.ballot.abstained for r in t.reviews), [r.raw_text for r in t.reviews]
        assert t.synthesis and t.final_answer == t.synthesis
        assert [c.stage for c in t.calls] == ["stage1"] * 3 + ["stage2"] * 3 + ["stage3"]
        assert all(c.error is None and c.tokens_in > 0 and c.tokens_out > 0 for c in t.calls)
        assert [c.member for c in t.calls] == ["a", "b", "c", "a", "b", "c", "council-chair"]
        qm = result.quality_metrics
        assert qm is not None and qm.core.deliberation_components["coverage"] == 1.0
        assert result.scores["consensus_strength"] == qm.core.consensus_strength
        record = t.external
        assert record is not None and record.version == "0.53.0" and record.sampling_pinned
        assert record.self_reported is not None, record.notes
        comparison = compare_self_reported(t, qm)
        assert comparison is not None and comparison.reported and len(comparison.rows()) == 6
        # the package scores an empty synthesis whatever its chairman wrote
        assert "empty_synthesis_scored" in [f.code for f in comparison.flags]


# --- recording -----------------------------------------------------------------------------------


def record(base_url: str, path: Path = DATA) -> None:
    """Run the first golden case through the package on ``base_url`` and write the data file."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "golden.yaml").write_text(GOLDEN)
        case = load_datasets(Path(tmp) / "golden.yaml")[0].cases[0]
    config = e2e_config(base_url)
    subject = LLMCouncilSubject(config, keep_raw=True)
    transcript = asyncio.run(subject.answer(case.query))
    assert subject.last_raw is not None
    data = {
        "about": "llm-council-core's full council on SmolLM2-135M (llama_cpp.server); see test_external_council.py",
        "query": case.query,
        "config": config.model_dump(mode="json", exclude={"api_key", "endpoint"}),
        "raw": subject.last_raw.model_dump(mode="json"),
        "transcript": json.loads(transcript.model_dump_json()),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--record":
        sys.exit("usage: python -m tests.council.test_external_council --record http://127.0.0.1:PORT/v1")
    record(sys.argv[2])


def test_report_shows_self_reported_beside_harness_metrics(tmp_path: Path) -> None:
    """The HTML report puts the package's own metrics next to the harness's, with the disagreement flags."""
    from harness.run.runs import load_run
    from tests.builders import result, run_folder

    _, t = _recorded()
    q = core_quality_metrics(t)
    fr = result("fr", "llm-council", transcript=t, quality_metrics=q)
    html = write_report(load_run(run_folder(tmp_path, "run", [fr], datasets=(), finished_at=None))).read_text()
    assert "Self-reported vs harness metrics" in html
    assert "ungrounded_but_sourced" in html and "aggregate_differs" in html
    # CSS: the package says 0.8, the harness 0.6 (worked above)
    section = html.split("Self-reported vs harness metrics", 1)[1].split("</table>", 1)[0]
    assert "0.8" in section and "0.6" in section
