"""The ``llm-council`` subject: the open-source llm-council-core package's full council, as a Transcript.

The package (``pip install 'council-harness[llm-council]'``) runs its own three stages through
``llm_council.run_full_council``; this adapter configures it for one run, maps its stage outputs
into a :class:`~harness.records.transcript.Transcript` so every harness scorer applies unchanged, and keeps
what the package said about itself (its quality block, its aggregate, its parse of each review) in
:class:`~harness.records.external_council_types.ExternalCouncilRecord`.

How a run is configured (the user's files and home directory are never read or written):

- a temporary directory holds ``llm_council.yaml`` (council models, chairman, the endpoint as
  ``gateways.providers.openrouter.base_url`` -- a FULL chat-completions URL -- cache and telemetry
  off). The package's global config is loaded from it directly (``load_config(strict=True)``), so
  the ``LLM_COUNCIL_*`` variables the harness itself uses never reach the package's config;
- for the run, every ``LLM_COUNCIL_*`` variable, ``OPENROUTER_API_KEY``, ``REQUESTY_API_KEY``,
  ``NOT_DIAMOND_API_KEY``, ``OTEL_EXPORTER_OTLP_ENDPOINT`` and ``POSTHOG_*`` are removed from the
  environment; ``HOME`` points at the temporary directory, ``LLM_COUNCIL_CONFIG`` at the YAML,
  quality metrics are switched on (tier ``core``), performance tracking and prompt caching off;
  everything is restored afterwards, also on failure;
- the API key goes to the package through its request-scoped key (``set_request_api_key``), never
  into a file; the package needs a non-empty key, so a loopback endpoint without one gets a
  placeholder;
- the package appends a "shadow depth" line to ``./.council/depth/decisions.jsonl`` (relative to the
  working directory) on every run; the adapter points that log into the temporary directory;
- the package shuffles the stage-2 labels with Python's global ``random``: the adapter seeds it
  with a recorded seed (restoring the generator's state afterwards), so the label assignment is
  reproducible and the seed is on every review;
- runs of the package are serialized (its configuration is process-global).

Mapping choices: stage-2 ballots are parsed again with :func:`~harness.council.ranking.parse_ballot`
and the aggregate is recomputed with :func:`~harness.council.ranking.aggregate_rankings` (the
harness's definitions, so CSS and SAS winners mean the same for every subject); the package's own
parse and aggregate are kept in the record. When the chairman fails, the package answers with an
error text: the transcript then has no synthesis and an empty final answer (the harness does not
substitute a better answer for the package's). Per-call latency comes from the sampling relay
(:mod:`harness.council.external_relay`); without it only per-stage tokens are known.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.metadata
import importlib.util
import ipaddress
import os
import random
import sys
import tempfile
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import SecretStr

from harness.common import vault
from harness.common.errors import ConfigError, ProviderError
from harness.common.model import Frozen
from harness.config import MemberSpec, Settings
from harness.council.external_relay import BallotStyle, Pin, SamplingRelay, StageLimits
from harness.council.ranking import aggregate_rankings, parse_ballot
from harness.council.stages import review_seed
from harness.records.external_council_types import (
    ExternalCouncilRecord,
    PackageBallot,
    PackageRank,
    SelfReportedAttribution,
    SelfReportedMetrics,
)
from harness.records.mode_types import DissentRecord
from harness.records.transcript import Answer, Ballot, CallRecord, Review, Transcript

PACKAGE = "llm-council-core"
TESTED_VERSION = "0.53.0"
PLACEHOLDER_KEY = "no-key-needed"
_SCRUBBED = (
    "OPENROUTER_API_KEY",
    "REQUESTY_API_KEY",
    "NOT_DIAMOND_API_KEY",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "POSTHOG_API_KEY",
    "POSTHOG_HOST",
)
_STAGE_ORDER = {"stage1": 0, "stage2": 1, "stage3": 2}


# ---------------------------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------------------------


class LLMCouncilConfig(Frozen):
    """How to run llm-council-core for the harness.

    Args:
        endpoint: the FULL chat-completions URL the package posts to
            (``http://127.0.0.1:8000/v1/chat/completions``).
        api_key: the key sent as ``Authorization: Bearer``; never written to disk.
        members: the council seats; each ``model`` is the name the package sends (unique).
        chairman: the stage-3 model (may be one of the members' models).
        limits: ``max_tokens`` per stage, pinned by the loopback relay together with each seat's
            temperature, top_p and seed; ``None`` runs the package exactly as it sends requests.
        seed: the harness seed (sampling seeds and the stage-2 label shuffle derive from it).
        timeout: seconds allowed for one model call through the relay.
        synthesis_mode: the package's ``council.synthesis_mode``.
        verdict_type: the package's ``VerdictType`` passed to ``run_full_council`` (ADR-025b:
            ``binary`` approved/rejected, ``tie_breaker`` the chairman's deciding vote; ``synthesis``
            the default free text).
        ballot_style: with ``limits`` set, ``json_object`` (llama.cpp) or ``json_schema`` (OpenAI)
            constrains the stage-2 replies to a JSON ballot (ranking first, then a critique) -- for
            small models that cannot follow the package's ranking prompt; ``off`` leaves them free.
    """

    endpoint: str
    api_key: SecretStr
    members: tuple[MemberSpec, ...]
    chairman: MemberSpec
    limits: StageLimits | None = None
    seed: int = 42
    timeout: float = 180.0
    synthesis_mode: Literal["consensus", "debate"] = "consensus"
    verdict_type: Literal["synthesis", "binary", "tie_breaker"] = "synthesis"
    ballot_style: BallotStyle = "off"

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMCouncilConfig:
        """Build from harness settings: members and chairman must be ``openai`` models at one endpoint.

        The endpoint is ``base_url`` (or the members' own ``base_url``, when they all name the same
        one) and the key variable ``api_key_env`` (likewise).

        The package's calls bypass the harness's record/replay cache, so ``cache_mode: replay`` is
        a :class:`ConfigError` rather than a run that silently goes to the network.

        The key comes from the variable named by ``api_key_env``; with none set, a loopback
        endpoint gets a placeholder and any other endpoint is a :class:`ConfigError`.
        """
        if settings.cache_mode == "replay":
            raise ConfigError(
                "the llm-council subject makes its own HTTP calls, which the record/replay cache does not see, "
                "so it cannot run with cache_mode 'replay'",
                "cache_mode",
            )
        chairman = settings.role_spec("chairman")
        for spec in [*settings.models, chairman]:
            if spec.provider != "openai":
                raise ConfigError(
                    f"the llm-council subject talks HTTP only, but '{spec.id}' uses provider '{spec.provider}'; "
                    "serve embedded models with `python -m llama_cpp.server` and give members provider 'openai'",
                    "models",
                )
        models = [m.model for m in settings.models]
        repeated = sorted({m for m in models if models.count(m) > 1})
        if repeated:
            raise ConfigError(
                f"llm-council-core identifies members by model name, so each needs its own; repeated: {repeated}",
                "models",
            )
        specs = [*settings.models, chairman]
        urls = sorted({s.base_url or settings.base_url or "" for s in specs})
        key_vars = sorted({s.api_key_env or settings.api_key_env for s in specs})
        if len(urls) > 1 or len(key_vars) > 1:
            raise ConfigError(
                "llm-council-core sends every call to one endpoint with one key; the members name "
                f"endpoints {urls} and key variables {key_vars}",
                "models",
            )
        if not urls[0]:
            raise ConfigError("the llm-council subject needs an endpoint (set LLM_COUNCIL_BASE_URL)", "base_url")
        endpoint = chat_completions_url(urls[0])
        key = (vault.get(key_vars[0]) or "").strip()
        if not key:
            if not is_loopback(endpoint):
                raise ConfigError(
                    f"llm-council-core needs an API key for {endpoint}; set the variable {key_vars[0]}",
                    "api_key_env",
                )
            key = PLACEHOLDER_KEY
        return cls(
            endpoint=endpoint,
            api_key=SecretStr(key),
            members=tuple(settings.models),
            chairman=chairman,
            limits=StageLimits(
                stage1=settings.answer_max_tokens, stage2=settings.review_max_tokens, stage3=settings.synthesis_cap
            ),
            seed=settings.seed,
            timeout=settings.member_timeout,
            ballot_style=settings.ballot_style,
        )


def chat_completions_url(base_url: str) -> str:
    """``http://host/v1`` -> ``http://host/v1/chat/completions`` (a full URL is kept as it is)."""
    url = base_url.rstrip("/")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (``localhost`` or a loopback address)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def package_yaml(config: LLMCouncilConfig, endpoint: str) -> str:
    """The package's ``llm_council.yaml`` for one run (no key in it)."""
    data = {
        "council": {
            "models": [m.model for m in config.members],
            "chairman": config.chairman.model,
            "synthesis_mode": config.synthesis_mode,
            "exclude_self_votes": True,
            "style_normalization": False,
        },
        "gateways": {"default": "openrouter", "providers": {"openrouter": {"base_url": endpoint}}},
        "cache": {"enabled": False},
        "telemetry": {"level": "off"},
    }
    return yaml.safe_dump(data, sort_keys=False)


# ---------------------------------------------------------------------------------------------
# The package's output, typed at the boundary
# ---------------------------------------------------------------------------------------------


class PackageAnswer(Frozen):
    """A stage-1 entry: ``{"model", "response"}``."""

    model: str
    text: str


class PackageReview(Frozen):
    """A stage-2 entry: ``{"model", "ranking" (the raw review text), "parsed_ranking"}``."""

    model: str
    text: str
    ranking: tuple[str, ...] = ()
    abstained: bool = False
    reason: str | None = None
    score_rank_mismatch: bool = False


class PackageSynthesis(Frozen):
    """The stage-3 entry: ``{"model", "response"}``, plus ``error_status``/``error_detail`` on failure."""

    model: str
    text: str
    error: str | None = None
    chairman_disabled: bool = False


class PackageAggregate(Frozen):
    """An entry of ``metadata["aggregate_rankings"]``."""

    model: str
    borda: float | None = None
    average_position: float | None = None
    votes: int = 0
    rank: int | None = None


class StageUsage(Frozen):
    """Tokens of one model in one stage (``metadata["usage"]["by_stage"][stage]["by_model"]``)."""

    stage: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0


class PackageVerdict(Frozen):
    """``metadata["verdict"]`` (a ``VerdictResult.to_dict()``, BINARY or TIE_BREAKER only), with
    ``metadata["config"]["effective_verdict_type"]``: the verdict type the package actually used."""

    verdict_type: str
    effective: str
    verdict: str
    confidence: float | None = None
    rationale: str = ""
    deadlocked: bool = False
    borda_spread: float | None = None


class PackageOutput(Frozen):
    """Everything ``run_full_council`` returned that the adapter uses."""

    answers: tuple[PackageAnswer, ...]
    reviews: tuple[PackageReview, ...]
    synthesis: PackageSynthesis
    label_to_model: dict[str, str]
    aggregate: tuple[PackageAggregate, ...] = ()
    quality: SelfReportedMetrics | None = None
    usage: tuple[StageUsage, ...] = ()
    degraded_mode: str | None = None
    dissent: str | None = None  # the package's minority views (``include_dissent=True``, ADR-025b)
    verdict: PackageVerdict | None = None  # the package's BINARY / TIE_BREAKER verdict, when it parsed one
    effective_verdict_type: str | None = None  # ``metadata["config"]["effective_verdict_type"]``


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _int(value: Any) -> int:
    number = _num(value)
    return int(number) if number is not None else 0


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list | tuple) else []


