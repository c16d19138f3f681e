"""Cross-session bias aggregation (seed 003, ADR-018 phases 2-3). Analytics only.

Nothing here feeds back into a council's vote: reviewer profiles describe reviewers for a
dashboard or report, they never re-weight live scores (seed 003, "Score Weighting: Analytics Only").

Every reported figure is a :class:`~harness.bias.figures.BiasMetricReport` carrying its point estimate, a confidence
interval, the sample size, the data window and a confidence tier.

**The unit of independence is the session.** Every reviewer of a session scores the same few
answers, so records (reviewers x candidates) are not independent; intervals and tests below
either use one value per session or resample whole sessions (:mod:`harness.stats.cluster`).
Definitions:

* **Confidence tier** (:func:`confidence_tier`) by number of sessions: ``<10`` insufficient_data,
  ``<20`` preliminary, ``<50`` moderate, ``>=50`` high.
* **Fisher z** (:func:`harness.stats.fisher_z`): ``arctanh(r)`` with r clipped to +-0.9999;
  :func:`harness.stats.correlation_ci` is ``tanh(z +- z_crit / sqrt(n-3))`` for ``n`` independent pairs.
* **Pooled length-score correlation**: per session, Pearson r between answer length (chars) and
  score over the session's records (sessions with fewer than 4 records or constant lengths or
  scores are left out), Fisher z-transformed. The pooled z is their mean weighted by the number
  of candidates (independent answers) in each session, with the cluster-robust standard error
  of :func:`harness.stats.cluster.clustered_mean` (the spread between sessions), never below the
  record-level ``1/sqrt(sum (n_i-3))``; interval ``tanh(zbar +- t_{k-1} se)`` and the two-sided
  t p-value over ``k`` sessions. "Possible verbosity bias" is flagged when ``p < 0.05``.
* **Session bootstrap**: reviewer means, harshness z-scores, position means and the position
  variance get percentile intervals from one Bayesian bootstrap over sessions
  (``bootstrap_resamples`` resamples, fixed seed; every figure uses the same resamples), so a
  mean score interval stays inside 1-10 and a variance interval above 0.
* **Reviewer profiles**: per reviewer, the mean score given, its sample standard deviation
  (n-1) and n. The grand mean is the mean of the reviewer means; the harshness z-score is
  ``(reviewer mean - grand mean) / sd`` with ``sd`` the sample standard deviation (n-1) of the
  reviewer means (undefined with fewer than two reviewers or equal means); its interval comes
  from recomputing reviewer means, grand mean and sd in every resample, so it includes the
  uncertainty of the grand mean. The **seed threshold** (``seed_label``, shown beside the flag):
  ``harsh`` when ``z <= -1.0`` and its z interval lies wholly below 0, ``generous`` when
  ``z >= 1.0`` and the interval lies wholly above 0. It is not calibrated (issue 27: under no bias
  it fired 12-24%, 80-93% with peer reviewers: with three reviewers ``|z|`` is always 1.000-1.155,
  and with self-exclusion the reviewers' means differ by the answers they see).
* **Reviewer flag** (``label``, calibrated): the reviewer's *within-answer contrast*, its score of
  an answer minus the mean score the other reviewers gave the same answer in the same session
  (answers scored by one reviewer only are left out), averaged per session; the one-sample t-test
  of those session values (``t_{S-1}`` over ``S`` sessions, two-sided) at ``SIGNIFICANCE / k``
  (Bonferroni over the ``k`` reviewers): ``harsh`` when it rejects with a negative mean,
  ``generous`` with a positive one. Comparing reviewers on the same answers removes the answers'
  quality (and the peers' self-exclusion) from the contrast; under no reviewer bias the reviewers
  are exchangeable, so each contrast has mean 0 and the sessions are independent: the chance of
  any false flag is at most 5% up to the t-test's approximation.
* **Position bias**: the mean score per 1-based display position; the point estimate is the
  sample variance (n-1) of the position means (as in :func:`harness.bias.audit.position_variance`).
  The test of a position effect is the cluster-robust Wald F test of equal position means over
  sessions (:func:`harness.stats.cluster.equal_means_test`); "possible position bias" when
  ``p < 0.05``. Records without a display position (llm-council-core before schema 1.2.0) are
  left out. Councils of different sizes put different positions on the table, so a position only
  seen in larger councils is confounded with size.
* **Temporal trend**: least-squares slope of a per-session metric (mean score; length-score r)
  on the session time in days, with a t-interval (``stderr * t_{n-2}``) and its p-value.
* **Anomalies**: sessions whose mean score lies more than Grubbs' critical value
  (:func:`harness.stats.cluster.grubbs_critical_z` at ``SIGNIFICANCE``: 2.29 SDs at 10 sessions,
  3.38 at 100) sample standard deviations from the mean of the session means, so the chance of
  any false anomaly stays at 5% whatever the number of sessions (needs 3). The **seed threshold**
  (``anomaly_z``, 2.5 SDs, reached only from :func:`harness.stats.cluster.anomaly_min_sessions`
  sessions on: 9) is counted beside it (``seed_anomalies``): it fires more often the more sessions
  there are (issue 27: 19% of stationary windows at 30 sessions, 63% at 100).
* A session's time is the earliest timestamp among its records.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal

import numpy as np

from harness.bias.columns import RecordTable, TableRead, read_columns
from harness.bias.figures import (
    AggregatedBiasReport,
    BiasMetricReport,
    ConfidenceTier,
    PositionBiasSummary,
    ReviewerProfile,
    SessionAnomaly,
    confidence_tier,
)
from harness.bias.store import BiasMetricRecord, BiasStore, window_mask
from harness.stats.cluster import (
    anomaly_min_sessions,
    clustered_mean,
    equal_means_test,
    grubbs_critical_z,
    percentile_interval,
    resampled_means,
    session_sums,
    t_quantile,
    t_two_sided_p,
)
from harness.stats.correlation import (
    fisher_z_array,
    fisher_z_inverse,
    linear_trend,
    z_critical,
)

Label = Literal["harsh", "generous", "typical", "undetermined"]
#: The seed's reviewer rule ("seed threshold"): |z| of the reviewer means at least this.
HARSHNESS_Z_THRESHOLD = 1.0
#: The seed's anomaly cut-off ("seed threshold"), in sample SDs of the session means.
ANOMALY_Z_THRESHOLD = 2.5
DEFAULT_RESAMPLES = 1000
SIGNIFICANCE = 0.05
SCORE_RANGE = (1.0, 10.0)
_SECONDS_PER_DAY = 86400.0


def read_table(store: BiasStore) -> TableRead:
    """Read a whole store into a :class:`RecordTable` (one batch decode, see :mod:`harness.bias.columns`).

    Args:
        store: the bias store.

    Raises:
        StoreError: the file does not exist or cannot be read.
    """
    return read_columns(store)


def _dt(posix: float) -> datetime:
    return datetime.fromtimestamp(posix, tz=UTC)


def _table(data: Iterable[BiasMetricRecord] | RecordTable) -> RecordTable:
    return data if isinstance(data, RecordTable) else RecordTable.from_records(data)


def _report(table: RecordTable, sessions: int, confidence: float, **fields: object) -> BiasMetricReport:
    start, end = table.window
    return BiasMetricReport(
        window_start=start,
        window_end=end,
        statistical_confidence=confidence_tier(sessions),
        sessions=sessions,
        confidence_level=confidence,
        **fields,  # type: ignore[arg-type]
    )


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


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


def session_candidates(data: Iterable[BiasMetricRecord] | RecordTable) -> np.ndarray:
    """The number of distinct candidates (independent answers) scored in each session.

    Args:
        data: the records (or their table).
    """
    t = _table(data)
    m = max(1, len(t.model_ids))
    scored = np.bincount(t.session * m + t.model, minlength=t.n_sessions * m).reshape(t.n_sessions, m)
    return np.count_nonzero(scored, axis=1).astype(np.float64)


def pooled_length_correlation(
    data: Iterable[BiasMetricRecord] | RecordTable,
    confidence: float = 0.95,
    correlations: tuple[np.ndarray, np.ndarray] | None = None,
) -> BiasMetricReport | None:
    """Pooled length-score correlation over sessions (see the module docstring).

    Args:
        data: the records (or their table).
        confidence: the interval's coverage.
        correlations: :func:`session_length_correlations` of the same table, when already computed.

    Returns:
        The report (interval and p-value ``None`` with a single qualifying session), or ``None``
        when no session has 4+ records with varying lengths and scores.
    """
    t = _table(data)
    r, n = correlations if correlations is not None else session_length_correlations(t)
    use = ~np.isnan(r) & (n >= 4)
    if not use.any():
        return None
    z = fisher_z_array(r[use])
    candidates = session_candidates(t)[use]
    k = int(use.sum())
    floor = 1.0 / math.sqrt(float(np.sum(n[use] - 3.0)))
    fit = clustered_mean(z, candidates, confidence, se_floor=floor)
    zbar = fit.mean if fit is not None else float(z[0])
    left_out = t.n_sessions - k
    return _report(
        t,
        k,
        confidence,
        metric_name="length_score_correlation",
        point_estimate=fisher_z_inverse(zbar),
        ci_lower=fisher_z_inverse(fit.lower) if fit else None,
        ci_upper=fisher_z_inverse(fit.upper) if fit else None,
        sample_size=k,
        sample_unit="sessions",
        p_value=fit.p_value if fit else None,
        note=(
            f"Fisher-z mean over {k} sessions ({int(n[use].sum())} scores of {int(candidates.sum())} answers), "
            f"weights = candidates per session; SE from the spread between sessions, t with {k - 1} df"
            + (f"; {left_out} sessions left out (<4 scores or constant lengths/scores)" if left_out else "")
        ),
    )


def reviewer_contrasts(data: Iterable[BiasMetricRecord] | RecordTable) -> tuple[np.ndarray, np.ndarray]:
    """Per session and reviewer, the mean within-answer contrast, and the number of answers behind it.

    A record's contrast is its score minus the mean score the *other* reviewers gave the same
    candidate in the same session; records of answers scored by one reviewer have none.

    Returns:
        ``(sessions x reviewers)`` arrays: the mean contrast (NaN where there is none) and the count.
    """
    t = _table(data)
    k, m = len(t.reviewer_ids), max(1, len(t.model_ids))
    answer = t.session * m + t.model
    size = t.n_sessions * m
    total = np.bincount(answer, weights=t.score, minlength=size)
    count = np.bincount(answer, minlength=size)
    shared = count[answer] >= 2
    others = (total[answer] - t.score)[shared] / (count[answer][shared] - 1)
    sums, counts = session_sums(
        t.session[shared], t.reviewer[shared], t.score[shared] - others, t.n_sessions, max(k, 1)
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan)
    return means, counts


def _contrast_test(values: np.ndarray, confidence: float) -> tuple[float, float, float, float] | None:
    """``(mean, low, high, two-sided p)`` of the one-sample t-test of ``values`` (``None`` below 2 values)."""
    n = values.size
    if n < 2:
        return None
    mean = float(values.mean())
    sd = float(values.std(ddof=1))
    if sd == 0.0:
        return mean, mean, mean, 1.0 if mean == 0.0 else 0.0
    se = sd / math.sqrt(n)
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1) * se
    return mean, mean - half, mean + half, t_two_sided_p(mean / se, n - 1)


def reviewer_profiles(
    data: Iterable[BiasMetricRecord] | RecordTable,
    confidence: float = 0.95,
    bootstrap_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    boot: np.ndarray | None = None,
) -> tuple[ReviewerProfile, ...]:
    """Per-reviewer mean score given and harshness z-score, with session-bootstrap intervals.

    Args:
        data: the records (or their table).
        confidence: the intervals' coverage.
        bootstrap_resamples: session resamples for the intervals (0: no intervals).
        seed: the bootstrap's random seed.
        boot: the reviewer means under each resample, when already computed (``resamples x reviewers``).
    """
    t = _table(data)
    k = len(t.reviewer_ids)
    if k == 0:
        return ()
    sums, counts = session_sums(t.session, t.reviewer, t.score, t.n_sessions, k)
    n = counts.sum(axis=0)
    means = sums.sum(axis=0) / n
    dev = t.score - means[t.reviewer]
    ss = np.bincount(t.reviewer, weights=dev * dev, minlength=k)
    sessions = (counts > 0).sum(axis=0)
    grand = float(np.mean(means))
    sd_means = float(np.std(means, ddof=1)) if k >= 2 else 0.0
    nan = np.full(k, np.nan)
    m_lo, m_hi, z_lo, z_hi = nan, nan, nan, nan
    contrast_means, _ = reviewer_contrasts(t)
    if bootstrap_resamples > 0 and t.n_sessions >= 2:
        if boot is None:
            boot = resampled_means(sums, counts, bootstrap_resamples, seed)
        m_lo, m_hi = percentile_interval(boot, confidence, *SCORE_RANGE)
        if k >= 2:
            sd_b = np.std(boot, axis=1, ddof=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                zb = np.where(sd_b > 0, (boot - boot.mean(axis=1, keepdims=True)) / sd_b, np.nan)
            z_lo, z_hi = percentile_interval(zb, confidence)
    note = f"percentile interval of a Bayesian bootstrap over sessions ({bootstrap_resamples} resamples)"
    profiles = []
    for i in sorted(range(k), key=lambda j: t.reviewer_ids[j]):
        count = int(n[i])
        sd = math.sqrt(ss[i] / (count - 1)) if count >= 2 else None
        rid = t.reviewer_ids[i]
        mean_report = _report(
            t,
            int(sessions[i]),
            confidence,
            metric_name="reviewer_mean_score",
            subject=rid,
            point_estimate=float(means[i]),
            ci_lower=_finite(m_lo[i]),
            ci_upper=_finite(m_hi[i]),
            sample_size=count,
            sample_unit="scores",
            note=f"mean score given; {note}",
        )
        harsh: BiasMetricReport | None = None
        seed_label: Label = "undetermined"
        label: Label = "undetermined"
        values = contrast_means[:, i][~np.isnan(contrast_means[:, i])]
        test = _contrast_test(values, confidence)
        contrast: BiasMetricReport | None = None
        if test is not None:
            c_mean, c_lo, c_hi, c_p = test
            contrast = _report(
                t,
                int(values.size),
                confidence,
                metric_name="reviewer_contrast",
                subject=rid,
                point_estimate=c_mean,
                ci_lower=c_lo,
                ci_upper=c_hi,
                sample_size=int(values.size),
                sample_unit="sessions",
                p_value=c_p,
                note=(
                    f"score minus the other reviewers' mean on the same answer, per session; t-test over "
                    f"{values.size} sessions; flagged at p < {SIGNIFICANCE:g}/{k} (Bonferroni over reviewers)"
                ),
            )
            label = "typical"
            if c_p < SIGNIFICANCE / k:
                label = "harsh" if c_mean < 0 else "generous"
        if sd_means > 0:
            z = (float(means[i]) - grand) / sd_means
            lo, hi = _finite(z_lo[i]), _finite(z_hi[i])
            harsh = _report(
                t,
                int(sessions[i]),
                confidence,
                metric_name="reviewer_harshness_z",
                subject=rid,
                point_estimate=z,
                ci_lower=lo,
                ci_upper=hi,
                sample_size=count,
                sample_unit="scores",
                note=(
                    f"(mean - {grand:.3f}) / {sd_means:.3f} (mean and sd of {k} reviewer means); {note}, "
                    "grand mean and sd recomputed in each"
                ),
            )
            seed_label = "typical"
            if hi is not None and z <= -HARSHNESS_Z_THRESHOLD and hi < 0:
                seed_label = "harsh"
            elif lo is not None and z >= HARSHNESS_Z_THRESHOLD and lo > 0:
                seed_label = "generous"
        profiles.append(
            ReviewerProfile(
                reviewer_id=rid,
                mean_score=mean_report,
                std_score=sd,
                harshness_z=harsh,
                label=label,
                contrast=contrast,
                seed_label=seed_label,
            )
        )
    return tuple(profiles)


def _position_sums(t: RecordTable) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Records with a display position, the distinct positions, and per-session sums and counts by position."""
    known = t.position >= 1
    shown = t.position[known]
    seen = np.bincount(shown) > 0 if shown.size else np.zeros(0, dtype=bool)
    positions = np.flatnonzero(seen)  # the distinct positions, ascending (display positions are small)
    group = (np.cumsum(seen) - 1)[shown]
    sums, counts = session_sums(t.session[known], group, t.score[known], t.n_sessions, max(1, positions.size))
    return known, positions, sums, counts


