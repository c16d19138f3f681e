"""Scorers: one protocol, one outcome type, one registry of score meanings.

* :class:`Scorer` (:mod:`.protocol`): called with the case, the transcript, the caller and the
  settings; returns a :class:`ScoreOutcome` (:mod:`.outcome`).
* :class:`ScoreSpec` and :data:`SCORES` (:mod:`harness.records.score_spec`): what each score name
  means (scale, direction, label, gated by default).
* the built-in scorers in their fixed order, one module each declaring its coroutine, scores, detail
  type and report summary (:mod:`.builtin`); user-defined ones from ``module:function`` names or the
  ``council_harness.scorers`` entry points, and :class:`~.user.UnavailableScorer` for one that cannot
  run (:mod:`.user`); the typed detail map of a result (:mod:`.details`).

This module imports only the light parts; :mod:`.builtin` and :mod:`.details` load the metrics.
"""

from harness.records.score_spec import (
    SCORES,
    ScoreRegistry,
    ScoreSpec,
    default_tolerance,
    higher_is_better,
    register_score,
    score_scale,
    spec,
)
from harness.scorers.outcome import ScoreOutcome
from harness.scorers.protocol import Scorer

__all__ = [
    "SCORES",
    "ScoreOutcome",
    "ScoreRegistry",
    "ScoreSpec",
    "Scorer",
    "default_tolerance",
    "higher_is_better",
    "register_score",
    "score_scale",
    "spec",
]
