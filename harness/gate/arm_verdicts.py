"""The >15% verdict against every baseline arm, leave-one-member-out effects, and token ratios (issue 15).

All of it is computed from the run's :class:`~harness.gate.verdict_plan.VerdictPlan` (the primary endpoint,
the arms, the best member's choice and the council's pairs, derived once per run).

**Arms compared** (:func:`harness.gate.verdict_plan.comparison_arms`): every subject of the run that is a baseline arm —
``baseline``, ``chairman``, ``solo:<member>``, ``best-solo``, ``self-consistency:<member>`` and ``vote`` —
in that order. ``best-solo`` is the best single member chosen on the declared selection split and
present only on the other cases (:mod:`harness.gate.best_member`), so its verdict is on those cases only.

**Arm verdicts** (:func:`arm_verdicts`): per arm, the primary endpoint's verdict of
:func:`harness.stats.evaluate_prediction` (the difference form, the same rules and
``insufficient_data`` floor) on the cases scored for both the council and that arm. With k arms each
verdict uses the Bonferroni level ``1 - (1 - confidence) / k``, so the chance of any false "supported"
among the k arm verdicts stays at most ``(1 - confidence) / 2``.

**Budget ratios** beside each verdict (issue 28), over the subjects' own calls (never scoring) on the
same paired cases: council / arm in total tokens (prompt + completion), in completion tokens, and in
dollars (:func:`harness.providers.pricing.call_cost`, the cost a call has whether it ran or was
replayed) when every call of both is priced, else "dollars not priced". A ratio is ``None`` when the
arm spent nothing in that unit.

**Leave-one-out** (:func:`leave_one_out`): per member m with ``council-without:m`` in the run, the paired
differences ``d_i = council_i - without_i`` on the primary endpoint, their mean and sign-flip interval at
``confidence`` (:func:`harness.gate.paired_difference.paired_difference`). A member is **flagged** (its
removal does not hurt) when the interval's low end is at most 0; with no informative pair the effect is 0
and the interval [0, 0]; with no pair at all it is NaN and the member is flagged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.common.model import Frozen
from harness.config import ModelPrice
from harness.council.arms import call_tokens
from harness.gate.best_member import BestMember, best_member_summary
from harness.gate.paired_difference import sample_difference
from harness.gate.verdict_plan import VerdictPlan
from harness.providers.pricing import call_cost
from harness.records.transcript import CallRecord
from harness.run.result import CaseResult
from harness.stats import PredictionVerdict, evaluate_prediction, verdict_sentence


class ArmVerdict(Frozen):
    """The council against one arm on the primary endpoint.

    Args:
        arm: the arm's subject name.
        verdict: the primary-endpoint verdict (council = treatment, arm = control).
        council_tokens, arm_tokens: total tokens over the paired cases; token_ratio: council / arm
            (``None`` when the arm recorded no tokens).
        council_completion, arm_completion, completion_ratio: the same for completion tokens.
        council_cost, arm_cost, cost_ratio: the same in dollars; ``None`` unless every call is priced.
        sentence: the verdict in words with the three ratios.
    """

    arm: str
    verdict: PredictionVerdict
    council_tokens: int
    arm_tokens: int
    token_ratio: float | None
    sentence: str
    council_completion: int = 0
    arm_completion: int = 0
    completion_ratio: float | None = None
    council_cost: float | None = None
    arm_cost: float | None = None
    cost_ratio: float | None = None


def _calls(results: Sequence[CaseResult], subject: str, keys: set[str]) -> list[CallRecord]:
    return [
        c
        for r in results
        if r.subject == subject and r.transcript is not None and f"{r.dataset}::{r.case_id}" in keys
        for c in r.transcript.calls
    ]


def _cost(calls: Sequence[CallRecord], pricing: dict[str, ModelPrice]) -> float | None:
    costs = [call_cost(c, pricing) for c in calls]
    return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)


def _ratio(council: float | None, arm: float | None) -> float | None:
    return council / arm if council is not None and arm else None


def ratio_words(token: float | None, completion: float | None, cost: float | None) -> str:
    """``"1.0x tokens, 0.6x completion tokens, 0.9x dollars"`` (a missing ratio: "—"; unpriced: said so)."""

    def x(r: float | None) -> str:
        return f"{r:.2f}x" if r is not None else "—"

    dollars = f"{x(cost)} dollars" if cost is not None else "dollars not priced"
    return f"{x(token)} tokens, {x(completion)} completion tokens, {dollars}"


def arm_verdicts(
    plan: VerdictPlan,
    results: Sequence[CaseResult],
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> list[ArmVerdict]:
    """One :class:`ArmVerdict` per arm of ``plan`` (see the module docstring; ``best-solo`` included when a
    member was chosen: :mod:`harness.gate.best_member`); ``results``: the run's, for the calls' tokens."""
    primary = plan.primary
    results = [*results, *plan.best_solo]
    arms = plan.arms
    if not arms:
        return []
    level = 1.0 - (1.0 - confidence) / len(arms)
    out: list[ArmVerdict] = []
    for arm in arms:
        sample = plan.pair("council", arm)
        samples = {primary: sample} if sample is not None else {}
        report = evaluate_prediction(
            samples,
            threshold=plan.threshold,
            primary=primary,
            confidence=level,
            n_resamples=n_resamples,
            seed=seed,
            primary_reason="the run's primary endpoint",
            scales=plan.scales,
        )
        v = report.headline
        assert v is not None
        keys = set(samples[primary].ids or ()) if primary in samples else set()
        council_calls, arm_calls = _calls(results, "council", keys), _calls(results, arm, keys)
        ct, at = call_tokens(council_calls), call_tokens(arm_calls)
        cc, ac = sum(c.tokens_out for c in council_calls), sum(c.tokens_out for c in arm_calls)
        cd, ad = _cost(council_calls, plan.pricing), _cost(arm_calls, plan.pricing)
        ratios = (_ratio(ct, at), _ratio(cc, ac), _ratio(cd, ad))
        out.append(
            ArmVerdict(
                arm=arm,
                verdict=v,
                council_tokens=ct,
                arm_tokens=at,
                token_ratio=ratios[0],
                council_completion=cc,
                arm_completion=ac,
                completion_ratio=ratios[1],
                council_cost=cd,
                arm_cost=ad,
                cost_ratio=ratios[2],
                sentence=verdict_sentence(v, "council", arm) + " at " + ratio_words(*ratios),
            )
        )
    return out


class LeaveOneOut(Frozen):
    """A member's marginal effect on the primary endpoint: council minus the council without it.

    Args:
        member: the member left out; family: the primary endpoint.
        n, n_informative: paired cases, and those where the two differ.
        effect: mean(council - council-without); low, high: its interval at ``confidence``.
        flagged: the member's removal does not hurt (``low <= 0``).
    """

    member: str
    family: str
    n: int
    n_informative: int
    effect: float
    low: float
    high: float
    confidence: float
    flagged: bool

    @property
    def sentence(self) -> str:
        flag = " (removal does not hurt)" if self.flagged else ""
        return (
            f"leave-one-out {self.member}: council - council-without:{self.member} on {self.family} = "
            f"{self.effect:+.3f} ({self.confidence:.4g} interval {self.low:+.3f} to {self.high:+.3f}, "
            f"n={self.n}){flag}"
        )


def leave_one_out(
    plan: VerdictPlan, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0
) -> list[LeaveOneOut]:
    """One :class:`LeaveOneOut` per ``council-without:<member>`` subject of ``plan``."""
    withouts = sorted(s for s in plan.subjects if s.startswith("council-without:"))
    out: list[LeaveOneOut] = []
    for subject in withouts:
        diff = sample_difference(plan.pair("council", subject), None, confidence, n_resamples, seed)
        out.append(
            LeaveOneOut(
                member=subject.partition(":")[2],
                family=plan.primary,
                n=diff.n,
                n_informative=diff.n_informative,
                effect=diff.mean,
                low=diff.low,
                high=diff.high,
                confidence=confidence,
                flagged=not diff.n or diff.low <= 0,
            )
        )
    return out


def arm_lines(
    verdicts: Sequence[ArmVerdict],
    loo: Sequence[LeaveOneOut],
    results: Sequence[CaseResult] = (),
    choice: BestMember | None = None,
) -> list[str]:
    """Console lines: the best member's choice, one per arm verdict, the arms' measurement artifacts,
    then one per leave-one-out member."""
    from harness.gate.artifacts import arm_artifacts, arm_words
    from harness.stats.artifacts import artifact_warning

    lines = [choice.sentence] if choice is not None else []
    lines += [f"arm ({v.verdict.confidence:.4g} interval): {v.sentence}" for v in verdicts]
    if verdicts and results:
        arts = [arm_artifacts(results, s) for s in ["council", *(v.arm for v in verdicts)]]
        lines.append("measurement (arms): " + "; ".join(arm_words(a) for a in arts))
        if warning := artifact_warning(arts):
            lines.append(f"warning: {warning}")
    return lines + [x.sentence for x in loo]


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def arms_summary(
    verdicts: Sequence[ArmVerdict], loo: Sequence[LeaveOneOut], choice: BestMember | None = None
) -> dict[str, object]:
    """The ``"arms"`` section of summary.json."""
    return {
        "best_member": best_member_summary(choice),
        "rule": "per arm, the primary endpoint's verdict at the Bonferroni level over the arms; "
        "token_ratio, completion_ratio, cost_ratio = council / arm in total tokens, completion "
        "tokens and dollars (when every call is priced) on the paired cases, the subjects' own calls",
        "verdicts": [
            {
                "arm": v.arm,
                "family": v.verdict.family,
                "verdict": v.verdict.verdict,
                "n": v.verdict.n,
                "effect": _finite(v.verdict.relative_improvement),
                "difference": _finite(v.verdict.mean_difference),
                "difference_low": _finite(v.verdict.diff_low),
                "difference_high": _finite(v.verdict.diff_high),
                "confidence": v.verdict.confidence,
                "council_tokens": v.council_tokens,
                "arm_tokens": v.arm_tokens,
                "token_ratio": v.token_ratio,
                "council_completion_tokens": v.council_completion,
                "arm_completion_tokens": v.arm_completion,
                "completion_ratio": v.completion_ratio,
                "council_cost_usd": v.council_cost,
                "arm_cost_usd": v.arm_cost,
                "cost_ratio": v.cost_ratio,
                "sentence": v.sentence,
            }
            for v in verdicts
        ],
        "leave_one_out": [dict(x.model_dump(mode="json"), sentence=x.sentence) for x in loo],
    }
