"""The package's statistics, in one place: used by the prediction, the regression gate, the bias
audit and Tier 2.

* :mod:`~harness.stats.verdicts` — the ">15% better" verdict (seed 002): paired samples, the decision
  rule and its sentences (:func:`evaluate_prediction`);
* :mod:`~harness.stats.paired` — paired tests: Wilcoxon signed-rank, McNemar, Holm, the gate's
  :func:`paired_regression_test`, the ratio of means;
* :mod:`~harness.stats.correlation` — Fisher's z, correlation and mean intervals, a least-squares trend;
* :mod:`~harness.stats.cluster` — session-clustered statistics: the cluster-robust mean, the Bayesian
  bootstrap over sessions with percentile intervals, the Wald test of equal group means, Student t / F.

The sign-flip test and interval the verdict uses live in :mod:`harness.stats.signflip`, its tests
without symmetry in :mod:`harness.stats.boundary_tests` and :mod:`harness.stats.betting`. Importing this
package loads nothing: each name is imported from its module on first use (PEP 562), so the bias
audit, which needs only :mod:`~harness.stats.cluster` and :mod:`~harness.stats.correlation`, does not
load the verdict and paired-test modules. Nothing here imports scipy at import time (the functions
that need it import it when called).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.stats.cluster import (
        ClusteredMean,
        EqualMeansTest,
        anomaly_min_sessions,
        clustered_mean,
        equal_means_test,
        f_survival,
        grubbs_critical_z,
        percentile_interval,
        resampled_means,
        session_sums,
        t_quantile,
        t_two_sided_p,
    )
    from harness.stats.correlation import (
        R_CLIP,
        correlation_ci,
        fisher_z,
        fisher_z_array,
        fisher_z_inverse,
        linear_trend,
        mean_t_interval,
        z_critical,
    )
    from harness.stats.paired import (
        DECIMALS,
        ZERO_METHOD,
        McNemarResult,
        PairedTest,
        RegressionTest,
        holm,
        mcnemar_exact,
        paired_arrays,
        paired_regression_test,
        relative_improvement,
        relative_improvement_note,
        wilcoxon_signed_rank,
    )
    from harness.stats.verdicts import (
        BINARY_FAMILIES,
        FAMILY_WORDS,
        MIN_INFORMATIVE_PAIRS,
        UNCATEGORIZED,
        VERDICT_WORDS,
        PairedSample,
        PredictionReport,
        PredictionVerdict,
        Verdict,
        evaluate_prediction,
        family_words,
        verdict_for,
        verdict_headline,
        verdict_sentence,
        verdict_statistics,
    )

_HOME: dict[str, str] = {
    "ClusteredMean": "harness.stats.cluster",
    "EqualMeansTest": "harness.stats.cluster",
    "anomaly_min_sessions": "harness.stats.cluster",
    "clustered_mean": "harness.stats.cluster",
    "equal_means_test": "harness.stats.cluster",
    "f_survival": "harness.stats.cluster",
    "grubbs_critical_z": "harness.stats.cluster",
    "percentile_interval": "harness.stats.cluster",
    "resampled_means": "harness.stats.cluster",
    "session_sums": "harness.stats.cluster",
    "t_quantile": "harness.stats.cluster",
    "t_two_sided_p": "harness.stats.cluster",
    "R_CLIP": "harness.stats.correlation",
    "correlation_ci": "harness.stats.correlation",
    "fisher_z": "harness.stats.correlation",
    "fisher_z_array": "harness.stats.correlation",
    "fisher_z_inverse": "harness.stats.correlation",
    "linear_trend": "harness.stats.correlation",
    "mean_t_interval": "harness.stats.correlation",
    "z_critical": "harness.stats.correlation",
    "DECIMALS": "harness.stats.paired",
    "ZERO_METHOD": "harness.stats.paired",
    "McNemarResult": "harness.stats.paired",
    "PairedTest": "harness.stats.paired",
    "RegressionTest": "harness.stats.paired",
    "holm": "harness.stats.paired",
    "mcnemar_exact": "harness.stats.paired",
    "paired_arrays": "harness.stats.paired",
    "paired_regression_test": "harness.stats.paired",
    "relative_improvement": "harness.stats.paired",
    "relative_improvement_note": "harness.stats.paired",
    "wilcoxon_signed_rank": "harness.stats.paired",
    "BINARY_FAMILIES": "harness.stats.verdicts",
    "FAMILY_WORDS": "harness.stats.verdicts",
    "MIN_INFORMATIVE_PAIRS": "harness.stats.verdicts",
    "UNCATEGORIZED": "harness.stats.verdicts",
    "VERDICT_WORDS": "harness.stats.verdicts",
    "PairedSample": "harness.stats.verdicts",
    "PredictionReport": "harness.stats.verdicts",
    "PredictionVerdict": "harness.stats.verdicts",
    "Verdict": "harness.stats.verdicts",
    "evaluate_prediction": "harness.stats.verdicts",
    "family_words": "harness.stats.verdicts",
    "verdict_for": "harness.stats.verdicts",
    "verdict_headline": "harness.stats.verdicts",
    "verdict_sentence": "harness.stats.verdicts",
    "verdict_statistics": "harness.stats.verdicts",
}


def __getattr__(name: str) -> Any:
    """Import ``name`` from its module on first use and keep it here."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "BINARY_FAMILIES",
    "DECIMALS",
    "FAMILY_WORDS",
    "MIN_INFORMATIVE_PAIRS",
    "R_CLIP",
    "UNCATEGORIZED",
    "VERDICT_WORDS",
    "ZERO_METHOD",
    "ClusteredMean",
    "EqualMeansTest",
    "McNemarResult",
    "PairedSample",
    "PairedTest",
    "PredictionReport",
    "PredictionVerdict",
    "RegressionTest",
    "Verdict",
    "anomaly_min_sessions",
    "clustered_mean",
    "correlation_ci",
    "equal_means_test",
    "evaluate_prediction",
    "f_survival",
    "family_words",
    "grubbs_critical_z",
    "fisher_z",
    "fisher_z_array",
    "fisher_z_inverse",
    "holm",
    "linear_trend",
    "mcnemar_exact",
    "mean_t_interval",
    "paired_arrays",
    "paired_regression_test",
    "percentile_interval",
    "relative_improvement",
    "relative_improvement_note",
    "resampled_means",
    "session_sums",
    "t_quantile",
    "t_two_sided_p",
    "verdict_for",
    "verdict_headline",
    "verdict_sentence",
    "verdict_statistics",
    "wilcoxon_signed_rank",
    "z_critical",
]
