"""Rubric scoring with the accuracy ceiling (seed 004) and the per-dimension breakdown (seed 001, 2.3).

Five dimensions, weighted (defaults .35/.10/.20/.15/.20, configurable, summing to 1):
the base score is the weighted sum over the dimensions present; accuracy below 5 caps the
result at 4.0 and accuracy below 7 caps it at 7.0; the result is rounded to 2 places.
Accuracy is required: a missing accuracy score is an error, never a default of 10.

The stage-2 peer rubric of a council is summarized per member by :func:`peer_rubric_breakdown`;
the ceiling is applied to each reviewer's composite, and the member's composite is the mean of
those (never the ceiling of the mean accuracy); reviewers who ignored the rubric fall back to the
ranking-only (Borda) aggregation.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ValidationError

from harness.common.errors import ConfigError, HarnessError
from harness.common.model import Frozen
from harness.common.rubric_terms import RUBRIC_DIMENSIONS, RubricWeights, weights_error_message
from harness.common.rubric_terms import WEIGHT_ENV_VARS as WEIGHT_ENV_VARS  # the old import path
from harness.common.rubric_terms import weights_from_env as weights_from_env  # the old import path
from harness.records.transcript import Transcript

#: ``(accuracy below this, ceiling)`` in order: accuracy < 5 caps at 4.0, < 7 caps at 7.0.
ACCURACY_CEILINGS: tuple[tuple[float, float], ...] = ((5.0, 4.0), (7.0, 7.0))
NO_CEILING = 10.0
#: A dimension whose population standard deviation across reviewers exceeds this is flagged.
HIGH_VARIANCE_STD = 1.0
HIGH_VARIANCE_FLAG = "high variance suggests split opinions"

CeilingEffect = Literal["none", "capped_at_4", "capped_at_7"]
BreakdownMode = Literal["rubric", "ranking_only"]


class MissingAccuracyError(HarnessError, KeyError):
    """Rubric scores without an accuracy score (seed 004: fail-safe, never a default of 10).

    A :class:`KeyError` as in the seed, and a :class:`HarnessError` so it is shown as one clear line.
    """


class RubricScoreError(HarnessError, ValueError):
    """A rubric score that is not a finite number from 1 to 10."""


def resolve_weights(weights: RubricWeights | Mapping[str, float] | None) -> RubricWeights:
    """The weights to use.

    Args:
        weights: ``None`` for the seed's defaults, a :class:`RubricWeights`, or a mapping of
            dimension -> weight (missing dimensions take their default weight).

    Raises:
        ConfigError: a weight that is negative or not finite, an unknown dimension, or weights
            that do not sum to 1 within 0.001.
    """
    if weights is None:
        return RubricWeights()
    if isinstance(weights, RubricWeights):
        return weights
    try:
        return RubricWeights(**dict(weights))
    except (ValidationError, TypeError) as exc:
        raise ConfigError(
            f"invalid rubric weights {dict(weights)!r}: {weights_error_message(exc)}", "weights"
        ) from None


class CeilingScore(Frozen):
    """A weighted rubric score before and after the accuracy ceiling.

    Args:
        base: the weighted sum over the dimensions present, rounded to 2 places.
        ceiling: the cap set by accuracy (4.0, 7.0 or 10.0 for none).
        score: ``min(base, ceiling)`` rounded to 2 places.
        ceiling_applied: the ceiling actually lowered the score (``base > ceiling``).
        effect: ``capped_at_4`` / ``capped_at_7`` when the ceiling lowered the score, else ``none``.
    """

    base: float
    ceiling: float
    score: float
    ceiling_applied: bool
    effect: CeilingEffect


def accuracy_ceiling(accuracy: float) -> float:
    """The cap an accuracy score puts on the overall score: 4.0 below 5, 7.0 below 7, else 10.0."""
    for below, cap in ACCURACY_CEILINGS:
        if accuracy < below:
            return cap
    return NO_CEILING


def _check_score(dim: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RubricScoreError(f"expected a number from 1 to 10, got {value!r}", f"rubric score '{dim}'")
    if not 1 <= value <= 10:
        raise RubricScoreError(f"expected a number from 1 to 10, got {value!r}", f"rubric score '{dim}'")
    return float(value)


def score_with_ceiling(
    scores: Mapping[str, float], weights: RubricWeights | Mapping[str, float] | None = None
) -> CeilingScore:
    """Seed 004's scoring, with the intermediate figures kept.

    Args:
        scores: dimension -> score from 1 to 10; ``accuracy`` is required; dimensions that are
            not rubric dimensions are ignored, missing ones simply add nothing (as in the seed).
        weights: see :func:`resolve_weights`.

    Raises:
        MissingAccuracyError: no ``accuracy`` score.
        RubricScoreError: a score of a rubric dimension that is not a number from 1 to 10.
        ConfigError: invalid weights.
    """
    w = resolve_weights(weights).model_dump()
    if "accuracy" not in scores:
        raise MissingAccuracyError(
            "accuracy score is required (missing accuracy is an error, not a default of 10)", "rubric scores"
        )
    present = {d: _check_score(d, scores[d]) for d in RUBRIC_DIMENSIONS if d in scores}
    base = sum(present[d] * w[d] for d in present)
    ceiling = accuracy_ceiling(present["accuracy"])
    applied = base > ceiling
    effect: CeilingEffect = "none"
    if applied:
        effect = "capped_at_4" if ceiling == 4.0 else "capped_at_7"
    return CeilingScore(
        base=round(base, 2),
        ceiling=ceiling,
        score=round(min(base, ceiling), 2),
        ceiling_applied=applied,
        effect=effect,
    )


def weighted_score_with_ceiling(
    scores: Mapping[str, float], weights: RubricWeights | Mapping[str, float] | None = None
) -> float:
    """Weighted rubric score with accuracy acting as a ceiling (seed 004), rounded to 2 places.

    Args:
        scores: dimension -> score from 1 to 10 (``accuracy`` required).
        weights: ``None`` for .35/.10/.20/.15/.20, a :class:`RubricWeights` or a mapping.

    Raises:
        MissingAccuracyError: (a ``KeyError``) when accuracy is missing — fail-safe by design.
    """
    return score_with_ceiling(scores, weights).score


class DimensionStats(Frozen):
    """One rubric dimension over the reviewers who scored a member.

    Args:
        mean: mean score (rounded to 3 places).
        std: *population* standard deviation (``statistics.pstdev``, rounded to 3 places): it
            describes the reviewers at hand and is 0 for a single reviewer.
        n: how many reviewers gave this dimension.
        weight: the dimension's weight.
        ceiling_applied: accuracy only: whether the accuracy ceiling lowered any reviewer's composite.
        flag: ``"high variance suggests split opinions"`` when the unrounded std exceeds 1.0
            (:data:`HIGH_VARIANCE_STD`, our chosen threshold; the seed does not fix one).
    """

    mean: float
    std: float
    n: int
    weight: float
    ceiling_applied: bool | None = None
    flag: str | None = None


class RubricBreakdown(Frozen):
    """The stage-2 peer rubric for one member's answer (seed 001 section 2.3).

    Args:
        member: the member whose answer was scored.
        mode: ``rubric`` when at least one reviewer scored it on the rubric; ``ranking_only``
            when every reviewer ignored the rubric (a holistic score or no scores) and only the
            ranking-based (Borda) aggregation stands.
        n_reviews: rubric score sets used (``mode == "rubric"``), else ballots that ranked it.
        n_ranking_only: reviews of this member that fell back to ranking only.
        dimensions: per-dimension statistics (empty in ``ranking_only`` mode).
        weighted_composite: the mean over reviewers of each reviewer's
            :func:`score_with_ceiling` (the accuracy ceiling is applied per reviewer, then
            averaged), rounded to 2 places; ``None`` in ``ranking_only`` mode.
        accuracy_ceiling_effect: the strongest cap that lowered any reviewer's composite:
            ``capped_at_4`` if any, else ``capped_at_7`` if any, else ``none``.
        n_capped: how many reviewers' composites the ceiling lowered.
        borda: the member's aggregate normalized Borda score (the ranking-based fallback).
    """

    member: str
    mode: BreakdownMode
    n_reviews: int
    n_ranking_only: int = 0
    dimensions: dict[str, DimensionStats] = {}
    weighted_composite: float | None = None
    accuracy_ceiling_effect: CeilingEffect = "none"
    n_capped: int = 0
    borda: float | None = None

    def seed_json(self) -> dict[str, Any]:
        """The seed's ``rubric_breakdown`` JSON shape (dimensions at the top level)."""
        out: dict[str, Any] = {d: s.model_dump(exclude_none=True) for d, s in self.dimensions.items()}
        out["weighted_composite"] = self.weighted_composite
        out["accuracy_ceiling_effect"] = self.accuracy_ceiling_effect
        out["mode"] = self.mode
        out["n_reviews"] = self.n_reviews
        return out