def _quality(block: Any) -> SelfReportedMetrics | None:
    if not isinstance(block, dict) or not isinstance(block.get("core"), dict):
        return None
    core = block["core"]
    sas = core.get("synthesis_attribution") if isinstance(core.get("synthesis_attribution"), dict) else {}
    alerts = block.get("quality_alerts")
    return SelfReportedMetrics(
        tier=_str(block.get("tier")) or "core",
        consensus_strength=_num(core.get("consensus_strength")) or 0.0,
        deliberation_depth=_num(core.get("deliberation_depth")) or 0.0,
        synthesis_attribution=SelfReportedAttribution(
            winner_alignment=_num(sas.get("winner_alignment")) or 0.0,
            max_source_alignment=_num(sas.get("max_source_alignment")) or 0.0,
            hallucination_risk=_num(sas.get("hallucination_risk")) or 0.0,
            grounded=sas.get("grounded") is True,
        ),
        warnings=tuple(a for a in alerts if isinstance(a, str)) if isinstance(alerts, list) else (),
    )


def parse_package_output(stage1: Any, stage2: Any, stage3: Any, metadata: Any) -> PackageOutput:
    """Type the four values ``run_full_council`` returns; malformed parts become empty, never an exception."""
    meta = metadata if isinstance(metadata, dict) else {}
    answers = tuple(PackageAnswer(model=_str(r.get("model")), text=_str(r.get("response"))) for r in _dicts(stage1))
    reviews = []
    for r in _dicts(stage2):
        got = r.get("parsed_ranking")
        parsed: dict[str, Any] = got if isinstance(got, dict) else {}
        listed = parsed.get("ranking")
        ranking: list[Any] = listed if isinstance(listed, list) else []
        reviews.append(
            PackageReview(
                model=_str(r.get("model")),
                text=_str(r.get("ranking")),
                ranking=tuple(str(x) for x in ranking),
                abstained=parsed.get("abstained") is True,
                reason=_str(parsed.get("abstention_reason")) or None,
                score_rank_mismatch=parsed.get("score_rank_mismatch") is True,
            )
        )
    s3 = stage3 if isinstance(stage3, dict) else {}
    error = None
    if s3.get("error_status") or s3.get("error_detail"):
        error = f"{_str(s3.get('error_status')) or 'error'}: {_str(s3.get('error_detail')) or 'no detail'}"
    synthesis = PackageSynthesis(
        model=_str(s3.get("model")),
        text=_str(s3.get("response")),
        error=error,
        chairman_disabled=s3.get("chairman_disabled") is True,
    )
    labels: dict[str, str] = {}
    raw_labels = meta.get("label_to_model")
    for label, value in raw_labels.items() if isinstance(raw_labels, dict) else ():
        model = value.get("model") if isinstance(value, dict) else value
        if isinstance(label, str) and isinstance(model, str):
            labels[label] = model
    aggregate = tuple(
        PackageAggregate(
            model=_str(a.get("model")),
            borda=_num(a.get("borda_score")),
            average_position=_num(a.get("average_position")),
            votes=_int(a.get("vote_count")),
            rank=_int(a.get("rank")) or None,
        )
        for a in _dicts(meta.get("aggregate_rankings"))
    )
    usage: list[StageUsage] = []
    by_stage = meta.get("usage", {}).get("by_stage") if isinstance(meta.get("usage"), dict) else None
    for stage, bucket in by_stage.items() if isinstance(by_stage, dict) else ():
        by_model = bucket.get("by_model") if isinstance(bucket, dict) else None
        for model, tokens in by_model.items() if isinstance(by_model, dict) else ():
            if isinstance(tokens, dict):
                usage.append(
                    StageUsage(
                        stage=str(stage),
                        model=str(model),
                        tokens_in=_int(tokens.get("prompt_tokens")),
                        tokens_out=_int(tokens.get("completion_tokens")),
                    )
                )
    degraded = meta.get("degraded_mode")
    raw_config = meta.get("config")
    effective = _str(raw_config.get("effective_verdict_type")) or None if isinstance(raw_config, dict) else None
    raw_verdict = meta.get("verdict")
    verdict = None
    if isinstance(raw_verdict, dict) and isinstance(raw_verdict.get("verdict"), str):
        verdict = PackageVerdict(
            verdict_type=_str(raw_verdict.get("verdict_type")),
            effective=effective or _str(raw_verdict.get("verdict_type")),
            verdict=raw_verdict["verdict"],
            confidence=_num(raw_verdict.get("confidence")),
            rationale=_str(raw_verdict.get("rationale")),
            deadlocked=raw_verdict.get("deadlocked") is True,
            borda_spread=_num(raw_verdict.get("borda_spread")),
        )
    return PackageOutput(
        answers=answers,
        reviews=tuple(reviews),
        synthesis=synthesis,
        label_to_model=labels,
        aggregate=aggregate,
        quality=_quality(meta.get("quality_metrics")),
        usage=tuple(usage),
        degraded_mode=degraded if isinstance(degraded, str) else None,
        dissent=_str(meta.get("dissent"))
        or _str(raw_verdict.get("dissent") if isinstance(raw_verdict, dict) else None)
        or None,
        verdict=verdict,
        effective_verdict_type=effective,
    )


