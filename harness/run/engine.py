"""The engine: providers, cache and subjects built once; cases run through subjects and scored."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_core import PydanticSerializationError

from harness.bias.store import QueryMetadata, persist_transcript
from harness.common.errors import BudgetReached, CacheMiss, HarnessError, StoreError
from harness.common.untrusted import clean_surrogates
from harness.config import MemberSpec, Settings
from harness.council.arms import TokenBoard
from harness.data.cases import Case
from harness.providers.base import Provider, current_case
from harness.providers.cache import CachedProvider, CacheStore
from harness.providers.calls import Caller
from harness.providers.engine_setup import EngineSetup
from harness.providers.limits import EndpointLimits
from harness.records.transcript import CallRecord, Transcript
from harness.run.expert_review import load_verdicts, with_verdict
from harness.run.result import CaseResult
from harness.run.scoring import case_fields, score_case
from harness.run.subjects import Subject, build_subject
from harness.run.webhooks import WebhookDispatcher, event_from_result

VERDICTS_FILE = "reviews.json"
log = logging.getLogger(__name__)


def _smallest(values: Sequence[float | None], default: float | None) -> float | None:
    given = [v for v in values if v is not None]
    return min(given) if given else default


def endpoint_limits(settings: Settings, shared_dir: Path | None = None) -> dict[str, EndpointLimits]:
    """One :class:`EndpointLimits` per OpenAI-compatible endpoint URL, shared by every member calling it.

    A member naming its own endpoint may give its own ``concurrency``, ``requests_per_minute`` and
    ``tokens_per_minute``; members naming the same endpoint get the smallest given value of each;
    a value nobody gives comes from the global setting. ``shared_dir``: the rate limits are shared
    with the other processes using that folder (pytest-xdist workers; :mod:`harness.providers.limits`).
    """
    from harness.providers.openai_compat import display_url

    by_url: dict[str, list[MemberSpec]] = {}
    for spec in settings.all_specs():
        if spec.provider == "openai":
            by_url.setdefault(display_url(spec.base_url or settings.base_url or ""), []).append(spec)
    return {
        url: EndpointLimits(
            url,
            int(_smallest([s.concurrency for s in specs], settings.concurrency) or 1),
            requests_per_minute=_smallest([s.requests_per_minute for s in specs], settings.requests_per_minute),
            tokens_per_minute=_smallest([s.tokens_per_minute for s in specs], settings.tokens_per_minute),
            shared_dir=shared_dir,
        )
        for url, specs in by_url.items()
    }


def embedded_setup(settings: Settings) -> EngineSetup | None:
    """The embedded engine's set-up for a run (None: no member, chairman or judge is embedded), after
    the start-up guard (:func:`harness.providers.engine_guard.check_engine`) ran every model file the
    run may load; a replay loads none, so it is not checked.

    Raises:
        EngineCrash: the engine cannot run on this machine (exit 2, before any case).
    """
    models = sorted({s.model for s in settings.all_specs() if s.provider == "local"})
    if not models:
        return None
    from harness.providers.engine_guard import check_engine
    from harness.providers.engine_setup import engine_setup
    from harness.providers.local import engine_files

    setup = engine_setup(settings.llama_threads)
    if settings.cache_mode != "replay":
        check_engine([f for m in models for f in engine_files(m)], setup.extra_bufts)
    return setup


def build_providers(
    settings: Settings, store: CacheStore | None, shared_limits: Path | None = None, setup: EngineSetup | None = None
) -> dict[str, Provider]:
    """The providers the configured members need, each wrapped in the record/replay cache.

    Keys are :attr:`MemberSpec.provider_key`: ``local``, ``openai`` (the configured endpoint), and
    ``openai@URL|KEYVAR`` for members that name an endpoint of their own. Providers calling the same
    endpoint URL share its :func:`endpoint_limits`. The embedded models run with ``setup``
    (default: :func:`harness.providers.engine_setup.engine_setup`).
    """
    raw: dict[str, Provider] = {}
    limits = endpoint_limits(settings, shared_limits)
    for spec in settings.all_specs():
        key = spec.provider_key
        if key in raw:
            continue
        if spec.provider == "local":
            from harness.providers.local import LocalProvider

            raw[key] = LocalProvider(n_threads=settings.llama_threads, setup=setup)
        else:
            from harness.providers.openai_compat import OpenAICompatProvider, display_url

            url = spec.base_url or settings.base_url or ""
            raw[key] = OpenAICompatProvider(
                url,
                spec.api_key_env or settings.api_key_env,
                timeout=settings.request_timeout,
                max_retries=settings.max_retries,
                limits=limits.get(display_url(url)),
                concurrency=settings.concurrency,
            )
    if store is None or settings.cache_mode == "off":
        return raw
    return {k: CachedProvider(p, store, settings.cache_mode) for k, p in raw.items()}


def request_slots(settings: Settings) -> int:
    """Requests the run can keep busy at once: each endpoint's ``concurrency``, plus ``concurrency``
    for each embedded model (their calls queue at the model's lock, one at a time)."""
    endpoints = sum(lim.concurrency for lim in endpoint_limits(settings).values())
    local = len({s.model for s in settings.all_specs() if s.provider == "local"})
    return max(1, endpoints + local * settings.concurrency)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_surrogates(value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def storable(result: CaseResult) -> CaseResult:
    """``result`` as it can be written to ``results.jsonl``.

    Providers already replace lone surrogates in replies; text from any other source (an external
    council package, a scorer quoting its input) that still holds one would make the line unwritable
    and stop the run, so such a result is rebuilt with every lone surrogate replaced by U+FFFD.
    """
    try:
        result.model_dump_json()
        return result
    except PydanticSerializationError:
        return CaseResult.model_validate(_clean(result.model_dump(mode="python")))


class Engine:
    """Runs cases through subjects.

    Args:
        settings: the loaded configuration.
        subjects: subject names to build (``council``, ``baseline``, ...).
    """

    def __init__(
        self,
        settings: Settings,
        subjects: Sequence[str],
        shared_limits: Path | None = None,
        setup: EngineSetup | None = None,
    ) -> None:
        self.settings = settings
        self.store = CacheStore(settings.cache_path) if settings.cache_mode != "off" else None
        self.providers = build_providers(settings, self.store, shared_limits, setup)
        self.caller = Caller(self.providers, settings)
        self.board = TokenBoard(council_runs="council" in subjects)
        self.subjects: dict[str, Subject] = {n: build_subject(n, settings, self.caller, self.board) for n in subjects}
        self.verdicts = load_verdicts(Path(settings.reports_dir) / VERDICTS_FILE)
        urls = [u.strip() for u in (settings.quality_webhook_url or "").split(",") if u.strip()]
        secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
        self.webhooks = WebhookDispatcher(urls, secret)
        self._hash_secret = settings.hash_secret.get_secret_value() if settings.hash_secret else None
        self.bias_failures = 0  # sessions whose bias records could not be written

    async def run_case(self, case: Case, subject: str) -> CaseResult:
        """Run ``case`` through ``subject`` and score it; failures become an ``error`` result.

        A replay-cache miss is re-raised: in replay mode a miss must stop the run; so is a call refused
        by the run's budget (:class:`~harness.common.errors.BudgetReached`): the pair is not recorded.
        """
        token = current_case.set(case.nodeid_part)
        started = time.perf_counter()
        council_calls: tuple[CallRecord, ...] | None = None
        try:
            subj = self.subjects[subject]
            answer_case = getattr(subj, "answer_case", None)  # arms that vote on the case's expected answer
            transcript = await (answer_case(case) if answer_case is not None else subj.answer(case.query))
            if subject == "council":
                council_calls = transcript.calls
            result = await score_case(case, transcript, self.caller, self.settings)
            result = with_verdict(result, self.verdicts.get(result.key))
            if transcript.reviews and self.settings.bias_persistence:
                self._persist_bias(transcript, case)
            result = storable(result)
            event = event_from_result(result, self._hash_secret)
            if event is not None:
                self.webhooks.emit(event)  # background delivery: never blocks or fails the run
            return result
        except (CacheMiss, BudgetReached):
            raise
        except HarnessError as exc:
            return self._error(case, subject, str(exc))
        except Exception as exc:  # noqa: BLE001 - one broken case must not stop a run
            elapsed = time.perf_counter() - started
            return self._error(case, subject, f"{type(exc).__name__}: {exc} (after {elapsed:.1f} s)")
        finally:
            current_case.reset(token)
            if subject == "council":  # self-consistency waits for it (None: the council's case failed)
                self.board.publish(case.nodeid_part, council_calls)

    def _persist_bias(self, transcript: Transcript, case: Case) -> None:
        """Append the session's bias records; a store that cannot be written is warned about once.

        Bias records are analytics: losing them must not turn a scored result into an ``error``.
        """
        try:
            persist_transcript(
                transcript,
                self.settings,
                str(uuid.uuid4()),
                QueryMetadata.for_query(case.query, category=case.category or case.dataset),
            )
        except StoreError as exc:
            if not self.bias_failures:
                log.warning("warning: bias records are not being saved (%s); the case results are kept", exc)
            self.bias_failures += 1

    @staticmethod
    def _error(case: Case, subject: str, message: str) -> CaseResult:
        return CaseResult(
            case_id=case.id,
            dataset=case.dataset,
            subject=subject,
            category=case.category,
            evaluation_mode=case.evaluation_mode,
            status="error",
            error=clean_surrogates(message),
            **case_fields(case),
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
