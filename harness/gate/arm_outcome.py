"""Everything a run says about its baseline arms, computed once: the best member's choice
(:mod:`harness.gate.best_member`), the verdict against every arm and the leave-one-out effects
(:mod:`harness.gate.arm_verdicts`), and the leave-one-out cross-check (:mod:`harness.gate.loo_crosscheck`)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.common.model import Frozen
from harness.config import ModelPrice
from harness.gate.arm_verdicts import ArmVerdict, LeaveOneOut, arm_lines, arm_verdicts, arms_summary, leave_one_out
from harness.gate.best_member import BestMember, best_member
from harness.gate.loo_crosscheck import CrossCheck, cross_check, cross_check_summary
from harness.gate.prediction import default_primary
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


def arms_outcome(results: Sequence[CaseResult], threshold: float = 0.15, primary_endpoint: str | None = None,
                 selection_tag: str | None = None, pricing: dict[str, ModelPrice] | None = None) -> ArmsOutcome:
    """The :class:`ArmsOutcome` of ``results`` (``selection_tag``: the declared selection split's tag;
    ``pricing``: for the dollar ratio)."""
    primary = primary_endpoint or default_primary(results)[0]
    loo = leave_one_out(results, primary)
    return ArmsOutcome(
        primary=primary, choice=best_member(results, primary, selection_tag),
        verdicts=tuple(arm_verdicts(results, threshold, primary, selection_tag=selection_tag, pricing=pricing)),
        leave_one_out=tuple(loo), cross_check=tuple(cross_check(results, loo)),
    )
