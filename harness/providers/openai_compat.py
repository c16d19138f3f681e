"""Any OpenAI-compatible chat endpoint over HTTP (OpenAI, OpenRouter, vLLM, Ollama /v1, llama.cpp, LM Studio).

One ``POST {base_url}/chat/completions`` per call, with the sampling parameters sent explicitly
(only standard OpenAI fields). Transient failures (429, 500, 502, 503, 504, connection errors,
time-outs, a body cut off mid-way) are retried with exponential backoff and jitter, honouring
``Retry-After``; everything else becomes a :class:`~harness.common.errors.ProviderError` that names the
endpoint and the model. The API key is read from the environment variable whose *name* is
configured; it is sent only in the ``Authorization`` header and never appears in an error
message, a log line or a repr (server replies quoted in errors are redacted too).

Admission: requests wait for a slot and for the endpoint's rate limits in an
:class:`~harness.providers.limits.EndpointLimits` shared by every provider on the same endpoint; a
``429`` pauses that whole endpoint (for ``Retry-After`` when given, else the backoff), not only the
request that got it. A call's time limit counts from admission (:func:`~harness.providers.base.mark_admitted`).

Time limit (``timeout``, the setting ``request_timeout``): seconds for one attempt, from sending the
request (after admission) to the whole reply. When it runs out after the request was sent whole, the
server has it and may be computing it (a server that handles one request at a time queues it behind
the others): the next attempt waits for that same reply again, for another ``timeout``, holding the
same concurrency slot, instead of sending a duplicate the server would compute as well. A request
that never reached the server (connecting, sending), a broken connection or a retryable status is sent
again after the backoff. Either way a call makes at most ``max_retries + 1`` attempts, so it gives up
after at most ``(max_retries + 1) x timeout`` of waiting plus the backoffs.

Structured replies: OpenAI's ``{"type": "json_schema", ...}`` response format is tried first;
``llama_cpp.server`` rejects that type (it answers 500 with a validation error naming
``response_format``) and only accepts ``{"type": "json_object", "schema": ...}``, so in ``auto``
mode a rejection switches that model to the ``json_object`` form once and for all. The first schema
call for a model finds out which form the endpoint takes; the model's other schema calls wait for
that answer before they are built, so a rejection costs one request per model, not one per queued call.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import logging
import math
import random
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx

from harness.common import vault
from harness.common.errors import ConfigError, ProviderError
from harness.common.untrusted import clean_surrogates
from harness.providers.base import current_case, mark_admitted
from harness.providers.limits import CHARS_PER_TOKEN, EndpointLimits, estimate_tokens
from harness.records.transcript import MAX_TOKENS_PER_CALL, Completion, Message, TokenLogprob

if TYPE_CHECKING:
    from harness.config import Settings

log = logging.getLogger("harness.providers.openai")

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
RETRY_AFTER_MAX_S = 30.0
SchemaStyle = Literal["auto", "json_schema", "json_object"]
_SNIPPET_CHARS = 300
_REDACTED = "[REDACTED]"


def retry_after_seconds(value: str | None, now: datetime | None = None, cap: float = RETRY_AFTER_MAX_S) -> float | None:
    """The wait a ``Retry-After`` header asks for, in seconds.

    Args:
        value: the header value: delay seconds (``"1"``, ``"2.5"``) or an HTTP date.
        now: the current time for HTTP dates (default: now, UTC).
        cap: the longest wait honoured; larger values are cut to it.

    Returns ``None`` when there is no usable value; a date in the past gives 0.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), cap)


def display_url(base_url: str) -> str:
    """``base_url`` without credentials, query or fragment (safe for messages, logs and cache keys)."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


class _Secret:
    """An API key that does not show itself in ``repr``, ``str`` or ``vars()`` dumps."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "_Secret(***)" if self.value else "_Secret(unset)"

    __str__ = __repr__


