"""council-harness: evaluation and regression-testing harness for multi-model LLM councils.

The package root wires one thing: the score registry (:data:`harness.records.score_spec.SCORES`,
on the ground floor, read by every layer) declares the built-in scores on its first read by
importing the built-in scorers (:mod:`harness.scorers.builtin`, each module declaring its scorer's
scores beside its code).
"""

from harness.records.score_spec import SCORES as _SCORES

__version__ = "0.1.0"


def _declare_builtin_scorers() -> None:
    import harness.scorers.builtin  # noqa: F401 - importing them declares their scores


_SCORES.load_builtins_with(_declare_builtin_scorers)
