"""Cross-model calibration report (seed 001 section 2.2) from the council transcripts of one or more runs.

Definitions (the one place for each):

* **Session** -- one council transcript with stage-2 reviews (one case through one council-like
  subject of one run), as in the bias store; ``session_count`` counts them and
  ``confidence_level`` is seed 003's tier of that count (:func:`harness.bias.figures.confidence_tier`).
* **Scores** -- the per-session pair scores of :func:`harness.bias.audit.pair_scores` (rubric
  composite when the ballot carries rubric scores, else ``1 + 9 * normalized Borda`` of the cleaned
  ranking; self-scores excluded), under the rubric weights of the run's manifest.
* ``mean_score_given`` -- mean of the scores a member gave; ``mean_score_received`` -- mean of the
  scores its answers got; ``calibration_delta = given - received`` (negative: a harsh scorer).
* ``self_preference_rate`` -- the share of a member's raw ballots (``Review.ballot.ranking``, which
  still holds the self-vote that aggregation drops) that put its own answer first, over the usable
  reviews in which its own answer was on the table (not failed or abstained, non-empty ranking, own
  label in the presentation order). The chance rate is the mean of ``1 / candidates shown``.
* **Recommendations** -- a member whose ``mean_score_given`` lies at least 0.5 points
  (:data:`CALIBRATION_NOTE_POINTS`) from the median of the members' means (a softer cut than the
  bias audit's 1.0-point ``harsh`` label: this is advice, not a flag); a member that ranks itself
  first at least twice as often as chance over 3 or more ballots; the pooled cross-session
  length-score correlation (:func:`harness.bias.aggregate.pooled_length_correlation` over the
  sessions' bias records) when ``|r| >= 0.3``; position bias as the bias audit defines it.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import yaml

from harness.bias.aggregate import pooled_length_correlation
from harness.bias.audit import LENGTH_CORRELATION_THRESHOLD, PairScore, PositionBias, pair_scores, position_bias
from harness.bias.figures import BiasMetricReport, ConfidenceTier, confidence_tier
from harness.bias.store import ConsentLevel, records_from_transcript
from harness.common.errors import HarnessError, StoreError
from harness.common.formatting import mean
from harness.common.model import Frozen
from harness.common.rubric_terms import RubricWeights
from harness.metrics.rubric import resolve_weights
from harness.records.transcript import Transcript
from harness.run.runs import MANIFEST, Run
from harness.tier2.temporal import run_started

CALIBRATION_NOTE_POINTS = 0.5
SELF_PREFERENCE_FACTOR = 2.0
MIN_SELF_PREFERENCE_BALLOTS = 3
#: ``(|r| below this, word)``: the usual reading of a correlation's size.
CORRELATION_WORDS: tuple[tuple[float, str], ...] = ((0.1, "negligible"), (0.3, "weak"), (0.5, "moderate"))


class CouncilSession(Frozen):
    """One council transcript with stage-2 reviews, from a run.

    Args:
        session_id: ``<run id>/<dataset>/<case id>/<subject>``.
        timestamp: the run's start time.
        transcript: the transcript.
        weights: the rubric weights the run used (from its manifest).
    """

    session_id: str
    timestamp: datetime
    transcript: Transcript
    weights: RubricWeights


def run_weights(run: Run) -> RubricWeights:
    """The rubric weights recorded in a run's manifest (the seed's defaults when none are recorded).

    Args:
        run: the run.

    Raises:
        StoreError: the recorded weights are not valid weights.
    """
    try:
        return resolve_weights(run.manifest.config.get("weights"))
    except HarnessError as exc:
        raise StoreError(f"config.weights: {exc.message}", str(run.run_dir / MANIFEST)) from None


def council_sessions(runs: Sequence[Run], subject: str | None = "council") -> list[CouncilSession]:
    """The council sessions of some runs, in run order then result order.

    Args:
        runs: the runs.
        subject: keep only this subject's transcripts (``None``: every subject with stage-2 reviews).
    """
    out: list[CouncilSession] = []
    for run in runs:
        weights = run_weights(run)
        when = run_started(run.manifest, str(run.run_dir / MANIFEST))
        for r in run.results:
            t = r.transcript
            if t is None or not t.reviews or (subject is not None and r.subject != subject):
                continue
            out.append(
                CouncilSession(
                    session_id=f"{run.run_id}/{r.dataset}/{r.case_id}/{r.subject}",
                    timestamp=when,
                    transcript=t,
                    weights=weights,
                )
            )
    return out


class SelfPreference(Frozen):
    """How often one member's raw ballots put its own answer first.

    Args:
        first: ballots with its own answer first.
        ballots: usable ballots in which its own answer was shown.
        chance_sum: the sum over those ballots of ``1 / candidates shown``.
    """

    first: int = 0
    ballots: int = 0
    chance_sum: float = 0.0


def self_preference(transcript: Transcript) -> dict[str, SelfPreference]:
    """Per reviewer, the self-first count of its raw ballots in one transcript (see the module docstring).

    Args:
        transcript: a council transcript.
    """
    own_label = {member: label for label, member in transcript.label_to_member.items()}
    out: dict[str, SelfPreference] = {}
    for review in transcript.reviews:
        ballot = review.ballot
        label = own_label.get(review.reviewer)
        if not review.ok or ballot.abstained or not ballot.ranking or label not in review.presentation_order:
            continue
        prev = out.get(review.reviewer, SelfPreference())
        out[review.reviewer] = SelfPreference(
            first=prev.first + (ballot.ranking[0] == label),
            ballots=prev.ballots + 1,
            chance_sum=prev.chance_sum + 1.0 / len(review.presentation_order),
        )
    return out


class ModelCalibration(Frozen):
    """One council member across the sessions.

    Args:
        member: the member id (as in transcripts).
        model: the model the member ran (last seen), if known.
        mean_score_given: mean score it gave (1-10), rounded to 3 places; ``None`` when it gave none.
        mean_score_received: mean score its answers got; ``None`` when they got none.
        calibration_delta: ``given - received`` (unrounded means), rounded to 3 places.
        self_preference_rate: share of its usable ballots that rank its own answer first.
        self_preference_chance: the rate expected by chance over the same ballots.
        deviation_from_median: ``mean_score_given`` minus the median of the members' means.
        scores_given: how many scores it gave.
        scores_received: how many scores it got.
        ballots: usable ballots behind ``self_preference_rate``.
    """

    member: str
    model: str | None = None
    mean_score_given: float | None
    mean_score_received: float | None
    calibration_delta: float | None
    self_preference_rate: float | None
    self_preference_chance: float | None = None
    deviation_from_median: float | None = None
    scores_given: int = 0
    scores_received: int = 0
    ballots: int = 0


class CalibrationReport(Frozen):
    """Seed 001's ``calibration_report``.

    Args:
        session_count: council sessions behind the figures.
        confidence_level: seed 003's tier of ``session_count``.
        models: one entry per member, sorted by member id.
        median_score_given: median of the members' ``mean_score_given``.
        position_bias: mean score per display position over all pair scores (bias audit definition).
        length_correlation: pooled cross-session length-score correlation (``None`` when undefined).
        recommendations: advice, in the seed's wording.
    """

    session_count: int
    confidence_level: ConfidenceTier
    models: tuple[ModelCalibration, ...] = ()
    median_score_given: float | None = None
    position_bias: PositionBias | None = None
    length_correlation: BiasMetricReport | None = None
    recommendations: tuple[str, ...] = ()

    def seed_dict(self) -> dict[str, Any]:
        """The seed's YAML shape as plain data: ``{"calibration_report": {...}}``."""
        models = {
            m.member: {
                "model": m.model,
                "mean_score_given": m.mean_score_given,
                "mean_score_received": m.mean_score_received,
                "calibration_delta": m.calibration_delta,
                "self_preference_rate": m.self_preference_rate,
            }
            for m in self.models
        }
        return {
            "calibration_report": {
                "session_count": self.session_count,
                "confidence_level": self.confidence_level.value,
                "models": models,
                "recommendations": list(self.recommendations),
            }
        }

    def to_yaml(self) -> str:
        """The seed's YAML text."""
        return yaml.safe_dump(self.seed_dict(), sort_keys=False, allow_unicode=True)

    def notes(self) -> list[str]:
        """Readable lines for a text report: tier, per-member figures, position and length notes."""
        lines = [f"{self.session_count} council session(s): confidence {self.confidence_level.value}"]
        for m in self.models:
            given = "n/a" if m.mean_score_given is None else f"{m.mean_score_given:.1f}"
            got = "n/a" if m.mean_score_received is None else f"{m.mean_score_received:.1f}"
            delta = "" if m.calibration_delta is None else f" (delta {m.calibration_delta:+.1f})"
            rate = (
                ""
                if m.self_preference_rate is None
                else f"; ranks itself first {m.self_preference_rate:.0%} of {m.ballots} ballot(s)"
            )
            lines.append(f"{m.member} gave {given}, received {got}{delta}{rate}")
        pb = self.position_bias
        if pb is None or pb.variance is None:
            lines.append("Position bias: n/a" + (f" ({pb.reason})" if pb is not None and pb.reason else ""))
        elif pb.detected:
            lines.append(f"Position bias detected (variance: {pb.variance:.2f})")
        else:
            lines.append(f"No position bias detected (variance: {pb.variance:.2f})")
        lc = self.length_correlation
        if lc is None:
            lines.append("Length correlation: n/a (needs a session with 4+ scores and varying lengths)")
        else:
            r = lc.point_estimate
            verdict = "acceptable" if abs(r) < LENGTH_CORRELATION_THRESHOLD else "possible length bias"
            lines.append(f"Length correlation: r={r:.2f} ({verdict})")
        return lines


