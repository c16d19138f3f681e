"""A loopback relay between an external council package and its chat-completions endpoint.

llm-council-core sends every request without ``temperature``, ``top_p``, ``seed`` or ``max_tokens``,
so a run cannot be reproduced or bounded, and its ``run_full_council`` measures no per-call latency.
The relay listens on ``127.0.0.1`` (a free port), forwards each ``POST .../chat/completions`` to the
real endpoint with those parameters pinned from the harness's settings (the same limits the
harness's own council gets), and records every call as a :class:`~harness.records.transcript.CallRecord`.
Optionally (``ballot_style``) the stage-2 replies are constrained to a JSON ballot with llama.cpp's
JSON-schema grammar, for small models that cannot follow the package's ranking prompt otherwise.
The request body is otherwise untouched; the ``Authorization`` header is forwarded and never stored.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Literal

import httpx

from harness.common.model import Frozen
from harness.council.prompts import ballot_schema
from harness.records.transcript import CallRecord

STAGE2_PREFIX = "You are evaluating different responses to the following question."
STAGE3_PREFIX = "You are the Chairman of an LLM Council."
#: the stage-3 openings of the package's chairman prompts: synthesis (and debate), then the ADR-025b
#: verdict prompts (``verdict.py``: BINARY, and SYNTHESIS through it; TIE_BREAKER)
STAGE3_PREFIXES = (
    STAGE3_PREFIX,
    "You are the Chairman synthesizing the council's deliberation.",
    "You are the Chairman resolving a DEADLOCKED deliberation.",
)
MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 32 * 1024 * 1024
_CANDIDATE_ID = re.compile(r'<candidate_response id="([A-Z])">')
BallotStyle = Literal["off", "json_object", "json_schema"]
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 413: "Payload Too Large", 502: "Bad Gateway"}


class Pin(Frozen):
    """The sampling the relay sets on one model's calls.

    Args:
        member: the harness member id the model belongs to.
        temperature: the stage-1 temperature; stages 2 and 3 use ``min(temperature, 0.3)`` like the
            harness's own council.
        top_p: nucleus sampling.
        seed: the sampling seed; stage ``k`` uses ``seed + k - 1``.
    """

    member: str
    temperature: float
    top_p: float = 1.0
    seed: int = 0


class StageLimits(Frozen):
    """``max_tokens`` per stage (the harness's ``answer/review/synthesis_max_tokens``)."""

    stage1: int
    stage2: int
    stage3: int

    def for_stage(self, stage: str) -> int:
        return {"stage1": self.stage1, "stage2": self.stage2}.get(stage, self.stage3)


def classify_stage(body: Mapping[str, Any], chairman_model: str, member_models: frozenset[str]) -> str:
    """Which council stage a request belongs to, from llm-council-core's prompts (v0.53).

    Its stage-2 prompt starts with :data:`STAGE2_PREFIX` and its stage-3 prompts with one of
    :data:`STAGE3_PREFIXES`; a stage-1 request is the bare user query. A request to the chairman's
    model that is not a member's model is stage 3 whatever its text.
    """
    messages = body.get("messages")
    first = messages[0] if isinstance(messages, list) and messages else {}
    content = first.get("content") if isinstance(first, dict) else None
    text = content.lstrip() if isinstance(content, str) else ""
    if text.startswith(STAGE2_PREFIX):
        return "stage2"
    if text.startswith(STAGE3_PREFIXES):
        return "stage3"
    model = body.get("model")
    if model == chairman_model and model not in member_models:
        return "stage3"
    return "stage1"


def package_ballot_schema(prompt: str) -> dict[str, Any] | None:
    """The harness's ballot schema for the labels in a package stage-2 prompt, ranking first.

    llm-council-core reads a raw JSON ballot only when ``"ranking"`` is its first key, so the
    ranking comes before the free-text critique. ``None`` when the prompt has no candidates.
    """
    labels = [f"Response {c}" for c in dict.fromkeys(_CANDIDATE_ID.findall(prompt))]
    if not labels:
        return None
    schema = ballot_schema(labels, rubric=False)
    props = schema["properties"]
    schema["properties"] = {"ranking": props["ranking"], "critique": props["critique"]}
    schema["required"] = ["ranking", "critique"]
    return schema


def response_format(schema: dict[str, Any], style: BallotStyle) -> dict[str, Any]:
    """``json_object`` + ``schema`` (llama.cpp's server) or OpenAI's ``json_schema`` form."""
    if style == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "ballot", "schema": schema}}
    return {"type": "json_object", "schema": schema}


def _usage(payload: bytes) -> tuple[int, int]:
    try:
        usage = json.loads(payload).get("usage") or {}
        return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    except (ValueError, AttributeError, TypeError):
        return 0, 0


