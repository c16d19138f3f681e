"""The seed-002 prediction, "3-model consensus is >15% better than one model", from a run's results."""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.result import CaseResult
from harness.stats import PairedSample, PredictionReport, evaluate_prediction

#: score families compared, when present for both subjects (objective first).
FAMILIES: tuple[str, ...] = (
    "correct", "heuristic_quality", "rubric_composite",
    "deepeval_relevancy", "deepeval_correctness", "deepeval_hallucination_free",
    "ragas_faithfulness", "ragas_answer_relevancy", "ragas_context_precision",
)


def paired_families(
    results: Sequence[CaseResult], treatment: str = "council", control: str = "baseline",
    families: Sequence[str] = FAMILIES,
) -> tuple[dict[str, PairedSample], dict[str, str]]:
    """Per score family, the paired (council, baseline) scores over cases that have both.

    Returns the samples and ``case id -> category`` for per-category verdicts.
    """
    by: dict[tuple[str, str], dict[str, CaseResult]] = {}
    for r in results:
        by.setdefault((r.dataset, r.case_id), {})[r.subject] = r
    samples: dict[str, PairedSample] = {}
    categories: dict[str, str] = {}
    for family in families:
        c, b, ids, cp, bp = [], [], [], [], []
        for (dataset, case_id), subj in sorted(by.items()):
            t, k = subj.get(treatment), subj.get(control)
            if t is None or k is None or family not in t.scores or family not in k.scores:
                continue
            x, y = t.scores[family], k.scores[family]
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            key = f"{dataset}::{case_id}"
            c.append(x)
            b.append(y)
            ids.append(key)
            cp.append(t.status == "passed")
            bp.append(k.status == "passed")
            categories[key] = t.category or dataset
        if ids:
            samples[family] = PairedSample(council=tuple(c), baseline=tuple(b), ids=tuple(ids),
                                           council_pass=tuple(cp), baseline_pass=tuple(bp))
    return samples, categories


def prediction_from_results(
    results: Sequence[CaseResult], threshold: float = 0.15, n_resamples: int = 10_000, seed: int = 0,
) -> PredictionReport | None:
    """Evaluate the prediction over every family present; ``None`` when no family has pairs."""
    samples, categories = paired_families(results)
    if not samples:
        return None
    return evaluate_prediction(samples, threshold=threshold, by_category=categories, n_resamples=n_resamples,
                               seed=seed)


def verdict_lines(report: PredictionReport) -> list[str]:
    """One line per family: the verdict with N, the relative improvement and its CI."""
    return [f"prediction (>{report.threshold:.0%} better): {v.summary}" for v in report.overall]
