"""Tier 1 (core) quality metrics of seed 000 / ADR-036: CSS, DDI, SAS and the warnings.

The definitions follow DESIGN.md exactly; components are kept unrounded and each reported
figure is rounded to three places.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from itertools import combinations

from harness.common.jsonscan import first_json_object
from harness.common.model import Frozen
from harness.common.text import jaccard, word_count

CSS_BANDS: tuple[tuple[float, str], ...] = (
    (0.85, "strong"),
    (0.70, "moderate"),
    (0.50, "weak"),
)
RICHNESS_WORDS = 50
# the body may not contain another fence: a lazy ``.*?`` across fences is quadratic on "```{" * n


def _clamp01(x: float) -> float:
    return max(0.0, min(1.0, x))


def consensus_strength_score(rankings: Iterable[tuple[str, float | None]]) -> float:
    """Consensus Strength Score over aggregate rankings.

    Args:
        rankings: ``(model, average_position)`` pairs; a lower position is better. A model with
            no votes (position ``None``) has no position and is left out.

    Returns:
        CSS in [0, 1], rounded to 3 places: 0.0 for no rankings, 1.0 for one or all tied.
    """
    positions = sorted(float(p) for _, p in rankings if p is not None)
    n = len(positions)
    if n == 0:
        return 0.0
    if n == 1 or positions[0] == positions[-1]:
        return 1.0
    winner_margin = min(1.0, (positions[1] - positions[0]) / (n - 1))
    range_ratio = (positions[-1] - positions[0]) / (n - 1)
    gaps = [b - a for a, b in zip(positions, positions[1:], strict=False)]
    gap_consistency = 1.0 / (1.0 + statistics.pvariance(gaps))
    ordering_clarity = 0.5 * range_ratio + 0.5 * gap_consistency
    non_tie = len(set(positions)) / n
    return round(_clamp01(0.4 * winner_margin + 0.4 * ordering_clarity + 0.2 * non_tie), 3)


def consensus_band(css: float) -> str:
    """The seed's interpretation band of a CSS value."""
    for threshold, name in CSS_BANDS:
        if css >= threshold:
            return name
    return "significant disagreement"


def review_justification(review_text: str) -> str:
    """The justification part of a stage-2 review.

    The text before ``FINAL RANKING:``; for a JSON ballot, the text outside the JSON block plus
    its free-text ``critique`` field; otherwise the whole stripped text.
    """
    if "FINAL RANKING:" in review_text:
        return review_text.split("FINAL RANKING:", 1)[0].strip()
    found = first_json_object(review_text)
    if found is None:
        return review_text.strip()
    start, end, obj = found
    outside = (review_text[:start] + " " + review_text[end:]).strip()
    critique = obj.get("critique")
    parts = [outside] if outside else []
    if isinstance(critique, str) and critique.strip():
        parts.append(critique.strip())
    return " ".join(parts)


class DDIComponents(Frozen):
    """The three DDI components, each rounded to 3 places."""

    diversity: float
    coverage: float
    richness: float


def deliberation_depth_index(answers: Sequence[str], reviews: Sequence[str]) -> tuple[float, dict[str, float]]:
    """Deliberation Depth Index.

    Args:
        answers: the stage-1 answer texts.
        reviews: the raw texts of the stage-2 reviews that were received.

    Returns:
        ``(ddi, {"diversity", "coverage", "richness"})``: DDI = .35 d + .35 c + .30 r from the
        unrounded components, then every figure rounded to 3 places. No answers gives all zeros.
    """
    if not answers:
        return 0.0, {"diversity": 0.0, "coverage": 0.0, "richness": 0.0}
    pairs = list(combinations(answers, 2))
    diversity = statistics.fmean(1.0 - jaccard(a, b) for a, b in pairs) if pairs else 0.0
    coverage = min(1.0, len(reviews) / len(answers))
    lengths = [word_count(j) for j in map(review_justification, reviews) if j.strip()]
    richness = min(1.0, statistics.fmean(lengths) / RICHNESS_WORDS) if lengths else 0.0
    ddi = 0.35 * diversity + 0.35 * coverage + 0.30 * richness
    components = {
        "diversity": round(diversity, 3),
        "coverage": round(coverage, 3),
        "richness": round(richness, 3),
    }
    return round(ddi, 3), components


class SynthesisAttribution(Frozen):
    """Synthesis Attribution Score fields, in the seed's JSON shape."""

    winner_alignment: float
    max_source_alignment: float
    hallucination_risk: float
    grounded: bool


def synthesis_attribution_score(
    synthesis: str,
    winning_responses: Sequence[str],
    all_responses: Sequence[str],
    grounding_threshold: float = 0.6,
) -> SynthesisAttribution:
    """Synthesis Attribution Score.

    Args:
        synthesis: the chairman's synthesis.
        winning_responses: the top-ranked answers (top 2); when empty the first answer stands in.
        all_responses: every stage-1 answer.
        grounding_threshold: ``grounded`` is ``max_source_alignment >= threshold`` (unrounded).

    Returns:
        the four fields, each float rounded to 3 places; empty input gives (0, 0, 1, False).
    """
    if not synthesis.strip() or not all_responses:
        return SynthesisAttribution(
            winner_alignment=0.0, max_source_alignment=0.0, hallucination_risk=1.0, grounded=False
        )
    winners = list(winning_responses) or [all_responses[0]]
    winner_alignment = statistics.fmean(jaccard(synthesis, w) for w in winners)
    max_alignment = max(jaccard(synthesis, r) for r in all_responses)
    return SynthesisAttribution(
        winner_alignment=round(winner_alignment, 3),
        max_source_alignment=round(max_alignment, 3),
        hallucination_risk=round(1.0 - max_alignment, 3),
        grounded=max_alignment >= grounding_threshold,
    )


def quality_warnings(css: float, ddi: float, sas: SynthesisAttribution) -> list[str]:
    """The seed's warnings for a council session, in the seed's order."""
    warnings: list[str] = []
    if css < 0.5:
        warnings.append("low_consensus")
    if ddi < 0.4:
        warnings.append("shallow_deliberation")
    if sas.hallucination_risk > 0.4:
        warnings.append("hallucination_risk")
    if not sas.grounded:
        warnings.append("synthesis_not_grounded")
    return warnings