def _dimension_stats(values: list[float], weight: float) -> DimensionStats:
    std = statistics.pstdev(values) if len(values) > 1 else 0.0
    return DimensionStats(
        mean=round(statistics.fmean(values), 3),
        std=round(std, 3),
        n=len(values),
        weight=weight,
        flag=HIGH_VARIANCE_FLAG if std > HIGH_VARIANCE_STD else None,
    )


def rubric_breakdown(
    member: str,
    score_sets: list[Mapping[str, float]],
    weights: RubricWeights | Mapping[str, float] | None = None,
    *,
    n_ranking_only: int = 0,
    n_ranked: int = 0,
    borda: float | None = None,
) -> RubricBreakdown:
    """Aggregate the rubric score sets several reviewers gave one answer.

    Args:
        member: whose answer was scored.
        score_sets: one dimension -> score mapping per reviewer; each must contain accuracy
            (callers drop the sets that do not); other non-rubric keys are ignored.
        weights: see :func:`resolve_weights`.
        n_ranking_only: reviews that fell back to ranking only (recorded).
        n_ranked: ballots that ranked the member (``n_reviews`` when there are no score sets).
        borda: the member's aggregate Borda score, if known.
    """
    w = resolve_weights(weights)
    if not score_sets:
        return RubricBreakdown(
            member=member, mode="ranking_only", n_reviews=n_ranked, n_ranking_only=n_ranking_only, borda=borda
        )
    wd = w.model_dump()
    per_dim: dict[str, list[float]] = {d: [] for d in RUBRIC_DIMENSIONS}
    for scores in score_sets:
        for d in RUBRIC_DIMENSIONS:
            if d in scores:
                per_dim[d].append(_check_score(d, scores[d]))
    stats = {d: _dimension_stats(v, wd[d]) for d, v in per_dim.items() if v}
    # the ceiling is applied to each reviewer's own composite, then averaged: one reviewer's
    # accuracy 4 (capped at 4) and another's 10 must not average to 7 and escape the cap
    per_reviewer = [score_with_ceiling(scores, w) for scores in score_sets]
    capped = [c for c in per_reviewer if c.ceiling_applied]
    effect: CeilingEffect = "none"
    if capped:
        effect = "capped_at_4" if any(c.effect == "capped_at_4" for c in capped) else "capped_at_7"
    stats["accuracy"] = stats["accuracy"].model_copy(update={"ceiling_applied": bool(capped)})
    return RubricBreakdown(
        member=member,
        mode="rubric",
        n_reviews=len(score_sets),
        n_ranking_only=n_ranking_only,
        dimensions=stats,
        weighted_composite=round(statistics.fmean(c.score for c in per_reviewer), 2),
        accuracy_ceiling_effect=effect,
        n_capped=len(capped),
        borda=borda,
    )


