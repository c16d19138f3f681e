"""Per-session bias audit (ADR-015, as referenced by seed 003): indicators, not statistical proof.

One council session has few data points (seed 003: "the current per-session metrics are
indicators"), so these figures are flags to collect and aggregate across sessions
(:mod:`harness.bias.aggregate`), never inputs to a live vote.

Definitions (the one place for each):

* **Pair score** -- one score per (reviewer, candidate) pair, self-scores excluded (a reviewer
  never scores its own answer). When the reviewer's ballot carries rubric scores
  (``ballot.scores``: label -> dimension -> 1..10, not holistic), the candidate's score is seed
  004's weighted composite with the accuracy ceiling
  (:func:`harness.metrics.rubric.weighted_score_with_ceiling`, the configured weights) when all
  five rubric dimensions are present; a partial rubric (a dimension or accuracy missing) falls
  back to the unweighted mean of the dimensions given, since the composite would be deflated by
  the missing weights and requires accuracy (:func:`rubric_score`). Candidates the ballot ranked
  but did not score are left out, so rubric and ranking scales are never mixed inside one ballot.
  Otherwise the score comes from the ranking: the ballot is cleaned of self-votes and re-indexed
  exactly as in :func:`harness.council.ranking.aggregate_rankings`, and a candidate at 0-based
  position ``p`` of ``k`` gets ``1 + 9 * borda`` with ``borda = (k-1-p)/(k-1)``
  (:func:`ranking_score`), which maps the best to 10 and the worst to 1 so that every score is
  on the records' ``"1-10"`` scale. Abstained and failed reviews give no scores.
* **Display position** -- the candidate's 1-based position in the order the reviewer saw
  (``Review.presentation_order``, which includes the reviewer's own answer).
* **Length-score correlation** -- Pearson r (``scipy.stats.pearsonr``) between the candidate's
  answer length in characters and the pair score, over all pairs of the session. Pairs that
  share a candidate are not independent, so the p-value is optimistic: an indicator only.
  Undefined (``None`` with a reason) with fewer than 3 pairs or constant lengths or scores.
  Flagged when ``|r| > 0.3`` and ``p < 0.05`` (the defaults of the reference implementation).
* **Position bias** -- the sample variance (n-1) of the per-display-position mean scores over
  the positions that received scores (:func:`position_variance`); undefined with fewer than
  2 positions. Flagged when above 0.5 (score points squared on the 1-10 scale).
* **Reviewer calibration** -- each reviewer's mean score given against the median of the
  reviewer means: ``harsh`` when below it by more than 1.0 point, ``generous`` when above it by
  more than 1.0 point, else ``typical``. An absolute threshold (rather than one standard deviation
  of three or four means) keeps tiny spreads from being flagged.
* **Position consistency** -- for each reviewer whose ballot was evaluated in the presented
  order and in its reverse (probability ballots, :mod:`harness.council.ballots`): whether both
  orders picked the same winner (``Review.position_consistent``). Recorded per session; the
  run-level rate per reviewer is the share of its two-order ballots that were consistent. Not
  one of the risk flags (a 135M reviewer is inconsistent by design; the averaging cancels it).
* **Overall risk** -- count the flags (length bias, position bias, any harsh reviewer, any
  generous reviewer): 0 -> ``low``, 1-2 -> ``medium``, 3-4 -> ``high``.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Literal

from harness.common.model import Frozen
from harness.common.rubric_terms import RUBRIC_DIMENSIONS, RubricWeights
from harness.council.ranking import borda_points
from harness.metrics.rubric import weighted_score_with_ceiling
from harness.records.transcript import Review, Transcript

LENGTH_CORRELATION_THRESHOLD = 0.3
LENGTH_P_THRESHOLD = 0.05
POSITION_VARIANCE_THRESHOLD = 0.5
CALIBRATION_THRESHOLD = 1.0
SCORE_MIN = 1.0
SCORE_MAX = 10.0

ScoreSource = Literal["rubric", "ranking"]
CalibrationLabel = Literal["harsh", "generous", "typical"]
RiskLevel = Literal["low", "medium", "high"]


class PairScore(Frozen):
    """One reviewer's score of one candidate in one session.

    Args:
        reviewer: the reviewing member id.
        candidate: the scored member id (never the reviewer).
        label: the anonymized label the reviewer saw (``Response B``).
        position: 1-based display position of the candidate in the reviewer's presentation order.
        length_chars: length of the candidate's stage-1 answer in characters.
        score: the score on the 1-10 scale.
        source: ``rubric`` (rubric composite) or ``ranking`` (1 + 9 * normalized Borda).
    """

    reviewer: str
    candidate: str
    label: str
    position: int
    length_chars: int
    score: float
    source: ScoreSource


class LengthCorrelation(Frozen):
    """Pearson correlation of answer length (characters) with score over a session's pairs.

    Args:
        r: Pearson r, ``None`` when undefined.
        p_value: two-sided p-value of ``scipy.stats.pearsonr``, ``None`` when undefined.
        n: number of (reviewer, candidate) pairs.
        reason: why r is undefined (``None`` when it is defined).
        detected: ``|r| > 0.3`` and ``p < 0.05``.
    """

    r: float | None
    p_value: float | None
    n: int
    reason: str | None = None
    detected: bool = False


class PositionMean(Frozen):
    """Mean score of the candidates shown at one display position."""

    position: int
    mean_score: float
    n: int


class PositionBias(Frozen):
    """Spread of mean scores over display positions.

    Args:
        position_means: per-position mean scores, by position.
        variance: sample variance of the position means, ``None`` when undefined.
        reason: why the variance is undefined.
        detected: variance above :data:`POSITION_VARIANCE_THRESHOLD`.
    """

    position_means: tuple[PositionMean, ...]
    variance: float | None
    reason: str | None = None
    detected: bool = False


class ReviewerCalibration(Frozen):
    """How one reviewer's mean score compares with the median of the reviewer means.

    Args:
        reviewer: the member id.
        mean_score: mean of the scores it gave (self-scores excluded).
        n: number of scores it gave.
        deviation: ``mean_score`` minus the median of all reviewer means.
        label: ``harsh`` / ``generous`` beyond :data:`CALIBRATION_THRESHOLD` points, else ``typical``.
    """

    reviewer: str
    mean_score: float
    n: int
    deviation: float
    label: CalibrationLabel


class SessionBiasAudit(Frozen):
    """The bias indicators of one council session.

    Args:
        scores: every (reviewer, candidate) pair score.
        length_correlation: length-score Pearson r.
        position_bias: variance of display-position means.
        reviewers: per-reviewer calibration, by reviewer id.
        median_reviewer_mean: median of the reviewer means (``None`` without scores).
        risk: ``low`` / ``medium`` / ``high`` (see the module docstring).
        risk_factors: the flags that raised the risk (``length_bias``, ``position_bias``,
            ``harsh_reviewer``, ``generous_reviewer``).
        position_consistency: reviewer -> its two-order ballot picked the same winner in both
            orders (only reviewers whose ballot was evaluated in both orders).
    """

    scores: tuple[PairScore, ...]
    length_correlation: LengthCorrelation
    position_bias: PositionBias
    reviewers: tuple[ReviewerCalibration, ...]
    median_reviewer_mean: float | None
    risk: RiskLevel
    risk_factors: tuple[str, ...]
    position_consistency: dict[str, bool] = {}

    @property
    def harsh_reviewers(self) -> list[str]:
        return [r.reviewer for r in self.reviewers if r.label == "harsh"]

    @property
    def generous_reviewers(self) -> list[str]:
        return [r.reviewer for r in self.reviewers if r.label == "generous"]


def rubric_score(dimensions: Mapping[str, float], weights: RubricWeights | None = None) -> float:
    """A candidate's 1-10 score from one reviewer's rubric (see the module docstring).

    All five rubric dimensions present: seed 004's weighted composite with the accuracy ceiling.
    Otherwise: the unweighted mean of the dimensions given.

    Args:
        dimensions: rubric dimension -> score (1..10), as parsed into ``Ballot.scores``.
        weights: the rubric weights (``None``: the seed's .35/.10/.20/.15/.20).
    """
    if not dimensions:
        raise ValueError("rubric_score needs at least one dimension")
    if all(d in dimensions for d in RUBRIC_DIMENSIONS):
        return weighted_score_with_ceiling(dimensions, weights)
    return sum(dimensions.values()) / len(dimensions)


def ranking_score(position: int, k: int) -> float:
    """A score on the 1-10 scale from a 0-based ballot position: ``1 + 9 * (k-1-position)/(k-1)``.

    Args:
        position: 0-based position in the cleaned (self-votes removed) ballot.
        k: number of candidates in that ballot.
    """
    return SCORE_MIN + (SCORE_MAX - SCORE_MIN) * borda_points(position, k)


def _review_pairs(review: Review, transcript: Transcript, weights: RubricWeights | None) -> list[PairScore]:
    if not review.ok or review.ballot.abstained:
        return []
    mapping = transcript.label_to_member
    shown = {label: i + 1 for i, label in enumerate(review.presentation_order)}
    lengths = {a.member: len(a.text) for a in transcript.answers if a.ok}

    def usable(label: str) -> bool:
        member = mapping.get(label)
        return member is not None and member != review.reviewer and label in shown and member in lengths

    scored: list[tuple[str, float, ScoreSource]] = []
    ballot = review.ballot
    if ballot.scores and not ballot.holistic:
        scored = [
            (label, rubric_score(dims, weights), "rubric")
            for label, dims in ballot.scores.items()
            if dims and usable(label)
        ]
    else:
        cleaned = [label for label in ballot.ranking if usable(label)]
        k = len(cleaned)
        scored = [(label, ranking_score(pos, k), "ranking") for pos, label in enumerate(cleaned)]
    return [
        PairScore(
            reviewer=review.reviewer,
            candidate=mapping[label],
            label=label,
            position=shown[label],
            length_chars=lengths[mapping[label]],
            score=score,
            source=source,
        )
        for label, score, source in sorted(scored, key=lambda item: shown[item[0]])
    ]


def pair_scores(transcript: Transcript, weights: RubricWeights | None = None) -> tuple[PairScore, ...]:
    """Every (reviewer, candidate) score of a transcript, self-scores excluded (see module docstring).

    Args:
        transcript: the council transcript (its stage-2 reviews, labels and stage-1 answers).
        weights: rubric weights for the composite (``None``: the seed's defaults).
    """
    return tuple(p for review in transcript.reviews for p in _review_pairs(review, transcript, weights))


def length_score_correlation(lengths: Sequence[float], scores: Sequence[float]) -> LengthCorrelation:
    """Pearson r of lengths against scores, with its p-value, or ``None`` and a reason.

    Args:
        lengths: answer lengths in characters, one per pair.
        scores: the matching scores.
    """
    n = len(lengths)
    if n != len(scores):
        raise ValueError("lengths and scores must have the same length")
    if n < 3:
        return LengthCorrelation(r=None, p_value=None, n=n, reason=f"fewer than 3 scored pairs ({n})")
    if len(set(lengths)) == 1:
        return LengthCorrelation(r=None, p_value=None, n=n, reason="all answers have the same length")
    if len(set(scores)) == 1:
        return LengthCorrelation(r=None, p_value=None, n=n, reason="all scores are equal")
    import scipy.stats  # on first use: importing this module (e.g. for its record types) stays light

    result = scipy.stats.pearsonr(lengths, scores)
    r, p = float(result.statistic), float(result.pvalue)
    detected = abs(r) > LENGTH_CORRELATION_THRESHOLD and p < LENGTH_P_THRESHOLD
    return LengthCorrelation(r=r, p_value=p, n=n, detected=detected)


def position_variance(means: Sequence[float]) -> float:
    """Sample variance (n-1) of per-position mean scores; needs at least two positions.

    Args:
        means: one mean score per display position.
    """
    if len(means) < 2:
        raise ValueError("position variance needs at least two positions")
    return float(statistics.variance(means))


def position_bias(pairs: Sequence[PairScore]) -> PositionBias:
    """Mean score per display position and the variance of those means.

    Args:
        pairs: the session's pair scores.
    """
    by_position: dict[int, list[float]] = defaultdict(list)
    for p in pairs:
        by_position[p.position].append(p.score)
    means = tuple(
        PositionMean(position=pos, mean_score=statistics.fmean(vals), n=len(vals))
        for pos, vals in sorted(by_position.items())
    )
    if len(means) < 2:
        return PositionBias(
            position_means=means, variance=None, reason=f"scores at fewer than 2 display positions ({len(means)})"
        )
    var = position_variance([m.mean_score for m in means])
    return PositionBias(position_means=means, variance=var, detected=var > POSITION_VARIANCE_THRESHOLD)


def reviewer_calibration(pairs: Sequence[PairScore]) -> tuple[tuple[ReviewerCalibration, ...], float | None]:
    """Each reviewer's mean score against the median of reviewer means.

    Args:
        pairs: the session's pair scores.

    Returns:
        The calibrations (by reviewer id) and the median of the reviewer means (``None`` when empty).
    """
    given: dict[str, list[float]] = defaultdict(list)
    for p in pairs:
        given[p.reviewer].append(p.score)
    if not given:
        return (), None
    means = {rev: statistics.fmean(vals) for rev, vals in given.items()}
    median = float(statistics.median(means.values()))
    out = []
    for rev in sorted(means):
        dev = means[rev] - median
        label: CalibrationLabel = (
            "harsh" if dev < -CALIBRATION_THRESHOLD else "generous" if dev > CALIBRATION_THRESHOLD else "typical"
        )
        out.append(
            ReviewerCalibration(reviewer=rev, mean_score=means[rev], n=len(given[rev]), deviation=dev, label=label)
        )
    return tuple(out), median


def overall_risk(factors: Sequence[str]) -> RiskLevel:
    """``low`` with no flag, ``medium`` with one or two, ``high`` with three or more.

    Args:
        factors: the names of the raised flags.
    """
    count = len(factors)
    return "low" if count == 0 else "medium" if count <= 2 else "high"


def audit_session(transcript: Transcript, weights: RubricWeights | None = None) -> SessionBiasAudit | None:
    """Audit one council session for length, position and reviewer-calibration bias.

    Args:
        transcript: the session's transcript; ``None`` is returned when it has no stage-2 reviews
            (a single-model baseline, or a council where fewer than two members answered).
        weights: rubric weights for rubric ballots (``None``: the seed's defaults).
    """
    if not transcript.reviews:
        return None
    pairs = pair_scores(transcript, weights)
    length = length_score_correlation([p.length_chars for p in pairs], [p.score for p in pairs])
    position = position_bias(pairs)
    reviewers, median = reviewer_calibration(pairs)
    factors = []
    if length.detected:
        factors.append("length_bias")
    if position.detected:
        factors.append("position_bias")
    if any(r.label == "harsh" for r in reviewers):
        factors.append("harsh_reviewer")
    if any(r.label == "generous" for r in reviewers):
        factors.append("generous_reviewer")
    return SessionBiasAudit(
        scores=pairs,
        length_correlation=length,
        position_bias=position,
        reviewers=reviewers,
        median_reviewer_mean=median,
        risk=overall_risk(factors),
        risk_factors=tuple(factors),
        position_consistency={
            r.reviewer: r.position_consistent for r in transcript.reviews if r.position_consistent is not None
        },
    )
