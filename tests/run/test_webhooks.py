"""Monitoring webhooks against real HTTP servers on loopback: delivery, signature, failures never fail a run."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

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
    qm = QualityMetrics(
        core=CoreMetrics(
            consensus_strength=0.42,
            deliberation_depth=0.7,
            deliberation_components={},
            synthesis_attribution=SynthesisAttribution(
                winner_alignment=0.5, max_source_alignment=0.9, hallucination_risk=0.1, grounded=True
            ),
        ),
        warnings=("low_consensus",),
    )
    return result(
        query="What is the secret plan?",
        transcript_fields={"member": "a"},
        quality_metrics=qm,
        scores={"rubric_composite": 7.5, "accuracy": 8.0},
    )


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
    failing_server: tuple[str, type[_Recorder]],
    caplog: pytest.LogCaptureFixture,
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


class _Redirect(_Recorder):
    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append(({}, b""))
        self.send_response(302)
        self.send_header("Location", "http://127.0.0.1:9/elsewhere")
        self.send_header("Content-Length", "0")
        self.end_headers()


class _Flood(_Recorder):
    """Answers 200 with a 300 MB body it streams for as long as anyone reads."""

    sent = 0

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append(({}, b""))
        self.send_response(200)
        self.send_header("Content-Length", str(300 * 2**20))
        self.end_headers()
        chunk = b"x" * 2**16
        try:
            for _ in range(300 * 2**20 // len(chunk)):
                self.wfile.write(chunk)
                type(self).sent += len(chunk)
        except OSError:
            return  # the client closed the connection without reading: what we want


def _serve(handler: type[_Recorder]) -> Iterator[str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/hook"
    finally:
        srv.shutdown()
        srv.server_close()


def _deliver(d: WebhookDispatcher, events: int = 1) -> None:
    async def go() -> None:
        for _ in range(events):
            d.emit(event_from_result(_result(), None))
        await d.aclose()

    asyncio.run(go())


def test_a_redirect_is_not_a_delivery_and_is_counted_in_the_warning() -> None:
    handler = type("R", (_Redirect,), {"received": []})
    for url in _serve(handler):
        d = WebhookDispatcher([url], retries=2, base_delay=0.01)
        _deliver(d, events=2)
    assert d.delivered == 0 and len(handler.received) == 2  # not retried, not followed
    assert all("HTTP 302 (a redirect: not followed, not delivered)" in f for f in d.failures)
    warning = d.warning() or ""
    assert warning.startswith("webhooks: 2 of 2 event deliveries failed or were dropped (http://127.0.0.1:")
    assert warning.endswith(": HTTP 302 (a redirect: not followed, not delivered))") and "/hook" not in warning


def test_a_huge_response_body_is_never_read() -> None:
    handler = type("F", (_Flood,), {"received": [], "sent": 0})
    for url in _serve(handler):
        d = WebhookDispatcher([url], retries=0)
        _deliver(d)
    assert d.delivered == 1 and d.failures == [] and d.warning() is None
    assert handler.sent < 300 * 2**20  # the sender gave up: nobody read the rest


def test_deliveries_still_pending_at_the_end_are_counted_as_dropped() -> None:
    import time

    class Slow(_Recorder):
        def do_POST(self) -> None:  # noqa: N802
            time.sleep(3)
            super().do_POST()

    handler = type("S", (Slow,), {"received": [], "status": 200})

    async def go(d: WebhookDispatcher) -> None:
        d.emit(event_from_result(_result(), None))
        await d.aclose(wait=0.1)

    for url in _serve(handler):
        d = WebhookDispatcher([url], retries=0, timeout=30)
        asyncio.run(go(d))
    assert d.delivered == 0 and d.failures == ["delivery still pending at shutdown (cancelled)"]
    assert d.warning() == (
        "webhooks: 1 of 1 event deliveries failed or were dropped (delivery still pending at shutdown (cancelled))"
    )


def test_the_warnings_of_a_run_reach_its_manifest_and_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.config import load_settings
    from harness.finish import finish_run
    from harness.run.orchestrate import finish_manifest
    from harness.run.runs import Manifest, RunWriter, load_run

    monkeypatch.chdir(tmp_path)
    RunWriter(tmp_path / "r").write_manifest(
        Manifest(run_id="r", started_at="2026-01-01T00:00:00Z", warnings=("from an earlier invocation",))
    )
    line = "webhooks: 1 of 1 event deliveries failed or were dropped (x)"
    finish_manifest(tmp_path / "r", load_run(tmp_path / "r").manifest, 0, 0, warnings=[line])
    run = load_run(tmp_path / "r")
    assert run.manifest.warnings == ("from an earlier invocation", line)
    finish_run(run, load_settings(None))
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["warnings"] == {"count": 2, "lines": ["from an earlier invocation", line]}


def test_a_run_whose_receiver_redirects_counts_every_undelivered_event(tmp_path: Path) -> None:
    """End to end on the scripted loopback endpoint: a council run with Tier 1 metrics posts one event per
    case to a receiver that answers 302; none counts as delivered, and the run says so in its warnings."""
    from harness.run.runs import load_run
    from tests.cli_env import run_cli, scripted_project
    from tests.scripted_server import SOLO, ScriptedServer

    handler = type("R", (_Redirect,), {"received": []})
    for url in _serve(handler):
        with ScriptedServer(council_right=range(3), baseline_right=range(3)) as server:
            root = scripted_project(
                tmp_path, server.base_url, 3, third_model=SOLO, extra=f"quality_webhook_url: {url}\n"
            )
            cfg = root / "council-harness.yaml"
            cfg.write_text(cfg.read_text().replace("quality_metrics: false", "quality_metrics: true"))
            proc = run_cli(root, "--subjects", "council")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert len(handler.received) == 3  # one event per case, each tried once (a redirect is not retried)
    line = next(x for x in out.splitlines() if x.startswith("warning: webhooks:"))
    assert line.startswith("warning: webhooks: 3 of 3 event deliveries failed or were dropped (http://127.0.0.1:")
    assert "/hook" not in line  # the path may carry a token: masked as in the manifest
    (run_dir,) = (root / "reports" / "runs").iterdir()
    assert load_run(run_dir).manifest.warnings == (line.removeprefix("warning: "),)
    assert json.loads((run_dir / "summary.json").read_text())["warnings"]["count"] == 1
