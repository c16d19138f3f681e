"""The built-in scorers: one module per scorer, each declaring with :func:`~.declared.builtin_scorer`
its coroutine, its scores (declared into :data:`harness.records.score_spec.SCORES`), its detail type,
its drill-down summary line and, when it needs one, how its detail settles once every scorer has run.

:data:`BUILTIN_SCORERS` is their fixed order, the order their scores are merged in (and so the key
order of ``CaseResult.scores``): Tier 1 quality metrics, required mentions and forbidden claims,
objective correctness (with the judge's extraction when opted in), the members' stage-1
correctness, seed 002's heuristic quality, the rubric judge, the stage-2 peer rubric, DeepEval and
RAGAS, the per-session bias audit. Each scorer reads the settings that switch it on or off and
returns an empty outcome when off. The maths lives in :mod:`harness.metrics` and
:mod:`harness.bias`; these modules only adapt their return shapes.

The modules are imported below in the order their scores enter the registry (the order of
``SCORES`` and of the quality report's trend table), which is not the scoring order.
"""

# isort: off
from harness.scorers.builtin.quality_metrics import quality_metrics, tier_of
from harness.scorers.builtin.peer_rubric import peer_rubric
from harness.scorers.builtin.mentions import mentions
from harness.scorers.builtin.correctness import correctness
from harness.scorers.builtin.rubric import rubric
from harness.scorers.builtin.heuristic_quality import heuristic_quality
from harness.scorers.builtin.external_validation import external_validation
from harness.scorers.builtin.answer_correct import answer_correct, answer_correctness
from harness.scorers.builtin.bias import bias

# isort: on
from harness.scorers.builtin.declared import BuiltinScorer, builtin_scorer

#: Every built-in scorer, in the order its scores are merged.
BUILTIN_SCORERS: tuple[BuiltinScorer, ...] = (
    quality_metrics,
    mentions,
    correctness,
    answer_correct,
    heuristic_quality,
    rubric,
    peer_rubric,
    external_validation,
    bias,
)
#: Built-in scorer name -> its declaration.
BY_NAME: dict[str, BuiltinScorer] = {s.name: s for s in BUILTIN_SCORERS}

__all__ = ["BUILTIN_SCORERS", "BY_NAME", "BuiltinScorer", "answer_correctness", "builtin_scorer", "tier_of"]
