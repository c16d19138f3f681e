"""What the DeepEval and RAGAS adapters share with :mod:`harness.metrics.external_validation`: the offline switch,
the pass threshold and one metric's outcome.

Kept apart so the adapters (imported lazily by ``external``) never import ``external`` back.
"""

from __future__ import annotations

import os

from harness.common.model import Frozen

PASS_THRESHOLD = 0.7  # seed 001: overall_pass = every score >= 0.7

#: Set before either framework is imported: no telemetry, no ``.env`` loading.
OFFLINE_ENV: dict[str, str] = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
    "DEEPEVAL_DISABLE_DOTENV": "1",
    "RAGAS_DO_NOT_TRACK": "true",  # exactly "true": RAGAS compares the lower-cased string
}


def offline_env() -> None:
    """Switch both frameworks to offline, quiet operation (call before importing them)."""
    os.environ.update(OFFLINE_ENV)


class MetricOutcome(Frozen):
    """What one framework metric gave: a score with its reason, or the error that stopped it.

    Args:
        name: the seed's metric name (``relevancy``, ``faithfulness``, ...).
        score: 0-1, ``None`` when the metric failed.
        reason: the framework's (judge-written) reason, if any.
        error: why the metric failed.
    """

    name: str
    score: float | None = None
    reason: str | None = None
    error: str | None = None
