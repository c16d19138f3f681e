"""Monitoring webhooks against real HTTP servers on loopback: delivery, signature, failures never fail a run."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness.metrics.quality_metrics import CoreMetrics, QualityMetrics
from harness.metrics.tier1 import SynthesisAttribution
from harness.run.result import CaseResult
from harness.run.webhooks import SIGNATURE_HEADER, WebhookDispatcher, event_from_result, query_hash, sign, verify
from tests.builders import result


class _Recorder(BaseHTTPRequestHandler):
    status = 200
    received: list[tuple[dict[str, str], bytes]] = []

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((dict(self.headers), body))
        self.send_response(type(self).status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return


def _server(status: int) -> Iterator[tuple[str, type[_Recorder]]]:
    handler = type("H", (_Recorder,), {"status": status, "received": []})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/hook", handler
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.fixture
def ok_server() -> Iterator[tuple[str, type[_Recorder]]]:
    yield from _server(200)


@pytest.fixture
def failing_server() -> Iterator[tuple[str, type[_Recorder]]]:
    yield from _server(503)


def _result() -> CaseResult:
    qm = QualityMetrics(core=CoreMetrics(
        consensus_strength=0.42, deliberation_depth=0.7, deliberation_components={},
        synthesis_attribution=SynthesisAttribution(winner_alignment=0.5, max_source_alignment=0.9,
                                                   hallucination_risk=0.1, grounded=True)),
        warnings=("low_consensus",))
    return result(query="What is the secret plan?", transcript_fields={"member": "a"}, quality_metrics=qm,
                  scores={"rubric_composite": 7.5, "accuracy": 8.0})


def test_event_shape_and_privacy() -> None:
    event = event_from_result(_result(), secret="s3cret")
    assert event is not None
    assert event.consensus_strength == 0.42 and event.alerts == ("low_consensus",)
    assert event.rubric_breakdown == {"rubric_composite": 7.5, "accuracy": 8.0}
    assert event.query_hash == query_hash("What is the secret plan?", "s3cret") and len(event.query_hash) == 16
    assert "secret plan" not in event.model_dump_json()
    baseline = _result().model_copy(update={"details": {}})
    assert event_from_result(baseline, None) is None


def test_delivery_is_signed_and_verifiable(ok_server: tuple[str, type[_Recorder]]) -> None:
    url, handler = ok_server
    d = WebhookDispatcher([url, url], secret="k3y")

    async def go() -> None:
        d.emit(event_from_result(_result(), None))
        await d.aclose()

    asyncio.run(go())
    assert d.delivered == 2 and d.failures == []
    headers, body = handler.received[0]
    assert verify(body, headers[SIGNATURE_HEADER], "k3y")
    assert not verify(body, headers[SIGNATURE_HEADER], "other")
    assert headers[SIGNATURE_HEADER] == sign(body, "k3y")
    assert json.loads(body)["case_id"] == "c1"


def test_failing_endpoint_is_retried_bounded_and_never_raises(failing_server: tuple[str, type[_Recorder]]) -> None:
    url, handler = failing_server
    d = WebhookDispatcher([url, "http://127.0.0.1:9/closed"], retries=2, base_delay=0.01)

    async def go() -> None:
        d.emit(event_from_result(_result(), None))
        await d.aclose()

    asyncio.run(go())
    assert len(handler.received) == 3  # first try + 2 retries
    assert d.delivered == 0 and len(d.failures) == 2
    assert any("HTTP 503" in f for f in d.failures) and any("ConnectError" in f for f in d.failures)


def test_query_hash_is_keyed_or_absent() -> None:
    """Item 28: the HMAC keyed by LLM_COUNCIL_HASH_SECRET, never a bare SHA-256 a guess can reverse."""
    import hashlib
    import hmac

    query = "What is the secret plan?"
    keyed = event_from_result(_result(), secret="s3cret")
    assert keyed is not None
    assert keyed.query_hash == hmac.new(b"s3cret", query.encode(), hashlib.sha256).hexdigest()[:16]
    bare = event_from_result(_result(), secret=None)
    assert bare is not None and bare.query_hash is None
    assert hashlib.sha256(query.encode()).hexdigest()[:16] not in bare.model_dump_json()
    assert json.loads(bare.model_dump_json())["query_hash"] is None


def test_failed_delivery_never_logs_credentials_or_path_tokens(
    failing_server: tuple[str, type[_Recorder]], caplog: pytest.LogCaptureFixture,
) -> None:
    """Item 6: user:password@, the path token and a ?token= query are masked in failures and log lines."""
    url, handler = failing_server
    secret_url = url.replace("http://", "http://user:PASSW0RD@").replace("/hook", "/hooks/T0KEN") + "?sig=QS3CRET"
    d = WebhookDispatcher([secret_url], retries=1, base_delay=0.01)

    async def go() -> None:
        d.emit(event_from_result(_result(), None))
        await d.aclose()

    with caplog.at_level("DEBUG", logger="harness.run.webhooks"):
        asyncio.run(go())
    assert len(handler.received) == 2 and d.delivered == 0
    host = url.split("/")[2]
    assert d.failures == [f"http://{host}/***: HTTP 503"]
    logged = [r.getMessage() for r in caplog.records if r.name == "harness.run.webhooks"]
    assert logged == [f"webhook delivery to http://{host}/*** failed: HTTP 503"]
    for secret in ("PASSW0RD", "T0KEN", "QS3CRET", "user:"):
        assert secret not in " ".join(logged + d.failures)
