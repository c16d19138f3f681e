"""The package's statistics, in one place: used by the prediction, the regression gate, the bias
audit and Tier 2.

* :mod:`~harness.stats.verdicts` — the ">15% better" verdict (seed 002): paired samples, the decision
  rule and its sentences (:func:`evaluate_prediction`);
* :mod:`~harness.stats.paired` — paired tests: Wilcoxon signed-rank, McNemar, Holm, the gate's
  :func:`paired_regression_test`, the ratio of means;
* :mod:`~harness.stats.correlation` — Fisher's z, correlation and mean intervals, a least-squares trend;
* :mod:`~harness.stats.cluster` — session-clustered statistics: the cluster-robust mean, the Bayesian
  bootstrap over sessions with percentile intervals, the Wald test of equal group means, Student t / F.

The sign-flip test and interval the verdict uses live in :mod:`harness.stats.signflip`. Importing this
package loads numpy but not scipy (the functions that need scipy import it when called).
"""

from harness.stats.cluster import (
    ClusteredMean,
    EqualMeansTest,
    anomaly_min_sessions,
    clustered_mean,
    equal_means_test,
    f_survival,
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

__all__ = [
    "BINARY_FAMILIES", "DECIMALS", "FAMILY_WORDS", "MIN_INFORMATIVE_PAIRS", "R_CLIP", "UNCATEGORIZED",
    "VERDICT_WORDS", "ZERO_METHOD", "ClusteredMean", "EqualMeansTest", "McNemarResult", "PairedSample",
    "PairedTest", "PredictionReport", "PredictionVerdict", "RegressionTest", "Verdict", "anomaly_min_sessions",
    "clustered_mean", "correlation_ci", "equal_means_test", "evaluate_prediction", "f_survival", "family_words",
    "fisher_z", "fisher_z_array", "fisher_z_inverse", "holm", "linear_trend", "mcnemar_exact", "mean_t_interval",
    "paired_arrays", "paired_regression_test", "percentile_interval", "relative_improvement",
    "relative_improvement_note", "resampled_means", "session_sums", "t_quantile", "t_two_sided_p", "verdict_for",
    "verdict_headline", "verdict_sentence", "verdict_statistics", "wilcoxon_signed_rank", "z_critical",
]
