"""The stage-2 peer rubric: the reviewers' rubric scores of each member's answer (seed 001 section 2.3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.metrics.rubric import RubricBreakdown
from harness.records.score_spec import ScoreSpec
from harness.scorers.builtin.declared import builtin_scorer
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript


def _summary(peer: dict[str, RubricBreakdown]) -> str:
    parts = [f"{m} {b.weighted_composite:g}" for m, b in sorted(peer.items()) if b.weighted_composite is not None]
    return "composite per member: " + ", ".join(parts) if parts else ""


@builtin_scorer(
    "peer_rubric",
    order=70,
    detail=dict[str, RubricBreakdown],
    summary=_summary,
    scores=(
        ScoreSpec(
            name="peer_composite",
            scale=10,
            trend_label="Peer",
            trend_rank=4,
            description="stage-2 peer rubric: mean weighted composite of the members' answers, 0-10",
        ),
    ),
)
async def peer_rubric(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """The stage-2 peer rubric scores, when reviewers gave them."""
    from harness.metrics.rubric import peer_composite, peer_rubric_breakdown

    peer = peer_rubric_breakdown(transcript, settings.weights) if transcript.reviews else {}
    composite = peer_composite(peer) if peer else None
    return ScoreOutcome(scores={"peer_composite": composite} if composite is not None else {}, detail=peer or None)
