"""Tier 2 analytics (seed 001 section 2): temporal consistency, cross-model calibration, rubric breakdown
exposure and the ``quality-report`` command. Embeddings come from the optional ``semantic`` extra and are
loaded lazily (:func:`harness.tier2.embeddings.load_embedder`).
"""

from harness.tier2.calibration import CalibrationReport, ModelCalibration, calibration_report, council_sessions
from harness.tier2.embeddings import Embedder, load_embedder, semantic_available
from harness.tier2.temporal import (
    HistoricalAnswer,
    TemporalConsistency,
    earlier_runs,
    history_from_runs,
    result_temporal_consistency,
    temporal_consistency,
)

__all__ = [
    "CalibrationReport",
    "Embedder",
    "HistoricalAnswer",
    "ModelCalibration",
    "TemporalConsistency",
    "calibration_report",
    "council_sessions",
    "earlier_runs",
    "history_from_runs",
    "load_embedder",
    "result_temporal_consistency",
    "semantic_available",
    "temporal_consistency",
]
