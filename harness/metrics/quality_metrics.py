"""The ``quality_metrics`` block attached to every council transcript (seed 000's JSON shape)."""

from __future__ import annotations

from typing import Literal

from harness.common.model import Frozen
from harness.metrics.tier1 import (
    SynthesisAttribution,
    consensus_strength_score,
    deliberation_depth_index,
    quality_warnings,
    synthesis_attribution_score,
)
from harness.records.transcript import Transcript

Tier = Literal["core", "standard", "enterprise"]


class CoreMetrics(Frozen):
    """Tier 1 figures: CSS, DDI (with components) and SAS."""

    consensus_strength: float
    deliberation_depth: float
    deliberation_components: dict[str, float]
    synthesis_attribution: SynthesisAttribution


class QualityMetrics(Frozen):
    """``{"tier": ..., "core": {...}, "warnings": [...]}`` as in seed 000.

    Args:
        tier: which metric groups were computed (``core`` = Tier 1 only, ``standard`` adds
            Tier 2, ``enterprise`` adds external validation).
        core: the Tier 1 figures.
        warnings: the seed's warning names; empty means every threshold was met.
    """

    tier: Tier = "core"
    core: CoreMetrics
    warnings: tuple[str, ...] = ()

    def seed_json(self) -> dict:
        """The seed's exact JSON shape (DDI components are not part of it)."""
        return {
            "tier": self.tier,
            "core": {
                "consensus_strength": self.core.consensus_strength,
                "deliberation_depth": self.core.deliberation_depth,
                "synthesis_attribution": self.core.synthesis_attribution.model_dump(),
            },
            "warnings": list(self.warnings),
        }


def core_quality_metrics(transcript: Transcript, grounding_threshold: float = 0.6) -> QualityMetrics:
    """Compute Tier 1 metrics from a council transcript's real texts.

    Answers that failed are left out; reviews that failed do not count towards coverage; the
    synthesis is compared with the top-2 aggregate winners.
    """
    answers = [a.text for a in transcript.ok_answers]
    reviews = [r.raw_text for r in transcript.ok_reviews]
    css = consensus_strength_score((r.member, r.average_position) for r in transcript.aggregate)
    ddi, components = deliberation_depth_index(answers, reviews)
    sas = synthesis_attribution_score(transcript.synthesis or "", transcript.winners(2), answers, grounding_threshold)
    core = CoreMetrics(
        consensus_strength=css,
        deliberation_depth=ddi,
        deliberation_components=components,
        synthesis_attribution=sas,
    )
    return QualityMetrics(core=core, warnings=tuple(quality_warnings(css, ddi, sas)))
