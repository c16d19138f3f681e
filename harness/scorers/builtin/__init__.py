"""The built-in scorers: one module per scorer, each declaring with :func:`~.declared.builtin_scorer`
its place (``order``), its coroutine, its scores, its detail type, its drill-down summary line and, when
it needs one, how its detail settles once every scorer has run.

The package finds them itself (:func:`~.declared.discover`: every module here is imported and its
declaration collected), so adding a built-in scorer is one module and its test; nothing here names it.
:data:`BUILTIN_SCORERS` is their ascending ``order``, the order they score, their scores are merged in
(the key order of ``CaseResult.scores``) and their scores are declared into
:data:`harness.records.score_spec.SCORES` (:func:`~.declared.declare_scores`, called by the package root
on the registry's first read): Tier 1 quality metrics, required mentions and forbidden claims,
objective correctness (with the judge's extraction when opted in), the members' stage-1 correctness,
seed 002's heuristic quality, the rubric judge, the stage-2 peer rubric, DeepEval and RAGAS, the
per-session bias audit. Each scorer reads the settings that switch it on or off and returns an empty
outcome when off. The maths lives in :mod:`harness.metrics` and :mod:`harness.bias`; these modules
only adapt their return shapes.
"""

from harness.scorers.builtin.answer_correct import answer_correctness
from harness.scorers.builtin.declared import BuiltinScorer, builtin_scorer, declare_scores, discover
from harness.scorers.builtin.quality_metrics import tier_of

#: Every built-in scorer, in the order its scores are merged (each module's declared ``order``).
BUILTIN_SCORERS: tuple[BuiltinScorer, ...] = discover(__name__, __path__)
#: Built-in scorer name -> its declaration.
BY_NAME: dict[str, BuiltinScorer] = {s.name: s for s in BUILTIN_SCORERS}

__all__ = [
    "BUILTIN_SCORERS",
    "BY_NAME",
    "BuiltinScorer",
    "answer_correctness",
    "builtin_scorer",
    "declare_scores",
    "discover",
    "tier_of",
]
