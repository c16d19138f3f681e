"""Scoring functions. Public API (stable):

``consensus_strength_score``, ``deliberation_depth_index``, ``synthesis_attribution_score``.
"""

from harness.metrics.tier1 import (
    SynthesisAttribution,
    consensus_band,
    consensus_strength_score,
    deliberation_depth_index,
    quality_warnings,
    review_justification,
    synthesis_attribution_score,
)

__all__ = [
    "SynthesisAttribution",
    "consensus_band",
    "consensus_strength_score",
    "deliberation_depth_index",
    "quality_warnings",
    "review_justification",
    "synthesis_attribution_score",
]
