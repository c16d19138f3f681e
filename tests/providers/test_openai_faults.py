"""The OpenAI-compatible provider against a scripted loopback server: retries, faults, limits."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime

import pytest

from harness.common.errors import ConfigError, ProviderError
from harness.config import load_settings
from harness.providers.base import Provider
from harness.providers.openai_compat import OpenAICompatProvider, display_url, retry_after_seconds
from harness.records.transcript import Completion, Message
from tests.fault_server import (
    LLAMA_SCHEMA_REJECTION,
    FaultServer,
    empty_choices,
    malformed,
    no_content,
    ok,
    reset,
    slow,
    status,
    truncated,
)

MESSAGES = [Message(role="system", content="Be brief."), Message(role="user", content="Capital of France?")]
KEY_ENV = "COUNCIL_HARNESS_TEST_FAULT_KEY"
SECRET = "sk-fault-5ecret-0123456789"


def make(server: FaultServer, **kwargs: object) -> OpenAICompatProvider:
    """A provider for the fault server with fast backoff (tests stay quick)."""
    options: dict[str, object] = {"timeout": 5.0, "max_retries": 3, "backoff_base": 0.01, "backoff_max": 0.05}
    options.update(kwargs)
    return OpenAICompatProvider(server.base_url, None, **options)  # type: ignore[arg-type]


def chat(provider: OpenAICompatProvider, **kwargs: object) -> Completion:
    """One call (closing the provider afterwards)."""

    async def run() -> Completion:
        try:
            return await provider.chat(
                "test-model",
                MESSAGES,
                temperature=0.3,
                max_tokens=32,
                seed=7,
                **kwargs,  # type: ignore[arg-type]
            )
        finally:
            await provider.aclose()

    return asyncio.run(run())


def failure(provider: OpenAICompatProvider, **kwargs: object) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        chat(provider, **kwargs)
    return info.value


# -- pure helpers -----------------------------------------------------------------------------


def test_retry_after_parsing() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("1") == 1.0
    assert retry_after_seconds(" 2.5 ") == 2.5
    assert retry_after_seconds("120") == 30.0  # capped
    assert retry_after_seconds("120", cap=60.0) == 60.0
    assert retry_after_seconds("-3") == 0.0
    assert retry_after_seconds("Wed, 01 Jan 2025 12:00:05 GMT", now=now) == 5.0
    assert retry_after_seconds("Wed, 01 Jan 2025 11:59:00 GMT", now=now) == 0.0
    assert retry_after_seconds("Wed, 01 Jan 2025 13:00:00 GMT", now=now) == 30.0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds("") is None
    assert retry_after_seconds(None) is None


def test_display_url_drops_credentials_and_query() -> None:
    assert display_url("https://user:pw@api.example.com/v1/?key=abc") == "https://api.example.com/v1"
    assert display_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"


def test_bad_base_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="base_url: expected an http:// or https:// URL"):
        OpenAICompatProvider("localhost:8000/v1")


def test_protocol_and_identity() -> None:
    provider = OpenAICompatProvider("http://user:pw@127.0.0.1:9/v1", None)
    assert isinstance(provider, Provider)
    assert provider.name == "openai"
    assert provider.identity("gpt-x") == "openai:http://127.0.0.1:9/v1:gpt-x"


def test_from_settings_uses_the_endpoint_settings() -> None:
    settings = load_settings(
        base_url="http://127.0.0.1:9/v1",
        api_key_env="COUNCIL_HARNESS_TEST_UNSET_KEY",
        request_timeout=7.5,
        max_retries=2,
        concurrency=3,
        models=[{"id": "a", "provider": "openai", "model": "m"}],
    )
    provider = OpenAICompatProvider.from_settings(settings)
    assert (provider.endpoint, provider.api_key_env, provider.timeout, provider.max_retries, provider.concurrency) == (
        "http://127.0.0.1:9/v1",
        "COUNCIL_HARNESS_TEST_UNSET_KEY",
        7.5,
        2,
        3,
    )
    assert provider.has_key is False


# -- the request ------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["?api-version=2024-06-01&api-key=QK", "/?api-version=2024-06-01&api-key=QK"])
def test_base_url_query_stays_after_the_path(fault_server: FaultServer, suffix: str) -> None:
    """Issue 10 item 12: ``/v1?api-key=K`` used to become ``/v1?api-key=K/chat/completions``."""
    provider = OpenAICompatProvider(fault_server.base_url + suffix, None, max_retries=0)
    assert chat(provider).text == "The capital of France is Paris."
    (received,) = fault_server.requests
    assert received.path == "/v1/chat/completions?api-version=2024-06-01&api-key=QK"
    assert "QK" not in provider.endpoint and "QK" not in repr(provider)


def test_lone_surrogate_in_a_reply_is_replaced(fault_server: FaultServer) -> None:
    """Issue 10 item 2: ``"\\ud800"`` is valid JSON but cannot be written as UTF-8; it becomes U+FFFD."""
    fault_server.script(ok("Paris\ud800 and \udfff; \U0001f600"))
    completion = chat(make(fault_server))
    assert completion.text == "Paris\ufffd and \ufffd; \U0001f600"
    assert completion.model_dump_json()  # storable


def test_request_sends_standard_sampling_fields_only(fault_server: FaultServer) -> None:
    completion = chat(make(fault_server), top_p=0.9)
    assert completion.text == "The capital of France is Paris."
    assert (completion.tokens_in, completion.tokens_out, completion.finish_reason) == (12, 7, "stop")
    assert completion.model == "test-model"
    [req] = fault_server.requests
    assert req.path == "/v1/chat/completions"
    assert req.body == {
        "model": "test-model",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of France?"}],
        "temperature": 0.3,
        "top_p": 0.9,
        "max_tokens": 32,
        "seed": 7,
        "stream": False,
    }
    assert "authorization" not in req.headers  # no key variable configured


def test_json_schema_request_shape(fault_server: FaultServer) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    provider = make(fault_server)
    chat(provider, json_schema=schema)
    assert fault_server.requests[0].body["response_format"] == {  # type: ignore[index]
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": schema, "strict": True},
    }
    assert provider.schema_style == "json_schema"


def test_schema_rejection_falls_back_to_json_object(fault_server: FaultServer) -> None:
    """llama_cpp.server answers the json_schema type with a 500 naming response_format."""
    schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    fault_server.script(status(500, body=LLAMA_SCHEMA_REJECTION))
    provider = make(fault_server, max_retries=0)

    async def run() -> None:
        try:
            await provider.chat("m", MESSAGES, temperature=0.0, max_tokens=8, seed=1, json_schema=schema)
            await provider.chat("m", MESSAGES, temperature=0.0, max_tokens=8, seed=1, json_schema=schema)
        finally:
            await provider.aclose()

    asyncio.run(run())  # max_retries=0: the fallback is not counted as a retry
    formats = [r.body["response_format"] for r in fault_server.requests]  # type: ignore[index]
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_object"]
    assert formats[1] == {"type": "json_object", "schema": schema}
    assert provider.schema_style == "json_object"


def test_schema_rejection_is_found_once_per_model_for_every_queued_call() -> None:
    """16 schema calls queued at once on 2 slots, 8 per model, against a server that rejects json_schema:
    one rejected request per model, then json_object for every call (the other 7 of each model waited
    for the answer instead of each sending json_schema and getting a 500)."""
    schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    with FaultServer(ok(delay=0.05), reject_json_schema=True) as server:
        provider = make(server, max_retries=0, concurrency=2)

        async def run() -> list[Completion]:
            try:
                return await asyncio.gather(
                    *(
                        provider.chat(model, MESSAGES, temperature=0.0, max_tokens=8, seed=i, json_schema=schema)
                        for i in range(8)
                        for model in ("m", "n")
                    )
                )
            finally:
                await provider.aclose()

        results = asyncio.run(run())
        received = server.requests
    assert len(results) == 16
    sent = [(r.body["model"], r.body["response_format"]["type"], r.status) for r in received]  # type: ignore[index]
    assert sorted(x for x in sent if x[1] == "json_schema") == [("m", "json_schema", 500), ("n", "json_schema", 500)]
    assert sorted(sent).count(("m", "json_object", 200)) == 8 and sorted(sent).count(("n", "json_object", 200)) == 8
    assert len(sent) == 18
    assert provider.schema_style_for("m") == provider.schema_style_for("n") == "json_object"
    assert server.max_in_flight <= 2


def test_schema_style_is_per_model() -> None:
    """One model's rejection does not switch another model that accepts json_schema."""
    schema = {"type": "object"}
    with FaultServer() as server:
        provider = make(server, max_retries=0)
        old = [Message(role="user", content="reject me")]

        async def run() -> None:
            try:
                await provider.chat("new", MESSAGES, temperature=0.0, max_tokens=8, seed=1, json_schema=schema)
                server.clear_rules()
                server.script(status(500, body=LLAMA_SCHEMA_REJECTION))
                await provider.chat("old", old, temperature=0.0, max_tokens=8, seed=1, json_schema=schema)
                await provider.chat("new", MESSAGES, temperature=0.0, max_tokens=8, seed=2, json_schema=schema)
            finally:
                await provider.aclose()

        asyncio.run(run())
        forms = [(r.body["model"], r.body["response_format"]["type"]) for r in server.requests]  # type: ignore[index]
    assert forms == [("new", "json_schema"), ("old", "json_schema"), ("old", "json_object"), ("new", "json_schema")]
    assert (provider.schema_style_for("new"), provider.schema_style_for("old")) == ("json_schema", "json_object")


