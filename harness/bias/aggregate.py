"""Cross-session bias aggregation (seed 003, ADR-018 phases 2-3). Analytics only.

Nothing here feeds back into a council's vote: reviewer profiles describe reviewers for a
dashboard or report, they never re-weight live scores (seed 003, "Score Weighting: Analytics Only").

Every reported figure is a :class:`BiasMetricReport` carrying its point estimate, a confidence
interval, the sample size, the data window and a confidence tier. Definitions:

* **Confidence tier** (:func:`confidence_tier`) by number of sessions: ``<10`` insufficient_data,
  ``<20`` preliminary, ``<50`` moderate, ``>=50`` high.
* **Fisher z** (:func:`fisher_z`): ``arctanh(r)`` with r clipped to +-0.9999 so that a perfect
  correlation in one small session cannot dominate a pooled mean; :func:`correlation_ci` is
  ``tanh(z +- z_crit / sqrt(n-3))`` with ``z_crit = norm.ppf(1 - (1-confidence)/2)``.
* **Pooled length-score correlation**: per session, Pearson r between answer length (chars) and
  score over the session's records; sessions with fewer than 4 records or constant lengths or
  scores are left out. The pooled estimate is ``tanh(sum (n_i-3) z_i / sum (n_i-3))`` with CI
  ``tanh(zbar +- z_crit / sqrt(sum (n_i-3)))`` and a two-sided normal p-value of ``zbar``.
  Records of one session share candidates, so the interval is optimistic (as in seed 003).
* **Reviewer profiles**: per reviewer, the mean score given, its sample standard deviation
  (n-1), n, and a t-interval of the mean (``scipy.stats.t.ppf``). The grand mean is the mean of
  the reviewer means; the harshness z-score is ``(reviewer mean - grand mean) / sd`` with ``sd``
  the sample standard deviation (n-1) of the reviewer means (undefined with fewer than two
  reviewers or equal means). Its interval maps the reviewer's t-interval through the same
  transform. A reviewer is ``harsh`` when ``z <= -1.0`` and its t-interval lies wholly below the
  grand mean, ``generous`` when ``z >= 1.0`` and the interval lies wholly above it (with three
  reviewers ``|z|`` cannot exceed 1.155, so a 1.5 cut-off would never fire on a small council).
* **Position bias**: the mean score per 1-based display position with a t-interval each; the
  point estimate is the sample variance of the position means (the per-session definition in
  :func:`harness.bias.audit.position_variance`) with a percentile bootstrap interval over
  sessions (sessions resampled with replacement, ``bootstrap_resamples`` times, fixed seed); the
  test of a position effect is Kruskal-Wallis over the per-position score groups (rank-based:
  scores derived from rankings are far from normal). Councils of different sizes put different
  positions on the table, so a position only seen in larger councils is confounded with size.
* **Temporal trend**: ``scipy.stats.linregress`` of a per-session metric (mean score; length-score
  r) on the session time in days; the estimate is the slope per day with a t-interval
  (``stderr * t.ppf``, n-2 degrees of freedom) and the regression's p-value.
* **Anomalies**: sessions whose mean score lies more than ``anomaly_z`` (default 2.5) sample
  standard deviations from the mean of the session means.
* A session's time is the earliest timestamp among its records.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Literal

import numpy as np
import scipy.stats

from harness.bias.audit import position_variance
from harness.bias.store import MAX_CORRUPT_EXAMPLES, BiasMetricRecord, BiasStore, window_mask
from harness.model import Frozen

R_CLIP = 0.9999
HARSHNESS_Z_THRESHOLD = 1.0
ANOMALY_Z_THRESHOLD = 2.5
DEFAULT_RESAMPLES = 1000
_BOOTSTRAP_CELLS = 2_000_000  # resamples x sessions drawn per chunk (memory bound)
_SECONDS_PER_DAY = 86400.0


class ConfidenceTier(StrEnum):
    """How much a figure can be trusted, by the number of sessions behind it (seed 003 table)."""

    INSUFFICIENT = "insufficient_data"
    PRELIMINARY = "preliminary"
    MODERATE = "moderate"
    HIGH = "high"


def confidence_tier(sessions: int) -> ConfidenceTier:
    """``<10`` insufficient_data, ``<20`` preliminary, ``<50`` moderate, ``>=50`` high.

    Args:
        sessions: the number of sessions behind a figure.
    """
    if sessions < 10:
        return ConfidenceTier.INSUFFICIENT
    if sessions < 20:
        return ConfidenceTier.PRELIMINARY
    if sessions < 50:
        return ConfidenceTier.MODERATE
    return ConfidenceTier.HIGH


def fisher_z(r: float) -> float:
    """Fisher's z-transform ``arctanh(r)``, with r clipped to +-0.9999.

    Args:
        r: a correlation coefficient in [-1, 1].
    """
    return float(fisher_z_array(np.asarray(r, dtype=np.float64)))


def fisher_z_array(r: np.ndarray) -> np.ndarray:
    """:func:`fisher_z` of every element of an array.

    Args:
        r: correlation coefficients in [-1, 1].
    """
    return np.arctanh(np.clip(r, -R_CLIP, R_CLIP))


def fisher_z_inverse(z: float) -> float:
    """The inverse transform ``tanh(z)``.

    Args:
        z: a Fisher z value.
    """
    return float(np.tanh(z))


def z_critical(confidence: float = 0.95) -> float:
    """Two-sided standard-normal critical value, ``norm.ppf(1 - (1-confidence)/2)`` (1.96 at 0.95).

    Args:
        confidence: the interval's coverage, in (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return float(scipy.stats.norm.ppf(1.0 - (1.0 - confidence) / 2.0))


