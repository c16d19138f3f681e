"""The AUC's standard error and interval (Hanley & McNeil 1982), for the judge- and reviewer-validity lines.

``SE^2 = (A(1-A) + (n1-1)(Q1-A^2) + (n0-1)(Q2-A^2)) / (n1 n0)`` with ``Q1 = A/(2-A)`` and
``Q2 = 2A^2/(1+A)``; the 95% interval is ``A +- 1.96 SE`` clipped to [0, 1]. It is liberal under the
null (an indicator beside the Mann-Whitney test, which decides: :mod:`harness.gate.judge_validity`).
"""

from __future__ import annotations

import math

#: the two-sided 95% normal quantile
Z95 = 1.959963984540054


def hanley_mcneil_se(auc: float, n1: int, n0: int) -> float:
    """Hanley & McNeil's standard error of an AUC from ``n1`` positives and ``n0`` negatives."""
    q1 = auc / (2 - auc)
    q2 = 2 * auc * auc / (1 + auc)
    var = (auc * (1 - auc) + (n1 - 1) * (q1 - auc * auc) + (n0 - 1) * (q2 - auc * auc)) / (n1 * n0)
    return math.sqrt(max(var, 0.0))


def auc_interval(auc: float, n1: int, n0: int, z: float = Z95) -> tuple[float, float]:
    """``auc +- z * SE`` (:func:`hanley_mcneil_se`), clipped to [0, 1]."""
    se = hanley_mcneil_se(auc, n1, n0)
    return max(0.0, auc - z * se), min(1.0, auc + z * se)