def test_fixed_schema_style_does_not_fall_back(fault_server: FaultServer) -> None:
    fault_server.script(status(400, body='{"error": "response_format json_schema unsupported"}'))
    err = failure(make(fault_server, schema_style="json_schema"), json_schema={"type": "object"})
    assert "HTTP 400" in str(err)
    assert len(fault_server.requests) == 1


# -- retries ----------------------------------------------------------------------------------


def test_429_retry_after_is_honoured(fault_server: FaultServer, caplog: pytest.LogCaptureFixture) -> None:
    fault_server.script(status(429, retry_after="1"))
    with caplog.at_level(logging.WARNING, logger="harness.providers.openai"):
        completion = chat(make(fault_server))
    assert completion.text == "The capital of France is Paris."
    assert len(fault_server.requests) == 2
    [line] = [r.getMessage() for r in caplog.records if r.name == "harness.providers.openai"]
    assert "attempt 1 of 4 failed (HTTP 429" in line
    assert line.endswith("retrying in 1.00 s (Retry-After; endpoint paused)")


@pytest.mark.parametrize("code", [500, 502, 503, 504])
def test_5xx_is_retried_then_succeeds(fault_server: FaultServer, code: int) -> None:
    fault_server.script(status(code), status(code))
    assert chat(make(fault_server)).text == "The capital of France is Paris."
    assert len(fault_server.requests) == 3


