"""Everything a run says about its baseline arms, computed once: the best member's choice
(:mod:`harness.gate.best_member`), the verdict against every arm and the leave-one-out effects
(:mod:`harness.gate.arm_verdicts`), and the leave-one-out cross-check (:mod:`harness.gate.loo_crosscheck`), all
from the run's :class:`~harness.gate.verdict_plan.VerdictPlan`."""

from __future__ import annotations

from collections.abc import Sequence

from harness.common.model import Frozen
from harness.gate.arm_verdicts import ArmVerdict, LeaveOneOut, arm_lines, arm_verdicts, arms_summary, leave_one_out
from harness.gate.best_member import BestMember
from harness.gate.loo_crosscheck import CrossCheck, cross_check, cross_check_summary
from harness.gate.verdict_plan import VerdictPlan
from harness.run.result import CaseResult


class ArmsOutcome(Frozen):
    """The arms' figures of one run (see the module docstring)."""

    primary: str
    choice: BestMember | None
    verdicts: tuple[ArmVerdict, ...]
    leave_one_out: tuple[LeaveOneOut, ...]
    cross_check: tuple[CrossCheck, ...]

    @property
    def empty(self) -> bool:
        return not (self.verdicts or self.leave_one_out or self.choice)

    def summary(self) -> dict[str, object]:
        """summary.json's ``"arms"`` section."""
        out = arms_summary(self.verdicts, self.leave_one_out, self.choice)
        out["cross_check"] = cross_check_summary(self.cross_check) if self.leave_one_out else []
        return out

    def lines(self, results: Sequence[CaseResult] = ()) -> list[str]:
        """Console lines: the choice, the verdicts, measurement, leave-one-out, then the cross-check."""
        checks = [c.sentence for c in self.cross_check] if self.leave_one_out else []
        return arm_lines(self.verdicts, self.leave_one_out, results, self.choice) + checks


def arms_outcome(plan: VerdictPlan, results: Sequence[CaseResult]) -> ArmsOutcome:
    """The :class:`ArmsOutcome` of a run: its ``plan`` (primary endpoint, arms, the best member's choice,
    prices) and its ``results``."""
    loo = leave_one_out(plan)
    return ArmsOutcome(
        primary=plan.primary,
        choice=plan.choice,
        verdicts=tuple(arm_verdicts(plan, results)),
        leave_one_out=tuple(loo),
        cross_check=tuple(cross_check(results, loo)),
    )