class _Retryable(Exception):
    """One failed attempt that may succeed when repeated."""

    def __init__(self, reason: str, wait: float | None = None, status: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait
        self.status = status
        self.paused: float | None = None  # a 429's pause of the whole endpoint (Retry-After, else the backoff)


class _SchemaRejected(Exception):
    """The endpoint refused the ``json_schema`` response format."""


class _Tries:
    """The attempts one call has made: each request sent, and each further wait for a reply to a request
    already sent (see the module docstring)."""

    def __init__(self) -> None:
        self.made = 0


class OpenAICompatProvider:
    """Chat completions from an OpenAI-compatible endpoint.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1`` (calls go to
            ``{base_url}/chat/completions``; a query such as ``?api-version=1`` stays after the path).
        api_key_env: the NAME of the environment variable holding the API key, read once here;
            when unset or empty no ``Authorization`` header is sent (fine for local servers).
        timeout: seconds allowed for one attempt (connect, send, wait and read the whole reply); an
            attempt whose request was sent is followed by a wait for the same reply, not a new request.
        max_retries: extra attempts after the first for transient failures (so at most
            ``max_retries + 1`` requests per call).
        concurrency: at most this many requests in flight at once (ignored when ``limits`` is given).
        limits: the endpoint's shared admission state (default: one of this provider's own with
            ``concurrency``, ``requests_per_minute`` and ``tokens_per_minute``).
        requests_per_minute, tokens_per_minute: optional rate limits (ignored when ``limits`` is given).
        client: an ``httpx.AsyncClient`` to use (tests); it is not closed by :meth:`aclose`.
        schema_style: how a JSON schema is sent: ``json_schema`` (OpenAI structured outputs),
            ``json_object`` (``{"type": "json_object", "schema": ...}``, llama_cpp.server), or
            ``auto`` (the first, switching to the second for a model when the endpoint rejects it).
        strict: the ``strict`` flag of the ``json_schema`` form.
        backoff_base: the first retry waits about this many seconds, doubling each time.
        backoff_max: the longest backoff wait.
        retry_after_max: the longest ``Retry-After`` wait honoured.
    """

    name = "openai"
    reports_admission = True

    def __init__(
        self,
        base_url: str,
        api_key_env: str | None = "OPENAI_API_KEY",
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        concurrency: int = 4,
        client: httpx.AsyncClient | None = None,
        schema_style: SchemaStyle = "auto",
        strict: bool = True,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        retry_after_max: float = RETRY_AFTER_MAX_S,
        limits: EndpointLimits | None = None,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
    ) -> None:
        parts = urlsplit(base_url or "")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"expected an http:// or https:// URL such as http://127.0.0.1:8000/v1, got '{display_url(base_url)}'",
                "base_url",
            )
        if timeout <= 0 or max_retries < 0 or concurrency < 1:
            raise ConfigError("timeout must be > 0, max_retries >= 0 and concurrency >= 1", "openai provider")
        if schema_style not in ("auto", "json_schema", "json_object"):
            raise ConfigError(f"schema_style must be auto, json_schema or json_object, got {schema_style!r}")
        base = httpx.URL(base_url)  # the path is extended, the query (``?api-version=``) kept apart from it
        self._chat_url = base.copy_with(path=base.path.rstrip("/") + "/chat/completions")
        self.endpoint = display_url(base_url)
        self.api_key_env = api_key_env
        self._key = _Secret((vault.get(api_key_env) or "").strip() if api_key_env else "")
        if api_key_env:
            vault.remember(api_key_env, self._key.value)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.limits = limits or EndpointLimits(
            self.endpoint,
            int(concurrency),
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
        )
        self.concurrency = self.limits.concurrency
        self.strict = strict
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self._schema_setting: SchemaStyle = schema_style  # as configured
        self._schema_style: SchemaStyle = schema_style  # the last model's resolved style (``schema_style``)
        self._styles: dict[str, SchemaStyle] = {}  # model -> the style it resolved to (``auto`` mode)
        self._probes: dict[str, asyncio.Lock] = {}  # model -> held by the call finding out its style
        self._own_client = client is None
        self._client = client
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> OpenAICompatProvider:
        """A provider for the endpoint in ``settings`` (base_url, api_key_env, request_timeout,
        max_retries, concurrency, requests_per_minute, tokens_per_minute); ``kwargs`` are passed on
        to the constructor."""
        if not settings.base_url:
            raise ConfigError("no OpenAI-compatible endpoint is configured (set LLM_COUNCIL_BASE_URL)", "base_url")
        kwargs.setdefault("requests_per_minute", settings.requests_per_minute)
        kwargs.setdefault("tokens_per_minute", settings.tokens_per_minute)
        return cls(
            settings.base_url,
            settings.api_key_env,
            timeout=settings.request_timeout,
            max_retries=settings.max_retries,
            concurrency=settings.concurrency,
            **kwargs,
        )

    def __repr__(self) -> str:
        return (
            f"OpenAICompatProvider(endpoint={self.endpoint!r}, api_key_env={self.api_key_env!r}, "
            f"key_set={bool(self._key.value)}, timeout={self.timeout:g}, max_retries={self.max_retries}, "
            f"concurrency={self.concurrency})"
        )

    @property
    def has_key(self) -> bool:
        """Whether an API key was found in the environment."""
        return bool(self._key.value)

    @property
    def schema_style(self) -> SchemaStyle:
        """The response-format style the endpoint last resolved to (``auto`` until it has answered a schema
        call); :meth:`schema_style_for` gives one model's."""
        return self._schema_style

    def schema_style_for(self, model: str) -> SchemaStyle:
        """The response-format style used for ``model`` (``auto`` until the endpoint has answered its first
        schema call)."""
        return self._styles.get(model, self._schema_setting)

    def _resolve(self, model: str, style: SchemaStyle) -> None:
        self._styles[model] = self._schema_style = style

    def identity(self, model: str) -> str:
        return f"openai:{self.endpoint}:{model}"

    # -- plumbing ---------------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        return vault.redact_value(text, self._key.value, _REDACTED) if self._key.value else text

    def _where(self, model: str) -> str:
        case = current_case.get()
        suffix = f", case {case}" if case != "?" else ""
        return f"openai endpoint {self.endpoint} (model '{model}'{suffix})"

    def _error(self, model: str, message: str) -> ProviderError:
        return ProviderError(self._redact(message), self._where(model))

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key.value:
            headers["Authorization"] = f"Bearer {self._key.value}"
        return headers

    def _resources(self) -> httpx.AsyncClient:
        """The client for the running event loop.

        It is bound to a loop; when a later ``asyncio.run`` brings a new loop it is made again (an
        owned client left from a closed loop cannot be closed from the new one: call :meth:`aclose`
        before the loop ends).
        """
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._loop = loop
            self._probes = {}  # asyncio locks belong to one loop
            if self._own_client:
                self._client = httpx.AsyncClient(
                    timeout=httpx.Timeout(self.timeout),
                    limits=httpx.Limits(max_connections=self.concurrency),
                )
        assert self._client is not None
        return self._client

    def _backoff(self, retry: int) -> float:
        """Exponential backoff with equal jitter for the ``retry``-th retry (0-based)."""
        ceiling = min(self.backoff_max, self.backoff_base * (2**retry))
        return ceiling / 2 + random.uniform(0.0, ceiling / 2)

    def _payload(
        self,
        model: str,
        messages: Sequence[Message],
        temperature: float,
        top_p: float,
        max_tokens: int,
        seed: int,
        json_schema: dict[str, Any] | None,
        top_logprobs: int = 0,
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": model,
            "messages": [m.model_dump() for m in messages],
            "temperature": temperature,
            "top_p": top_p,
            "max_tokens": max_tokens,
            "seed": seed,
            "stream": False,
        }
        if top_logprobs:
            payload["logprobs"] = True
            payload["top_logprobs"] = top_logprobs
        if json_schema is not None:
            if self.schema_style_for(model) == "json_object":
                payload["response_format"] = {"type": "json_object", "schema": json_schema}
            else:
                payload["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "reply", "schema": json_schema, "strict": self.strict},
                }
        return payload

    def _snippet(self, body: bytes) -> str:
        text = " ".join(self._redact(body.decode("utf-8", errors="replace")).split())
        if len(text) > _SNIPPET_CHARS:
            text = text[:_SNIPPET_CHARS] + "..."
        return text or "(empty body)"

    async def _attempt(
        self,
        client: httpx.AsyncClient,
        model: str,
        payload: dict[str, Any],
        tries: _Tries,
    ) -> dict[str, Any]:
        """One request; returns the decoded body of a 2xx reply or raises.

        The request runs as a task; each ``timeout`` without a reply ends one attempt. When the request
        was sent whole (httpcore's ``send_request_body.complete`` trace event) and attempts remain, the
        next attempt waits for the same task (``tries`` counts it); otherwise the task is cancelled and
        :class:`_Retryable` lets :meth:`chat` send the request again.
        """
        url = self._chat_url
        sent = False

        async def trace(event: str, info: dict[str, Any]) -> None:
            nonlocal sent
            if event.endswith("send_request_body.complete"):
                sent = True

        task = asyncio.ensure_future(
            client.post(
                url,
                json=payload,
                headers=self._headers(),
                extensions={"trace": trace},
                timeout=httpx.Timeout(self.timeout, read=None),  # the wait for the reply is timed below
            )
        )
        try:
            while not (await asyncio.wait({task}, timeout=self.timeout))[0]:
                if not sent or tries.made > self.max_retries:
                    waited = "" if tries.made == 1 or not sent else f" (the request was sent; waited {tries.made} x)"
                    raise _Retryable(f"no complete reply within {self.timeout:g} s{waited}")
                tries.made += 1
                log.warning(
                    "%s: no reply within %g s to a request the server has (attempt %d of %d); waiting for it "
                    "rather than sending it again",
                    self._where(model),
                    self.timeout,
                    tries.made,
                    self.max_retries + 1,
                )
            response = task.result()
            body = response.content
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timed out ({type(exc).__name__}) after {self.timeout:g} s") from None
        except httpx.UnsupportedProtocol:
            raise self._error(model, "unsupported URL scheme; expected http:// or https://") from None
        except httpx.TransportError as exc:
            detail = self._redact(str(exc)) or "no detail"
            raise _Retryable(f"connection failed or reply cut off ({type(exc).__name__}: {detail})") from None
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                    await task
        status = response.status_code
        if 200 <= status < 300:
            try:
                data = json.loads(body)
            except ValueError:
                raise self._error(model, f"HTTP {status} reply is not valid JSON: {self._snippet(body)}") from None
            if not isinstance(data, dict):
                raise self._error(model, f"HTTP {status} reply is not a JSON object: {self._snippet(body)}")
            return data
        snippet = self._snippet(body)
        rf = payload.get("response_format", {})
        if (
            self.schema_style_for(model) == "auto"
            and rf.get("type") == "json_schema"
            and (status in (400, 422) or (status == 500 and "response_format" in snippet))
        ):
            raise _SchemaRejected(f"HTTP {status}: {snippet}")
        if status in RETRY_STATUSES:
            wait = retry_after_seconds(response.headers.get("retry-after"), cap=self.retry_after_max)
            raise _Retryable(f"HTTP {status}: {snippet}", wait, status)
        if status in (401, 403):
            key_hint = (
                f"check the key in ${self.api_key_env}"
                if self._key.value
                else f"no API key was sent (${self.api_key_env} is not set)"
                if self.api_key_env
                else "no API key was sent"
            )
            raise self._error(model, f"HTTP {status} (not authorized; {key_hint}): {snippet}")
        raise self._error(model, f"HTTP {status}: {snippet}")

    def _parse(self, model: str, data: dict[str, Any], started: float) -> Completion:
        if isinstance(data.get("error"), dict | str):
            detail = self._snippet(json.dumps(data["error"]).encode())
            raise self._error(model, f"the endpoint returned an error: {detail}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise self._error(model, "the reply has no choices")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            refusal = message.get("refusal") if isinstance(message, dict) else None
            extra = f" (refusal: {clean_surrogates(self._redact(str(refusal)))[:_SNIPPET_CHARS]})" if refusal else ""
            raise self._error(model, f"the reply's first choice has no message content{extra}")
        reported = data.get("usage")
        usage = reported if isinstance(reported, dict) else {}
        prompt, reply = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
        return Completion(  # lone surrogates ("\\ud800" is valid JSON) would make the result unwritable
            text=clean_surrogates(content),
            model=model,
            tokens_in=prompt or 0,
            tokens_out=reply or 0,
            tokens_estimated=prompt is None or reply is None,  # checked_usage estimates what is not known
            cached_tokens=_cached_tokens(usage),
            latency_s=time.perf_counter() - started,
            finish_reason=clean_surrogates(str(choice.get("finish_reason") or "stop")),
            token_logprobs=_token_logprobs(choice.get("logprobs")),
        )

    # -- the protocol -----------------------------------------------------------------------

    async def chat(
        self,
        model: str,
        messages: Sequence[Message],
        *,
        temperature: float,
        max_tokens: int,
        seed: int,
        top_p: float = 1.0,
        json_schema: dict[str, Any] | None = None,
        top_logprobs: int = 0,
    ) -> Completion:
        """One chat completion; ``latency_s`` covers the whole call including retries.

        With ``top_logprobs`` the request asks for ``logprobs`` and that many ``top_logprobs``;
        what the endpoint returns is kept in ``Completion.token_logprobs`` (empty when it
        returns none).
        """
        client = self._resources()
        probe: asyncio.Lock | None = None
        if json_schema is not None and self.schema_style_for(model) == "auto":
            # the first schema call for this model finds out which form the endpoint takes; the others
            # wait here for its answer (taken before a concurrency slot, so the waiters hold none)
            probe = self._probes.setdefault(model, asyncio.Lock())
            await probe.acquire()
        try:
            return await self._chat(
                client, model, messages, temperature, top_p, max_tokens, seed, json_schema, top_logprobs
            )
        finally:
            if probe is not None:
                probe.release()

    async def _chat(
        self,
        client: httpx.AsyncClient,
        model: str,
        messages: Sequence[Message],
        temperature: float,
        top_p: float,
        max_tokens: int,
        seed: int,
        json_schema: dict[str, Any] | None,
        top_logprobs: int,
    ) -> Completion:
        started = time.perf_counter()
        tries = _Tries()
        estimate = estimate_tokens(messages, max_tokens)
        while True:
            payload = self._payload(model, messages, temperature, top_p, max_tokens, seed, json_schema, top_logprobs)
            tries.made += 1
            try:
                async with self.limits.slot(estimate):
                    mark_admitted()
                    try:
                        data = await self._attempt(client, model, payload, tries)
                    except _Retryable as exc:
                        if exc.status == 429:  # paused before the slot is let go: no request slips in between
                            exc.paused = exc.wait if exc.wait is not None else self._backoff(tries.made - 1)
                            self.limits.pause(exc.paused)
                        raise
                completion = checked_usage(self._parse(model, data, started), messages)
                self.limits.settle(estimate, completion.tokens_in + completion.tokens_out)
                self.limits.succeeded()
                if self.schema_style_for(model) == "auto" and payload.get("response_format", {}).get("type") == (
                    "json_schema"
                ):
                    self._resolve(model, "json_schema")  # the endpoint accepts it
                return completion
            except _SchemaRejected as exc:
                log.info(
                    "%s: the endpoint rejected response_format json_schema (%s); using json_object + schema",
                    self._where(model),
                    exc,
                )
                self._resolve(model, "json_object")
                tries.made -= 1  # a format negotiation, not a failure
                continue
            except _Retryable as exc:
                attempts = tries.made
                if attempts > self.max_retries:
                    raise self._error(
                        model, f"failed after {attempts} attempt{'s' if attempts > 1 else ''}: {exc.reason}"
                    ) from None
                wait = exc.paused if exc.paused is not None else exc.wait
                wait = wait if wait is not None else self._backoff(attempts - 1)
                source = "Retry-After" if exc.wait is not None else "backoff"
                if exc.status == 429:  # the endpoint was paused above: every request is held back, not only this one
                    source += "; endpoint paused"
                log.warning(
                    "%s: attempt %d of %d failed (%s); retrying in %.2f s (%s)",
                    self._where(model),
                    attempts,
                    self.max_retries + 1,
                    exc.reason,
                    wait,
                    source,
                )
                await asyncio.sleep(wait)

    async def aclose(self) -> None:
        if self._own_client and self._client is not None:
            client, self._client = self._client, None
            self._loop = None
            await client.aclose()


def _token_logprobs(block: Any) -> tuple[TokenLogprob, ...]:
    """OpenAI's ``choices[0].logprobs.content`` as :class:`TokenLogprob` records (malformed entries skipped)."""
    content = block.get("content") if isinstance(block, dict) else None
    if not isinstance(content, list):
        return ()
    out = []
    for item in content:
        if not isinstance(item, dict) or not isinstance(item.get("token"), str):
            continue
        lp = item.get("logprob")
        if not isinstance(lp, int | float) or isinstance(lp, bool):
            continue
        top = {
            str(t["token"]): float(t["logprob"])
            for t in item.get("top_logprobs") or []
            if isinstance(t, dict)
            and isinstance(t.get("token"), str)
            and isinstance(t.get("logprob"), int | float)
            and not isinstance(t.get("logprob"), bool)
        }
        out.append(TokenLogprob(token=item["token"], logprob=float(lp), top=top))
    return tuple(out)


def _count(value: Any) -> int | None:
    """A reported token count: a whole number in ``0..MAX_TOKENS_PER_CALL``; anything else (missing,
    negative, fractional, non-numeric, a boolean, 10**30) is ``None``: not known."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    n = int(value)
    return n if 0 <= n <= MAX_TOKENS_PER_CALL else None


def checked_usage(completion: Completion, messages: Sequence[Message]) -> Completion:
    """``completion`` with estimated token counts when the endpoint's usage was not usable.

    A count the endpoint did not report as a valid number (:func:`_count`) was parsed as 0 and
    ``tokens_estimated`` set; here the prompt side becomes ``ceil(characters / 4)`` of ``messages``
    and the reply side ``ceil(characters / 4)`` of the text (the rule of
    :func:`harness.providers.limits.estimate_tokens`), so ``token_limit`` and ``tokens_per_minute``
    still count them; the ledger says how many calls were estimated.
    """
    if not completion.tokens_estimated:
        return completion
    prompt = math.ceil(sum(len(m.content) for m in messages) / CHARS_PER_TOKEN)
    reply = math.ceil(len(completion.text) / CHARS_PER_TOKEN)
    return completion.model_copy(
        update={"tokens_in": completion.tokens_in or prompt, "tokens_out": completion.tokens_out or reply}
    )


def _cached_tokens(usage: Any) -> int | None:
    """``usage.prompt_tokens_details.cached_tokens`` when the endpoint returned it, else ``None`` (not known)."""
    details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else None
    value = details.get("cached_tokens") if isinstance(details, dict) else None
    if value is None or isinstance(value, bool):
        return None
    try:
        return max(int(value), 0)
    except (TypeError, ValueError):
        return None