def test_retries_are_bounded(fault_server: FaultServer) -> None:
    fault_server.default = status(500, body='{"error": {"message": "boom"}}')
    err = failure(make(fault_server, max_retries=2))
    assert len(fault_server.requests) == 3
    assert str(err) == (
        f"openai endpoint {fault_server.base_url} (model 'test-model'): "
        'failed after 3 attempts: HTTP 500: {"error": {"message": "boom"}}'
    )


def test_client_errors_are_not_retried(fault_server: FaultServer) -> None:
    fault_server.script(status(404, body='{"error": "no such model"}'))
    err = failure(make(fault_server))
    assert len(fault_server.requests) == 1
    assert str(err).endswith('HTTP 404: {"error": "no such model"}')


def test_connection_reset_is_retried(fault_server: FaultServer) -> None:
    fault_server.script(reset())
    assert chat(make(fault_server)).text == "The capital of France is Paris."
    assert len(fault_server.requests) == 2


def test_connection_reset_every_time_fails(fault_server: FaultServer) -> None:
    fault_server.default = reset()
    err = failure(make(fault_server, max_retries=1))
    assert len(fault_server.requests) == 2
    assert "failed after 2 attempts: connection failed or reply cut off" in str(err)
    assert fault_server.base_url in str(err) and "'test-model'" in str(err)


def test_dead_port_fails_with_endpoint_named() -> None:
    from tests.llama_server import free_port

    base = f"http://127.0.0.1:{free_port()}/v1"
    err = failure(OpenAICompatProvider(base, None, max_retries=1, backoff_base=0.01))
    assert str(err).startswith(f"openai endpoint {base} (model 'test-model'): failed after 2 attempts: ")
    assert "ConnectError" in str(err)


# -- bad replies ------------------------------------------------------------------------------


def test_malformed_json(fault_server: FaultServer) -> None:
    fault_server.script(malformed())
    err = failure(make(fault_server))
    assert len(fault_server.requests) == 1
    assert str(err) == (
        f"openai endpoint {fault_server.base_url} (model 'test-model'): "
        'HTTP 200 reply is not valid JSON: {"choices": [{"message": {"content": "Paris"'
    )


def test_empty_choices(fault_server: FaultServer) -> None:
    fault_server.script(empty_choices())
    err = failure(make(fault_server))
    assert str(err) == f"openai endpoint {fault_server.base_url} (model 'test-model'): the reply has no choices"


def test_missing_content(fault_server: FaultServer) -> None:
    fault_server.script(no_content())
    err = failure(make(fault_server))
    assert str(err).endswith("the reply's first choice has no message content")


