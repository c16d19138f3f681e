"""The score families the >15% prediction compares (one of them the configured ``primary_endpoint``).

A ground-floor list: the configuration validates ``primary_endpoint`` against it without importing
the prediction's statistics stack.
"""

from __future__ import annotations

#: score families compared, when present for both subjects (objective first).
FAMILIES: tuple[str, ...] = (
    "correct",
    "heuristic_quality",
    "rubric_composite",
    "deepeval_relevancy",
    "deepeval_correctness",
    "deepeval_hallucination_free",
    "ragas_faithfulness",
    "ragas_answer_relevancy",
    "ragas_context_precision",
)