def correlation_words(r: float) -> str:
    """``moderate positive correlation`` and the like for a correlation ``r``.

    Args:
        r: a correlation coefficient.
    """
    size = next((word for below, word in CORRELATION_WORDS if abs(r) < below), "strong")
    return f"{size} {'positive' if r >= 0 else 'negative'} correlation"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _recommendations(
    models: Sequence[ModelCalibration], pb: PositionBias | None, lc: BiasMetricReport | None
) -> list[str]:
    out = []
    for m in models:
        dev = m.deviation_from_median
        if dev is not None and abs(dev) >= CALIBRATION_NOTE_POINTS:
            out.append(
                f"{m.member} scores {abs(dev):.1f} points {'below' if dev < 0 else 'above'} median; "
                "consider calibration weight"
            )
    for m in models:
        rate, chance = m.self_preference_rate, m.self_preference_chance
        if (
            rate is not None
            and chance is not None
            and m.ballots >= MIN_SELF_PREFERENCE_BALLOTS
            and rate > 0
            and rate >= SELF_PREFERENCE_FACTOR * chance
        ):
            out.append(
                f"{m.member} ranks its own answer first in {rate:.0%} of {m.ballots} ballots "
                f"(chance {chance:.0%}); possible self-preference"
            )
    if lc is not None and abs(lc.point_estimate) >= LENGTH_CORRELATION_THRESHOLD:
        ci = (
            f"; 95% CI {lc.ci_lower:.2f}..{lc.ci_upper:.2f}"
            if lc.ci_lower is not None and lc.ci_upper is not None
            else ""
        )
        out.append(
            f"Cross-session length bias: r={lc.point_estimate:.2f} ({correlation_words(lc.point_estimate)}"
            f"{ci}, {lc.sample_size} sessions)"
        )
    if pb is not None and pb.detected and pb.variance is not None:
        out.append(
            f"Position bias: mean scores differ by display position (variance {pb.variance:.2f}); "
            "check that presentation order is shuffled"
        )
    return out


