"""Student t and F probabilities of the bias audit (pure-Python incomplete beta) against scipy and mpmath.

The bias command imports neither: :func:`harness.stats.cluster.betainc` is a continued fraction.
These tests hold it to double precision (relative 1e-11) where the audit uses it: t tails and
quantiles at 1 to 100,000 degrees of freedom, and the F test's tail.
"""

from __future__ import annotations

import itertools

import pytest
import scipy.special
import scipy.stats

from harness.stats.cluster import betainc, f_survival, t_quantile, t_two_sided_p

DFS = (1, 2, 3, 4.5, 7, 11, 29, 30, 31, 61, 99, 999, 11_999, 99_999)


@pytest.mark.parametrize("df", DFS)
def test_t_tails_and_quantiles_match_scipy(df: float):
    for t in (0.3, 1.0, 1.96, 2.5, 4.0, 8.0, 20.0, 60.0):
        assert t_two_sided_p(t, df) == pytest.approx(2 * scipy.stats.t.sf(t, df), rel=1e-11, abs=1e-300)
        assert t_two_sided_p(-t, df) == t_two_sided_p(t, df)
    for p in (0.6, 0.9, 0.95, 0.975, 0.995, 0.9995, 1 - 1e-9):
        t_quantile.cache_clear()
        assert t_quantile(p, df) == pytest.approx(scipy.stats.t.ppf(p, df), rel=1e-11)
        assert t_quantile(1 - p, df) == pytest.approx(scipy.stats.t.ppf(1 - p, df), rel=1e-11)
    assert t_two_sided_p(0.0, df) == 1.0 and t_quantile(0.5, df) == 0.0


def test_f_tail_matches_scipy():
    for d1, d2 in itertools.product((1, 2, 3, 5, 11), (1, 3, 10, 100, 997, 99_990)):
        for f in (0.01, 0.5, 1.0, 2.5, 6.0, 30.0, 500.0):
            assert f_survival(f, d1, d2) == pytest.approx(scipy.stats.f.sf(f, d1, d2), rel=1e-11, abs=1e-300)
    assert f_survival(0.0, 2, 10) == 1.0 and f_survival(-1.0, 2, 10) == 1.0


def test_incomplete_beta_matches_scipy_on_both_branches():
    for a, b in itertools.product((0.5, 1.0, 2.5, 40.0, 5_000.0), (0.5, 1.5, 7.0, 300.0)):
        for x in (1e-6, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-9):
            assert betainc(a, b, x) == pytest.approx(scipy.special.betainc(a, b, x), rel=1e-10, abs=1e-300)
    assert (betainc(2.0, 3.0, 0.0), betainc(2.0, 3.0, 1.0)) == (0.0, 1.0)


def test_t_tail_near_zero_matches_high_precision():
    # scipy's stdtr loses digits as t -> 0 (1 df: 0.49999999526 at t=1e-8); 40-digit mpmath is the judge
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    for df, t in ((1, 1e-8), (3, 1e-5), (50, 1e-3), (999, 0.05)):
        x = mpmath.mpf(df) / (df + mpmath.mpf(t) ** 2)
        exact = float(mpmath.betainc(mpmath.mpf(df) / 2, 0.5, 0, x, regularized=True))
        assert t_two_sided_p(t, df) == pytest.approx(exact, rel=1e-14)
