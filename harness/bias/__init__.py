"""Bias auditing (seed 003): per-session indicators, JSONL persistence, cross-session aggregation, reports.

Analytics only: nothing in this package changes a council's vote.
"""

from harness.bias.aggregate import (
    AggregatedBiasReport,
    BiasMetricReport,
    ConfidenceTier,
    RecordTable,
    ReviewerProfile,
    confidence_tier,
    correlation_ci,
    fisher_z,
    fisher_z_inverse,
    read_table,
    run_aggregated_bias_audit,
)
from harness.bias.audit import SessionBiasAudit, audit_session
from harness.bias.store import (
    BiasMetricRecord,
    BiasStore,
    ConsentLevel,
    QueryMetadata,
    ReadResult,
    persist_transcript,
    records_from_transcript,
)

__all__ = [
    "AggregatedBiasReport",
    "BiasMetricRecord",
    "BiasMetricReport",
    "BiasStore",
    "ConfidenceTier",
    "ConsentLevel",
    "QueryMetadata",
    "ReadResult",
    "RecordTable",
    "ReviewerProfile",
    "SessionBiasAudit",
    "audit_session",
    "confidence_tier",
    "correlation_ci",
    "fisher_z",
    "fisher_z_inverse",
    "persist_transcript",
    "read_table",
    "records_from_transcript",
    "run_aggregated_bias_audit",
]
