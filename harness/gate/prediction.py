"""The seed-002 prediction, "3-model consensus is >15% better than one model", from a run's results."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.common.model import Frozen
from harness.gate.artifacts import arm_artifacts, arm_words
from harness.gate.verdict_plan import VerdictPlan, verdict_plan
from harness.run.result import CaseResult
from harness.stats import (
    MIN_INFORMATIVE_PAIRS,
    PredictionReport,
    evaluate_prediction,
    verdict_headline,
    verdict_sentence,
)
from harness.stats.artifacts import artifact_warning


def prediction(
    plan: VerdictPlan, results: Sequence[CaseResult], n_resamples: int = 10_000, seed: int = 0
) -> PredictionReport | None:
    """Evaluate the prediction over every family of ``plan`` (its threshold and primary endpoint); ``None``
    when no family has pairs.

    Args:
        plan: the run's verdict inputs (:func:`harness.gate.verdict_plan.verdict_plan`).
        results: the run's results (for the arms' measurement artifacts).
        n_resamples, seed: Monte-Carlo sign patterns (above 14 pairs).
    """
    if not plan.families:
        return None
    report = evaluate_prediction(
        plan.families,
        threshold=plan.threshold,
        by_category=plan.categories,
        n_resamples=n_resamples,
        seed=seed,
        primary=plan.primary,
        primary_reason=plan.primary_reason,
        scales=plan.scales,
    )
    arms = tuple(arm_artifacts(results, s) for s in ("council", "baseline"))
    return report.model_copy(update={"arms": arms, "artifact_warning": artifact_warning(arms)})


def prediction_from_results(
    results: Sequence[CaseResult],
    threshold: float = 0.15,
    n_resamples: int = 10_000,
    seed: int = 0,
    primary_endpoint: str | None = None,
) -> PredictionReport | None:
    """:func:`prediction` over the plan of ``results`` alone (``primary_endpoint``: the configured one;
    ``None`` for :func:`~harness.gate.verdict_plan.default_primary`)."""
    return prediction(verdict_plan(results, threshold, primary_endpoint), results, n_resamples, seed)


def verdict_lines(report: PredictionReport) -> list[str]:
    """The primary verdict first, in words; then the secondary (exploratory) overall verdicts.

    Per-category verdicts are in the report and summary.json, not on the console.
    """
    lines: list[str] = []
    head = report.headline
    if head is not None:
        lines.append(f"primary endpoint: {verdict_sentence(head)}")
        if head.verdict == "insufficient_data":
            lines.append(INSUFFICIENT_DATA_EXPLAINED)
        if head.warning:
            lines.append(f"warning: {head.warning}")
        lines.append(arms_line(report))
        if report.artifact_warning:
            lines.append(f"warning: {report.artifact_warning}")
    for v in report.overall:
        if v.role == "primary":
            continue
        lines.append(f"secondary (exploratory, {v.confidence:.4g} interval): {verdict_sentence(v)}")
        if v.warning:
            lines.append(f"warning: {v.warning}")
    return lines


def arms_line(report: PredictionReport) -> str:
    """Per arm, the truncation rate of the final answers, the extraction-failure and ambiguity
    rates, and how many answers followed the answer format."""
    return "measurement: " + "; ".join(arm_words(a) for a in report.arms) if report.arms else "measurement: no arm data"


#: One sentence that explains ``insufficient_data``, for the CLI and the report.
INSUFFICIENT_DATA_EXPLAINED = (
    f"insufficient data means fewer than {MIN_INFORMATIVE_PAIRS} cases where the two subjects' scores differ "
    "in a way that bears on the claim, too few to call the prediction either way; add cases or rerun with more."
)


class VerdictRecord(Frozen):
    """One verdict as summary.json stores it (section ``"verdicts"``).

    Args:
        family, scope, role: which verdict (``role``: ``primary`` or ``secondary``).
        n, n_informative: pairs, and pairs with ``council != (1 + threshold) * baseline``.
        mean_council, mean_baseline: the two means.
        effect: the relative improvement (ratio of means minus one); effect_low, effect_high: its interval.
        difference, difference_low, difference_high: ``mean(council - (1 + threshold) * baseline)`` and
            the interval that decides.
        confidence: the intervals' level; method: how they were computed.
        p_value: one-sided sign-flip p; mcnemar_p: binary families only.
        verdict: ``supported``, ``refuted``, ``inconclusive`` or ``insufficient_data``.
        sentence: the verdict in words; reason: why ``insufficient_data``; warning: a sign of a broken scorer.
    """

    family: str
    scope: str
    role: str
    n: int
    n_informative: int
    mean_council: float
    mean_baseline: float
    effect: float
    effect_low: float
    effect_high: float
    difference: float
    difference_low: float
    difference_high: float
    confidence: float
    method: str
    p_value: float
    mcnemar_p: float | None
    verdict: str
    sentence: str
    reason: str
    warning: str


def verdict_records(report: PredictionReport) -> dict[str, object]:
    """The ``"verdicts"`` section of summary.json: the settings, the primary verdict, then every verdict."""
    records = [
        VerdictRecord(
            family=v.family,
            scope=v.scope,
            role=v.role,
            n=v.n,
            n_informative=v.n_informative,
            mean_council=v.mean_council,
            mean_baseline=v.mean_baseline,
            effect=v.relative_improvement,
            effect_low=v.ci_low,
            effect_high=v.ci_high,
            difference=v.mean_difference,
            difference_low=v.diff_low,
            difference_high=v.diff_high,
            confidence=v.confidence,
            method=v.method,
            p_value=v.p_value,
            mcnemar_p=v.mcnemar_p,
            verdict=v.verdict,
            sentence=verdict_headline(v),
            reason=v.reason,
            warning=v.warning,
        ).model_dump(mode="json")
        for v in report.every()
    ]
    head = report.headline
    return {
        "threshold": report.threshold,
        "rule": VERDICT_RULE,
        "min_informative_pairs": MIN_INFORMATIVE_PAIRS,
        "primary": head.family if head is not None else None,
        "primary_reason": report.primary_reason,
        "primary_verdict": head.verdict if head is not None else None,
        "confidence": report.confidence,
        "secondary_confidence": report.secondary_confidence,
        "n_secondary": report.n_secondary,
        "arms": [
            dict(
                a.model_dump(mode="json"),
                truncation_rate=a.truncation_rate,
                extraction_failure_rate=a.extraction_failure_rate,
                ambiguity_rate=a.ambiguity_rate,
                format_rate=a.format_rate,
            )
            for a in report.arms
        ],
        "artifact_warning": report.artifact_warning,
        "records": records,
    }


#: The verdict rule in words (summary.json, README and the report say the same).
VERDICT_RULE = (
    f"fewer than {MIN_INFORMATIVE_PAIRS} informative pairs: insufficient_data; else supported when the interval "
    "of mean(council - (1 + threshold) * baseline) is above 0, refuted when it is below 0, else inconclusive"
)


def write_verdicts(run_dir: Path, report: PredictionReport | None) -> Path:
    """Write the ``"verdicts"`` section of ``<run_dir>/summary.json`` (``null`` when nothing was paired)."""
    from harness.run.summary import update_summary

    payload: dict[str, object] = (
        verdict_records(report)
        if report is not None
        else {
            "primary_verdict": None,
            "reason": "no score family has cases scored for both the council and the baseline",
            "records": [],
        }
    )
    return update_summary(run_dir, "verdicts", payload)