class SamplingRelay:
    """An async context manager serving the relay on ``127.0.0.1`` for the duration of one run.

    Args:
        upstream: the endpoint's full chat-completions URL.
        members: sampling per council model name (the names the package sends).
        chairman_model: the chairman's model name.
        chairman: the chairman's sampling (used for its stage-3 call).
        limits: ``max_tokens`` per stage.
        timeout: seconds allowed for one upstream call.
        ballot_style: ``off`` leaves stage-2 replies free; ``json_object`` (llama.cpp) or
            ``json_schema`` (OpenAI structured outputs) constrains them to a ballot.
    """

    def __init__(
        self,
        upstream: str,
        members: Mapping[str, Pin],
        chairman_model: str,
        chairman: Pin,
        limits: StageLimits,
        timeout: float,
        ballot_style: BallotStyle = "off",
    ) -> None:
        self.upstream = upstream
        self.members = dict(members)
        self.chairman_model = chairman_model
        self.chairman = chairman
        self.limits = limits
        self.timeout = timeout
        self.ballot_style = ballot_style
        self.calls: list[CallRecord] = []
        self._server: asyncio.Server | None = None
        self._client: httpx.AsyncClient | None = None

    @property
    def url(self) -> str:
        """The relay's chat-completions URL (for the package's ``base_url``)."""
        if self._server is None:
            raise RuntimeError("the relay is not running")
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1/chat/completions"

    async def __aenter__(self) -> SamplingRelay:
        self._client = httpx.AsyncClient(timeout=self.timeout)
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, limit=MAX_HEADER_BYTES)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._client is not None:
            await self._client.aclose()

    def pin_for(self, stage: str, model: str) -> Pin | None:
        """The sampling of a call: the chairman's for its stage-3 call, else the member's."""
        if model == self.chairman_model and (stage == "stage3" or model not in self.members):
            return self.chairman
        return self.members.get(model)

    def pinned(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The stage of a request body and a copy of the body with sampling pinned."""
        stage = classify_stage(body, self.chairman_model, frozenset(self.members))
        pin = self.pin_for(stage, str(body.get("model", "")))
        out = dict(body)
        out["max_tokens"] = self.limits.for_stage(stage)
        if pin is not None:
            out["temperature"] = pin.temperature if stage == "stage1" else min(pin.temperature, 0.3)
            out["top_p"] = pin.top_p
            out["seed"] = pin.seed + {"stage1": 0, "stage2": 1}.get(stage, 2)
        if stage == "stage2" and self.ballot_style != "off":
            messages = body.get("messages")
            first = messages[0] if isinstance(messages, list) and messages else {}
            prompt = first.get("content") if isinstance(first, dict) else None
            schema = package_ballot_schema(prompt) if isinstance(prompt, str) else None
            if schema is not None:
                out["response_format"] = response_format(schema, self.ballot_style)
        return stage, out

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            status, payload = await self._serve(reader)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            status, payload = 400, _error_body(f"relay: malformed request ({type(exc).__name__})")
        except Exception as exc:  # noqa: BLE001 - the package must get an answer, not a dropped connection
            status, payload = 502, _error_body(f"relay: {type(exc).__name__}: {exc}")
        try:
            head = (
                f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
            )
            writer.write(head.encode("latin-1") + payload)
            await writer.drain()
        except (ConnectionError, OSError):
            pass  # the package gave up on this call (its own time-out); nothing to answer
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    async def _serve(self, reader: asyncio.StreamReader) -> tuple[int, bytes]:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        request_line, *header_lines = head.split("\r\n")
        method, target, _ = request_line.split(" ", 2)
        headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in header_lines if ":" in h)}
        length = int(headers.get("content-length", "0"))
        if length > MAX_BODY_BYTES:
            return 413, _error_body(f"relay: request body over {MAX_BODY_BYTES} bytes")
        body_bytes = await reader.readexactly(length)
        if method != "POST" or not target.rstrip("/").endswith("/chat/completions"):
            return 404, _error_body(f"relay: only POST .../chat/completions is relayed, got {method} {target}")
        body = json.loads(body_bytes)
        if not isinstance(body, dict):
            return 400, _error_body("relay: the request body is not a JSON object")
        return await self._forward(body, headers.get("authorization"))

    async def _forward(self, body: dict[str, Any], authorization: str | None) -> tuple[int, bytes]:
        stage, out = self.pinned(body)
        model = str(body.get("model", ""))
        pin = self.pin_for(stage, model)
        member = pin.member if pin is not None else model
        headers = {"Content-Type": "application/json"}
        if authorization:
            headers["Authorization"] = authorization
        if self._client is None:
            raise RuntimeError("the relay is not running")
        started = time.perf_counter()
        try:
            reply = await self._client.post(self.upstream, json=out, headers=headers)
        except httpx.HTTPError as exc:
            failure = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            self.calls.append(
                CallRecord(
                    stage=stage, member=member, model=model, latency_s=time.perf_counter() - started, error=failure
                )
            )
            return 502, _error_body(f"relay: upstream call failed: {failure}")
        latency = time.perf_counter() - started
        tokens_in, tokens_out = _usage(reply.content)
        error = None if reply.status_code < 400 else f"HTTP {reply.status_code}: {reply.text[:200]}"
        self.calls.append(
            CallRecord(
                stage=stage,
                member=member,
                model=model,
                latency_s=latency,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                error=error,
            )
        )
        return reply.status_code, reply.content


def _error_body(message: str) -> bytes:
    return json.dumps({"error": {"message": message}}).encode()
