"""The report's case matrix: one row per case, a cell per subject with its key-score badges, the
baseline deltas, the flags the filters use and the values the sort choices read."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from harness.gate.baselines import FAILING, CaseDelta, Comparison
from harness.records.score_spec import SCORES, higher_is_better, spec
from harness.report.formatting import case_anchor, fmt_score, score_scale, score_tone, status_label
from harness.report.view_records import Badge, DeltaBadge, MatrixCell, MatrixRow, SortKey
from harness.run.result import CaseResult

#: Scores shown as badges in the case matrix, in this order, when the run has them (at most 4).
#: (their ``key_rank``; their badge labels are each :class:`~harness.records.score_spec.ScoreSpec`'s ``short``)
KEY_SCORES = SCORES.ranked()


def group_results(results: Sequence[CaseResult]) -> list[tuple[str, str, dict[str, CaseResult]]]:
    rows: dict[tuple[str, str], dict[str, CaseResult]] = defaultdict(dict)
    for r in results:
        rows[(r.dataset, r.case_id)][r.subject] = r
    return [(ds, cid, by) for (ds, cid), by in sorted(rows.items())]


def _badges(r: CaseResult, keys: Sequence[str]) -> tuple[Badge, ...]:
    out = []
    for k in keys:
        if k in r.scores:
            v = r.scores[k]
            if k == "correct" and r.correctness is not None and r.correctness.outcome == "ambiguous":
                out.append(
                    Badge(
                        label=spec(k).short,
                        value="ambiguous",
                        tone="mid",
                        title="the answer commits to two different values: " + r.correctness.detail[:300],
                    )
                )
                continue
            model = k == "correct" and r.correctness is not None and r.correctness.extraction.method == "model"
            out.append(
                Badge(
                    label=spec(k).short,
                    value=fmt_score(v, score_scale(k)) + (" (model-extracted)" if model else ""),
                    tone=score_tone(k, v),
                    title=f"{k} = {v:.4g}" + ("; the judge model extracted the answer" if model else ""),
                )
            )
    return tuple(out)


_STATUS_RANK = {"error": 0, "failed": 1, "awaiting_review": 2, "passed": 3}


def sort_keys(subjects: Sequence[str], keys: Sequence[str]) -> tuple[SortKey, ...]:
    """The matrix's sort choices: per subject its status (failing first), then each key score, best first."""
    out = [SortKey(label=f"{s}: status (failing first)", descending=False) for s in subjects]
    out += [
        SortKey(
            label=f"{s}: {spec(k).short} ({'highest' if higher_is_better(k) else 'lowest'} first)",
            descending=higher_is_better(k),
        )
        for s in subjects
        for k in keys
    ]
    return tuple(out)


def _sort_values(by: Mapping[str, CaseResult], subjects: Sequence[str], keys: Sequence[str]) -> str:
    """The row's values in :func:`sort_keys` order: status ranks, then scores (empty when absent)."""
    vals = [str(_STATUS_RANK.get(by[s].status, 9)) if s in by else "" for s in subjects]
    vals += [
        f"{by[s].scores[k]:.6g}" if s in by and k in by[s].scores and math.isfinite(by[s].scores[k]) else ""
        for s in subjects
        for k in keys
    ]
    return "|".join(vals)


def matrix_rows(
    grouped: list[tuple[str, str, dict[str, CaseResult]]],
    subjects: Sequence[str],
    keys: Sequence[str],
    comparisons: Sequence[Comparison],
) -> tuple[MatrixRow, ...]:
    deltas: dict[tuple[str, str], list[CaseDelta]] = defaultdict(list)
    for comparison in comparisons:
        for d in comparison.cases:
            deltas[(comparison.dataset, d.case_id)].append(d)
    rows = []
    for ds, cid, by in grouped:
        cells = tuple(
            MatrixCell(subject=s, status=by[s].status, label=status_label(by[s].status), badges=_badges(by[s], keys))
            if s in by
            else MatrixCell(subject=s, status="", label="no result", badges=())
            for s in subjects
        )
        mine = deltas.get((ds, cid), [])
        delta_badges = tuple(
            DeltaBadge(subject=d.subject, status=d.status, reasons="; ".join(d.reasons))
            for d in sorted(mine, key=lambda d: d.subject)
        )
        statuses = {r.status for r in by.values()}
        category = next((r.category for r in by.values() if r.category), None) or ""
        tags = next((r.tags for r in by.values() if r.tags), ())
        rows.append(
            MatrixRow(
                anchor=case_anchor(ds, cid),
                dataset=ds,
                case_id=cid,
                category=category or " · ".join(tags),
                search=" ".join(p for p in (ds, cid, category, *tags) if p).lower(),
                cells=cells,
                deltas=delta_badges,
                failing=any(st in FAILING for st in statuses),
                regressed=any(d.status == "regressed" for d in mine),
                differ=len(statuses) > 1 or len(by) < len(subjects),
                sort_values=_sort_values(by, subjects, keys),
            )
        )
    return tuple(rows)
