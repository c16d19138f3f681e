"""What fails the gate: the user's rule (``gate.fail_on``, ``gate.min_pass_rate``) applied to the gate's reasons.

:func:`harness.gate.regression.gate_outcome` gathers every reason (:mod:`harness.gate.baselines`); this
module decides which of the ``failing`` reasons (a case that fails or errors in this run and is not a
regression) still count. Precedence, top-down:

1. ``fail_on: regressions``: a ``failing`` reason whose case (dataset, case, subject) failed or errored
   in the stored baseline becomes a **known failure** (kind ``known_failure``). A failing case the
   baseline does not hold (a new case, or a dataset without a baseline) stays ``failing``: nothing
   says it is known. ``fail_on: failures`` (the default) leaves every ``failing`` reason counting.
2. ``min_pass_rate: r``: per subject, the pass rate is ``passed / (passed + failed + error)`` over the
   run's results of that subject (``awaiting_review`` is left out; a subject with none of those has no
   rate and is left alone). A subject whose rate is ``>= r`` has its remaining ``failing`` reasons
   **tolerated** (kind ``tolerated_failure``); a subject whose rate is ``< r`` gets a ``pass_rate``
   reason, which fails the gate, and keeps its ``failing`` reasons.
3. Every other reason is never excused by the rule: a regression (``newly_failing``, ``score_drop``,
   ``score_missing``, ``missing``, ``aggregate``), an ``unreadable`` line, a ``scoring_error``
   (the ``incomplete`` verdict) and any kind other modules add. The rule only ever moves
   ``failing`` reasons aside or adds ``pass_rate``; the verdict over what is left is still
   :func:`harness.gate.baselines.verdict_of`.

In the noise-aware mode (:mod:`harness.gate.noise`: a sampled run, or repeats) a case failing in both
runs is already no reason, whatever ``fail_on`` says; the rule matters for the strict mode (a replayed
or temperature-0 run), where such a case is a ``failing`` reason.

The excused reasons are kept (:attr:`RuleOutcome.excused`): the console, ``summary.json`` and the
report list them as known or tolerated failures. :meth:`RuleOutcome.words` says which rule decided.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness.common.model import Frozen
from harness.config import GateSettings
from harness.gate.baselines import FAILING, Comparison, GateReason
from harness.run.result import CaseResult

__all__ = ["RuleOutcome", "apply_rule", "pass_rates"]


class RuleOutcome(Frozen):
    """The reasons after the rule, and what it excused.

    Args:
        fail_on, min_pass_rate: the rule applied (``gate:`` in the config).
        reasons: the reasons that still count (the verdict is taken over these).
        excused: the ``known_failure`` and ``tolerated_failure`` reasons (reported, not counted).
        pass_rates: subject -> its pass rate (only with ``min_pass_rate``).
    """

    fail_on: str
    min_pass_rate: float | None = None
    reasons: tuple[GateReason, ...]
    excused: tuple[GateReason, ...] = ()
    pass_rates: dict[str, float] = {}

    def words(self) -> str:
        """``rule: fail_on=regressions, min_pass_rate=0.8 (3 known failure(s) not counted)``."""
        rule = f"fail_on={self.fail_on}"
        if self.min_pass_rate is not None:
            rule += f", min_pass_rate={self.min_pass_rate:g}"
        known = sum(r.kind == "known_failure" for r in self.excused)
        tolerated = sum(r.kind == "tolerated_failure" for r in self.excused)
        notes = [f"{known} known failure(s)"] if known else []
        notes += [f"{tolerated} tolerated failure(s)"] if tolerated else []
        return f"rule: {rule}" + (f" ({', '.join(notes)} not counted)" if notes else "")


def pass_rates(results: Iterable[CaseResult]) -> dict[str, float]:
    """Subject -> ``passed / (passed + failed + error)``; subjects with no such result are left out."""
    passed: dict[str, int] = {}
    judged: dict[str, int] = {}
    for r in results:
        if r.status == "awaiting_review":
            continue
        judged[r.subject] = judged.get(r.subject, 0) + 1
        passed[r.subject] = passed.get(r.subject, 0) + (r.status == "passed")
    return {s: passed[s] / n for s, n in sorted(judged.items())}


def _baseline_failing(comparisons: Sequence[Comparison]) -> set[tuple[str, str, str]]:
    """(dataset, case, subject) of every case that failed or errored in its stored baseline."""
    return {
        (c.dataset, d.case_id, d.subject)
        for c in comparisons
        for d in c.cases
        if d.baseline_status is not None and d.baseline_status in FAILING
    }


def apply_rule(
    reasons: Sequence[GateReason], results: Sequence[CaseResult], comparisons: Sequence[Comparison], rule: GateSettings
) -> RuleOutcome:
    """Apply ``rule`` to the gate's ``reasons`` (module docstring: precedence and definitions)."""
    known_keys = _baseline_failing(comparisons) if rule.fail_on == "regressions" else set()
    kept: list[GateReason] = []
    excused: list[GateReason] = []
    for r in reasons:
        if r.kind == "failing" and (r.dataset, r.case_id, r.subject) in known_keys:
            excused.append(
                r.model_copy(
                    update={
                        "kind": "known_failure",
                        "detail": f"{r.detail} (failed in the baseline too: a known failure)",
                    }
                )
            )
        else:
            kept.append(r)
    rates: dict[str, float] = {}
    if rule.min_pass_rate is not None:
        rates = pass_rates(results)
        threshold = rule.min_pass_rate
        low = {s for s, p in rates.items() if p < threshold}
        still: list[GateReason] = []
        for r in kept:
            if r.kind == "failing" and r.subject in rates and r.subject not in low:
                excused.append(
                    r.model_copy(
                        update={
                            "kind": "tolerated_failure",
                            "detail": f"{r.detail} (tolerated: {r.subject} passes "
                            f"{rates[r.subject]:.1%} >= {threshold:.1%})",
                        }
                    )
                )
            else:
                still.append(r)
        datasets = ", ".join(sorted({r.dataset for r in results}))
        still += [
            GateReason(
                kind="pass_rate",
                dataset=datasets,
                subject=s,
                current=round(rates[s], 4),
                allowed=threshold,
                detail=f"pass rate {rates[s]:.1%} below gate.min_pass_rate {threshold:.1%}",
            )
            for s in sorted(low)
        ]
        kept = still
    return RuleOutcome(
        fail_on=rule.fail_on,
        min_pass_rate=rule.min_pass_rate,
        reasons=tuple(kept),
        excused=tuple(excused),
        pass_rates=rates,
    )