# ---------------------------------------------------------------------------------------------
# Mapping into a Transcript
# ---------------------------------------------------------------------------------------------


def _member_of(config: LLMCouncilConfig) -> dict[str, str]:
    """Model name -> harness member id (the chairman's model maps to the chairman when not a member)."""
    members = {m.model: m.id for m in config.members}
    members.setdefault(config.chairman.model, config.chairman.id)
    return members


def _usage_calls(output: PackageOutput, member_of: Mapping[str, str]) -> tuple[CallRecord, ...]:
    """Per-stage, per-model token records from the package's usage block (latency not measured)."""
    stage_name = {"stage1": "stage1", "stage1_5": "stage1.5", "stage2": "stage2", "stage3": "stage3"}
    return tuple(
        CallRecord(
            stage=stage_name.get(u.stage, u.stage),
            member=member_of.get(u.model, u.model),
            model=u.model,
            tokens_in=u.tokens_in,
            tokens_out=u.tokens_out,
        )
        for u in output.usage
    )


def transcript_from_package(
    query: str,
    output: PackageOutput,
    config: LLMCouncilConfig,
    *,
    version: str,
    shuffle_seed: int,
    calls: Sequence[CallRecord] | None = None,
    duration_s: float = 0.0,
) -> Transcript:
    """Map the package's three stages into a harness Transcript.

    Args:
        query: the question asked.
        output: what the package returned, typed.
        config: the run's configuration (members, chairman).
        version: the package version, for the record.
        shuffle_seed: the seed the label shuffle ran with (recorded on every review).
        calls: the relay's per-call records; ``None`` falls back to the package's per-stage tokens.
        duration_s: wall time of the run.
    """
    member_of = _member_of(config)
    errors: list[str] = []
    notes: list[str] = []
    by_model = {a.model: a for a in output.answers}
    failed_calls = {(c.stage, c.model): c.error for c in calls or () if c.error}

    answers: list[Answer] = []
    for spec in config.members:
        got = by_model.get(spec.model)
        if got is None:
            reason = failed_calls.get(("stage1", spec.model)) or "no answer (llm-council-core gave no reason)"
            errors.append(f"stage1 {spec.id}: {reason}")
            answers.append(Answer(member=spec.id, model=spec.model, text="", error=reason))
        elif not got.text.strip():
            errors.append(f"stage1 {spec.id}: empty answer")
            answers.append(Answer(member=spec.id, model=spec.model, text="", error="empty answer"))
        else:
            answers.append(Answer(member=spec.id, model=spec.model, text=got.text))

    label_to_member = {label: member_of.get(model, model) for label, model in sorted(output.label_to_model.items())}
    labels = tuple(label_to_member)
    reviews: list[Review] = []
    package_ballots: list[PackageBallot] = []
    by_reviewer = {r.model: r for r in output.reviews}
    if labels and len(output.answers) >= 2:
        for spec in config.members:
            if spec.model not in by_model:
                continue  # no answer, so the package did not ask it to review
            got_review = by_reviewer.get(spec.model)
            if got_review is None:
                reason = failed_calls.get(("stage2", spec.model)) or "no review (llm-council-core dropped it)"
                errors.append(f"stage2 {spec.id}: {reason}")
                reviews.append(
                    Review(
                        reviewer=spec.id,
                        model=spec.model,
                        raw_text="",
                        ballot=Ballot(abstained=True),
                        presentation_order=labels,
                        shuffle_seed=shuffle_seed,
                        error=reason,
                    )
                )
                continue
            ballot = parse_ballot(got_review.text, labels)
            if ballot.abstained:
                errors.append(f"stage2 {spec.id}: no usable ranking (abstained)")
            reviews.append(
                Review(
                    reviewer=spec.id,
                    model=spec.model,
                    raw_text=got_review.text,
                    ballot=ballot,
                    presentation_order=labels,
                    shuffle_seed=shuffle_seed,
                )
            )
            package_ballots.append(
                PackageBallot(
                    reviewer=spec.id,
                    ranking=got_review.ranking,
                    abstained=got_review.abstained,
                    reason=got_review.reason,
                    score_rank_mismatch=got_review.score_rank_mismatch,
                )
            )
    aggregate = aggregate_rankings(reviews, label_to_member, list(label_to_member.values()))

    synthesis: str | None = None
    final = ""
    s3 = output.synthesis
    if s3.error is not None:
        errors.append(f"stage3 {config.chairman.id}: {s3.error}")
    elif s3.chairman_disabled:
        final = s3.text
        notes.append("the package's chairman is disabled: its final answer is the top-ranked answer")
    elif not output.answers:
        errors.append(f"stage1: no member produced an answer ({s3.text.strip() or 'no detail'})")
    elif not s3.text.strip():
        errors.append(f"stage3 {config.chairman.id}: empty synthesis")
    else:
        synthesis = s3.text
        final = s3.text

    if output.quality is None:
        ranked = sum(1 for a in output.aggregate if a.average_position is not None)
        notes.append(
            f"{PACKAGE} reported no quality metrics ({ranked} ranked candidate(s); it needs 2)"
            if ranked < 2
            else f"{PACKAGE} reported no quality metrics although {ranked} candidates were ranked"
        )
    if calls is None:
        notes.append("per-call latency was not measured (run without the sampling relay)")
    elif config.ballot_style != "off":
        notes.append("stage-2 replies were constrained to a JSON ballot (ranking first, then a critique)")
    record = ExternalCouncilRecord(
        package=PACKAGE,
        version=version,
        self_reported=output.quality,
        aggregate=tuple(
            PackageRank(
                member=member_of.get(a.model, a.model),
                model=a.model,
                borda=a.borda,
                average_position=a.average_position,
                votes=a.votes,
                rank=a.rank,
            )
            for a in output.aggregate
        ),
        ballots=tuple(package_ballots),
        degraded_mode=output.degraded_mode,
        sampling_pinned=calls is not None,
        notes=tuple(notes),
    )
    records = _usage_calls(output, member_of) if calls is None else tuple(calls)
    order = {m.id: i for i, m in enumerate(config.members)}
    records = tuple(sorted(records, key=lambda c: (_STAGE_ORDER.get(c.stage, 3), order.get(c.member, len(order)))))
    return Transcript(
        subject=LLMCouncilSubject.name,
        query=query,
        answers=tuple(answers),
        label_to_member=label_to_member,
        reviews=tuple(reviews),
        aggregate=aggregate,
        synthesis=synthesis,
        final_answer=final,
        chairman=config.chairman.id,
        calls=records,
        errors=tuple(errors),
        duration_s=duration_s,
        external=record,
    )


