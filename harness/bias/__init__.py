"""Bias auditing (seed 003): per-session indicators, JSONL persistence, cross-session aggregation, reports.

Analytics only: nothing in this package changes a council's vote.

The names below are loaded on first use (PEP 562), so that ``council-harness bias-report``
imports only what it needs (no ``scipy.stats`` for the per-session audit).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "AggregatedBiasReport": "harness.bias.aggregate",
    "BiasMetricReport": "harness.bias.aggregate",
    "ConfidenceTier": "harness.bias.aggregate",
    "RecordTable": "harness.bias.aggregate",
    "ReviewerProfile": "harness.bias.aggregate",
    "confidence_tier": "harness.bias.aggregate",
    "read_table": "harness.bias.aggregate",
    "run_aggregated_bias_audit": "harness.bias.aggregate",
    "SessionBiasAudit": "harness.bias.audit",
    "audit_session": "harness.bias.audit",
    "BiasMetricRecord": "harness.bias.store",
    "BiasStore": "harness.bias.store",
    "ConsentLevel": "harness.bias.store",
    "QueryMetadata": "harness.bias.store",
    "ReadResult": "harness.bias.store",
    "persist_transcript": "harness.bias.store",
    "records_from_transcript": "harness.bias.store",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harness.bias' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
