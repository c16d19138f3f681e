"""Records of the seed-002 consensus-voting algorithm (kept free of other harness imports).

:mod:`harness.records.transcript` carries a :class:`ConsensusResult` for the ``voting`` subject, so this
module imports only :mod:`harness.common.model`; the algorithm itself is in :mod:`harness.council.voting`.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from harness.common.model import Frozen


class AgreementLevel(StrEnum):
    """How far the models' answers agree (mean pairwise combined similarity on a 0-100 scale)."""

    STRONG_AGREEMENT = "strong_agreement"
    MODERATE_AGREEMENT = "moderate_agreement"
    WEAK_AGREEMENT = "weak_agreement"
    DISAGREEMENT = "disagreement"


class ModelResponse(Frozen):
    """One model's answer as the voting algorithm sees it (seed 002's ``ModelResponse``).

    Args:
        model: the member id that answered.
        content: the answer text.
        confidence: the model's self-assessment in [0, 1].
        generation_time_ms: latency of the call.
        token_count: generated tokens.
        citations: source URLs or references carried by the answer.
        timestamp: ISO 8601 time of the answer (informational).
    """

    model: str = Field(min_length=1)
    content: str
    confidence: float = Field(ge=0.0, le=1.0)
    generation_time_ms: float = 0.0
    token_count: int = 0
    citations: tuple[str, ...] = ()
    timestamp: str = ""


class ConsensusResult(Frozen):
    """What the consensus vote decided (seed 002's ``ConsensusResult`` plus the figures behind it).

    Args:
        consensus_id: a stable identifier (a hash of the inputs: same responses, same id).
        agreement_level: the round-1 agreement, which decides whether a second round runs.
        winning_member: the member whose answer ranked first on quality (after round 2 if any).
        winning_response: that answer's text.
        confidence_score: final confidence in [0, 1] (agreement + quality + concentration).
        model_votes: heuristic quality (0-100) of each member's final answer.
        synthesized_response: the merged answer when a second round ran (else ``None``).
        second_round_triggered: whether agreement was weak or absent and ``max_rounds >= 2``.
        round_count: 1 or 2.
        total_execution_time_ms: time from the first model call (or from the start of the
            computation, for the pure algorithm) to the result.
        reasoning: a plain-language account of the decision.
        similarities: round-1 pairwise combined similarity, ``"a_vs_b"`` -> [0, 1].
        similarity_score: their mean on the 0-100 scale (100 for a single response).
        weights: normalized round-1 confidence weights per member (sum 1).
        round2_answers: the re-evaluated answer text per member that answered in round 2.
        round2_agreement_level: agreement among the final answers after round 2 (``None``
            without a real second round).
        round2_similarities: pairwise similarities among those final answers.
    """

    consensus_id: str
    agreement_level: AgreementLevel
    winning_member: str
    winning_response: str
    confidence_score: float = Field(ge=0.0, le=1.0)
    model_votes: dict[str, float]
    synthesized_response: str | None = None
    second_round_triggered: bool = False
    round_count: int = Field(default=1, ge=1, le=2)
    total_execution_time_ms: float = 0.0
    reasoning: str = ""
    similarities: dict[str, float] = {}
    similarity_score: float = 100.0
    weights: dict[str, float] = {}
    round2_answers: dict[str, str] = {}
    round2_agreement_level: AgreementLevel | None = None
    round2_similarities: dict[str, float] = {}

    @property
    def final_answer(self) -> str:
        """The synthesized answer when there is one, else the winning answer."""
        return self.synthesized_response if self.synthesized_response is not None else self.winning_response
