"""Seed 002's heuristic quality of the final answer (section 4: five weighted components, 0-100)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.metrics.heuristic_quality import HeuristicQuality
from harness.records.score_spec import ScoreSpec
from harness.scorers.builtin.declared import builtin_scorer
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript

COMPONENTS = ("semantic_coherence", "citation_density", "semantic_richness", "answer_completeness", "error_freedom")


def _summary(hq: HeuristicQuality) -> str:
    capped = f" (first {hq.capped_at:,} characters)" if hq.capped_at else ""
    return f"overall {hq.overall:g} of 100{capped}"


@builtin_scorer(
    "heuristic_quality",
    order=50,
    detail=HeuristicQuality,
    summary=_summary,
    scores=(
        ScoreSpec(
            name="heuristic_quality",
            scale=100,
            label="HQ",
            key_rank=2,
            chart=True,
            description="seed 002 heuristic quality of the final answer (weighted 5 components), 0-100",
        ),
        *(
            ScoreSpec(
                name=f"hq_{c}", description=f"heuristic quality component: {c.replace('_', ' ')}, 0-100", scale=100
            )
            for c in COMPONENTS
        ),
    ),
)
async def heuristic_quality(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """Seed 002's heuristic quality of the final answer, for every subject alike."""
    from harness.metrics.heuristic_quality import heuristic_quality_scores

    detail, score_set = heuristic_quality_scores(transcript.final_answer)
    return ScoreOutcome(scores=score_set.scores, detail=detail)
