"""A run's verdicts, composed once (issue 31): the one place that calls the verdict modules.

:func:`run_verdicts` takes the run's :class:`~harness.gate.verdict_plan.VerdictPlan` (the primary endpoint,
the score families, the arms and the council's pairs, derived once by
:func:`~harness.gate.verdict_plan.verdict_plan`) and computes, each once:

1. the >15% prediction (:func:`harness.gate.prediction.prediction`; ``None`` when no family pairs the council
   and the baseline);
2. the arms' figures (:func:`harness.gate.arm_outcome.arms_outcome`: the best member's choice, the verdict
   against every arm, the leave-one-out effects and their cross-check);
3. the remediation table (:func:`harness.gate.remediation.remediation_table`).

Those modules compute from the plan and never derive it again.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.common.model import Frozen
from harness.gate.arm_outcome import ArmsOutcome, arms_outcome
from harness.gate.prediction import prediction
from harness.gate.remediation import BandComparison, remediation_table
from harness.gate.verdict_plan import VerdictPlan
from harness.run.result import CaseResult
from harness.stats import PredictionReport


class RunVerdicts(Frozen):
    """Every verdict of one run (see the module docstring) and the plan they were computed from."""

    plan: VerdictPlan
    prediction: PredictionReport | None
    arms: ArmsOutcome
    remediation: tuple[BandComparison, ...]


def run_verdicts(plan: VerdictPlan, results: Sequence[CaseResult]) -> RunVerdicts:
    """The :class:`RunVerdicts` of ``results`` under ``plan`` (module docstring)."""
    return RunVerdicts(
        plan=plan,
        prediction=prediction(plan, results),
        arms=arms_outcome(plan, results),
        remediation=tuple(remediation_table(plan, results)),
    )