def with_mode(transcript: Transcript, name: str, dissent: str | None) -> Transcript:
    """The package's transcript under the subject's own name (``llm-council:debate``, ...); with
    ``include_dissent``, the package's dissent text as a :class:`DissentRecord` (empty when it found none:
    its ``dissent.py`` needs rubric scores, which ranking-only ballots do not carry)."""
    update: dict[str, object] = {"subject": name}
    if dissent is not None or name.endswith("+dissent"):
        update["mode"] = DissentRecord(section=dissent or "")
    return transcript.model_copy(update=update)


# ---------------------------------------------------------------------------------------------
# Running the package in an isolated scope
# ---------------------------------------------------------------------------------------------

_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def _lock() -> asyncio.Lock:
    """One lock per event loop: the package's configuration is process-global."""
    loop = asyncio.get_running_loop()
    if loop not in _LOCKS:
        _LOCKS[loop] = asyncio.Lock()
    return _LOCKS[loop]


@contextmanager
def package_environment(home: Path, config_path: Path) -> Iterator[None]:
    """Set the package's environment for one run and restore the previous one afterwards.

    Args:
        home: the temporary directory used as ``HOME``.
        config_path: the run's ``llm_council.yaml``.
    """
    saved = dict(os.environ)
    try:
        for key in list(os.environ):
            if key.startswith("LLM_COUNCIL_") or key in _SCRUBBED:
                del os.environ[key]
        no_proxy = ",".join(p for p in (saved.get("NO_PROXY", ""), "127.0.0.1,localhost") if p)
        os.environ.update(
            {
                "HOME": str(home),
                "LLM_COUNCIL_CONFIG": str(config_path),
                "LLM_COUNCIL_QUALITY_METRICS": "true",
                "LLM_COUNCIL_QUALITY_TIER": "core",
                "LLM_COUNCIL_PERFORMANCE_TRACKING": "false",
                "LLM_COUNCIL_PROMPT_CACHING": "false",
                "LLM_COUNCIL_SUPPRESS_WARNINGS": "1",
                "NO_PROXY": no_proxy,
            }
        )
        yield
    finally:
        for key in set(os.environ) - set(saved):
            del os.environ[key]
        for key, value in saved.items():
            if os.environ.get(key) != value:
                os.environ[key] = value


