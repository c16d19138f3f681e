"""The report's charts: score families per category (council vs baseline), Tier 1 distributions and
the run's bias section (reviewer profiles, display position)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from harness.records.score_spec import SCORES, spec
from harness.report import plots
from harness.report.formatting import mean, score_scale
from harness.report.view_records import Chart
from harness.run.result import CaseResult
from harness.stats import UNCATEGORIZED

#: Score families charted per category (council vs baseline), in this order, when present (at most 3).
#: (the key scores with ``chart`` set in :data:`harness.records.score_spec.SCORES`)
CHART_FAMILIES = SCORES.ranked(charted=True)


def _group_of(r: CaseResult) -> str:
    """The chart group of a result: its category, else its dataset (as :mod:`harness.gate.prediction` groups)."""
    return r.category or r.dataset or UNCATEGORIZED


def charts(results: Sequence[CaseResult], subjects: Sequence[str]) -> tuple[Chart, ...]:
    out: list[Chart] = []
    present = {k for r in results for k in r.scores}
    families = [f for f in CHART_FAMILIES if f in present][:3]
    categories = sorted({_group_of(r) for r in results})
    for i, family in enumerate(families):
        cells: dict[tuple[str, str], list[float]] = defaultdict(list)
        for r in results:
            if family in r.scores:
                cells[(_group_of(r), r.subject)].append(r.scores[family])
        shown = [s for s in subjects if any((c, s) in cells for c in categories)]
        series = [plots.Series(label=s, values=tuple(mean(cells.get((c, s), [])) for c in categories)) for s in shown]
        scale = score_scale(family)
        desc = spec(family).description
        n = sum(len(v) for v in cells.values())
        out.append(
            Chart(
                title=f"{family} by category",
                caption=f"{desc}; mean per category (else dataset) over {n} result(s); – = no result",
                svg=plots.grouped_bars(
                    categories, series, ylabel=f"mean {family} (0-{scale:g})", ymax=scale, chart_id=f"bars{i}"
                ),
            )
        )
    council = [r for r in results if r.quality_metrics is not None and r.subject == "council"] or [
        r for r in results if r.quality_metrics is not None
    ]
    if council:
        qms = [r.quality_metrics for r in council if r.quality_metrics is not None]
        panels = [
            ("CSS", [q.core.consensus_strength for q in qms]),
            ("DDI", [q.core.deliberation_depth for q in qms]),
            ("SAS max source alignment", [q.core.synthesis_attribution.max_source_alignment for q in qms]),
            ("hallucination risk", [q.core.synthesis_attribution.hallucination_risk for q in qms]),
        ]
        who = ", ".join(sorted({r.subject for r in council}))
        out.append(
            Chart(
                title="Tier 1 distributions",
                caption=f"{len(qms)} {who} result(s); 10 equal bins over 0-1",
                svg=plots.histograms(panels, chart_id="tier1"),
                wide=True,
            )
        )
    out += _bias_charts(results)
    return tuple(out)


def _bias_charts(results: Sequence[CaseResult]) -> list[Chart]:
    """The run's bias section: reviewer profiles and position bias over every audited session."""
    audits = [r.bias for r in results if r.bias is not None]
    if not audits:
        return []
    given: dict[str, list[tuple[float, int]]] = defaultdict(list)
    by_position: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for a in audits:
        for rc in a.reviewers:
            given[rc.reviewer].append((rc.mean_score, rc.n))
        for pm in a.position_bias.position_means:
            by_position[pm.position].append((pm.mean_score, pm.n))

    def weighted(pairs: list[tuple[float, int]]) -> float:
        n = sum(k for _, k in pairs)
        return sum(v * k for v, k in pairs) / n if n else float("nan")

    reviewers = sorted(given)
    positions = sorted(by_position)
    flagged = sum(a.position_bias.detected for a in audits)
    harsh = sorted({x for a in audits for x in a.harsh_reviewers})
    charts = [
        Chart(
            title="Bias: reviewer profiles",
            caption=f"mean score each reviewer gave (self-scores excluded) over {len(audits)} audited session(s)"
            + (f"; flagged harsh in some session: {', '.join(harsh)}" if harsh else ""),
            svg=plots.grouped_bars(
                reviewers,
                [plots.Series(label="mean score given", values=tuple(weighted(given[r]) for r in reviewers))],
                ylabel="mean score given (1-10)",
                ymax=10.0,
                chart_id="biasrev",
            ),
        )
    ]
    if positions:
        charts.append(
            Chart(
                title="Bias: display position",
                caption=f"mean score by the position a candidate was shown in; position bias flagged in {flagged} "
                f"of {len(audits)} session(s) (cross-session CIs: council-harness bias-report)",
                svg=plots.grouped_bars(
                    [f"position {p}" for p in positions],
                    [plots.Series(label="mean score", values=tuple(weighted(by_position[p]) for p in positions))],
                    ylabel="mean score (1-10)",
                    ymax=10.0,
                    chart_id="biaspos",
                ),
            )
        )
    return charts
