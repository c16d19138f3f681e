"""Monitoring webhooks (seed 001 section 3.3): a ``QualityMonitoringEvent`` after each council session.

Events are posted as JSON to every configured URL (``LLM_COUNCIL_QUALITY_WEBHOOK_URL``, several
separated by commas), signed with ``X-Council-Signature: sha256=<hex HMAC-SHA256 of the body>``
keyed by ``LLM_COUNCIL_WEBHOOK_SECRET`` (when set), retried with exponential backoff on network
errors and 5xx/429, and never block or fail the run: delivery runs in the background and a
failure is recorded (and logged with the URL's credentials, query and path masked, as in the
manifest). Only a 2xx answer is a delivery: a redirect (3xx) is not followed and counts as failed.
The response body is never read (a receiver answering with 300 MB costs nothing). Every failed or
dropped delivery (one still pending when the run ends is cancelled) is counted, and
:meth:`WebhookDispatcher.warning` is the line the run's manifest keeps under ``warnings``.

Events never carry the query: ``query_hash`` is the HMAC-SHA256 of the query keyed by
``LLM_COUNCIL_HASH_SECRET`` (as in the bias store), and is left out (``null``) when no secret is set,
because a bare hash of a short query is recovered by guessing.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import httpx

from harness.common.model import Frozen
from harness.config import public_url
from harness.run.result import CaseResult

log = logging.getLogger(__name__)
SIGNATURE_HEADER = "X-Council-Signature"


class QualityMonitoringEvent(Frozen):
    """Emitted after each council deliberation for monitoring systems (the seed's fields)."""

    timestamp: str
    request_id: str
    query_hash: str | None = None
    case_id: str
    dataset: str
    subject: str
    status: str
    consensus_strength: float | None = None
    deliberation_depth: float | None = None
    synthesis_attribution: dict[str, float | bool] | None = None
    rubric_breakdown: dict[str, float] | None = None
    bias_indicators: dict[str, float | str | None] | None = None
    external_validation: dict[str, float] | None = None
    alerts: tuple[str, ...] = ()


def query_hash(query: str, secret: str | None) -> str | None:
    """HMAC-SHA256 of the query keyed by the deployment secret, first 16 hex; ``None`` without a secret."""
    if not secret:
        return None
    return hmac.new(secret.encode(), query.encode(), hashlib.sha256).hexdigest()[:16]


def event_from_result(result: CaseResult, secret: str | None) -> QualityMonitoringEvent | None:
    """The event for a council-like result (``None`` when it has no Tier 1 metrics)."""
    if result.quality_metrics is None or result.transcript is None:
        return None
    core = result.quality_metrics.core
    rubric = {
        k: v
        for k, v in result.scores.items()
        if k in ("accuracy", "relevance", "completeness", "conciseness", "clarity", "rubric_composite")
    }
    external = {k: v for k, v in result.scores.items() if k.startswith(("deepeval_", "ragas_"))}
    bias: dict[str, float | str | None] | None = None
    if result.bias is not None:
        bias = {
            "position_variance": result.bias.position_bias.variance,
            "length_correlation": result.bias.length_correlation.r,
            "risk": result.bias.risk,
        }
    return QualityMonitoringEvent(
        timestamp=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        request_id=str(uuid.uuid4()),
        query_hash=query_hash(result.transcript.query, secret),
        case_id=result.case_id,
        dataset=result.dataset,
        subject=result.subject,
        status=result.status,
        consensus_strength=core.consensus_strength,
        deliberation_depth=core.deliberation_depth,
        synthesis_attribution=core.synthesis_attribution.model_dump(),
        rubric_breakdown=rubric or None,
        external_validation=external or None,
        bias_indicators=bias,
        alerts=result.quality_metrics.warnings,
    )


def sign(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(body: bytes, header: str, secret: str) -> bool:
    """Receiver side: constant-time check of the signature header."""
    return hmac.compare_digest(sign(body, secret), header)


class WebhookDispatcher:
    """Posts events in the background.

    Args:
        urls: the endpoints.
        secret: HMAC key for the signature header (no header without one).
        retries: attempts after the first, with backoff ``base_delay * 2**n``.
        timeout: per-request timeout in seconds.
    """

    def __init__(
        self,
        urls: Sequence[str],
        secret: str | None = None,
        retries: int = 3,
        timeout: float = 5.0,
        base_delay: float = 0.2,
    ) -> None:
        self.urls = [u for u in urls if u]
        self.secret = secret
        self.retries = retries
        self.timeout = timeout
        self.base_delay = base_delay
        self.sent = 0  # deliveries scheduled (events x URLs)
        self.delivered = 0
        self.failures: list[str] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._client: httpx.AsyncClient | None = None

    def emit(self, event: QualityMonitoringEvent) -> None:
        """Schedule delivery to every URL; returns at once."""
        if not self.urls:
            return
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout)
        body = event.model_dump_json().encode()
        for url in self.urls:
            self.sent += 1
            task = asyncio.get_running_loop().create_task(self._deliver(url, body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _deliver(self, url: str, body: bytes) -> None:
        headers = {"Content-Type": "application/json"}
        if self.secret:
            headers[SIGNATURE_HEADER] = sign(body, self.secret)
        last = ""
        for attempt in range(self.retries + 1):
            try:
                assert self._client is not None
                # streamed and closed unread: only the status matters, the body may be endless
                async with self._client.stream("POST", url, content=body, headers=headers) as resp:
                    code = resp.status_code
                if 200 <= code < 300:
                    self.delivered += 1
                    return
                last = f"HTTP {code}" + (" (a redirect: not followed, not delivered)" if 300 <= code < 400 else "")
                if code < 500 and code != 429:
                    break
            except httpx.HTTPError as exc:
                last = type(exc).__name__
            if attempt < self.retries:
                await asyncio.sleep(self.base_delay * 2**attempt)
        shown = public_url(url, keep_path=False)  # user:password@, ?token= and /hooks/TOKEN never reach a log
        self.failures.append(f"{shown}: {last}")
        log.warning("webhook delivery to %s failed: %s", shown, last)

    async def aclose(self, wait: float = 10.0) -> None:
        """Wait (bounded) for pending deliveries, then close the client."""
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=wait)
            for task in pending:
                task.cancel()
                self.failures.append("delivery still pending at shutdown (cancelled)")
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def warning(self) -> str | None:
        """``webhooks: 3 of 8 event deliveries failed or were dropped (http://host: HTTP 302 ...)``, or ``None``."""
        if not self.failures:
            return None
        shown = "; ".join(dict.fromkeys(self.failures))
        shown = shown if len(shown) <= 300 else shown[:297] + "..."
        return f"webhooks: {len(self.failures)} of {self.sent} event deliveries failed or were dropped ({shown})"


def dispatch_payload(event: QualityMonitoringEvent) -> dict:
    return json.loads(event.model_dump_json())
