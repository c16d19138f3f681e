"""The ``voting`` subject: seed 002's multi-model consensus vote.

Every member answers with a self-assessed confidence; answers are weighted by confidence,
compared pairwise (combined similarity), classified by agreement (85/70/55 on 0-100) and
ranked by heuristic quality (ties broken by a priority list of member ids). On weak agreement
or disagreement a second round asks each surviving model, for real, to reconsider in the
light of the others' answers; the new answers are re-ranked and the best parts merged. The
final confidence is agreement factor + quality factor + 0.30 x Herfindahl concentration.

:func:`run_consensus` is the pure algorithm (the seed's ``consensus_voting``, no model calls);
:class:`VotingCouncil` makes the calls and records them in a :class:`~harness.records.transcript.Transcript`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import combinations
from typing import Any

from pydantic import Field, model_validator

from harness.common.errors import ConfigError
from harness.common.model import Frozen
from harness.common.text import tokens
from harness.config import MemberSpec, Settings
from harness.metrics.heuristic_quality import HeuristicQuality, HeuristicWeights, detect_citations, heuristic_quality
from harness.metrics.similarity import check_similarity_weights, combined_similarity
from harness.providers.calls import Caller, CallResult
from harness.records.consensus_types import AgreementLevel, ConsensusResult, ModelResponse
from harness.records.transcript import Answer, CallRecord, Message, Transcript

#: The self-assessed confidence a member may give (an enum: llama.cpp ignores numeric min/max).
CONFIDENCE_LEVELS: tuple[float, ...] = tuple(round(i / 10, 1) for i in range(11))
#: Agreement factor of the final confidence (seed 002, section 8).
AGREEMENT_FACTORS: dict[AgreementLevel, float] = {
    AgreementLevel.STRONG_AGREEMENT: 0.35,
    AgreementLevel.MODERATE_AGREEMENT: 0.25,
    AgreementLevel.WEAK_AGREEMENT: 0.15,
    AgreementLevel.DISAGREEMENT: 0.05,
}
QUALITY_FACTOR = 0.35
CONCENTRATION_FACTOR = 0.30
#: Synthesis: a lower-ranked answer contributes when its new tokens exceed this share of the pool.
SYNTHESIS_UNIQUE_SHARE = 0.15
SYNTHESIS_MAX_ADDITIONS = 2
SYNTHESIS_MAX_SOURCES = 5
#: Tokens allowed on top of ``answer_max_tokens`` for the JSON envelope of a vote.
JSON_OVERHEAD_TOKENS = 16
CONFLICT_INSTRUCTION = (
    "The above models disagreed on key points. Reconsider and provide a re-evaluated response "
    "addressing these conflicts:"
)
VOTE_INSTRUCTION = (
    'Reply with JSON: "answer" (your answer) and "confidence" (how sure you are that your answer '
    "is correct, from 0.0 to 1.0)."
)
VOTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "confidence": {"enum": list(CONFIDENCE_LEVELS)},
    },
    "required": ["answer", "confidence"],
    "additionalProperties": False,
}
ROUND1_STAGE = "stage1"
ROUND2_STAGE = "round2"


class VotingConfig(Frozen):
    """Settings of the consensus vote.

    Args:
        max_rounds: a second round runs only when this is at least 2 (seed default 2).
        timeout_s: per-model time limit of each call in seconds; a model that exceeds it is
            dropped from that round and the error recorded (seed default 30).
        strong_threshold, moderate_threshold, weak_threshold: agreement bands on the 0-100
            similarity scale (>= strong: strong agreement, ...; below weak: disagreement);
            they must satisfy 0 <= weak <= moderate <= strong <= 100.
        token_weight, sequence_weight: weights of the combined similarity (sum 1).
        quality_weights: weights of the five heuristic quality components.
        expected_aspects: aspects a complete answer covers (answer completeness).
        priority: member ids in tie-breaking order, first wins; members not listed follow in
            response order. Empty: the order of the responses (for the subject: member order).
        excerpt_chars: length of each other answer's excerpt in the second-round prompt.
    """

    max_rounds: int = Field(default=2, ge=1)
    timeout_s: float = Field(default=30.0, gt=0)
    strong_threshold: float = 85.0
    moderate_threshold: float = 70.0
    weak_threshold: float = 55.0
    token_weight: float = 0.6
    sequence_weight: float = 0.4
    quality_weights: HeuristicWeights = HeuristicWeights()
    expected_aspects: int = Field(default=3, ge=1)
    priority: tuple[str, ...] = ()
    excerpt_chars: int = Field(default=200, ge=20)

    @model_validator(mode="after")
    def _consistent(self) -> VotingConfig:
        if not math.isfinite(self.timeout_s):
            raise ValueError("timeout_s must be a finite number of seconds")
        if not 0 <= self.weak_threshold <= self.moderate_threshold <= self.strong_threshold <= 100:
            raise ValueError(
                "thresholds must satisfy 0 <= weak_threshold <= moderate_threshold <= strong_threshold <= 100, "
                f"got {self.weak_threshold}, {self.moderate_threshold}, {self.strong_threshold}"
            )
        check_similarity_weights(self.token_weight, self.sequence_weight)
        dupes = sorted({p for p in self.priority if self.priority.count(p) > 1})
        if dupes:
            raise ValueError(f"priority: member ids must not repeat, repeated: {dupes}")
        return self


# --- the pure algorithm ------------------------------------------------------------------------


def compute_weighted_votes(responses: Sequence[ModelResponse]) -> dict[str, float]:
    """Confidence weights normalized to sum 1; uniform when every confidence is 0.

    Args:
        responses: the answers (model ids unique).
    """
    if not responses:
        return {}
    total = sum(r.confidence for r in responses)
    if total == 0:
        return {r.model: 1.0 / len(responses) for r in responses}
    return {r.model: r.confidence / total for r in responses}


def pairwise_similarities(responses: Sequence[ModelResponse], config: VotingConfig) -> dict[str, float]:
    """Combined similarity of every pair ``i < j``, keyed ``"<model_i>_vs_<model_j>"``."""
    return {
        f"{a.model}_vs_{b.model}": combined_similarity(
            a.content, b.content, config.token_weight, config.sequence_weight
        )
        for a, b in combinations(responses, 2)
    }


def classify_agreement(similarity_score: float, config: VotingConfig) -> AgreementLevel:
    """The agreement band of a 0-100 mean similarity (bounds inclusive from below)."""
    if similarity_score >= config.strong_threshold:
        return AgreementLevel.STRONG_AGREEMENT
    if similarity_score >= config.moderate_threshold:
        return AgreementLevel.MODERATE_AGREEMENT
    if similarity_score >= config.weak_threshold:
        return AgreementLevel.WEAK_AGREEMENT
    return AgreementLevel.DISAGREEMENT


def detect_agreement(
    responses: Sequence[ModelResponse], config: VotingConfig
) -> tuple[AgreementLevel, dict[str, float], float]:
    """Agreement level, pairwise similarities and their mean x 100.

    Fewer than two responses have no pairs: strong agreement (vacuous), no similarities, score 100.
    """
    sims = pairwise_similarities(responses, config)
    if not sims:
        return AgreementLevel.STRONG_AGREEMENT, {}, 100.0
    score = sum(sims.values()) / len(sims) * 100
    return classify_agreement(score, config), sims, score


def rank_by_quality(
    responses: Sequence[ModelResponse], config: VotingConfig
) -> list[tuple[ModelResponse, HeuristicQuality]]:
    """Responses with their heuristic quality, best first; equal scores follow ``config.priority``.

    A response's citation count is ``len(response.citations)`` (the seed's data model). Among
    equal overall scores the member listed earlier in ``config.priority`` wins; members not
    listed come after, in response order.
    """
    listed = {m: i for i, m in enumerate(config.priority)}
    scored = [
        (r, heuristic_quality(r.content, len(r.citations), config.quality_weights, config.expected_aspects))
        for r in responses
    ]
    order = {r.model: listed.get(r.model, len(listed) + i) for i, r in enumerate(responses)}
    return sorted(scored, key=lambda rq: (-rq[1].overall, order[rq[0].model]))


def should_trigger_second_round(level: AgreementLevel, max_rounds: int) -> bool:
    """A second round runs on weak agreement or disagreement when ``max_rounds >= 2``."""
    return level in (AgreementLevel.DISAGREEMENT, AgreementLevel.WEAK_AGREEMENT) and max_rounds >= 2


def first_two_sentences(text: str) -> str:
    """The first two non-empty ``'.'`` pieces of ``text``, stripped and joined by ``". "`` (no final period).

    Empty pieces are skipped so that a one-sentence answer does not get a doubled period when
    the synthesis appends ``". "``.
    """
    return ". ".join([p.strip() for p in text.split(".") if p.strip()][:2])


def synthesize_response(
    responses: Sequence[ModelResponse], rankings: Sequence[tuple[ModelResponse, HeuristicQuality]]
) -> str:
    """Merge the best parts of the ranked answers (seed 002's ``synthesize_response``).

    Args:
        responses: all answers (their citations are merged).
        rankings: answers best first.

    The best answer's first two sentences open it; each lower-ranked answer whose tokens not
    yet seen number more than 15% of the pool (the best answer's tokens, grown by every
    answer taken) contributes its second and third ``'.'`` pieces; the pieces of the first
    two contributors are added (stripped, empty ones skipped, joined by ``". "``), then
    ``"Sources: "`` with the first five distinct citations of all answers.
    """
    if not rankings:
        return ""
    best = rankings[0][0]
    synthesized = first_two_sentences(best.content) + ". "
    pool = set(tokens(best.content))
    additions: list[list[str]] = []
    for response, _ in rankings[1:]:
        words = tokens(response.content)
        if len(words - pool) > SYNTHESIS_UNIQUE_SHARE * len(pool):
            additions.append(response.content.split(".")[1:3])
            pool |= words
    pieces = [p.strip() for section in additions[:SYNTHESIS_MAX_ADDITIONS] for p in section if p.strip()]
    if pieces:
        synthesized += ". ".join(pieces) + ". "
    citations = list(dict.fromkeys(c for r in responses for c in r.citations))
    if citations:
        synthesized += "\n\nSources: " + ", ".join(citations[:SYNTHESIS_MAX_SOURCES])
    return synthesized.strip()


def herfindahl(weights: Mapping[str, float]) -> float:
    """Sum of squared vote weights (1/n for uniform weights, 1 when one model holds all)."""
    return sum(w * w for w in weights.values())


def consensus_confidence(level: AgreementLevel, winning_quality: float, weights: Mapping[str, float]) -> float:
    """Agreement factor (.35/.25/.15/.05) + ``winning_quality/100 * .35`` + ``herfindahl * .30``, in [0, 1]."""
    value = AGREEMENT_FACTORS[level] + winning_quality / 100.0 * QUALITY_FACTOR
    value += herfindahl(weights) * CONCENTRATION_FACTOR
    return max(0.0, min(1.0, value))


def _consensus_id(responses: Sequence[ModelResponse], second_round: Sequence[ModelResponse]) -> str:
    payload = json.dumps(
        [[(r.model, r.content, r.confidence) for r in responses], [(r.model, r.content) for r in second_round]],
        ensure_ascii=False,
    )
    return "consensus-" + hashlib.sha256(payload.encode()).hexdigest()[:16]


def _reasoning(
    level: AgreementLevel,
    score: float,
    n_pairs: int,
    rankings: Sequence[tuple[ModelResponse, HeuristicQuality]],
    triggered: bool,
    real_round2: bool,
    synthesized: bool,
    weights: Mapping[str, float],
    confidence: float,
) -> str:
    top = rankings[0][1].overall
    tied = [r.model for r, q in rankings if q.overall == top]
    ranking = ", ".join(f"{r.model} {q.overall:.1f}" for r, q in rankings)
    parts = [
        f"Agreement: {level.value} (mean similarity {score:.1f}/100 over {n_pairs} pair(s)).",
        f"Quality ranking: {ranking}; winner {rankings[0][0].model}"
        + (f" (tie among {', '.join(tied)} broken by priority)." if len(tied) > 1 else "."),
    ]
    if triggered:
        how = "models re-evaluated with the conflict summary" if real_round2 else "existing responses re-ranked"
        parts.append(f"Second round: triggered ({how}).")
    else:
        parts.append("Second round: not needed.")
    if synthesized:
        parts.append(
            "Synthesis: the best answer's opening plus the middle sentences of lower-ranked answers "
            "with more than 15% new tokens, and the merged sources."
        )
    agree = AGREEMENT_FACTORS[level]
    quality = top / 100 * QUALITY_FACTOR
    conc = herfindahl(weights) * CONCENTRATION_FACTOR
    parts.append(
        f"Confidence {confidence:.3f} = agreement {agree:.3f} + quality {quality:.3f} + concentration {conc:.3f}."
    )
    return " ".join(parts)


def run_consensus(
    responses: Sequence[ModelResponse],
    config: VotingConfig | None = None,
    *,
    second_round: Sequence[ModelResponse] | None = None,
    consensus_id: str | None = None,
    started: float | None = None,
) -> ConsensusResult:
    """The consensus vote over given answers (seed 002's ``consensus_voting``), without model calls.

    Args:
        responses: the round-1 answers; model ids must be unique. Empty raises ``ValueError``
            (the seed's "No responses provided").
        config: thresholds, weights, priority and ``max_rounds`` (default :class:`VotingConfig`).
        second_round: re-evaluated answers from a real second round (a model missing here keeps
            its round-1 answer). Only allowed when the round-1 agreement triggers a second
            round; when it triggers and this is ``None``, the existing answers are re-ranked
            (the seed's MVP behaviour).
        consensus_id: the result's id (default: a hash of the inputs).
        started: a ``time.perf_counter()`` value the execution time is measured from
            (default: the start of this call).

    A single response is wrapped: strong (vacuous) agreement, weight 1, no second round, and
    the model's own confidence as the confidence score. Otherwise agreement level, similarities
    and confidence weights come from round 1; the winner is the best final answer by heuristic
    quality; the synthesis runs when a second round was triggered.
    """
    t0 = time.perf_counter() if started is None else started
    cfg = config or VotingConfig()
    if not responses:
        raise ValueError("no responses provided: the consensus vote needs at least one answer")
    models = [r.model for r in responses]
    dupes = sorted({m for m in models if models.count(m) > 1})
    if dupes:
        raise ValueError(f"model ids must be unique among responses, repeated: {dupes}")
    round2 = list(second_round or [])
    unknown = sorted({r.model for r in round2} - set(models))
    if unknown:
        raise ValueError(f"second-round responses from models without a round-1 answer: {unknown}")
    cid = consensus_id or _consensus_id(responses, round2)

    if len(responses) == 1:
        if round2:
            raise ValueError("a single response does not trigger a second round")
        only = responses[0]
        quality = rank_by_quality(responses, cfg)[0][1]
        return ConsensusResult(
            consensus_id=cid,
            agreement_level=AgreementLevel.STRONG_AGREEMENT,
            winning_member=only.model,
            winning_response=only.content,
            confidence_score=only.confidence,
            model_votes={only.model: quality.overall},
            total_execution_time_ms=(time.perf_counter() - t0) * 1000,
            reasoning=(
                f"Single response from {only.model}: no vote to take; quality {quality.overall:.1f}; "
                f"confidence is the model's own ({only.confidence:.2f})."
            ),
            weights={only.model: 1.0},
        )

    weights = compute_weighted_votes(responses)
    level, sims, score = detect_agreement(responses, cfg)
    triggered = should_trigger_second_round(level, cfg.max_rounds)
    if round2 and not triggered:
        raise ValueError(f"second-round responses given, but agreement '{level.value}' does not trigger a second round")
    by_model = {r.model: r for r in round2}
    final = [by_model.get(r.model, r) for r in responses]
    rankings = rank_by_quality(final, cfg)
    winner, winner_quality = rankings[0]
    synthesized = synthesize_response(final, rankings) if triggered and len(rankings) > 1 else None
    confidence = consensus_confidence(level, winner_quality.overall, weights)
    level2: AgreementLevel | None = None
    sims2: dict[str, float] = {}
    if round2:
        level2, sims2, _ = detect_agreement(final, cfg)
    return ConsensusResult(
        consensus_id=cid,
        agreement_level=level,
        winning_member=winner.model,
        winning_response=winner.content,
        confidence_score=confidence,
        model_votes={r.model: q.overall for r, q in rankings},
        synthesized_response=synthesized,
        second_round_triggered=triggered,
        round_count=2 if triggered else 1,
        total_execution_time_ms=(time.perf_counter() - t0) * 1000,
        reasoning=_reasoning(
            level, score, len(sims), rankings, triggered, bool(round2), synthesized is not None, weights, confidence
        ),
        similarities=sims,
        similarity_score=score,
        weights=weights,
        round2_answers={r.model: r.content for r in round2},
        round2_agreement_level=level2,
        round2_similarities=sims2,
    )


# --- prompts and replies -----------------------------------------------------------------------


def vote_messages(query: str, system_prompt: str | None) -> list[Message]:
    """Round 1: answer the question as JSON with a self-assessed confidence."""
    msgs = [Message(role="system", content=system_prompt)] if system_prompt else []
    msgs.append(Message(role="user", content=f"{query}\n\n{VOTE_INSTRUCTION}"))
    return msgs


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026"


def conflict_summary(
    member: str, responses: Sequence[ModelResponse], similarities: Mapping[str, float], excerpt_chars: int = 200
) -> str:
    """The seed's re-evaluation instruction followed by every other answer's short excerpt.

    Args:
        member: the model being asked to reconsider (its own answer is left out).
        responses: the round-1 answers.
        similarities: pairwise similarities keyed ``"a_vs_b"`` (from :func:`pairwise_similarities`).
        excerpt_chars: maximum characters of each excerpt (whitespace collapsed).
    """
    lines = [CONFLICT_INSTRUCTION]
    others = [r for r in responses if r.model != member]
    for i, other in enumerate(others, start=1):
        sim = similarities.get(f"{member}_vs_{other.model}", similarities.get(f"{other.model}_vs_{member}"))
        agree = f" (similarity to your answer: {sim * 100:.0f}%)" if sim is not None else ""
        lines.append(f'- Other answer {i}{agree}: "{_excerpt(other.content, excerpt_chars)}"')
    return "\n".join(lines)


def round2_messages(query: str, system_prompt: str | None, own_answer: str, summary: str) -> list[Message]:
    """Round 2: the question, the model's own answer, then the conflict summary; reply as JSON again."""
    msgs = vote_messages(query, system_prompt)
    msgs.append(Message(role="assistant", content=own_answer))
    msgs.append(Message(role="user", content=f"{summary}\n\nQuestion: {query}\n\n{VOTE_INSTRUCTION}"))
    return msgs


_ANSWER_PREFIX = re.compile(r'"answer"\s*:\s*"((?:[^"\\]|\\.)*)', re.DOTALL)
_CONFIDENCE_VALUE = re.compile(r'"confidence"\s*:\s*"?(-?\d+(?:\.\d+)?)')


def _confidence(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int | float) and math.isfinite(value):
        return max(0.0, min(1.0, float(value)))
    return None


def _unescape(fragment: str) -> str:
    fragment = re.sub(r"\\u[0-9a-fA-F]{0,3}$|\\$", "", fragment)  # a cut-off escape at the end
    try:
        return json.loads(f'"{fragment}"', strict=False)
    except ValueError:
        return fragment


def parse_vote(text: str) -> tuple[str, float | None] | None:
    """Read ``{"answer": ..., "confidence": ...}`` from a reply; never raises.

    Returns ``(answer, confidence)``; ``confidence`` is ``None`` when missing or not a number
    (clamped to [0, 1] otherwise). A reply cut off by the token limit keeps the part of the
    answer that was written. A reply that is not JSON at all is taken as a plain answer without
    confidence. ``None`` when no answer text can be read.
    """
    stripped = text.strip()
    if not stripped:
        return None
    decoder = json.JSONDecoder(strict=False)
    start = stripped.find("{")
    if start >= 0:
        try:
            obj, _ = decoder.raw_decode(stripped, start)
        except (ValueError, RecursionError):  # deeply nested JSON raises RecursionError
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("answer"), str):
            answer = obj["answer"].strip()
            return (answer, _confidence(obj.get("confidence"))) if answer else None
        m = _ANSWER_PREFIX.search(stripped)
        if m:
            answer = _unescape(m.group(1)).strip()
            c = _CONFIDENCE_VALUE.search(stripped)
            return (answer, _confidence(c.group(1)) if c else None) if answer else None
        if start == 0:
            return None
    return stripped, None


# --- the subject -------------------------------------------------------------------------------


class VotingCouncil:
    """The consensus-voting subject (seed 002) over real model calls.

    Args:
        members: the voting models (ids unique; their order is the default tie-break priority).
        caller: routes calls to providers.
        settings: ``answer_max_tokens`` (the answer; the JSON envelope gets a few tokens more) and seeds.
        config: the vote's thresholds, weights, rounds, per-model timeout and priority.
    """

    name = "voting"

    def __init__(
        self, members: list[MemberSpec], caller: Caller, settings: Settings, config: VotingConfig | None = None
    ) -> None:
        if not members:
            raise ConfigError("at least one voting member is required", "models")
        ids = [m.id for m in members]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ConfigError(f"member ids must be unique, repeated: {dupes}", "models")
        self.config = config or VotingConfig()
        unknown = [p for p in self.config.priority if p not in ids]
        if unknown:
            raise ConfigError(f"priority names {unknown}, which are not member ids {ids}", "voting.priority")
        self.members = members
        self.caller = caller
        self.settings = settings

    async def _ask(self, stage: str, calls: Sequence[tuple[MemberSpec, list[Message]]]) -> list[CallResult]:
        return list(
            await asyncio.gather(
                *(
                    self.caller.call(
                        m,
                        stage,
                        msgs,
                        max_tokens=self.settings.answer_max_tokens + JSON_OVERHEAD_TOKENS,
                        json_schema=VOTE_SCHEMA,
                        timeout=self.config.timeout_s,
                    )
                    for m, msgs in calls
                )
            )
        )

    @staticmethod
    def _read(stage: str, member: MemberSpec, res: CallResult, errors: list[str]) -> tuple[str, float | None] | str:
        """The parsed vote, or the error text (also appended to ``errors``)."""
        if res.completion is None:
            error = res.error or "no reply"
        else:
            vote = parse_vote(res.completion.text)
            if vote is not None:
                if vote[1] is None and stage == ROUND1_STAGE:
                    errors.append(f"{stage} {member.id}: no confidence given; its vote weight is 0")
                return vote
            error = "no answer could be read from the reply"
        errors.append(f"{stage} {member.id}: {error}")
        return error

    @staticmethod
    def _response(member: MemberSpec, vote: tuple[str, float | None], res: CallResult) -> ModelResponse:
        text, confidence = vote
        return ModelResponse(
            model=member.id,
            content=text,
            confidence=confidence or 0.0,
            generation_time_ms=res.record.latency_s * 1000,
            token_count=res.record.tokens_out,
            citations=tuple(detect_citations(text)),
            timestamp=datetime.now(UTC).isoformat(),
        )

    async def answer(self, query: str) -> Transcript:
        started = time.perf_counter()
        records: list[CallRecord] = []
        errors: list[str] = []
        cfg = self.config

        # Round 1: every member answers with a confidence (in parallel; failures are dropped).
        results = await self._ask(ROUND1_STAGE, [(m, vote_messages(query, m.system_prompt)) for m in self.members])
        answers: list[Answer] = []
        responses: list[ModelResponse] = []
        survivors: list[MemberSpec] = []
        for member, res in zip(self.members, results, strict=True):
            records.append(res.record)
            vote = self._read(ROUND1_STAGE, member, res, errors)
            if isinstance(vote, str):
                answers.append(Answer(member=member.id, model=member.model, text="", error=vote))
                continue
            answers.append(Answer(member=member.id, model=member.model, text=vote[0], confidence=vote[1]))
            responses.append(self._response(member, vote, res))
            survivors.append(member)
        if not responses:
            errors.append(f"{ROUND1_STAGE}: no member produced an answer")
            return Transcript(
                subject=self.name,
                query=query,
                answers=tuple(answers),
                final_answer="",
                calls=tuple(records),
                errors=tuple(errors),
                duration_s=time.perf_counter() - started,
            )

        # Round 2: on weak agreement or disagreement each surviving model reconsiders, for real.
        second: list[ModelResponse] | None = None
        level, sims, _ = detect_agreement(responses, cfg)
        if len(responses) > 1 and should_trigger_second_round(level, cfg.max_rounds):
            prompts = [
                (
                    m,
                    round2_messages(
                        query, m.system_prompt, r.content, conflict_summary(m.id, responses, sims, cfg.excerpt_chars)
                    ),
                )
                for m, r in zip(survivors, responses, strict=True)
            ]
            second = []
            for (member, _), res in zip(prompts, await self._ask(ROUND2_STAGE, prompts), strict=True):
                records.append(res.record)
                vote = self._read(ROUND2_STAGE, member, res, errors)
                if not isinstance(vote, str):
                    second.append(self._response(member, vote, res))

        result = run_consensus(responses, cfg, second_round=second, started=started)
        return Transcript(
            subject=self.name,
            query=query,
            answers=tuple(answers),
            final_answer=result.final_answer,
            calls=tuple(records),
            errors=tuple(errors),
            duration_s=time.perf_counter() - started,
            voting=result,
        )
