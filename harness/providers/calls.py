"""Making one model call for a member: provider routing, seeds, timeouts and call records."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.common.errors import BudgetReached, CacheMiss, HarnessError
from harness.config import MemberSpec, Settings
from harness.providers.base import Provider, charge_call, with_time_limit
from harness.providers.cache import supports_probe
from harness.providers.probe import Probe, ProbeReply
from harness.records.transcript import CallRecord, Completion, Message


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
        top_logprobs: int = 0,
    ) -> CallResult:
        """Call ``spec``'s model; failures and time-outs become a record with ``error`` set.

        ``top_logprobs`` (when above 0) asks the provider for per-token alternatives.

        A replay-cache miss is not swallowed: it stops the case so replay stays honest.
        """
        provider = self.providers.get(spec.provider_key)
        started = time.perf_counter()
        if provider is None:
            return CallResult(
                None,
                CallRecord(
                    stage=stage, member=spec.id, model=spec.model, error=f"no '{spec.provider}' provider configured"
                ),
            )
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
                    **({"top_logprobs": top_logprobs} if top_logprobs else {}),
                ),
                timeout or self.settings.member_timeout,
            )
        except (CacheMiss, BudgetReached):
            raise
        except TimeoutError:
            error = f"timed out after {timeout or self.settings.member_timeout:g} s"
            return CallResult(None, self._failed(spec, stage, started, error))
        except HarnessError as exc:
            return CallResult(None, self._failed(spec, stage, started, str(exc)))
        except Exception as exc:  # noqa: BLE001 - any backend failure is recorded, not fatal
            return CallResult(None, self._failed(spec, stage, started, f"{type(exc).__name__}: {exc}"))
        record = CallRecord(
            stage=stage,
            member=spec.id,
            model=spec.model,
            latency_s=completion.latency_s,
            tokens_in=completion.tokens_in,
            tokens_out=completion.tokens_out,
            cached=completion.cached,
            finish_reason=completion.finish_reason,
            cached_tokens=completion.cached_tokens,
            tokens_estimated=completion.tokens_estimated,
        )
        charge_call(record)
        return CallResult(completion, record)

    def can_probe(self, spec: MemberSpec) -> bool:
        """Whether ``spec``'s provider can read option probabilities (the embedded models can)."""
        provider = self.providers.get(spec.provider_key)
        return provider is not None and supports_probe(provider)

    async def probe(
        self,
        spec: MemberSpec,
        stage: str,
        messages: Sequence[Message],
        probes: Sequence[Probe],
        *,
        lead: str = "",
        max_tokens: int = 0,
        temperature: float | None = None,
        seed_offset: int = 0,
        stop: Sequence[str] = (),
    ) -> tuple[ProbeReply | None, CallRecord]:
        """Option probabilities from ``spec``'s model (see :meth:`LocalProvider.probe`); failures are recorded."""
        provider = self.providers.get(spec.provider_key)
        started = time.perf_counter()
        if provider is None or not supports_probe(provider):
            return None, CallRecord(
                stage=stage,
                member=spec.id,
                model=spec.model,
                error=f"the '{spec.provider}' provider cannot read option probabilities",
            )
        try:
            reply: ProbeReply = await with_time_limit(
                provider,
                provider.probe(  # type: ignore[attr-defined]
                    spec.model,
                    messages,
                    probes,
                    seed=self.settings.seed + spec.seed + seed_offset,
                    lead=lead,
                    max_tokens=max_tokens,
                    top_p=spec.top_p,
                    temperature=spec.temperature if temperature is None else temperature,
                    **({"stop": list(stop)} if stop else {}),
                ),
                self.settings.member_timeout,
            )
        except (CacheMiss, BudgetReached):
            raise
        except TimeoutError:
            return None, self._failed(spec, stage, started, f"timed out after {self.settings.member_timeout:g} s")
        except HarnessError as exc:
            return None, self._failed(spec, stage, started, str(exc))
        except Exception as exc:  # noqa: BLE001 - any backend failure is recorded, not fatal
            return None, self._failed(spec, stage, started, f"{type(exc).__name__}: {exc}")
        record = CallRecord(
            stage=stage,
            member=spec.id,
            model=spec.model,
            latency_s=reply.latency_s,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            cached=reply.cached,
            cached_tokens=reply.cached_tokens,
        )
        charge_call(record)
        return reply, record

    @staticmethod
    def _failed(spec: MemberSpec, stage: str, started: float, error: str) -> CallRecord:
        return CallRecord(
            stage=stage,
            member=spec.id,
            model=spec.model,
            latency_s=time.perf_counter() - started,
            error=error,
        )