def position_bias(
    data: Iterable[BiasMetricRecord] | RecordTable,
    confidence: float = 0.95,
    bootstrap_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    boot: np.ndarray | None = None,
) -> PositionBiasSummary | None:
    """Mean score per display position, the variance of those means and the F test of equal means.

    Args:
        data: the records (or their table).
        confidence: the intervals' coverage.
        bootstrap_resamples: session resamples for the intervals (0: no intervals).
        seed: the bootstrap's random seed.
        boot: the position means under each resample, when already computed (``resamples x positions``).

    Returns:
        The summary, or ``None`` with scores at fewer than two display positions.
    """
    t = _table(data)
    known, positions, sums, counts = _position_sums(t)
    p = positions.size
    if p < 2:
        return None
    present = counts.sum(axis=1) > 0
    sums, counts = sums[present], counts[present]
    n = counts.sum(axis=0)
    means = sums.sum(axis=0) / n
    sessions = (counts > 0).sum(axis=0)
    lo = hi = np.full(p, np.nan)
    var_ci: tuple[float | None, float | None] = (None, None)
    if bootstrap_resamples > 0 and sums.shape[0] >= 2:
        if boot is None:
            boot = resampled_means(sums, counts, bootstrap_resamples, seed)
        lo, hi = percentile_interval(boot, confidence, *SCORE_RANGE)
        v_lo, v_hi = percentile_interval(np.var(boot, axis=1, ddof=1), confidence, 0.0)
        var_ci = (_finite(v_lo[0]), _finite(v_hi[0]))
    reports = tuple(
        _report(
            t,
            int(sessions[j]),
            confidence,
            metric_name="position_mean_score",
            subject=str(int(pos)),
            point_estimate=float(means[j]),
            ci_lower=_finite(lo[j]),
            ci_upper=_finite(hi[j]),
            sample_size=int(n[j]),
            sample_unit="scores",
            note="mean score at this position; percentile interval of a Bayesian bootstrap over sessions",
        )
        for j, pos in enumerate(positions)
    )
    test = equal_means_test(sums, counts)
    k = int(sums.shape[0])
    variance = _report(
        t,
        k,
        confidence,
        metric_name="position_variance",
        point_estimate=float(np.var(means, ddof=1)),
        ci_lower=var_ci[0],
        ci_upper=var_ci[1],
        sample_size=k,
        sample_unit="sessions",
        p_value=test.p_value if test else None,
        note=(
            f"sample variance of {p} position means; percentile interval of a Bayesian bootstrap over sessions "
            f"({bootstrap_resamples} resamples); p-value: cluster-robust Wald F test of equal position means "
            + (f"F({test.df1}, {test.df2})={test.f:.3f}" if test else "undefined (too few sessions)")
        ),
    )
    return PositionBiasSummary(
        variance=variance,
        positions=reports,
        f_statistic=test.f if test else None,
        df=(test.df1, test.df2) if test else None,
        p_value=test.p_value if test else None,
        records_without_position=int((~known).sum()),
    )


