"""Judge validity: does the rubric judge (or a reviewer) score right answers above wrong ones?

On every result whose case has an ``expected:`` block, objective correctness is known. Per judge
model, the judge's ``accuracy`` score of the final answer is compared with that correctness;
per reviewer, its ballot's score of each candidate (``1 + 9 * borda`` over the ballot cleaned of
self-votes, :func:`harness.bias.audit.ranking_score`) is compared with the candidate's own
correctness (``CaseResult.answer_correct``).

Definitions (the one place for each):

* **AUC** -- the probability that a randomly chosen correct answer gets a higher score than a
  randomly chosen incorrect one, ties counting one half: ``U / (n1 * n0)`` with ``U`` the
  Mann-Whitney statistic of the correct answers' scores (``scipy.stats.mannwhitneyu``).
  0.5 = cannot tell right from wrong; 1 = always scores right answers higher.
* **CI** -- Hanley & McNeil (1982): ``Q1 = A/(2-A)``, ``Q2 = 2A^2/(1+A)``,
  ``SE^2 = (A(1-A) + (n1-1)(Q1-A^2) + (n0-1)(Q2-A^2)) / (n1 n0)``, 95% interval
  ``A +- 1.96 SE`` clipped to [0, 1]. Pairs from one case are not independent (reviewers), so
  for reviewers the interval is optimistic: an indicator.
* **Verdict** -- ``undefined`` when either group is empty; ``too_few`` when either group has fewer
  than :data:`MIN_GROUP` answers (the figures are shown, no verdict is drawn); else the two-sided
  Mann-Whitney test
  of "no difference" (normal approximation with tie correction, ``method="asymptotic"``; judge
  scores tie a lot) decides at the 5% level: ``uninformative`` when ``p >= 0.05``, else
  ``informative`` (AUC above 0.5) or ``inverted`` (below). The test, not the interval, decides
  because Hanley-McNeil's interval is liberal under the null (measured by the seeded simulation
  in ``tests/gate/test_validity.py``: it excludes 0.5 in about 6-7% of null runs at 30 + 30 answers).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal

from harness.bias.audit import ranking_score
from harness.common.model import Frozen
from harness.run.result import CaseResult
from harness.stats.auc import auc_interval

ALPHA = 0.05
Verdict = Literal["informative", "uninformative", "inverted", "too_few", "undefined"]
MIN_GROUP = 5  # fewer right or wrong answers than this: no verdict
UNINFORMATIVE_LINE = (
    "the judge gives wrong answers the same accuracy as right ones: treat rubric scores as uninformative"
)


class Validity(Frozen):
    """How well one scorer separates correct from incorrect answers.

    Args:
        scorer: the judge model or reviewer id.
        kind: ``judge`` (rubric accuracy score) or ``reviewer`` (ballot score).
        n_correct, n_incorrect: answers in each group.
        auc: the AUC (``None`` when a group is empty); ``ci_low``/``ci_high`` its 95% interval.
        mean_correct, mean_incorrect: mean score of each group (``None`` when empty).
        p_value: the two-sided Mann-Whitney p-value (``None`` when a group is empty).
        verdict: see the module docstring.
    """

    scorer: str
    kind: Literal["judge", "reviewer"]
    n_correct: int
    n_incorrect: int
    auc: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    mean_correct: float | None = None
    mean_incorrect: float | None = None
    p_value: float | None = None
    verdict: Verdict = "undefined"

    def line(self) -> str:
        """One plain-words line about this scorer."""
        who = f"{self.kind} {self.scorer}"
        if self.verdict == "undefined":
            return f"{who}: validity undefined ({self.n_correct} correct, {self.n_incorrect} incorrect answers)"
        figures = (
            f"AUC {self.auc:.2f} (95% CI {self.ci_low:.2f}-{self.ci_high:.2f}), mean score "
            f"{self.mean_correct:.2f} right vs {self.mean_incorrect:.2f} wrong, "
            f"n = {self.n_correct}+{self.n_incorrect}"
        )
        if self.verdict == "too_few":
            return f"{who}: too few right or wrong answers to tell whether it separates them ({figures})"
        if self.verdict == "uninformative":
            what = (
                UNINFORMATIVE_LINE
                if self.kind == "judge"
                else "the reviewer does not rank right answers above wrong ones: treat its ballots as uninformative"
            )
            return f"{who}: {what} ({figures})"
        if self.verdict == "inverted":
            return f"{who}: scores wrong answers HIGHER than right ones ({figures})"
        return f"{who}: tells right from wrong ({figures})"


def validity(scorer: str, kind: Literal["judge", "reviewer"], pairs: Sequence[tuple[float, bool]]) -> Validity:
    """The :class:`Validity` of ``(score, correct)`` pairs (see the module docstring)."""
    right = [s for s, ok in pairs if ok]
    wrong = [s for s, ok in pairs if not ok]
    base = Validity(scorer=scorer, kind=kind, n_correct=len(right), n_incorrect=len(wrong))
    if not right or not wrong:
        return base
    import scipy.stats  # on first use: importing the module (or --help) never loads scipy

    test = scipy.stats.mannwhitneyu(right, wrong, alternative="two-sided", method="asymptotic")
    auc = float(test.statistic) / (len(right) * len(wrong))
    low, high = auc_interval(auc, len(right), len(wrong))
    p = float(test.pvalue) if test.pvalue == test.pvalue else 1.0  # all scores equal: NaN -> no difference
    verdict: Verdict = (
        "too_few"
        if min(len(right), len(wrong)) < MIN_GROUP
        else "uninformative"
        if p >= ALPHA
        else "informative"
        if auc > 0.5
        else "inverted"
    )
    return base.model_copy(
        update=dict(
            auc=auc,
            ci_low=low,
            ci_high=high,
            mean_correct=statistics.fmean(right),
            mean_incorrect=statistics.fmean(wrong),
            p_value=p,
            verdict=verdict,
        )
    )


def judge_validity(results: Iterable[CaseResult]) -> list[Validity]:
    """Per judge model: its accuracy score of the final answer vs the answer's correctness."""
    pairs: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for r in results:
        if r.correctness is None or r.rubric is None or "accuracy" not in r.rubric.scores:
            continue
        pairs[r.rubric.judge_model].append((r.rubric.scores["accuracy"], r.correctness.correct))
    return [validity(judge, "judge", p) for judge, p in sorted(pairs.items())]


def reviewer_validity(results: Iterable[CaseResult]) -> list[Validity]:
    """Per reviewer: its ballot score of each other member's answer vs that answer's correctness."""
    pairs: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for r in results:
        if r.transcript is None or not r.answer_correct:
            continue
        mapping = r.transcript.label_to_member
        for review in r.transcript.reviews:
            if not review.ok or review.ballot.abstained:
                continue
            ballot = [
                mapping[lab]
                for lab in review.ballot.ranking
                if lab in mapping and mapping[lab] != review.reviewer and mapping[lab] in r.answer_correct
            ]
            for pos, member in enumerate(ballot):
                pairs[review.reviewer].append((ranking_score(pos, len(ballot)), r.answer_correct[member]))
    return [validity(reviewer, "reviewer", p) for reviewer, p in sorted(pairs.items())]


def position_consistency(results: Iterable[CaseResult]) -> dict[str, tuple[int, int]]:
    """Per reviewer: (two-order ballots with the same winner in both orders, two-order ballots)."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        if r.transcript is None:
            continue
        for review in r.transcript.reviews:
            if review.position_consistent is not None:
                out[review.reviewer][0] += int(review.position_consistent)
                out[review.reviewer][1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}