def test_truncated_body(fault_server: FaultServer) -> None:
    fault_server.default = truncated()
    err = failure(make(fault_server, max_retries=1))
    assert len(fault_server.requests) == 2
    assert "failed after 2 attempts: connection failed or reply cut off (RemoteProtocolError" in str(err)


def test_truncated_body_once_then_success(fault_server: FaultServer) -> None:
    fault_server.script(truncated())
    assert chat(make(fault_server)).text == "The capital of France is Paris."
    assert len(fault_server.requests) == 2


def test_slow_reply_times_out(fault_server: FaultServer) -> None:
    """The request reached the server: the second attempt waits for its reply instead of sending it again."""
    fault_server.default = slow(0.6)
    err = failure(make(fault_server, timeout=0.1, max_retries=1))
    assert len(fault_server.requests) == 1
    assert "failed after 2 attempts: " in str(err) and "0.1 s" in str(err) and "the request was sent" in str(err)


def test_a_reply_landing_after_the_first_attempt_is_not_requested_twice(
    fault_server: FaultServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A server computing the request past one attempt's time: the reply of the first request is used."""
    fault_server.default = slow(0.5)
    with caplog.at_level(logging.WARNING, logger="harness.providers.openai"):
        completion = chat(make(fault_server, timeout=0.2, max_retries=10))  # room for a loaded machine
    assert completion.text == "The capital of France is Paris."
    assert len(fault_server.requests) == 1 and fault_server.requests[0].status == 200
    waits = [r.getMessage() for r in caplog.records if "waiting for it rather than sending it again" in r.getMessage()]
    assert len(waits) >= 2  # at least attempts 2 and 3 (0.2 s each) waited: the reply came after 0.5 s


def test_a_request_that_never_reached_the_server_is_sent_again(fault_server: FaultServer) -> None:
    """A stalled connect (a listening socket that never accepts, backlog full) is re-sent after the backoff."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(0)
        port = silent.getsockname()[1]
        fillers = []
        for _ in range(4):  # fill the accept queue: later connects get no answer to their SYN
            with contextlib.suppress(OSError):
                fillers.append(socket.create_connection(("127.0.0.1", port), timeout=0.2))
        try:
            provider = OpenAICompatProvider(
                f"http://127.0.0.1:{port}/v1", None, timeout=0.2, max_retries=1, backoff_base=0.01, backoff_max=0.02
            )
            err = failure(provider)
        finally:
            for f in fillers:
                f.close()
    assert "failed after 2 attempts: " in str(err) and "the request was sent" not in str(err)


# -- concurrency ------------------------------------------------------------------------------


def _in_flight(server: FaultServer, concurrency: int, calls: int) -> int:
    server.default = ok(delay=0.2)
    provider = make(server, concurrency=concurrency)

    async def run() -> list[Completion]:
        try:
            return await asyncio.gather(
                *(provider.chat("m", MESSAGES, temperature=0.0, max_tokens=8, seed=i) for i in range(calls))
            )
        finally:
            await provider.aclose()

    results = asyncio.run(run())
    assert len(results) == calls and len(server.requests) == calls
    return server.max_in_flight


def test_concurrency_limit_is_respected(fault_server: FaultServer) -> None:
    assert _in_flight(fault_server, concurrency=2, calls=6) == 2


def test_without_a_tight_limit_the_server_sees_more_in_flight(fault_server: FaultServer) -> None:
    """The control for the test above: the server does observe parallel requests."""
    assert _in_flight(fault_server, concurrency=6, calls=6) > 2


# -- the key ----------------------------------------------------------------------------------


def test_key_never_leaks(
    fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)
    echo = f'{{"error": "invalid key Bearer {SECRET}"}}'
    fault_server.script(status(503, body=echo), status(401, body=echo))
    provider = OpenAICompatProvider(fault_server.base_url, KEY_ENV, max_retries=2, backoff_base=0.01)
    with caplog.at_level(logging.DEBUG):
        err = failure(provider)
    assert [r.headers["authorization"] for r in fault_server.requests] == [f"Bearer {SECRET}"] * 2
    assert SECRET not in str(err) and SECRET not in repr(err)
    assert f"HTTP 401 (not authorized; check the key in ${KEY_ENV})" in str(err)
    assert "invalid key Bearer [REDACTED]" in str(err)
    assert SECRET not in caplog.text and "[REDACTED]" in caplog.text
    assert SECRET not in repr(provider) and SECRET not in str(vars(provider))
    assert provider.has_key
