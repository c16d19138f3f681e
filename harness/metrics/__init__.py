"""Scoring functions. Public API (stable):

``consensus_strength_score``, ``deliberation_depth_index``, ``synthesis_attribution_score``.
"""

from harness.metrics.heuristic_quality import (
    HeuristicQuality,
    HeuristicWeights,
    heuristic_quality,
    heuristic_quality_scores,
)
from harness.metrics.rubric import weighted_score_with_ceiling
from harness.metrics.safety import check_response_safety
from harness.metrics.similarity import combined_similarity, sequence_similarity, token_overlap_similarity
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
    "HeuristicQuality",
    "HeuristicWeights",
    "SynthesisAttribution",
    "check_response_safety",
    "combined_similarity",
    "consensus_band",
    "consensus_strength_score",
    "deliberation_depth_index",
    "heuristic_quality",
    "heuristic_quality_scores",
    "quality_warnings",
    "review_justification",
    "sequence_similarity",
    "synthesis_attribution_score",
    "token_overlap_similarity",
    "weighted_score_with_ceiling",
]
