"""Cross-session aggregation, checked against figures computed independently with numpy/scipy.

The session is the independent unit: pooled correlations use one Fisher z per session with the
spread between sessions; reviewer and position intervals come from a bootstrap over sessions.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
import scipy.stats

from harness.bias.aggregate import (
    ConfidenceTier,
    confidence_tier,
    detect_anomalies,
    pooled_length_correlation,
    position_bias,
    reviewer_profiles,
    run_aggregated_bias_audit,
    seed_anomaly_count,
    session_length_correlations,
    temporal_trends,
)
from harness.bias.store import BiasMetricRecord, ConsentLevel
from harness.stats import anomaly_min_sessions, correlation_ci, fisher_z, fisher_z_inverse, grubbs_critical_z

T0 = datetime(2025, 3, 1, tzinfo=UTC)
Z975 = scipy.stats.norm.ppf(0.975)


def _rec(
    session: str,
    length: int = 100,
    score: float = 5.0,
    reviewer: str = "r1",
    position: int = 1,
    when: datetime = T0,
    version: str = "v1",
    model: str | None = None,
) -> BiasMetricRecord:
    return BiasMetricRecord(
        session_id=session,
        timestamp=when,
        consent_level=ConsentLevel.LOCAL_ONLY,
        reviewer_id=reviewer,
        model_id=model or f"m{length}",
        position=position,
        response_length_chars=length,
        score_value=score,
        council_config_version=version,
    )


def _session(name: str, lengths: list[int], scores: list[float], when: datetime = T0) -> list[BiasMetricRecord]:
    return [_rec(name, n, s, when=when) for n, s in zip(lengths, scores, strict=True)]


# --- Fisher z and tiers ----------------------------------------------------------------------


@pytest.mark.parametrize("r", [-0.95, -0.3, 0.0, 0.42, 0.9])
def test_fisher_z_matches_numpy(r):
    assert fisher_z(r) == pytest.approx(float(np.arctanh(r)), abs=1e-12)
    assert fisher_z_inverse(fisher_z(r)) == pytest.approx(r, abs=1e-12)
    assert fisher_z_inverse(1.3) == pytest.approx(float(np.tanh(1.3)), abs=1e-12)


def test_fisher_z_clips_perfect_correlations():
    assert fisher_z(1.0) == pytest.approx(float(np.arctanh(0.9999)))
    assert fisher_z(-1.0) == pytest.approx(float(np.arctanh(-0.9999)))


def test_correlation_ci_matches_formula():
    lo, hi = correlation_ci(0.5, 28)
    half = Z975 / math.sqrt(25)
    assert lo == pytest.approx(math.tanh(math.atanh(0.5) - half), abs=1e-12)
    assert hi == pytest.approx(math.tanh(math.atanh(0.5) + half), abs=1e-12)
    lo90, hi90 = correlation_ci(0.5, 28, confidence=0.90)
    half90 = scipy.stats.norm.ppf(0.95) / 5
    assert (lo90, hi90) == pytest.approx((math.tanh(math.atanh(0.5) - half90), math.tanh(math.atanh(0.5) + half90)))
    assert lo < lo90 < 0.5 < hi90 < hi
    with pytest.raises(ValueError):
        correlation_ci(0.5, 3)


@pytest.mark.parametrize(
    ("sessions", "tier"),
    [
        (0, "insufficient_data"),
        (9, "insufficient_data"),
        (10, "preliminary"),
        (19, "preliminary"),
        (20, "moderate"),
        (49, "moderate"),
        (50, "high"),
        (10_000, "high"),
    ],
)
def test_confidence_tier_boundaries(sessions, tier):
    assert confidence_tier(sessions) == ConfidenceTier(tier)
    assert confidence_tier(sessions).value == tier


# --- pooled correlation --------------------------------------------------------------------------

S1 = ([100, 200, 300, 400, 500], [2, 4, 5, 4, 6])
S2 = ([50, 80, 120, 160, 220, 300], [7, 6, 6, 5, 4, 3])
S3 = ([10, 40, 20, 30], [1, 9, 3, 7])


def _pooling_records() -> list[BiasMetricRecord]:
    return (
        _session("s1", *S1, when=T0)
        + _session("s2", *S2, when=T0 + timedelta(hours=1))
        + _session("s3", *S3, when=T0 + timedelta(hours=2))
        + _session("s4", [1, 2, 3], [1, 2, 3])  # 3 records: weight 0, left out
        + _session("s5", [1, 2, 3, 4], [5, 5, 5, 5])  # constant scores: r undefined
        + _session("s6", [9, 9, 9, 9], [1, 2, 3, 4])  # constant lengths: r undefined
    )


def test_per_session_correlations_match_numpy():
    r, n = session_length_correlations(_pooling_records())
    for i, (lengths, scores) in enumerate((S1, S2, S3)):
        assert r[i] == pytest.approx(float(np.corrcoef(lengths, scores)[0, 1]), abs=1e-12)
    assert r[3] == pytest.approx(1.0)
    assert math.isnan(r[4]) and math.isnan(r[5])
    assert list(n) == [5, 6, 4, 3, 4, 4]


def test_pooled_correlation_is_a_candidate_weighted_mean_over_sessions():
    rs = [float(np.corrcoef(lengths, scores)[0, 1]) for lengths, scores in (S1, S2, S3)]
    z = np.arctanh(rs)
    w = np.array([5.0, 6.0, 4.0])  # distinct candidates (answers) per session, not records - 3
    zbar = float(np.sum(w * z) / w.sum())
    # cluster-robust SE: k/(k-1) * sum w^2 (z - zbar)^2 / (sum w)^2, floored at 1/sqrt(sum(n-3)) = 1/sqrt(6)
    se = max(math.sqrt(3 / 2 * float(np.sum((w * (z - zbar)) ** 2))) / w.sum(), 1 / math.sqrt(6))
    t2 = scipy.stats.t.ppf(0.975, 2)
    report = pooled_length_correlation(_pooling_records())
    assert report is not None
    assert report.metric_name == "length_score_correlation"
    assert report.point_estimate == pytest.approx(math.tanh(zbar), abs=1e-12)
    assert report.ci_lower == pytest.approx(math.tanh(zbar - t2 * se), abs=1e-9)
    assert report.ci_upper == pytest.approx(math.tanh(zbar + t2 * se), abs=1e-9)
    assert report.p_value == pytest.approx(2 * scipy.stats.t.sf(abs(zbar) / se, 2), rel=1e-6)
    assert (report.sample_size, report.sessions, report.sample_unit) == (3, 3, "sessions")
    assert report.statistical_confidence == ConfidenceTier.INSUFFICIENT
    assert report.window_start == T0
    assert report.window_end == T0 + timedelta(hours=2)
    assert "3 sessions left out" in report.note


def test_pooled_correlation_with_equal_weights_is_the_one_sample_t_test():
    # four sessions of four answers each: equal weights, so the interval is scipy's one-sample t
    sessions = [
        ([10, 20, 30, 40], [1, 3, 2, 5]),
        ([10, 20, 30, 40], [4, 2, 3, 1]),
        ([15, 25, 35, 45], [2, 2, 5, 6]),
        ([12, 22, 32, 42], [6, 1, 7, 8]),
    ]
    records = [r for i, (n, sc) in enumerate(sessions) for r in _session(f"s{i}", n, sc)]
    z = np.arctanh([float(np.corrcoef(n, sc)[0, 1]) for n, sc in sessions])
    test = scipy.stats.ttest_1samp(z, 0.0)
    lo, hi = test.confidence_interval(0.95)
    assert float(np.std(z, ddof=1)) / 2 > 1 / math.sqrt(4)  # the spread between sessions sets the SE
    report = pooled_length_correlation(records)
    assert report is not None
    assert report.p_value == pytest.approx(float(test.pvalue), rel=1e-9)
    assert (report.ci_lower, report.ci_upper) == pytest.approx((math.tanh(lo), math.tanh(hi)), abs=1e-12)


def test_pooled_correlation_of_one_session_has_no_interval():
    report = pooled_length_correlation(_session("s1", *S1))
    assert report is not None
    assert report.point_estimate == pytest.approx(float(np.corrcoef(*S1)[0, 1]))
    assert (report.ci_lower, report.ci_upper, report.p_value) == (None, None, None)


def test_pooled_correlation_needs_a_qualifying_session():
    assert pooled_length_correlation(_session("s", [1, 2, 3], [3, 2, 1])) is None


# --- reviewer profiles ---------------------------------------------------------------------------

SCORES = {"r1": [2, 3, 2, 3, 2, 3], "r2": [7, 8, 7, 8, 7, 8], "r3": [6, 7, 8, 7, 6, 8]}


def _reviewer_records() -> list[BiasMetricRecord]:
    return [
        _rec(f"s{i}", score=s, reviewer=rev, when=T0 + timedelta(days=i))
        for rev, scores in SCORES.items()
        for i, s in enumerate(scores)
    ]


def test_reviewer_profiles_point_estimates_and_session_bootstrap():
    profiles = {p.reviewer_id: p for p in reviewer_profiles(_reviewer_records(), bootstrap_resamples=2000)}
    means = {rev: float(np.mean(s)) for rev, s in SCORES.items()}
    grand = float(np.mean(list(means.values())))
    sd = float(np.std(list(means.values()), ddof=1))
    for rev, scores in SCORES.items():
        p = profiles[rev]
        assert p.mean_score.point_estimate == pytest.approx(means[rev])
        assert p.std_score == pytest.approx(float(np.std(scores, ddof=1)))
        assert (p.mean_score.sample_size, p.mean_score.sessions) == (6, 6)
        lo, hi = p.mean_score.ci_lower, p.mean_score.ci_upper
        # one score per session here, so the session bootstrap of a mean lies within the scores' range
        assert lo is not None and hi is not None and min(scores) <= lo < means[rev] < hi <= max(scores)
        assert p.harshness_z is not None
        assert p.harshness_z.point_estimate == pytest.approx((means[rev] - grand) / sd)
        zlo, zhi = p.harshness_z.ci_lower, p.harshness_z.ci_upper
        assert zlo is not None and zhi is not None and zlo < p.harshness_z.point_estimate < zhi
    # r1: z = (2.5 - 5.667) / 2.754 = -1.15; every resample keeps r1 lowest, so its z interval is below 0
    assert profiles["r1"].harshness_z.point_estimate == pytest.approx(-1.1499, abs=1e-4)
    assert profiles["r1"].harshness_z.ci_upper < 0
    # the seed threshold (|z| >= 1 and the interval off 0) flags r1 only; it stays visible beside the
    # calibrated flag, which compares each reviewer with the others on the same answers (issue 27)
    assert [profiles[r].seed_label for r in ("r1", "r2", "r3")] == ["harsh", "typical", "typical"]
    assert [profiles[r].label for r in ("r1", "r2", "r3")] == ["harsh", "generous", "generous"]
    # r1's contrasts per session: 2 - (7+6)/2, 3 - (8+7)/2, 2 - (7+8)/2, 3 - (8+7)/2, 2 - (7+6)/2, 3 - (8+8)/2
    r1 = np.array([-4.5, -4.5, -5.5, -4.5, -4.5, -5.0])
    contrast = profiles["r1"].contrast
    assert contrast is not None and contrast.point_estimate == pytest.approx(-4.75)
    t = r1.mean() / (r1.std(ddof=1) / math.sqrt(6))
    assert contrast.p_value == pytest.approx(2 * scipy.stats.t.sf(abs(t), 5), rel=1e-6)
    assert (contrast.sample_size, contrast.sample_unit) == (6, "sessions")
    assert sum(p.harshness_z.point_estimate for p in profiles.values()) == pytest.approx(0.0, abs=1e-12)


def test_harshness_interval_includes_the_grand_mean_uncertainty():
    # every session has its own level (a hard or easy query) shared by all reviewers; reviewer "a" is
    # always 1 point below. Mapping a's own t-interval through a fixed grand mean and sd (the old rule)
    # gives an interval that reaches above 0; recomputing the grand mean in every session resample
    # cancels the shared level, and a is credibly harsh.
    rng = np.random.default_rng(5)
    offsets = {"a": -1.0, "b": 0.0, "c": 0.3, "d": 0.7}
    records = []
    for s in range(12):
        level = rng.normal(5.5, 2.0)
        for rev, offset in offsets.items():
            records.append(
                _rec(
                    f"s{s}",
                    score=float(np.clip(level + offset + rng.normal(0, 0.2), 1, 10)),
                    reviewer=rev,
                    when=T0 + timedelta(hours=s),
                )
            )
    scores = {rev: [r.score_value for r in records if r.reviewer_id == rev] for rev in offsets}
    means = np.array([np.mean(v) for v in scores.values()])
    grand, sd = float(means.mean()), float(np.std(means, ddof=1))
    lo, hi = scipy.stats.t.interval(0.95, 11, loc=np.mean(scores["a"]), scale=scipy.stats.sem(scores["a"]))
    assert (hi - grand) / sd > 0  # the old mapped interval would not call "a" harsh
    a = {p.reviewer_id: p for p in reviewer_profiles(records)}["a"]
    assert a.harshness_z is not None
    assert a.harshness_z.point_estimate == pytest.approx((means[0] - grand) / sd)
    assert a.harshness_z.ci_upper is not None and a.harshness_z.ci_upper < 0
    assert a.label == "harsh"


def test_reviewer_profile_edge_cases():
    (only,) = reviewer_profiles([_rec("s1", score=4), _rec("s2", score=6)])
    assert only.harshness_z is None and only.label == "undetermined"
    profiles = reviewer_profiles([_rec("s1", score=4, reviewer="a"), _rec("s1", score=6, reviewer="b")])
    assert all(p.mean_score.ci_lower is None and p.std_score is None for p in profiles)
    assert [p.seed_label for p in profiles] == ["typical", "typical"]  # no interval: never flagged
    assert [p.label for p in profiles] == ["undetermined", "undetermined"]  # one session: no t-test
    assert reviewer_profiles([]) == ()


# --- position bias -------------------------------------------------------------------------------

POSITIONS = {1: [9.0, 8.5, 7.5, 9.5], 2: [6.0, 7.0, 5.5], 3: [3.0, 4.5, 2.0, 5.0, 1.5]}


def _position_records() -> list[BiasMetricRecord]:
    out, i = [], 0
    for pos, scores in POSITIONS.items():
        for s in scores:
            out.append(_rec(f"s{i % 5}", score=s, position=pos))
            i += 1
    return out


def test_position_bias_means_variance_and_bounded_intervals():
    summary = position_bias(_position_records(), bootstrap_resamples=200, seed=3)
    assert summary is not None
    groups = list(POSITIONS.values())
    means = [float(np.mean(g)) for g in groups]
    for report, (pos, g) in zip(summary.positions, POSITIONS.items(), strict=True):
        assert report.subject == str(pos)
        assert report.point_estimate == pytest.approx(np.mean(g))
        assert report.sample_size == len(g)
        assert report.ci_lower is not None and report.ci_upper is not None
        assert 1.0 <= report.ci_lower <= report.point_estimate <= report.ci_upper <= 10.0
    assert summary.variance.point_estimate == pytest.approx(float(np.var(means, ddof=1)))
    lo, hi = summary.variance.ci_lower, summary.variance.ci_upper
    assert lo is not None and hi is not None and 0 <= lo <= hi
    again = position_bias(_position_records(), bootstrap_resamples=200, seed=3)
    assert (again.variance.ci_lower, again.variance.ci_upper) == (lo, hi)
    assert position_bias(_position_records(), bootstrap_resamples=0).variance.ci_lower is None


def test_position_mean_interval_stays_on_the_1_to_10_scale():
    # a position seen 3 times with scores 10, 10, 1.5 (one per session): the t-interval of the mean
    # is [-3.4, 18.7], far outside the scale; the session bootstrap interval stays inside 1-10
    scores = [10.0, 10.0, 1.5]
    lo_t, hi_t = scipy.stats.t.interval(0.95, 2, loc=np.mean(scores), scale=scipy.stats.sem(scores))
    assert lo_t < 1.0 and hi_t > 10.0
    records = [_rec(f"s{i}", score=v, position=1) for i, v in enumerate(scores)]
    records += [_rec(f"s{i}", score=5.0, position=2) for i in range(3)]
    summary = position_bias(records)
    assert summary is not None
    first = summary.positions[0]
    assert first.ci_lower is not None and first.ci_upper is not None
    assert 1.5 <= first.ci_lower < first.point_estimate < first.ci_upper <= 10.0


def test_position_f_test_matches_hotelling_on_complete_sessions():
    # one score per (session, position): the cluster-robust Wald F equals Hotelling's one-sample T^2
    # on the per-session contrasts (position j minus the last position), worked with numpy
    rng = np.random.default_rng(11)
    k, p = 15, 3
    data = rng.normal(5.0, 1.0, size=(k, p)) + np.array([0.6, 0.0, -0.2])
    records = [_rec(f"s{i}", score=float(data[i, j]), position=j + 1) for i in range(k) for j in range(p)]
    summary = position_bias(records, bootstrap_resamples=0)
    assert summary is not None and summary.df == (2, 13)
    d = data[:, :2] - data[:, 2:]
    dbar = d.mean(axis=0)
    t2 = k * dbar @ np.linalg.solve(np.cov(d, rowvar=False), dbar)
    f = t2 * (k - 2) / (2 * (k - 1))
    assert summary.f_statistic == pytest.approx(f, rel=1e-9)
    assert summary.p_value == pytest.approx(scipy.stats.f.sf(f, 2, k - 2), rel=1e-9)
    assert summary.variance.p_value == summary.p_value


def test_position_bias_needs_two_positions_and_survives_identical_scores():
    assert position_bias([_rec("s1", position=1), _rec("s2", position=1)]) is None
    flat = position_bias(
        [_rec("s1", position=1), _rec("s1", position=2), _rec("s2", position=1)], bootstrap_resamples=50
    )
    assert flat is not None
    assert flat.variance.point_estimate == 0.0
    assert flat.f_statistic is None and flat.p_value is None


# --- trends and anomalies ------------------------------------------------------------------------


def test_temporal_trend_matches_least_squares():
    days = np.arange(6, dtype=float)
    means = np.array([5.0, 5.6, 5.9, 6.7, 7.1, 7.4])
    records = [
        _rec(f"s{i}", score=float(m), when=T0 + timedelta(days=float(d)))
        for i, (d, m) in enumerate(zip(days, means, strict=True))
    ]
    (trend,) = temporal_trends(records)  # one record per session: no length-r trend
    slope, intercept = np.polyfit(days, means, 1)
    resid = means - (slope * days + intercept)
    stderr = math.sqrt(float(np.sum(resid**2)) / 4 / float(np.sum((days - days.mean()) ** 2)))
    half = scipy.stats.t.ppf(0.975, 4) * stderr
    assert trend.metric_name == "session_mean_score_trend"
    assert trend.point_estimate == pytest.approx(slope)
    assert (trend.ci_lower, trend.ci_upper) == pytest.approx((slope - half, slope + half))
    assert trend.p_value == pytest.approx(2 * scipy.stats.t.sf(abs(slope / stderr), 4))
    assert trend.sample_size == 6
    assert temporal_trends([_rec("a"), _rec("b"), _rec("c", score=7)]) == ()  # one distinct time


def test_anomalies_beyond_z_threshold():
    means = [4.9 if i % 2 else 5.1 for i in range(11)] + [9.0]
    records = [_rec(f"s{i:02d}", score=m, when=T0 + timedelta(hours=i)) for i, m in enumerate(means)]
    z = (np.array(means) - np.mean(means)) / np.std(means, ddof=1)
    assert abs(z[-1]) > 2.5 and np.all(np.abs(z[:-1]) < 2.5)
    (anomaly,) = detect_anomalies(records)
    assert (anomaly.session_id, anomaly.direction) == ("s11", "high")
    assert anomaly.z_score == pytest.approx(float(z[-1]))
    assert anomaly.value == pytest.approx(9.0)
    assert anomaly.timestamp == T0 + timedelta(hours=11)
    assert seed_anomaly_count(records, 2.5) == 1 and seed_anomaly_count(records, 4.0) == 0
    assert detect_anomalies(records[:-1]) == ()  # without the outlier: 4.9 and 5.1 alternate


def test_grubbs_critical_values_match_the_published_table():
    # Grubbs (1969) / NIST e-Handbook, two-sided alpha 0.05
    for n, g in ((3, 1.1543), (8, 2.1266), (10, 2.2900), (12, 2.4116), (30, 2.9085), (100, 3.3841)):
        assert grubbs_critical_z(n) == pytest.approx(g, abs=1e-4)
    with pytest.raises(ValueError):
        grubbs_critical_z(2)


def test_anomaly_check_states_its_minimum_sessions():
    # the seed threshold: with n values the largest |z| is (n-1)/sqrt(n): 8 sessions -> 7/sqrt(8) = 2.475 < 2.5
    assert anomaly_min_sessions(2.5) == 9
    assert anomaly_min_sessions(2.0) == 6  # 5/sqrt(6) = 2.04 > 2 > 4/sqrt(5) = 1.79
    eight = [_rec(f"s{i}", score=5.0 if i else 9.0, when=T0 + timedelta(hours=i)) for i in range(8)]
    # the calibrated rule runs from 3 sessions: Grubbs' 2.127 at 8 sessions, below the 2.475 reached here
    (anomaly,) = detect_anomalies(eight)
    assert anomaly.z_score == pytest.approx(7 / math.sqrt(8))
    report = run_aggregated_bias_audit(eight)
    assert (report.anomalies_checked, report.anomaly_min_sessions, report.seed_anomalies) == (True, 9, 0)
    assert report.anomaly_threshold == pytest.approx(2.1266, abs=1e-4)
    assert any(
        "1 anomalous sessions (|z| > 2.13, Grubbs at 0.05 over 8 sessions; seed threshold |z| > 2.5: 0)" in w
        for w in report.warnings
    )
    two = eight[:2]
    assert detect_anomalies(two) == () and not run_aggregated_bias_audit(two).anomalies_checked
    nine = eight + [_rec("s8", score=5.0, when=T0 + timedelta(hours=8))]
    (anomaly,) = detect_anomalies(nine)
    assert anomaly.z_score == pytest.approx(8 / 3)  # the largest possible |z| with 9 sessions
    assert run_aggregated_bias_audit(nine).seed_anomalies == 1


# --- the whole audit -----------------------------------------------------------------------------


def _many_sessions(n: int, version: str = "v1") -> list[BiasMetricRecord]:
    out = []
    for s in range(n):
        when = T0 + timedelta(days=s)
        for rev, bias in (("r1", 0.0), ("r2", 1.0), ("r3", -1.0)):
            for pos, length in ((1, 100 + 10 * s), (2, 300), (3, 500 - 7 * s)):
                score = 1 + (length % 9) + bias * 0.5 + (3 - pos) * 0.3
                out.append(_rec(f"s{s}", length, max(1.0, min(10.0, score)), rev, pos, when, version))
    return out


def test_run_aggregated_bias_audit_windows_and_tiers():
    records = _many_sessions(30)
    full = run_aggregated_bias_audit(records)
    assert (full.sessions, full.records) == (30, 270)
    assert full.statistical_confidence == ConfidenceTier.MODERATE and full.meets_minimum
    assert full.window_start == T0 and full.window_end == T0 + timedelta(days=29)
    last = run_aggregated_bias_audit(records, window_sessions=15)
    assert last.sessions == 15 and last.window_start == T0 + timedelta(days=15)
    assert last.statistical_confidence == ConfidenceTier.PRELIMINARY and not last.meets_minimum
    assert any(w.startswith("High Volatility") for w in last.warnings)
    days = run_aggregated_bias_audit(records, window_days=4.5, now=T0 + timedelta(days=29))
    assert days.sessions == 5 and days.statistical_confidence == ConfidenceTier.INSUFFICIENT
    assert any("collecting data" in w for w in days.warnings)
    for report in (full, last, days):
        metrics = report.metrics()
        assert metrics and report.length_correlation is not None and report.position_bias is not None
        assert len(report.reviewer_profiles) == 3
        for m in metrics:
            assert (m.window_start, m.window_end) == (report.window_start, report.window_end)
            assert m.statistical_confidence == confidence_tier(m.sessions)
            assert m.sample_size > 0


def test_run_aggregated_bias_audit_empty_and_config_versions():
    empty = run_aggregated_bias_audit([])
    assert (empty.sessions, empty.records, empty.metrics()) == (0, 0, [])
    assert empty.warnings == ("no bias records in the window",)
    mixed = _many_sessions(3, "v1") + [
        r.model_copy(update={"session_id": r.session_id + "b", "council_config_version": "v2"})
        for r in _many_sessions(2)
    ]
    report = run_aggregated_bias_audit(mixed)
    assert report.config_versions == ("v1", "v2") and report.sessions == 5
    assert any("2 council configurations are pooled" in w for w in report.warnings)
    only = run_aggregated_bias_audit(mixed, config_version="v2")
    assert only.config_versions == ("v2",) and only.sessions == 2
    with pytest.raises(ValueError):
        run_aggregated_bias_audit(mixed, min_sessions=0)
