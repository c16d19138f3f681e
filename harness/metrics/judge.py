"""The harness's one small judge interface: a model that returns text or schema-checked JSON.

DeepEval, RAGAS and any other LLM-as-a-judge scorer talk to a :class:`Judge`, never to a
backend directly. A judge is a harness :class:`~harness.providers.base.Provider` plus a model
name, called at temperature 0 with a fixed seed, so the embedded judge (SmolLM2 through
llama.cpp) is deterministic and any OpenAI-compatible endpoint can stand in for it.

Structured replies use JSON-schema-constrained decoding. llama.cpp's schema converter ignores
integer ``minimum``/``maximum`` and lets raw newlines into strings, so schemas are tightened
(small integer ranges become ``enum``s, arrays and strings get bounds that fit the token
budget) and replies are parsed with ``json.loads(strict=False)`` before pydantic validates them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from harness.common.errors import CacheMiss, ConfigError, HarnessError, ProviderError
from harness.config import Settings
from harness.providers.base import Provider, charge_call, with_time_limit
from harness.records.transcript import CallRecord, Message

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

DEFAULT_JUDGE_MAX_TOKENS = 384
_ENUM_RANGE_LIMIT = 20  # integer ranges up to this many values become an enum
_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_SNIPPET = 160


class JudgeReplyError(ProviderError):
    """The judge answered, but not with JSON that fits the requested schema."""


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SNIPPET else flat[:_SNIPPET] + "..."


def parse_json_reply(text: str, schema: type[T], *, where: str = "judge") -> T:
    """Parse a judge's reply into ``schema``.

    Args:
        text: the raw reply; a fenced ```json block or prose around one JSON object is tolerated.
        schema: the pydantic model the reply must validate against.
        where: names the judge in the error message.

    Raises:
        JudgeReplyError: the reply holds no JSON object, or one that does not fit ``schema``.
    """
    body = text.strip()
    if not body.startswith("{"):  # a fence inside a JSON string must not be taken for the reply's
        fenced = _FENCE_RE.search(body)
        if fenced:
            body = fenced.group(1).strip()
    if not body.startswith("{"):
        start, end = body.find("{"), body.rfind("}")
        if start == -1 or end < start:
            raise JudgeReplyError(f"expected a JSON object for {schema.__name__}, got: {_snippet(text)!r}", where)
        body = body[start : end + 1]
    try:
        data = json.loads(body, strict=False)  # llama.cpp grammars allow raw newlines in strings
    except json.JSONDecodeError as exc:
        raise JudgeReplyError(
            f"invalid JSON for {schema.__name__} ({exc.msg} at char {exc.pos}): {_snippet(text)!r}", where
        ) from None
    except RecursionError:
        raise JudgeReplyError(f"JSON nested too deeply for {schema.__name__}: {_snippet(text)!r}", where) from None
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise JudgeReplyError(
            f"JSON does not fit {schema.__name__}: '{loc}': {first['msg']}: {_snippet(text)!r}", where
        ) from None


def restrict_property(json_schema: dict[str, Any], name: str, values: list[Any]) -> dict[str, Any]:
    """A copy of ``json_schema`` where every property called ``name`` may only take ``values``.

    Args:
        json_schema: a pydantic ``model_json_schema()`` (nested ``$defs`` included).
        name: the property name (e.g. ``verdict``).
        values: the allowed values (e.g. ``[0, 1]``).
    """
    out = copy.deepcopy(json_schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict) and name in props:
                keep = {k: v for k, v in props[name].items() if k in ("title", "description")}
                props[name] = {**keep, "enum": list(values)}
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(out)
    return out


def bounded_schema(
    json_schema: dict[str, Any],
    *,
    min_items: int | None = 1,
    max_items: int | None = 6,
    max_length: int | None = 300,
) -> dict[str, Any]:
    """A copy of ``json_schema`` that a small constrained decoder can finish within its budget.

    Integer properties with a ``minimum`` and ``maximum`` at most 20 values apart become an
    ``enum`` (llama.cpp ignores the bounds themselves). Arrays get ``min_items`` and
    ``max_items`` where they have no bound of their own (a judge asked for statements or
    verdicts must give at least one, and not ramble past its token budget); strings without
    ``maxLength`` (and without ``enum``/``const``) get ``max_length``.

    Args:
        json_schema: a JSON schema (pydantic's ``model_json_schema()``).
        min_items: the lower bound for arrays without ``minItems``; ``None`` leaves them alone.
        max_items: the upper bound for arrays without ``maxItems``; ``None`` leaves them alone.
        max_length: the bound for unbounded strings; ``None`` leaves them alone.
    """
    out = copy.deepcopy(json_schema)

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for value in node:
                walk(value)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        if kind == "integer" and "enum" not in node and "minimum" in node and "maximum" in node:
            low, high = int(node["minimum"]), int(node["maximum"])
            if 0 <= high - low < _ENUM_RANGE_LIMIT:
                node["enum"] = list(range(low, high + 1))
        elif kind == "array":
            if min_items is not None and "minItems" not in node:
                node["minItems"] = min_items
            if max_items is not None and "maxItems" not in node:
                node["maxItems"] = max(max_items, node.get("minItems", 0))
        elif kind == "string" and max_length is not None and not ({"maxLength", "enum", "const"} & set(node)):
            node["maxLength"] = max_length
        for value in node.values():
            walk(value)

    walk(out)
    return out


def run_sync(make: Callable[[], Awaitable[R]]) -> R:
    """Run a coroutine from synchronous code, also when an event loop is already running.

    Args:
        make: builds the coroutine (called in the thread that runs it).

    Without a running loop in this thread the coroutine runs with :func:`asyncio.run`; inside
    a running loop it runs to completion on a fresh loop in a worker thread (the caller blocks,
    as a synchronous call must).
    """

    async def main() -> R:
        return await make()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-sync") as pool:
        return pool.submit(asyncio.run, main()).result()


class Judge:
    """A deterministic LLM judge on a harness provider.

    Args:
        provider: the backend (``LocalProvider`` for the embedded models, the OpenAI-compatible
            provider for an endpoint, either possibly wrapped in the record/replay cache).
        model: the backend's model name (``smollm2-135m`` by default).
        seed: the sampling seed of every call.
        max_tokens: the generation limit of every call (a cut-off JSON reply is an error).
        temperature: sampling temperature (0: greedy, so the same prompt gives the same verdict).
        timeout: seconds allowed per call (``None``: no limit).
        bounded: tighten schemas with :func:`bounded_schema` so replies fit ``max_tokens``
            (on by default; it matters most for small embedded judges).
        max_items, max_length: the array and string bounds :func:`bounded_schema` applies.
        name: how the judge is named in reports (default ``<provider>:<model>``).
        stage: the stage its call records carry (``external`` for DeepEval/RAGAS metrics).
    """

    def __init__(
        self,
        provider: Provider,
        model: str,
        *,
        seed: int = 0,
        max_tokens: int = DEFAULT_JUDGE_MAX_TOKENS,
        temperature: float = 0.0,
        timeout: float | None = None,
        bounded: bool = True,
        max_items: int = 6,
        max_length: int = 300,
        name: str | None = None,
        stage: str = "external",
    ) -> None:
        if max_tokens < 1:
            raise ConfigError(f"judge max_tokens must be at least 1, got {max_tokens}", "judge")
        self.provider = provider
        self.model = model
        self.seed = seed
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.timeout = timeout
        self.bounded = bounded
        self.max_items = max_items
        self.max_length = max_length
        self.name = name or f"{getattr(provider, 'name', 'provider')}:{model}"
        self.stage = stage
        #: every call this judge made (stage :attr:`stage`), for timings and token counts.
        self.calls: list[CallRecord] = []

    async def _chat(self, prompt: str, json_schema: dict[str, Any] | None) -> str:
        messages = [Message(role="user", content=prompt)]
        try:
            completion = await with_time_limit(
                self.provider,
                self.provider.chat(
                    self.model,
                    messages,
                    temperature=self.temperature,
                    top_p=1.0,
                    max_tokens=self.max_tokens,
                    seed=self.seed,
                    json_schema=json_schema,
                ),
                self.timeout,
            )
        except CacheMiss:
            raise
        except TimeoutError:
            self.calls.append(
                CallRecord(
                    stage=self.stage, member=self.name, model=self.model, error=f"timed out after {self.timeout:g} s"
                )
            )
            raise ProviderError(f"the judge did not answer within {self.timeout:g} s", self.name) from None
        except HarnessError as exc:
            self.calls.append(CallRecord(stage=self.stage, member=self.name, model=self.model, error=str(exc)))
            raise
        self.calls.append(
            CallRecord(
                stage=self.stage,
                member=self.name,
                model=self.model,
                latency_s=completion.latency_s,
                tokens_in=completion.tokens_in,
                tokens_out=completion.tokens_out,
                cached=completion.cached,
            )
        )
        charge_call(self.calls[-1])
        if json_schema is not None and completion.finish_reason == "length":
            raise JudgeReplyError(
                f"the JSON reply was cut off at max_tokens={self.max_tokens}: {_snippet(completion.text)!r}",
                self.name,
            )
        return completion.text

    async def generate_text(self, prompt: str) -> str:
        """Free-text reply to ``prompt`` (one user message)."""
        return await self._chat(prompt, None)

    async def generate_json(self, prompt: str, schema: type[T], *, json_schema: dict[str, Any] | None = None) -> T:
        """A reply to ``prompt`` decoded under ``schema``'s JSON schema and validated into it.

        Args:
            prompt: the whole instruction (one user message).
            schema: the pydantic model of the reply.
            json_schema: a tighter JSON schema to decode with (its replies must still validate
                against ``schema``); default ``schema.model_json_schema()``.

        Raises:
            JudgeReplyError: the reply does not parse or validate.
            ProviderError: the call failed.
        """
        constraint = json_schema if json_schema is not None else schema.model_json_schema()
        if self.bounded:
            constraint = bounded_schema(constraint, max_items=self.max_items, max_length=self.max_length)
        text = await self._chat(prompt, constraint)
        return parse_json_reply(text, schema, where=self.name)

    @property
    def tokens(self) -> tuple[int, int]:
        """(prompt tokens, generated tokens) over all calls so far."""
        return (sum(c.tokens_in for c in self.calls), sum(c.tokens_out for c in self.calls))


def judge_from_settings(
    settings: Settings, providers: Mapping[str, Provider], *, max_tokens: int = DEFAULT_JUDGE_MAX_TOKENS
) -> Judge:
    """The judge the settings choose: ``judge`` (else the chairman, else the first member).

    With the default settings this is the embedded SmolLM2-135M. The judge always samples at
    temperature 0 with seed ``settings.seed + spec.seed``; ``settings.member_timeout`` bounds
    each call.

    Args:
        settings: the loaded configuration (``LLM_COUNCIL_JUDGE`` names a member id or model).
        providers: provider by kind (``local``, ``openai``), as the engine builds them.
        max_tokens: generation limit per judge call.

    Raises:
        ConfigError: no provider of the judge's kind is configured.
    """
    spec = settings.role_spec("judge")
    provider = providers.get(spec.provider_key)
    if provider is None:
        raise ConfigError(
            f"the judge '{spec.id}' needs a '{spec.provider}' provider, but only "
            f"{sorted(providers) or 'none'} are configured",
            "judge",
        )
    return Judge(
        provider,
        spec.model,
        seed=settings.seed + spec.seed,
        max_tokens=max_tokens,
        timeout=settings.member_timeout,
        name=f"{spec.provider}:{spec.model}",
    )
