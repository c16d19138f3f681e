"""council-harness: evaluation and regression-testing harness for multi-model LLM councils.

The package root wires one thing: the score registry (:data:`harness.records.score_spec.SCORES`,
on the ground floor, read by every layer) declares the built-in scores on its first read, from the
built-in scorers (:mod:`harness.scorers.builtin`, each module declaring its scorer's scores beside its
code), in their order.
"""

from harness.records.score_spec import SCORES as _SCORES

__version__ = "0.1.0"


def _declare_builtin_scorers() -> None:
    from harness.scorers.builtin import BUILTIN_SCORERS, declare_scores

    declare_scores(BUILTIN_SCORERS, _SCORES)


_SCORES.load_builtins_with(_declare_builtin_scorers)