def session_mean_scores(data: Iterable[BiasMetricRecord] | RecordTable) -> np.ndarray:
    """Each session's mean score (session index order).

    Args:
        data: the records (or their table).
    """
    t = _table(data)
    n = np.bincount(t.session, minlength=t.n_sessions).astype(np.float64)
    return np.bincount(t.session, weights=t.score, minlength=t.n_sessions) / n


def temporal_trends(
    data: Iterable[BiasMetricRecord] | RecordTable,
    confidence: float = 0.95,
    correlations: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[BiasMetricReport, ...]:
    """Per-day slopes of the session mean score and of the session length-score r.

    Args:
        data: the records (or their table).
        confidence: the intervals' coverage.
        correlations: :func:`session_length_correlations` of the same table, when already computed.
    """
    t = _table(data)
    if t.n_sessions == 0:
        return ()
    days = (t.session_times() - float(t.time.min())) / _SECONDS_PER_DAY
    r, _ = correlations if correlations is not None else session_length_correlations(t)
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
        out.append(
            _report(
                t,
                k,
                confidence,
                metric_name=name,
                point_estimate=fit[0],
                ci_lower=fit[1],
                ci_upper=fit[2],
                sample_size=k,
                sample_unit="sessions",
                p_value=fit[3],
                note=f"least-squares slope, {unit}",
            )
        )
    return tuple(out)


def session_z_scores(data: Iterable[BiasMetricRecord] | RecordTable) -> np.ndarray:
    """Each session's mean score in sample SDs from the mean of the session means (empty when undefined)."""
    t = _table(data)
    if t.n_sessions < 2:
        return np.zeros(0)
    means = session_mean_scores(t)
    sd = float(np.std(means, ddof=1))
    if sd <= 0:
        return np.zeros(0)
    return (means - float(np.mean(means))) / sd


def detect_anomalies(
    data: Iterable[BiasMetricRecord] | RecordTable, alpha: float = SIGNIFICANCE
) -> tuple[SessionAnomaly, ...]:
    """Sessions whose mean score lies beyond Grubbs' critical value (module docstring), in time order.

    Empty below 3 sessions (:attr:`AggregatedBiasReport.anomalies_checked` says whether it ran).

    Args:
        data: the records (or their table).
        alpha: the chance of any false anomaly in a window without one.
    """
    t = _table(data)
    if t.n_sessions < 3:
        return ()
    z = session_z_scores(t)
    if z.size == 0:
        return ()
    means = session_mean_scores(t)
    times = t.session_times()
    flagged = np.flatnonzero(np.abs(z) > grubbs_critical_z(t.n_sessions, alpha))
    return tuple(
        SessionAnomaly(
            session_id=t.session_ids[i],
            timestamp=_dt(float(times[i])),
            metric="session_mean_score",
            value=float(means[i]),
            z_score=float(z[i]),
            direction="high" if z[i] > 0 else "low",
        )
        for i in sorted(flagged, key=lambda j: times[j])
    )


def seed_anomaly_count(data: Iterable[BiasMetricRecord] | RecordTable, z_threshold: float = ANOMALY_Z_THRESHOLD) -> int:
    """Sessions beyond the seed threshold (``|z| > z_threshold``); 0 below its minimum number of sessions."""
    t = _table(data)
    if t.n_sessions < anomaly_min_sessions(z_threshold):
        return 0
    return int(np.count_nonzero(np.abs(session_z_scores(t)) > z_threshold))


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
        out.append(
            f"{n} sessions is below the configured minimum of {report.min_sessions} (LLM_COUNCIL_MIN_BIAS_SESSIONS)"
        )
    if len(report.config_versions) > 1:
        out.append(
            f"{len(report.config_versions)} council configurations are pooled; "
            "filter by council_config_version to avoid mixing model versions"
        )
    lc = report.length_correlation
    if lc is not None and lc.p_value is not None and lc.p_value < SIGNIFICANCE:
        out.append(
            f"length-score correlation r={lc.point_estimate:.3f} is significant over {lc.sample_size} sessions "
            f"(p={lc.p_value:.3g}, 95% CI {lc.ci_lower:.3f}..{lc.ci_upper:.3f}): possible verbosity bias"
        )
    pb = report.position_bias
    if pb is not None and pb.p_value is not None and pb.p_value < SIGNIFICANCE:
        out.append(
            f"scores differ by display position (F test over sessions p={pb.p_value:.3g}): possible position bias"
        )
    if pb is not None and pb.records_without_position:
        out.append(
            f"{pb.records_without_position} records have no display position (llm-council-core before "
            "schema 1.2.0 stored a ranking index there): left out of position bias"
        )
    for profile in report.reviewer_profiles:
        if profile.label in ("harsh", "generous") and profile.contrast is not None:
            out.append(
                f"reviewer {profile.reviewer_id} appears {profile.label} (within-answer contrast "
                f"{profile.contrast.point_estimate:+.2f}, p={profile.contrast.p_value:.3g}; seed threshold: "
                f"{profile.seed_label})"
            )
    if not report.anomalies_checked:
        out.append("anomaly check not run: it needs at least 3 sessions")
    elif report.anomalies:
        out.append(
            f"{len(report.anomalies)} anomalous sessions (|z| > {report.anomaly_threshold:.2f}, Grubbs at "
            f"{SIGNIFICANCE:g} over {n} sessions; seed threshold |z| > {report.anomaly_z:g}: "
            f"{report.seed_anomalies})"
        )
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
        anomaly_z: the seed threshold for anomalous sessions (counted beside the calibrated rule).
        bootstrap_resamples: session resamples behind the bootstrap intervals.
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
    needed = anomaly_min_sessions(anomaly_z)
    base = AggregatedBiasReport(
        sessions=t.n_sessions,
        records=t.n_records,
        window_start=start,
        window_end=end,
        statistical_confidence=confidence_tier(t.n_sessions),
        min_sessions=min_sessions,
        meets_minimum=t.n_sessions >= min_sessions,
        window_sessions=window_sessions or None,
        window_days=window_days or None,
        config_versions=t.config_versions,
        anomaly_z=anomaly_z,
        anomaly_min_sessions=needed,
        anomalies_checked=t.n_sessions >= 3,
        anomaly_threshold=grubbs_critical_z(t.n_sessions) if t.n_sessions >= 3 else None,
        bootstrap_resamples=bootstrap_resamples,
    )
    if t.n_records == 0:
        return base.model_copy(update={"warnings": tuple(_warnings(base))})
    # one set of session resamples for the reviewer and position figures (weights drawn once)
    k = len(t.reviewer_ids)
    rev_sums, rev_counts = session_sums(t.session, t.reviewer, t.score, t.n_sessions, k)
    _, positions, pos_sums, pos_counts = _position_sums(t)
    rev_boot = pos_boot = None
    if bootstrap_resamples > 0 and t.n_sessions >= 2:
        boot = resampled_means(
            np.hstack([rev_sums, pos_sums]), np.hstack([rev_counts, pos_counts]), bootstrap_resamples, seed
        )
        rev_boot, pos_boot = boot[:, :k], boot[:, k:]
    correlations = session_length_correlations(t)
    full = base.model_copy(
        update={
            "length_correlation": pooled_length_correlation(t, confidence, correlations),
            "position_bias": position_bias(t, confidence, bootstrap_resamples, seed, boot=pos_boot),
            "reviewer_profiles": reviewer_profiles(t, confidence, bootstrap_resamples, seed, boot=rev_boot),
            "trends": temporal_trends(t, confidence, correlations),
            "anomalies": detect_anomalies(t),
            "seed_anomalies": seed_anomaly_count(t, anomaly_z),
        }
    )
    return full.model_copy(update={"warnings": tuple(_warnings(full))})
