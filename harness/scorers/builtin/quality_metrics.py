"""Tier 1 quality metrics (seed 000: CSS, DDI, SAS) of subjects whose answers were reviewed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from harness.metrics.quality_metrics import QualityMetrics, Tier
from harness.records.score_spec import ScoreSpec
from harness.scorers.builtin.declared import builtin_scorer
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript


def tier_of(details: Mapping[str, object]) -> Tier:
    """The Tier 1 block's tier: ``enterprise`` with external validation, ``standard`` with a rubric
    judgement or peer rubric scores, else ``core``."""
    if details.get("external_validation") is not None:
        return "enterprise"
    return "standard" if details.get("rubric") is not None or details.get("peer_rubric") else "core"


def _with_tier(qm: QualityMetrics, details: Mapping[str, object]) -> QualityMetrics:
    return qm.model_copy(update={"tier": tier_of(details)})


@builtin_scorer(
    "quality_metrics",
    order=10,
    detail=QualityMetrics,
    settle=_with_tier,  # the report lays its panel out itself
    scores=(
        ScoreSpec(
            name="consensus_strength",
            description="Tier 1 CSS, 0-1",
            label="CSS",
            key_rank=4,
            trend_label="CSS",
            trend_rank=0,
        ),
        ScoreSpec(name="deliberation_depth", description="Tier 1 DDI, 0-1", trend_label="DDI", trend_rank=1),
        ScoreSpec(
            name="winner_alignment", description="Tier 1 SAS winner alignment, 0-1", trend_label="SAS", trend_rank=2
        ),
        ScoreSpec(name="max_source_alignment", description="Tier 1 SAS max source alignment, 0-1"),
        ScoreSpec(
            name="hallucination_risk",
            description="Tier 1 SAS hallucination risk, 0-1 (lower is better)",
            higher_is_better=False,
            label="risk",
            key_rank=5,
            trend_label="Risk",
            trend_rank=3,
        ),
    ),
)
async def quality_metrics(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """Tier 1 (CSS, DDI, SAS) for subjects with stage-2 reviews; its tier is settled by :func:`tier_of`."""
    from harness.metrics.quality_metrics import core_quality_metrics

    if not settings.quality_metrics or not transcript.reviews:
        return ScoreOutcome()
    qm = core_quality_metrics(transcript, settings.grounding_threshold)
    sas = qm.core.synthesis_attribution
    return ScoreOutcome(
        detail=qm,
        scores={
            "consensus_strength": qm.core.consensus_strength,
            "deliberation_depth": qm.core.deliberation_depth,
            "winner_alignment": sas.winner_alignment,
            "max_source_alignment": sas.max_source_alignment,
            "hallucination_risk": sas.hallucination_risk,
        },
    )
