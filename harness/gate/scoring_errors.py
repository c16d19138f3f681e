"""Scoring errors: results a scorer could not fully score, counted and turned into gate reasons.

A scoring error (``CaseResult.scoring_errors``: a user scorer that raised, timed out or returned
something unusable, a judge reply that could not be read) leaves the case without some of its scores,
so a baseline comparison or a ``minimum_scores`` check may pass only because the score is absent.
Every result with at least one is a ``scoring_error`` reason of the gate, one of the kinds that make
the verdict ``incomplete`` (:data:`harness.gate.baselines.INCOMPLETE_KINDS`) unless a regression fails
it, with or without a stored baseline. :class:`ScoringErrors` holds the counts the console,
``summary.json`` (``gate.counts.scoring_errors``) and the report's headline show.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from harness.common.model import Frozen
from harness.gate.baselines import GateReason
from harness.run.result import CaseResult

#: the longest ``detail`` of one ``scoring_error`` reason (a result may carry many long errors)
MAX_DETAIL = 500


def scorer_of(error: str) -> str:
    """The scorer a scoring error names: ``module:function`` of ``scorer module:function: ...``, else
    the text before the first ``": "`` (``rubric judge smollm2-precise``)."""
    head = error.removeprefix("scorer ")
    name, sep, _ = head.partition(": ")
    return name if sep else "scorer"


class ScoringErrors(Frozen):
    """How many scoring errors a run holds.

    Args:
        errors: every scoring error of every result.
        results: the results with at least one.
        by_scorer: errors per scorer (:func:`scorer_of`), most first.
    """

    errors: int = 0
    results: int = 0
    by_scorer: dict[str, int] = {}

    def words(self) -> str:
        """``scoring errors: 12 in 6 result(s) (my_scorers:brevity 6, ...)``; empty when there are none."""
        if not self.errors:
            return ""
        named = ", ".join(f"{name} {n}" for name, n in self.by_scorer.items())
        return f"scoring errors: {self.errors} in {self.results} result(s) ({named})"


def scoring_errors(results: Iterable[CaseResult]) -> ScoringErrors:
    """The counts of :class:`ScoringErrors` over ``results``."""
    per_scorer: Counter[str] = Counter()
    errors = with_errors = 0
    for r in results:
        if r.scoring_errors:
            with_errors += 1
            errors += len(r.scoring_errors)
            per_scorer.update(scorer_of(e) for e in r.scoring_errors)
    return ScoringErrors(errors=errors, results=with_errors, by_scorer=dict(per_scorer.most_common()))


def scoring_error_reasons(results: Iterable[CaseResult]) -> list[GateReason]:
    """One ``scoring_error`` reason per result with scoring errors (``n``: how many), in key order."""
    out = []
    for r in sorted(results, key=lambda r: r.key):
        if r.scoring_errors:
            detail = "; ".join(r.scoring_errors)
            if len(detail) > MAX_DETAIL:
                detail = detail[:MAX_DETAIL] + "..."
            out.append(
                GateReason(
                    kind="scoring_error",
                    dataset=r.dataset,
                    case_id=r.case_id,
                    subject=r.subject,
                    n=len(r.scoring_errors),
                    detail=f"{len(r.scoring_errors)} scoring error(s), its scores incomplete: {detail}",
                )
            )
    return out
