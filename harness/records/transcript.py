"""What a subject (council, voting council, baseline, external council) produced for one query.

Every scorer reads a :class:`Transcript`, so council and baseline are scored the same way.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import field_validator

from harness.common.model import Frozen
from harness.records.arm_types import ArmRecord
from harness.records.consensus_types import ConsensusResult
from harness.records.external_council_types import ExternalCouncilRecord
from harness.records.mode_types import ModeRecord

Role = Literal["system", "user", "assistant"]
#: the most tokens one call may report for its prompt or its reply (ten times today's largest context windows)
MAX_TOKENS_PER_CALL = 20_000_000


class Message(Frozen):
    """One chat message."""

    role: Role
    content: str


class TokenLogprob(Frozen):
    """One generated token with its log-probability and the endpoint's top alternatives.

    Args:
        token: the token's text.
        logprob: its log-probability.
        top: the most likely tokens at that position (text -> log-probability), as returned.
    """

    token: str
    logprob: float
    top: dict[str, float] = {}


class Completion(Frozen):
    """One model reply.

    Args:
        text: the generated text.
        model: the model name that answered.
        tokens_in: prompt tokens.
        tokens_out: generated tokens.
        latency_s: wall time of the call in seconds (0 for a cache hit is not assumed: the
            recorded latency of the original call is kept and ``cached`` is set).
        finish_reason: ``stop``, ``length`` or what the backend said.
        cached: whether the reply came from the record/replay cache.
        cached_tokens: of ``tokens_in``, the prompt tokens the backend served from its own prefix
            cache (an OpenAI-compatible ``usage.prompt_tokens_details.cached_tokens``; 0 for the
            embedded models, whose KV cache is reset before every call); ``None`` when not known.
        token_logprobs: per generated token its log-probability and top alternatives, when
            asked for (``top_logprobs``) and the endpoint returned them; else empty.
        tokens_estimated: the endpoint reported no usable usage, so ``tokens_in``/``tokens_out``
            are estimates from the text (:func:`harness.providers.openai_compat.checked_usage`).

    Token counts are whole numbers in ``0..MAX_TOKENS_PER_CALL`` and the latency a finite number
    >= 0 (a record/replay cache row is validated the same way): a negative count or latency is
    stored as 0 and a count over the bound as the bound.
    """

    text: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    finish_reason: str = "stop"
    cached: bool = False
    cached_tokens: int | None = None
    token_logprobs: tuple[TokenLogprob, ...] = ()
    tokens_estimated: bool = False

    @field_validator("tokens_in", "tokens_out", mode="after")
    @classmethod
    def _bounded_count(cls, v: int) -> int:
        return min(max(v, 0), MAX_TOKENS_PER_CALL)

    @field_validator("latency_s", mode="after")
    @classmethod
    def _bounded_latency(cls, v: float) -> float:
        return v if math.isfinite(v) and v >= 0 else 0.0


class CallRecord(Frozen):
    """One model call made while producing a transcript (for timings, tokens and errors).

    ``cached`` is a record/replay cache hit (no model call in this run); ``cached_tokens`` the prompt
    tokens the backend reported serving from its own prefix cache (see :class:`Completion`; ``None``:
    not known, as in rows written before it existed). Counts and latency are bounded as in
    :class:`Completion`.
    """

    stage: str
    member: str
    model: str
    latency_s: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cached: bool = False
    error: str | None = None
    finish_reason: str | None = None  # ``stop``, ``length``, ...; None when unknown (rows written before it existed)
    cached_tokens: int | None = None
    tokens_estimated: bool = False  # the endpoint reported no usable usage: the tokens are estimates

    @field_validator("tokens_in", "tokens_out", mode="after")
    @classmethod
    def _bounded_count(cls, v: int) -> int:  # as Completion's: 0..MAX_TOKENS_PER_CALL
        return min(max(v, 0), MAX_TOKENS_PER_CALL)

    @field_validator("latency_s", mode="after")
    @classmethod
    def _bounded_latency(cls, v: float) -> float:
        return v if math.isfinite(v) and v >= 0 else 0.0


class Answer(Frozen):
    """A stage-1 answer of one council member (or the baseline's single answer)."""

    member: str
    model: str
    text: str
    error: str | None = None
    confidence: float | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Ballot(Frozen):
    """A reviewer's parsed stage-2 ballot.

    Args:
        ranking: response labels best first, cleaned of duplicates and unknown labels.
        scores: optional rubric scores, label -> dimension -> 1..10.
        critique: free-text critique carried by a JSON ballot.
        method: how the ballot was obtained (``json_fenced``, ``json_raw``, ``final_ranking``,
            ``mentions``, ``none`` when parsed from text; ``probabilities`` when read from the
            model's probabilities over the labels, see :mod:`harness.council.ballots`).
        abstained: the reviewer refused or gave nothing parsable.
        holistic: the reviewer ignored the rubric (a single overall score or none); ranking-only.
        capped: the reply was longer than ``ranking.BALLOT_TEXT_LIMIT`` characters; only its start was parsed.
    """

    ranking: tuple[str, ...] = ()
    scores: dict[str, dict[str, float]] = {}
    critique: str = ""
    method: Literal["json_fenced", "json_raw", "final_ranking", "mentions", "none", "probabilities"] = "none"
    abstained: bool = False
    holistic: bool = False
    capped: bool = False


class BallotPass(Frozen):
    """One evaluation of a probability ballot in one presentation order.

    Args:
        order: the labels in the order shown in this pass, first shown first.
        probabilities: label -> P(best = label), renormalised over the labels.
        winner: the label with the highest probability (ties: the first label alphabetically).
    """

    order: tuple[str, ...]
    probabilities: dict[str, float]
    winner: str


class Review(Frozen):
    """One stage-2 review: the raw text, the parsed ballot and how candidates were presented.

    Args:
        reviewer, model: who reviewed.
        raw_text: the reviewer's reply (for a probability ballot: its short critique).
        ballot: the ballot, in the transcript's labels (``Transcript.label_to_member``).
        presentation_order: the transcript's labels in the order the reviewer saw them.
        shuffle_seed: the recorded seed of the order and of the label assignment.
        shown_labels: transcript label -> the label this reviewer saw for that answer (labels
            are assigned per reviewer, so no member is always ``Response A``); empty in
            records made before labels were shuffled (the reviewer saw the transcript's labels).
        passes: for a probability ballot, its two evaluations (presented order, then reversed).
        position_consistent: both passes picked the same winner (``None``: one pass only).
    """

    reviewer: str
    model: str
    raw_text: str
    ballot: Ballot
    presentation_order: tuple[str, ...]
    shuffle_seed: int
    error: str | None = None
    shown_labels: dict[str, str] = {}
    passes: tuple[BallotPass, ...] = ()
    position_consistent: bool | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class AggregateRank(Frozen):
    """A member's aggregate stage-2 standing.

    Args:
        member: the member id.
        borda: mean normalized Borda score over the ballots that ranked it (0..1, higher better).
        average_position: mean 1-based position over those ballots, ``None`` with no votes.
        votes: how many ballots ranked it.
    """

    member: str
    borda: float
    average_position: float | None
    votes: int


class Transcript(Frozen):
    """Everything a subject did for one query.

    Args:
        subject: the subject name (``council``, ``baseline``, ``voting``, ...).
        query: the question asked.
        answers: stage-1 answers (one for the baseline).
        label_to_member: anonymized label (``Response A``) -> member id.
        reviews: stage-2 reviews.
        aggregate: aggregate rankings, best first.
        synthesis: the chairman's stage-3 text (``None`` when there is no stage 3).
        final_answer: the answer that is scored.
        chairman: the member id of the chairman, if any.
        calls: every model call with timings and tokens.
        errors: errors that did not stop the subject (a failed member, an unparsable ballot).
        duration_s: wall time for the whole transcript.
        voting: the consensus-vote record of the ``voting`` subject (``None`` for other subjects).
        external: what an external council package (``llm-council``) reported about its own run.
        arm: how a baseline arm (``self-consistency:<member>``, ``vote``) chose its answer.
        mode: what a council mode (``council:debate``, ``council+dissent``, ``council:jury``,
            ``council:tie-breaker``, ``debate:<rounds>``) recorded (:mod:`harness.records.mode_types`).
    """

    subject: str
    query: str
    answers: tuple[Answer, ...]
    label_to_member: dict[str, str] = {}
    reviews: tuple[Review, ...] = ()
    aggregate: tuple[AggregateRank, ...] = ()
    synthesis: str | None = None
    final_answer: str
    chairman: str | None = None
    calls: tuple[CallRecord, ...] = ()
    errors: tuple[str, ...] = ()
    duration_s: float = 0.0
    voting: ConsensusResult | None = None
    external: ExternalCouncilRecord | None = None
    arm: ArmRecord | None = None
    mode: ModeRecord | None = None

    @property
    def ok_answers(self) -> list[Answer]:
        return [a for a in self.answers if a.ok]

    @property
    def ok_reviews(self) -> list[Review]:
        return [r for r in self.reviews if r.ok]

    @property
    def tokens(self) -> tuple[int, int]:
        return (sum(c.tokens_in for c in self.calls), sum(c.tokens_out for c in self.calls))

    def answer_of(self, member: str) -> Answer | None:
        return next((a for a in self.answers if a.member == member), None)

    def winners(self, k: int = 2) -> list[str]:
        """Texts of the top-``k`` members by aggregate ranking that have answers."""
        out: list[str] = []
        for rank in self.aggregate:
            answer = self.answer_of(rank.member)
            if answer is not None and answer.ok and rank.votes > 0:
                out.append(answer.text)
            if len(out) == k:
                break
        return out