def calibration_report(sessions: Sequence[CouncilSession]) -> CalibrationReport:
    """Seed 001's cross-model calibration report over council sessions.

    Args:
        sessions: the council sessions (see :func:`council_sessions`).
    """
    pairs: list[PairScore] = []
    prefs: dict[str, SelfPreference] = {}
    models: dict[str, str] = {}
    records = []
    for s in sessions:
        t = s.transcript
        pairs.extend(pair_scores(t, s.weights))
        for member, own in self_preference(t).items():
            prev = prefs.get(member, SelfPreference())
            prefs[member] = SelfPreference(
                first=prev.first + own.first,
                ballots=prev.ballots + own.ballots,
                chance_sum=prev.chance_sum + own.chance_sum,
            )
        models.update({a.member: a.model for a in t.answers})
        models.update({r.reviewer: r.model for r in t.reviews})
        records.extend(
            records_from_transcript(t, s.session_id, ConsentLevel.LOCAL_ONLY, timestamp=s.timestamp, weights=s.weights)
        )
    given: dict[str, list[float]] = defaultdict(list)
    received: dict[str, list[float]] = defaultdict(list)
    for p in pairs:
        given[p.reviewer].append(p.score)
        received[p.candidate].append(p.score)
    means = {m: statistics.fmean(v) for m, v in given.items()}
    median = statistics.median(means.values()) if means else None
    entries = []
    for member in sorted(set(models) | set(given) | set(received)):
        g, r = mean(given.get(member, [])), mean(received.get(member, []))
        pref = prefs.get(member)
        rate = pref.first / pref.ballots if pref is not None and pref.ballots else None
        chance = pref.chance_sum / pref.ballots if pref is not None and pref.ballots else None
        entries.append(
            ModelCalibration(
                member=member,
                model=models.get(member),
                mean_score_given=_round(g),
                mean_score_received=_round(r),
                calibration_delta=_round(g - r) if g is not None and r is not None else None,
                self_preference_rate=_round(rate),
                self_preference_chance=_round(chance),
                deviation_from_median=_round(g - median)
                if g is not None and median is not None and len(means) > 1
                else None,
                scores_given=len(given.get(member, [])),
                scores_received=len(received.get(member, [])),
                ballots=pref.ballots if pref is not None else 0,
            )
        )
    pb = position_bias(pairs) if pairs else None
    lc = pooled_length_correlation(records) if records else None
    return CalibrationReport(
        session_count=len(sessions),
        confidence_level=confidence_tier(len(sessions)),
        models=tuple(entries),
        median_score_given=_round(median),
        position_bias=pb,
        length_correlation=lc,
        recommendations=tuple(_recommendations(entries, pb, lc)),
    )
