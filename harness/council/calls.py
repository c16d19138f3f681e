"""Making one model call for a member: provider routing, seeds, timeouts and call records."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.config import MemberSpec, Settings
from harness.errors import CacheMiss, HarnessError
from harness.providers.base import Provider, with_time_limit
from harness.transcript import CallRecord, Completion, Message


@dataclass(frozen=True)
class CallResult:
    """A completion (or ``None`` on failure) and its record."""

    completion: Completion | None
    record: CallRecord

    @property
    def error(self) -> str | None:
        return self.record.error


class Caller:
    """Routes a member's calls to its provider with the member's sampling and a time limit.

    Args:
        providers: provider by kind (``local``, ``openai``).
        settings: for the global seed and the per-call time limit.
    """

    def __init__(self, providers: Mapping[str, Provider], settings: Settings) -> None:
        self.providers = providers
        self.settings = settings

    async def call(
        self,
        spec: MemberSpec,
        stage: str,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        temperature: float | None = None,
        seed_offset: int = 0,
        timeout: float | None = None,
    ) -> CallResult:
        """Call ``spec``'s model; failures and time-outs become a record with ``error`` set.

        A replay-cache miss is not swallowed: it stops the case so replay stays honest.
        """
        provider = self.providers.get(spec.provider_key)
        started = time.perf_counter()
        if provider is None:
            return CallResult(None, CallRecord(stage=stage, member=spec.id, model=spec.model,
                                               error=f"no '{spec.provider}' provider configured"))
        try:
            completion = await with_time_limit(
                provider,
                provider.chat(
                    spec.model,
                    messages,
                    temperature=spec.temperature if temperature is None else temperature,
                    top_p=spec.top_p,
                    max_tokens=spec.max_tokens or max_tokens,
                    seed=self.settings.seed + spec.seed + seed_offset,
                    json_schema=json_schema,
                ),
                timeout or self.settings.member_timeout,
            )
        except CacheMiss:
            raise
        except TimeoutError:
            error = f"timed out after {timeout or self.settings.member_timeout:g} s"
            return CallResult(None, self._failed(spec, stage, started, error))
        except HarnessError as exc:
            return CallResult(None, self._failed(spec, stage, started, str(exc)))
        except Exception as exc:  # noqa: BLE001 - any backend failure is recorded, not fatal
            return CallResult(None, self._failed(spec, stage, started, f"{type(exc).__name__}: {exc}"))
        record = CallRecord(
            stage=stage, member=spec.id, model=spec.model,
            latency_s=completion.latency_s, tokens_in=completion.tokens_in,
            tokens_out=completion.tokens_out, cached=completion.cached, finish_reason=completion.finish_reason,
        )
        return CallResult(completion, record)

    @staticmethod
    def _failed(spec: MemberSpec, stage: str, started: float, error: str) -> CallRecord:
        return CallRecord(
            stage=stage, member=spec.id, model=spec.model,
            latency_s=time.perf_counter() - started, error=error,
        )
