"""The engine: providers, cache and subjects built once; cases run through subjects and scored."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from harness.bias.store import QueryMetadata, persist_transcript
from harness.cases import Case
from harness.config import Settings
from harness.council.calls import Caller
from harness.errors import CacheMiss, HarnessError
from harness.providers.base import Provider, current_case
from harness.providers.cache import CachedProvider, CacheStore
from harness.result import CaseResult
from harness.reviews import load_verdicts, with_verdict
from harness.scoring import score_case
from harness.subjects import Subject, build_subject
from harness.webhooks import WebhookDispatcher, event_from_result

VERDICTS_FILE = "reviews.json"


def build_providers(settings: Settings, store: CacheStore | None) -> dict[str, Provider]:
    """The providers the configured members need, each wrapped in the record/replay cache.

    Keys are :attr:`MemberSpec.provider_key`: ``local``, ``openai`` (the configured endpoint), and
    ``openai@URL|KEYVAR`` for members that name an endpoint of their own.
    """
    raw: dict[str, Provider] = {}
    for spec in settings.all_specs():
        key = spec.provider_key
        if key in raw:
            continue
        if spec.provider == "local":
            from harness.providers.local import LocalProvider

            raw[key] = LocalProvider(n_threads=settings.llama_threads)
        else:
            from harness.providers.openai_compat import OpenAICompatProvider

            raw[key] = OpenAICompatProvider(
                spec.base_url or settings.base_url or "", spec.api_key_env or settings.api_key_env,
                timeout=settings.request_timeout, max_retries=settings.max_retries, concurrency=settings.concurrency,
            )
    if store is None or settings.cache_mode == "off":
        return raw
    return {k: CachedProvider(p, store, settings.cache_mode) for k, p in raw.items()}


class Engine:
    """Runs cases through subjects.

    Args:
        settings: the loaded configuration.
        subjects: subject names to build (``council``, ``baseline``, ...).
    """

    def __init__(self, settings: Settings, subjects: Sequence[str]) -> None:
        self.settings = settings
        self.store = CacheStore(settings.cache_path) if settings.cache_mode != "off" else None
        self.providers = build_providers(settings, self.store)
        self.caller = Caller(self.providers, settings)
        self.subjects: dict[str, Subject] = {n: build_subject(n, settings, self.caller) for n in subjects}
        self.verdicts = load_verdicts(Path(settings.reports_dir) / VERDICTS_FILE)
        urls = [u.strip() for u in (settings.quality_webhook_url or "").split(",") if u.strip()]
        secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
        self.webhooks = WebhookDispatcher(urls, secret)
        self._hash_secret = settings.hash_secret.get_secret_value() if settings.hash_secret else None

    async def run_case(self, case: Case, subject: str) -> CaseResult:
        """Run ``case`` through ``subject`` and score it; failures become an ``error`` result.

        A replay-cache miss is re-raised: in replay mode a miss must stop the run.
        """
        token = current_case.set(case.nodeid_part)
        started = time.perf_counter()
        try:
            transcript = await self.subjects[subject].answer(case.query)
            result = await score_case(case, transcript, self.caller, self.settings)
            result = with_verdict(result, self.verdicts.get(result.key))
            if transcript.reviews and self.settings.bias_persistence:
                persist_transcript(transcript, self.settings, str(uuid.uuid4()),
                                   QueryMetadata.for_query(case.query, category=case.category or case.dataset))
            event = event_from_result(result, self._hash_secret)
            if event is not None:
                self.webhooks.emit(event)  # background delivery: never blocks or fails the run
            return result
        except CacheMiss:
            raise
        except HarnessError as exc:
            return self._error(case, subject, str(exc))
        except Exception as exc:  # noqa: BLE001 - one broken case must not stop a run
            elapsed = time.perf_counter() - started
            return self._error(case, subject, f"{type(exc).__name__}: {exc} (after {elapsed:.1f} s)")
        finally:
            current_case.reset(token)

    @staticmethod
    def _error(case: Case, subject: str, message: str) -> CaseResult:
        return CaseResult(
            case_id=case.id, dataset=case.dataset, subject=subject, category=case.category,
            evaluation_mode=case.evaluation_mode, status="error", error=message,
        )

    def cache_stats(self) -> tuple[int, int]:
        hits = sum(getattr(p, "hits", 0) for p in self.providers.values())
        misses = sum(getattr(p, "misses", 0) for p in self.providers.values())
        return hits, misses

    async def aclose(self) -> None:
        await self.webhooks.aclose()
        for p in self.providers.values():
            await p.aclose()
        if self.store is not None:
            self.store.close()