def correlation_ci(r: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Confidence interval of a Pearson r from ``n`` pairs: ``tanh(arctanh(r) +- z_crit/sqrt(n-3))``.

    Args:
        r: the correlation.
        n: the number of pairs (more than 3).
        confidence: the interval's coverage.
    """
    if n <= 3:
        raise ValueError(f"a correlation interval needs more than 3 pairs, got {n}")
    z = fisher_z(r)
    half = z_critical(confidence) / math.sqrt(n - 3)
    return fisher_z_inverse(z - half), fisher_z_inverse(z + half)


def mean_t_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """t-interval of a mean: ``mean +- t.ppf(1-(1-confidence)/2, n-1) * sd/sqrt(n)``; ``None`` for n < 2.

    Args:
        values: the sample.
        confidence: the interval's coverage.
    """
    n = len(values)
    if n < 2:
        return None
    return _t_interval(float(np.mean(values)), float(np.std(values, ddof=1)), n, confidence)


def _t_interval(mean: float, sd: float, n: int, confidence: float) -> tuple[float, float] | None:
    if n < 2:
        return None
    half = float(scipy.stats.t.ppf(1.0 - (1.0 - confidence) / 2.0, n - 1)) * sd / math.sqrt(n)
    return mean - half, mean + half


class BiasMetricReport(Frozen):
    """One reported figure (seed 003's required fields plus what makes it self-explaining).

    Args:
        metric_name: what is measured (``length_score_correlation``, ``reviewer_mean_score``, ...).
        point_estimate: the estimate.
        ci_lower: lower bound of the confidence interval (``None`` when undefined, e.g. n = 1).
        ci_upper: upper bound of the confidence interval.
        sample_size: the N behind the estimate, counted in ``sample_unit``.
        window_start: earliest record timestamp in the data window.
        window_end: latest record timestamp in the data window.
        statistical_confidence: the tier by number of sessions behind the figure.
        subject: the reviewer id or display position the figure is about (empty for global figures).
        sample_unit: what ``sample_size`` counts (``sessions`` or ``scores``).
        sessions: number of sessions behind the figure.
        confidence_level: the interval's coverage (0.95).
        p_value: the figure's test p-value, when it has one.
        note: how the figure was computed or why data were left out.
    """

    metric_name: str
    point_estimate: float
    ci_lower: float | None
    ci_upper: float | None
    sample_size: int
    window_start: datetime | None
    window_end: datetime | None
    statistical_confidence: ConfidenceTier
    subject: str = ""
    sample_unit: Literal["sessions", "scores"] = "sessions"
    sessions: int = 0
    confidence_level: float = 0.95
    p_value: float | None = None
    note: str = ""


class ReviewerProfile(Frozen):
    """One reviewer across the window.

    Args:
        reviewer_id: the member id.
        mean_score: the mean score given, with its t-interval (sample unit: scores).
        std_score: sample standard deviation of its scores (``None`` for a single score).
        harshness_z: the harshness z-score with its mapped interval (``None`` when undefined).
        label: ``harsh``, ``generous``, ``typical`` or ``undetermined`` (no z-score).
    """

    reviewer_id: str
    mean_score: BiasMetricReport
    std_score: float | None
    harshness_z: BiasMetricReport | None
    label: Literal["harsh", "generous", "typical", "undetermined"]


class PositionBiasSummary(Frozen):
    """Scores by display position across sessions.

    Args:
        variance: variance of the position means with a bootstrap interval; ``p_value`` is Kruskal-Wallis'.
        positions: the mean score at each display position, with t-intervals.
        kruskal_h: the Kruskal-Wallis H statistic (``None`` when the test is undefined).
        kruskal_p: its p-value.
    """

    variance: BiasMetricReport
    positions: tuple[BiasMetricReport, ...]
    kruskal_h: float | None
    kruskal_p: float | None


class SessionAnomaly(Frozen):
    """A session whose metric is far from the other sessions'.

    Args:
        session_id: the session.
        timestamp: the session time.
        metric: the metric (``session_mean_score``).
        value: the session's value.
        z_score: its distance from the mean of all sessions in sample standard deviations.
        direction: ``high`` or ``low``.
    """

    session_id: str
    timestamp: datetime
    metric: str
    value: float
    z_score: float
    direction: Literal["high", "low"]


class AggregatedBiasReport(Frozen):
    """The cross-session bias audit of one data window.

    Args:
        sessions: sessions in the window.
        records: records in the window.
        window_start: earliest record timestamp (``None`` without records).
        window_end: latest record timestamp.
        statistical_confidence: the tier of the whole window (by ``sessions``).
        min_sessions: the configured minimum (``LLM_COUNCIL_MIN_BIAS_SESSIONS``).
        meets_minimum: ``sessions >= min_sessions``.
        window_sessions: the session bound applied (``None``: none).
        window_days: the day bound applied (``None``: none).
        config_versions: the distinct ``council_config_version`` values pooled.
        length_correlation: the pooled length-score correlation (``None`` when no session qualifies).
        position_bias: scores by display position (``None`` with fewer than two positions).
        reviewer_profiles: one profile per reviewer, by reviewer id.
        trends: per-day slopes of per-session metrics.
        anomalies: outlying sessions.
        warnings: what a reader must know (tiers, flags, pooled configurations).
    """

    sessions: int
    records: int
    window_start: datetime | None
    window_end: datetime | None
    statistical_confidence: ConfidenceTier
    min_sessions: int
    meets_minimum: bool
    window_sessions: int | None = None
    window_days: float | None = None
    config_versions: tuple[str, ...] = ()
    length_correlation: BiasMetricReport | None = None
    position_bias: PositionBiasSummary | None = None
    reviewer_profiles: tuple[ReviewerProfile, ...] = ()
    trends: tuple[BiasMetricReport, ...] = ()
    anomalies: tuple[SessionAnomaly, ...] = ()
    warnings: tuple[str, ...] = ()

    def metrics(self) -> list[BiasMetricReport]:
        """Every reported figure, in report order."""
        out: list[BiasMetricReport] = []
        if self.length_correlation is not None:
            out.append(self.length_correlation)
        if self.position_bias is not None:
            out.append(self.position_bias.variance)
            out.extend(self.position_bias.positions)
        for profile in self.reviewer_profiles:
            out.append(profile.mean_score)
            if profile.harshness_z is not None:
                out.append(profile.harshness_z)
        out.extend(self.trends)
        return out


@dataclass(frozen=True, slots=True)
class RecordTable:
    """A columnar view of records for vectorized aggregation (built once, in one streaming pass).

    Args:
        session: session index per record (0..S-1, in order of first appearance).
        reviewer: reviewer index per record.
        config: ``council_config_version`` index per record.
        position: display position per record.
        length: response length (chars) per record.
        score: score per record.
        time: timestamp per record, POSIX seconds.
        session_ids: the session id of each session index.
        reviewer_ids: the reviewer id of each reviewer index.
        config_ids: the ``council_config_version`` of each config index.
    """

    session: np.ndarray
    reviewer: np.ndarray
    config: np.ndarray
    position: np.ndarray
    length: np.ndarray
    score: np.ndarray
    time: np.ndarray
    session_ids: tuple[str, ...]
    reviewer_ids: tuple[str, ...]
    config_ids: tuple[str, ...]

    @classmethod
    def from_records(cls, records: Iterable[BiasMetricRecord]) -> RecordTable:
        """Build the columns in one pass (records are not kept, so a generator streams in constant memory).

        Args:
            records: the records (any order).
        """
        sessions: dict[str, int] = {}
        reviewers: dict[str, int] = {}
        configs: dict[str, int] = {}
        sess: list[int] = []
        rev: list[int] = []
        conf: list[int] = []
        pos: list[int] = []
        length: list[int] = []
        score: list[float] = []
        time: list[float] = []
        for r in records:
            sess.append(sessions.setdefault(r.session_id, len(sessions)))
            rev.append(reviewers.setdefault(r.reviewer_id, len(reviewers)))
            conf.append(configs.setdefault(r.council_config_version, len(configs)))
            pos.append(r.position)
            length.append(r.response_length_chars)
            score.append(r.score_value)
            time.append(r.timestamp.timestamp())
        return cls(
            session=np.asarray(sess, dtype=np.int64), reviewer=np.asarray(rev, dtype=np.int64),
            config=np.asarray(conf, dtype=np.int64), position=np.asarray(pos, dtype=np.int64),
            length=np.asarray(length, dtype=np.float64), score=np.asarray(score, dtype=np.float64),
            time=np.asarray(time, dtype=np.float64),
            session_ids=tuple(sessions), reviewer_ids=tuple(reviewers), config_ids=tuple(configs),
        )

    def select(self, mask: np.ndarray) -> RecordTable:
        """The records where ``mask`` is true, with sessions, reviewers and configs re-indexed (order kept).

        Args:
            mask: one boolean per record.
        """
        if mask.all():
            return self

        def recode(codes: np.ndarray, ids: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...]]:
            used, inverse = np.unique(codes[mask], return_inverse=True)
            return inverse.astype(np.int64), tuple(ids[i] for i in used)

        session, session_ids = recode(self.session, self.session_ids)
        reviewer, reviewer_ids = recode(self.reviewer, self.reviewer_ids)
        config, config_ids = recode(self.config, self.config_ids)
        return RecordTable(
            session=session, reviewer=reviewer, config=config, position=self.position[mask],
            length=self.length[mask], score=self.score[mask], time=self.time[mask],
            session_ids=session_ids, reviewer_ids=reviewer_ids, config_ids=config_ids,
        )

    @property
    def n_records(self) -> int:
        return int(self.score.size)

    @property
    def n_sessions(self) -> int:
        return len(self.session_ids)

    @property
    def config_versions(self) -> tuple[str, ...]:
        """The distinct ``council_config_version`` values, sorted."""
        return tuple(sorted(self.config_ids))

    @property
    def window(self) -> tuple[datetime | None, datetime | None]:
        """Earliest and latest record timestamps (``None`` without records)."""
        if self.time.size == 0:
            return None, None
        return _dt(float(self.time.min())), _dt(float(self.time.max()))

    def session_times(self) -> np.ndarray:
        """Each session's time: the earliest timestamp among its records."""
        out = np.full(self.n_sessions, np.inf)
        np.minimum.at(out, self.session, self.time)
        return out


@dataclass(frozen=True, slots=True)
class TableRead:
    """A store read straight into columns.

    Args:
        table: the valid records as a :class:`RecordTable`.
        corrupt_lines: non-blank lines that could not be read as a record (skipped).
        corrupt_examples: 1-based line numbers of the first corrupt lines (at most 20).
    """

    table: RecordTable
    corrupt_lines: int
    corrupt_examples: tuple[int, ...]


def read_table(store: BiasStore) -> TableRead:
    """Stream a store into a :class:`RecordTable` without keeping the record objects (large stores).

    Args:
        store: the bias store.

    Raises:
        StoreError: the file does not exist or cannot be read.
    """
    corrupt: list[int] = []

    def valid() -> Iterator[BiasMetricRecord]:
        for number, record in store.scan():
            if record is None:
                corrupt.append(number)
            else:
                yield record

    table = RecordTable.from_records(valid())
    return TableRead(table=table, corrupt_lines=len(corrupt), corrupt_examples=tuple(corrupt[:MAX_CORRUPT_EXAMPLES]))


def _dt(posix: float) -> datetime:
    return datetime.fromtimestamp(posix, tz=UTC)


def _table(data: Iterable[BiasMetricRecord] | RecordTable) -> RecordTable:
    return data if isinstance(data, RecordTable) else RecordTable.from_records(data)


def _report(table: RecordTable, sessions: int, confidence: float, **fields: object) -> BiasMetricReport:
    start, end = table.window
    return BiasMetricReport(
        window_start=start, window_end=end, statistical_confidence=confidence_tier(sessions), sessions=sessions,
        confidence_level=confidence, **fields,  # type: ignore[arg-type]
    )


def _centered_sums(group: np.ndarray, n: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-group mean and deviations of each value from its group mean."""
    sums = np.bincount(group, weights=values, minlength=n.size)
    means = np.divide(sums, n, out=np.zeros_like(sums), where=n > 0)
    return means, values - means[group]


def session_length_correlations(data: Iterable[BiasMetricRecord] | RecordTable) -> tuple[np.ndarray, np.ndarray]:
    """Per-session Pearson r of length against score, and the number of records per session.

    Sessions where r is undefined (fewer than 2 records, constant lengths or scores) get NaN.

    Args:
        data: the records (or their table).
    """
    t = _table(data)
    n = np.bincount(t.session, minlength=t.n_sessions).astype(np.float64)
    mx, dx = _centered_sums(t.session, n, t.length)
    my, dy = _centered_sums(t.session, n, t.score)
    sxx = np.bincount(t.session, weights=dx * dx, minlength=t.n_sessions)
    syy = np.bincount(t.session, weights=dy * dy, minlength=t.n_sessions)
    sxy = np.bincount(t.session, weights=dx * dy, minlength=t.n_sessions)
    # tolerance for "constant": rounding of the group mean leaves ~1e-30 residues, real spread is far above
    ok = (n >= 2) & (sxx > 1e-10 * n * (1.0 + mx * mx)) & (syy > 1e-10 * n * (1.0 + my * my))
    r = np.full(t.n_sessions, np.nan)
    r[ok] = np.clip(sxy[ok] / np.sqrt(sxx[ok] * syy[ok]), -1.0, 1.0)
    return r, n


def pooled_length_correlation(
    data: Iterable[BiasMetricRecord] | RecordTable, confidence: float = 0.95
) -> BiasMetricReport | None:
    """Pooled length-score correlation: Fisher z of each session's r weighted by ``n_i - 3``.

    Args:
        data: the records (or their table).
        confidence: the interval's coverage.

    Returns:
        The report, or ``None`` when no session has 4+ records with varying lengths and scores.
    """
    t = _table(data)
    r, n = session_length_correlations(t)
    use = ~np.isnan(r) & (n >= 4)
    if not use.any():
        return None
    w = n[use] - 3.0
    z = fisher_z_array(r[use])
    zbar = float(np.sum(w * z) / np.sum(w))
    se = 1.0 / math.sqrt(float(np.sum(w)))
    half = z_critical(confidence) * se
    p = float(2.0 * scipy.stats.norm.sf(abs(zbar) / se))
    k = int(use.sum())
    left_out = t.n_sessions - k
    return _report(
        t, k, confidence, metric_name="length_score_correlation", point_estimate=fisher_z_inverse(zbar),
        ci_lower=fisher_z_inverse(zbar - half), ci_upper=fisher_z_inverse(zbar + half), sample_size=k,
        sample_unit="sessions", p_value=p,
        note=(f"Fisher-z pooled over {k} sessions ({int(n[use].sum())} scores), weights n-3"
              + (f"; {left_out} sessions left out (<4 scores or constant lengths/scores)" if left_out else "")),
    )


def reviewer_profiles(
    data: Iterable[BiasMetricRecord] | RecordTable, confidence: float = 0.95
) -> tuple[ReviewerProfile, ...]:
    """Per-reviewer mean score given, its t-interval, and the harshness z-score (see module docstring).

    Args:
        data: the records (or their table).
        confidence: the intervals' coverage.
    """
    t = _table(data)
    k = len(t.reviewer_ids)
    if k == 0:
        return ()
    n = np.bincount(t.reviewer, minlength=k).astype(np.float64)
    means, dev = _centered_sums(t.reviewer, n, t.score)
    ss = np.bincount(t.reviewer, weights=dev * dev, minlength=k)
    pairs = np.unique(t.reviewer * t.n_sessions + t.session)
    sessions = np.bincount(pairs // t.n_sessions, minlength=k)
    grand = float(np.mean(means))
    sd_means = float(np.std(means, ddof=1)) if k >= 2 else 0.0
    profiles = []
    for i in sorted(range(k), key=lambda j: t.reviewer_ids[j]):
        count = int(n[i])
        sd = math.sqrt(ss[i] / (count - 1)) if count >= 2 else None
        ci = _t_interval(float(means[i]), sd or 0.0, count, confidence)
        rid = t.reviewer_ids[i]
        mean_report = _report(
            t, int(sessions[i]), confidence, metric_name="reviewer_mean_score", subject=rid,
            point_estimate=float(means[i]), ci_lower=ci[0] if ci else None, ci_upper=ci[1] if ci else None,
            sample_size=count, sample_unit="scores", note="t-interval of the mean score given",
        )
        harsh: BiasMetricReport | None = None
        label: Literal["harsh", "generous", "typical", "undetermined"] = "undetermined"
        if sd_means > 0:
            z = (float(means[i]) - grand) / sd_means
            zci = ((ci[0] - grand) / sd_means, (ci[1] - grand) / sd_means) if ci else (None, None)
            harsh = _report(
                t, int(sessions[i]), confidence, metric_name="reviewer_harshness_z", subject=rid,
                point_estimate=z, ci_lower=zci[0], ci_upper=zci[1], sample_size=count, sample_unit="scores",
                note=f"(mean - {grand:.3f}) / {sd_means:.3f} (mean and sd of {k} reviewer means)",
            )
            label = "typical"
            if ci is not None and z <= -HARSHNESS_Z_THRESHOLD and ci[1] < grand:
                label = "harsh"
            elif ci is not None and z >= HARSHNESS_Z_THRESHOLD and ci[0] > grand:
                label = "generous"
        profiles.append(ReviewerProfile(reviewer_id=rid, mean_score=mean_report, std_score=sd,
                                        harshness_z=harsh, label=label))
    return tuple(profiles)


def _bootstrap_position_variance(
    t: RecordTable, positions: np.ndarray, confidence: float, resamples: int, seed: int
) -> tuple[float, float] | None:
    """Percentile interval of the position-means variance, resampling whole sessions with replacement."""
    s, p = t.n_sessions, positions.size
    cell = t.session * p + np.searchsorted(positions, t.position)
    sums = np.bincount(cell, weights=t.score, minlength=s * p).reshape(s, p)
    counts = np.bincount(cell, minlength=s * p).reshape(s, p).astype(np.float64)
    rng = np.random.default_rng(seed)
    chunk = max(1, _BOOTSTRAP_CELLS // s)
    stats: list[np.ndarray] = []
    for first in range(0, resamples, chunk):
        b = min(chunk, resamples - first)
        # session weights of b resamples at once: row i counts how often each session was drawn
        draws = rng.integers(0, s, size=(b, s)) + (np.arange(b) * s)[:, None]
        weights = np.bincount(draws.ravel(), minlength=b * s).reshape(b, s).astype(np.float64)
        c = weights @ counts
        means = np.divide(weights @ sums, c, out=np.full_like(c, np.nan), where=c > 0)
        ok = (c > 0).sum(axis=1) >= 2
        if ok.any():
            stats.append(np.nanvar(means[ok], axis=1, ddof=1))
    values = np.concatenate(stats) if stats else np.empty(0)
    if values.size < 2:
        return None
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(values, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def position_bias(
    data: Iterable[BiasMetricRecord] | RecordTable,
    confidence: float = 0.95,
    bootstrap_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> PositionBiasSummary | None:
    """Mean score per display position, the variance of those means and a Kruskal-Wallis test.

    Args:
        data: the records (or their table).
        confidence: the intervals' coverage.
        bootstrap_resamples: session resamples for the variance's interval (0: no interval).
        seed: the bootstrap's random seed.

    Returns:
        The summary, or ``None`` with scores at fewer than two display positions.
    """
    t = _table(data)
    positions = np.unique(t.position)
    if positions.size < 2:
        return None
    reports = []
    groups = []
    means = []
    for pos in positions:
        mask = t.position == pos
        scores = t.score[mask]
        groups.append(scores)
        mean = float(scores.mean())
        means.append(mean)
        ci = mean_t_interval(scores, confidence)
        n_sess = int(np.unique(t.session[mask]).size)
        reports.append(_report(
            t, n_sess, confidence, metric_name="position_mean_score", subject=str(int(pos)),
            point_estimate=mean, ci_lower=ci[0] if ci else None, ci_upper=ci[1] if ci else None,
            sample_size=int(scores.size), sample_unit="scores", note="t-interval of the mean score at this position",
        ))
    h: float | None = None
    p: float | None = None
    if np.ptp(t.score) > 0:  # with all scores identical the test is undefined
        res = scipy.stats.kruskal(*groups)
        if math.isfinite(res.statistic) and math.isfinite(res.pvalue):
            h, p = float(res.statistic), float(res.pvalue)
    boot = _bootstrap_position_variance(t, positions, confidence, bootstrap_resamples, seed) \
        if bootstrap_resamples > 0 else None
    variance = _report(
        t, t.n_sessions, confidence, metric_name="position_variance", point_estimate=position_variance(means),
        ci_lower=boot[0] if boot else None, ci_upper=boot[1] if boot else None, sample_size=t.n_sessions,
        sample_unit="sessions", p_value=p,
        note=(f"sample variance of {positions.size} position means; percentile bootstrap over sessions "
              f"({bootstrap_resamples} resamples); p-value: Kruskal-Wallis"
              + (f" H={h:.3f}" if h is not None else " undefined (identical scores)")),
    )
    return PositionBiasSummary(variance=variance, positions=tuple(reports), kruskal_h=h, kruskal_p=p)


def session_mean_scores(data: Iterable[BiasMetricRecord] | RecordTable) -> np.ndarray:
    """Each session's mean score (session index order).

    Args:
        data: the records (or their table).
    """
    t = _table(data)
    n = np.bincount(t.session, minlength=t.n_sessions).astype(np.float64)
    return np.bincount(t.session, weights=t.score, minlength=t.n_sessions) / n


def linear_trend(
    times: np.ndarray, values: np.ndarray, confidence: float = 0.95
) -> tuple[float, float, float, float] | None:
    """Least-squares slope of ``values`` on ``times`` (days) with its t-interval and p-value.

    Args:
        times: session times in days.
        values: the per-session metric.
        confidence: the interval's coverage.

    Returns:
        ``(slope, ci_lower, ci_upper, p_value)``, or ``None`` with fewer than 3 points, one distinct
        time or constant values.
    """
    if times.size < 3 or np.unique(times).size < 2 or np.unique(values).size < 2:
        return None
    res = scipy.stats.linregress(times, values)
    half = float(scipy.stats.t.ppf(1.0 - (1.0 - confidence) / 2.0, times.size - 2)) * float(res.stderr)
    return float(res.slope), float(res.slope) - half, float(res.slope) + half, float(res.pvalue)


def temporal_trends(
    data: Iterable[BiasMetricRecord] | RecordTable, confidence: float = 0.95
) -> tuple[BiasMetricReport, ...]:
    """Per-day slopes of the session mean score and of the session length-score r.

    Args:
        data: the records (or their table).
        confidence: the intervals' coverage.
    """
    t = _table(data)
    if t.n_sessions == 0:
        return ()
    days = (t.session_times() - float(t.time.min())) / _SECONDS_PER_DAY
    r, _ = session_length_correlations(t)
    out = []
    series = (
        ("session_mean_score_trend", session_mean_scores(t), "score points per day"),
        ("length_score_correlation_trend", r, "change in per-session r per day"),
    )
    for name, values, unit in series:
        use = ~np.isnan(values)
        fit = linear_trend(days[use], values[use], confidence)
        if fit is None:
            continue
        k = int(use.sum())
        out.append(_report(
            t, k, confidence, metric_name=name, point_estimate=fit[0], ci_lower=fit[1], ci_upper=fit[2],
            sample_size=k, sample_unit="sessions", p_value=fit[3], note=f"linregress slope, {unit}",
        ))
    return tuple(out)


def detect_anomalies(
    data: Iterable[BiasMetricRecord] | RecordTable, z_threshold: float = ANOMALY_Z_THRESHOLD
) -> tuple[SessionAnomaly, ...]:
    """Sessions whose mean score is more than ``z_threshold`` sample SDs from the mean of session means.

    Args:
        data: the records (or their table).
        z_threshold: the cut-off (default 2.5).
    """
    t = _table(data)
    if t.n_sessions < 3:
        return ()
    means = session_mean_scores(t)
    sd = float(np.std(means, ddof=1))
    if sd <= 0:
        return ()
    z = (means - float(np.mean(means))) / sd
    times = t.session_times()
    flagged = np.flatnonzero(np.abs(z) > z_threshold)
    return tuple(
        SessionAnomaly(
            session_id=t.session_ids[i], timestamp=_dt(float(times[i])), metric="session_mean_score",
            value=float(means[i]), z_score=float(z[i]), direction="high" if z[i] > 0 else "low",
        )
        for i in sorted(flagged, key=lambda j: times[j])
    )


def _warnings(report: AggregatedBiasReport) -> list[str]:
    out = []
    n = report.sessions
    if report.records == 0:
        return ["no bias records in the window"]
    if report.statistical_confidence == ConfidenceTier.INSUFFICIENT:
        out.append(f"only {n} sessions: at least 10 are needed before figures are meaningful (collecting data)")
    elif report.statistical_confidence == ConfidenceTier.PRELIMINARY:
        out.append(f"High Volatility: only {n} sessions (fewer than 20); figures are preliminary")
    if not report.meets_minimum:
        out.append(f"{n} sessions is below the configured minimum of {report.min_sessions} "
                   "(LLM_COUNCIL_MIN_BIAS_SESSIONS)")
    if len(report.config_versions) > 1:
        out.append(f"{len(report.config_versions)} council configurations are pooled; "
                   "filter by council_config_version to avoid mixing model versions")
    lc = report.length_correlation
    if lc is not None and lc.ci_lower is not None and lc.ci_upper is not None and (lc.ci_lower > 0 or lc.ci_upper < 0):
        out.append(f"length-score correlation r={lc.point_estimate:.3f} is significant "
                   f"(95% CI {lc.ci_lower:.3f}..{lc.ci_upper:.3f}): possible verbosity bias")
    pb = report.position_bias
    if pb is not None and pb.kruskal_p is not None and pb.kruskal_p < 0.05:
        out.append(f"scores differ by display position (Kruskal-Wallis p={pb.kruskal_p:.3g}): possible position bias")
    for profile in report.reviewer_profiles:
        if profile.label in ("harsh", "generous") and profile.harshness_z is not None:
            out.append(f"reviewer {profile.reviewer_id} appears {profile.label} "
                       f"(z={profile.harshness_z.point_estimate:.2f})")
    if report.anomalies:
        out.append(f"{len(report.anomalies)} anomalous sessions (|z| > threshold of session mean scores)")
    return out


def run_aggregated_bias_audit(
    records: Iterable[BiasMetricRecord] | RecordTable,
    min_sessions: int = 20,
    window_sessions: int | None = None,
    window_days: float | None = None,
    now: datetime | None = None,
    config_version: str | None = None,
    confidence: float = 0.95,
    anomaly_z: float = ANOMALY_Z_THRESHOLD,
    bootstrap_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> AggregatedBiasReport:
    """The full cross-session audit of the records in a window. Analytics only: no live vote changes.

    Figures are computed whenever the data allow, each with its own tier; renderers decide what to
    show (seed 003's tiered display).

    Args:
        records: bias records (e.g. :attr:`ReadResult.records`) or a :class:`RecordTable` (:func:`read_table`).
        min_sessions: sessions wanted before the figures count as robust (``LLM_COUNCIL_MIN_BIAS_SESSIONS``).
        window_sessions: keep only the last N sessions (``None``: no bound).
        window_days: keep only the last D days (``None``: no bound).
        now: reference time for ``window_days`` (default: now, UTC).
        config_version: keep only records of this ``council_config_version`` (``None``: all).
        confidence: the intervals' coverage (0.95).
        anomaly_z: z cut-off for anomalous sessions.
        bootstrap_resamples: resamples for the position-variance interval.
        seed: the bootstrap's random seed.
    """
    if min_sessions < 1:
        raise ValueError("min_sessions must be >= 1")
    z_critical(confidence)  # validates the coverage
    t = _table(records)
    if config_version is not None:
        t = t.select(t.config == (t.config_ids.index(config_version) if config_version in t.config_ids else -1))
    if window_sessions or window_days:
        t = t.select(window_mask(t.session, t.time, window_sessions, window_days, now))
    start, end = t.window
    base = AggregatedBiasReport(
        sessions=t.n_sessions, records=t.n_records, window_start=start, window_end=end,
        statistical_confidence=confidence_tier(t.n_sessions), min_sessions=min_sessions,
        meets_minimum=t.n_sessions >= min_sessions, window_sessions=window_sessions or None,
        window_days=window_days or None, config_versions=t.config_versions,
    )
    if t.n_records == 0:
        return base.model_copy(update={"warnings": tuple(_warnings(base))})
    full = base.model_copy(update={
        "length_correlation": pooled_length_correlation(t, confidence),
        "position_bias": position_bias(t, confidence, bootstrap_resamples, seed),
        "reviewer_profiles": reviewer_profiles(t, confidence),
        "trends": temporal_trends(t, confidence),
        "anomalies": detect_anomalies(t, anomaly_z),
    })
    return full.model_copy(update={"warnings": tuple(_warnings(full))})