def _missing(detail: str) -> ConfigError:
    return ConfigError(
        f"the llm-council subject needs the package {PACKAGE}: pip install 'council-harness[llm-council]' ({detail})",
        "--subjects",
    )


def require_package() -> None:
    """Fail early, with the install command, when the optional extra is not installed."""
    if importlib.util.find_spec("llm_council") is None:
        raise _missing("it is not installed")


def import_package() -> Any:
    """Import ``llm_council.council`` lazily (inside :func:`package_environment`: it reads config on import)."""
    try:
        import llm_council.council as council
    except ImportError as exc:
        raise _missing(str(exc)) from exc
    return council


def package_version() -> str:
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@contextmanager
def package_state(
    council: Any, config_path: Path, home: Path, api_key: str, seed: int, *, first_import: bool = False
) -> Iterator[None]:
    """Point the imported package at the run's config, key, log path and shuffle seed; restore afterwards.

    Args:
        council: the ``llm_council.council`` module.
        config_path: the run's ``llm_council.yaml`` (loaded strictly: a bad key is an error).
        home: the temporary directory (the shadow-depth log goes there).
        api_key: the request-scoped key.
        seed: the seed for the package's ``random.shuffle`` of the stage-2 labels.
        first_import: the package was imported for this run, so the config it loaded on import came
            from the run's temporary files; afterwards it is dropped (reloaded on next use) instead.
    """
    from llm_council import unified_config

    try:
        loaded = unified_config.load_config(config_path, strict=True)
    except ValueError as exc:
        raise ConfigError(f"llm-council-core rejected its configuration: {exc}", str(config_path)) from exc
    previous_config = unified_config._global_config
    previous_depth_log = council.evaluate_and_log_shadow_depth
    previous_random = random.getstate()
    key_token = unified_config._request_api_key.set({"openrouter": api_key})
    unified_config._global_config = loaded
    council.evaluate_and_log_shadow_depth = functools.partial(
        previous_depth_log, path=home / ".council" / "depth" / "decisions.jsonl"
    )
    random.seed(seed)
    try:
        yield
    finally:
        random.setstate(previous_random)
        council.evaluate_and_log_shadow_depth = previous_depth_log
        unified_config._global_config = None if first_import else previous_config
        unified_config._request_api_key.reset(key_token)


