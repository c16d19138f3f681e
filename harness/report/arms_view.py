"""The report's arms panel: the council against every arm, leave-one-out, and the usage ledger per subject.

Laid out from the run's results and its verdicts as finishing composed them
(:class:`harness.gate.run_verdicts.RunVerdicts`: the primary endpoint, prices and arms' figures) with
:mod:`harness.run.ledger`; strings
only (the template escapes them). The quality-per-cost table gives, per subject, the primary endpoint's
mean over its scored cases beside its tokens per case and dollars (when priced).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.common.model import Frozen
from harness.gate.arm_verdicts import ratio_words
from harness.gate.run_verdicts import RunVerdicts
from harness.records.transcript import CallRecord
from harness.run.ledger import UsageLedger, cached_words, cost_words, usage_ledger
from harness.run.result import CaseResult

#: subjects that existed before the arms; a run of only these (and no ``pricing:``) has no arms panel
CLASSIC = frozenset({"council", "baseline", "voting", "llm-council"})


class ArmRow(Frozen):
    arm: str
    verdict: str
    sentence: str
    token_ratio: str


class LeaveOneOutRow(Frozen):
    member: str
    effect: str
    interval: str
    n: int
    flagged: bool


class CrossCheckRow(Frozen):
    member: str
    share: str
    rank: str
    effect: str
    flags: tuple[str, ...]


class UsageRow(Frozen):
    subject: str
    calls: int
    tokens_in: int
    tokens_out: int
    tokens_per_case: str
    cost: str
    cpu_seconds: str
    cached: str  # the backend's cached prompt tokens ("not known") and the record/replay hits
    primary_mean: str


class ArmsView(Frozen):
    """The panel; ``None`` from :func:`arms_view` when the run has neither arms nor calls."""

    primary: str
    arms: tuple[ArmRow, ...]
    leave_one_out: tuple[LeaveOneOutRow, ...]
    best_member: str  # how the best single member was chosen (or why not); "" without solo arms
    cross_check: tuple[CrossCheckRow, ...]
    usage: tuple[UsageRow, ...]
    total: str
    chart: str = ""  # SVG: each subject's mean primary score (95% interval) against its tokens per case
    frontier: tuple[str, ...] = ()  # the subjects on that chart's Pareto frontier, cheapest first
    dollar_chart: str = ""  # the same against dollars per case, when priced (subjects with every call priced)
    dollar_frontier: tuple[str, ...] = ()


def _scores(results: Sequence[CaseResult], subject: str, family: str) -> list[float]:
    return [
        r.scores[family]
        for r in results
        if r.subject == subject and family in r.scores and math.isfinite(r.scores[family])
    ]


def _mean(results: Sequence[CaseResult], subject: str, family: str) -> str:
    xs = _scores(results, subject, family)
    return f"{sum(xs) / len(xs):.3f} (n={len(xs)})" if xs else "—"


def _interval(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% normal-approximation interval ``mean ± 1.96 s / sqrt(n)`` (s: sample sd; 0 for n = 1)."""
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return m, m - half, m + half


def _chart(
    results: Sequence[CaseResult], primary: str, ledger: UsageLedger, cases: dict[str, int], dollars: bool = False
) -> tuple[str, tuple[str, ...]]:
    """The quality-per-cost SVG and its Pareto frontier (subjects, cheapest first); ``("", ())`` with fewer
    than two points. ``dollars``: x is dollars per case (what the calls cost, replayed or not), over the subjects whose
    every call is priced; the ``scoring`` row has no scores and is never a point."""
    from harness.report import plots

    points = []
    for s, u in ledger.by_subject.items():
        xs = _scores(results, s, primary)
        if xs and cases.get(s) and not (dollars and u.unpriced_calls):
            points.append((s, (u.nominal_cost_usd if dollars else u.tokens) / cases[s], *_interval(xs)))
    if len(points) < 2:
        return "", ()
    svg = plots.quality_per_cost(
        points,
        xlabel="dollars per case" if dollars else "tokens per case",
        ylabel=f"mean {primary} (95% interval)",
        chart_id="quality-per-dollar" if dollars else "quality-per-cost",
    )
    return svg, tuple(plots.pareto_frontier(points))


def arms_view(
    results: Sequence[CaseResult], verdicts: RunVerdicts, unrecorded: Sequence[CallRecord] = ()
) -> ArmsView | None:
    """The panel for ``results``; ``verdicts``: the run's verdicts as finishing composed them (their plan's
    primary endpoint and prices, their arms' figures); ``unrecorded``: the calls of pairs a budget stopped
    (the ledger's ``unrecorded`` row)."""
    plan, outcome = verdicts.plan, verdicts.arms
    prices = plan.pricing
    if not prices and not {r.subject for r in results} - CLASSIC:
        return None  # a council/baseline run without pricing: the prediction panel says it all
    ledger = usage_ledger(results, prices, unrecorded)
    if not ledger.total.calls:
        return None
    primary = plan.primary
    against, loo = outcome.verdicts, outcome.leave_one_out
    cases = {s: len({(r.dataset, r.case_id) for r in results if r.subject == s}) for s in ledger.by_subject}
    t = ledger.total
    chart, frontier = _chart(results, primary, ledger, cases)
    dollar_chart, dollar_frontier = _chart(results, primary, ledger, cases, dollars=True) if prices else ("", ())
    return ArmsView(
        primary=primary,
        arms=tuple(
            ArmRow(
                arm=v.arm,
                verdict=v.verdict.verdict,
                sentence=v.sentence,
                token_ratio=ratio_words(v.token_ratio, v.completion_ratio, v.cost_ratio),
            )
            for v in against
        ),
        leave_one_out=tuple(
            LeaveOneOutRow(
                member=x.member,
                effect=f"{x.effect:+.3f}",
                interval=f"{x.low:+.3f} to {x.high:+.3f}",
                n=x.n,
                flagged=x.flagged,
            )
            for x in loo
        ),
        best_member=outcome.choice.sentence if outcome.choice else "",
        cross_check=tuple(
            CrossCheckRow(
                member=c.member,
                share=f"{c.attribution_share:.0%} of {c.attributed_cases}" if c.attribution_share is not None else "—",
                rank=f"{c.mean_peer_rank:.2f}" if c.mean_peer_rank is not None else "—",
                effect=f"{c.loo_effect:+.3f}" if c.loo_effect is not None else "not run",
                flags=c.flags,
            )
            for c in outcome.cross_check
        )
        if loo
        else (),
        usage=tuple(
            UsageRow(
                subject=s,
                calls=u.calls,
                tokens_in=u.tokens_in,
                tokens_out=u.tokens_out,
                tokens_per_case=f"{u.tokens / cases[s]:.0f}" if cases.get(s) else "—",
                cost=cost_words(u),
                cpu_seconds=f"{u.cpu_seconds:.1f}",
                cached=cached_words(u),
                primary_mean=_mean(results, s, primary),
            )
            for s, u in ledger.by_subject.items()
        ),
        total=(
            f"{t.calls} calls, {t.tokens_in} prompt + {t.tokens_out} completion tokens, {cost_words(t)}, "
            f"{t.cpu_seconds:.1f} embedded CPU s, {cached_words(t)}"
        ),
        chart=chart,
        frontier=frontier,
        dollar_chart=dollar_chart,
        dollar_frontier=dollar_frontier,
    )