def _valid_scores(scores: Mapping[str, Any]) -> dict[str, float]:
    """The rubric dimensions of a parsed score set that are finite numbers from 1 to 10."""
    out: dict[str, float] = {}
    for d in RUBRIC_DIMENSIONS:
        v = scores.get(d)
        if not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v) and 1 <= v <= 10:
            out[d] = float(v)
    return out


def peer_rubric_breakdown(
    transcript: Transcript, weights: RubricWeights | Mapping[str, float] | None = None
) -> dict[str, RubricBreakdown]:
    """Per-member rubric breakdown from a council transcript's stage-2 ballots.

    Args:
        transcript: the council transcript; ``label_to_member`` maps ``Response X`` to members
            and each review's ``ballot.scores`` holds label -> dimension -> 1..10.
        weights: see :func:`resolve_weights` (usually ``settings.weights``).

    Self-scores are excluded. Failed or abstained reviews are skipped. Scores outside 1..10 are
    dropped. A ballot that is ``holistic``, carries no scores, or has no usable score set (with
    accuracy) for a member
    counts as ranking-only for that member (the seed's fallback). Members that no reviewer
    scored on the rubric get ``mode="ranking_only"`` and their Borda standing.

    Returns:
        member id -> breakdown, for every member that has an anonymized label.
    """
    w = resolve_weights(weights)
    borda = {r.member: r.borda for r in transcript.aggregate}
    member_to_label = {m: lab for lab, m in transcript.label_to_member.items()}
    out: dict[str, RubricBreakdown] = {}
    for member, label in member_to_label.items():
        sets: list[Mapping[str, float]] = []
        ranking_only = ranked = 0
        for review in transcript.reviews:
            ballot = review.ballot
            if not review.ok or ballot.abstained or review.reviewer == member:
                continue
            if label in ballot.ranking:
                ranked += 1
            scores = None if ballot.holistic else _valid_scores(ballot.scores.get(label) or {})
            if scores and "accuracy" in scores:
                sets.append(scores)
            elif label in ballot.ranking:
                ranking_only += 1
        out[member] = rubric_breakdown(
            member, sets, w, n_ranking_only=ranking_only, n_ranked=ranked, borda=borda.get(member)
        )
    return out


def peer_composite(breakdowns: Mapping[str, RubricBreakdown]) -> float | None:
    """The ``peer_composite`` score: mean weighted composite over the members scored on the rubric.

    Args:
        breakdowns: the result of :func:`peer_rubric_breakdown`.

    Returns:
        The mean rounded to 2 places, or ``None`` when no member was scored on the rubric.
    """
    values = [b.weighted_composite for b in breakdowns.values() if b.weighted_composite is not None]
    return round(statistics.fmean(values), 2) if values else None