class RawRun(Frozen):
    """The four values ``run_full_council`` returned, as JSON-able data (for recording a run)."""

    stage1: list[dict[str, Any]]
    stage2: list[dict[str, Any]]
    stage3: dict[str, Any]
    metadata: dict[str, Any]


class LLMCouncilSubject:
    """llm-council-core's full council as a harness subject.

    Args:
        config: endpoint, key, seats, chairman, pinned limits (see :class:`LLMCouncilConfig`).
        keep_raw: keep the package's raw return values of the last run in :attr:`last_raw`
            (for recording test data).
    """

    name = "llm-council"

    def __init__(self, config: LLMCouncilConfig, *, keep_raw: bool = False, include_dissent: bool = False) -> None:
        self.config = config
        self.keep_raw = keep_raw
        self.include_dissent = include_dissent  # ``llm-council+dissent``: the package's own ADR-025b dissent
        self.last_raw: RawRun | None = None

    async def answer(self, query: str) -> Transcript:
        """Run the package's council on ``query`` and map it; a crash inside the package is a ProviderError."""
        transcript, output = await self.run(query)
        return with_mode(transcript, self.name, output.dissent if self.include_dissent else None)

    async def run(self, query: str) -> tuple[Transcript, PackageOutput]:
        """Run the package's council on ``query``: its transcript (under the name ``llm-council``, no mode
        record) and what the package returned, typed (:func:`parse_package_output`)."""
        started = time.perf_counter()
        seed = review_seed(self.config.seed, query, self.name)
        async with _lock(), AsyncExitStack() as stack:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="llm-council-")))
            relay: SamplingRelay | None = None
            endpoint = self.config.endpoint
            if self.config.limits is not None:
                relay = await stack.enter_async_context(self._relay(self.config.limits))
                endpoint = relay.url
            config_path = tmp / "llm_council.yaml"
            config_path.write_text(package_yaml(self.config, endpoint), encoding="utf-8")
            with package_environment(tmp, config_path):
                first_import = "llm_council" not in sys.modules
                council = import_package()
                key = self.config.api_key.get_secret_value()
                with package_state(council, config_path, tmp, key, seed, first_import=first_import):
                    try:
                        extra: dict[str, Any] = {"include_dissent": True} if self.include_dissent else {}
                        if self.config.verdict_type != "synthesis":  # ADR-025b jury mode, the package's own
                            extra["verdict_type"] = council.VerdictType(self.config.verdict_type)
                        stage1, stage2, stage3, metadata = await council.run_full_council(
                            query, bypass_cache=True, **extra
                        )
                    except Exception as exc:  # noqa: BLE001 - the package's failure becomes this case's error
                        raise ProviderError(f"{PACKAGE} failed: {type(exc).__name__}: {exc}") from exc
            calls = list(relay.calls) if relay is not None else None
        if self.keep_raw:
            self.last_raw = RawRun(stage1=stage1, stage2=stage2, stage3=stage3, metadata=metadata)
        output = parse_package_output(stage1, stage2, stage3, metadata)
        transcript = transcript_from_package(
            query,
            output,
            self.config,
            version=package_version(),
            shuffle_seed=seed,
            calls=calls,
            duration_s=time.perf_counter() - started,
        )
        return transcript, output

    def _relay(self, limits: StageLimits) -> SamplingRelay:
        members = {
            m.model: Pin(member=m.id, temperature=m.temperature, top_p=m.top_p, seed=self.config.seed + m.seed)
            for m in self.config.members
        }
        c = self.config.chairman
        chairman = Pin(member=c.id, temperature=c.temperature, top_p=c.top_p, seed=self.config.seed + c.seed)
        return SamplingRelay(
            self.config.endpoint, members, c.model, chairman, limits, self.config.timeout, self.config.ballot_style
        )
