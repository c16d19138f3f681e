"""The report's view-model: everything the HTML template shows, computed and formatted here.

:func:`build_view` turns a :class:`~harness.run.runs.Run` (plus, optionally, the >15% prediction report
and a baseline comparison) into a :class:`ReportView` of frozen records whose fields are display
strings, flags and chart markup. The template only lays them out: it does no arithmetic, no
grouping and no formatting, so what the report says is testable here without a browser.

The pieces: :mod:`~harness.report.view_records` (the records), :mod:`~harness.report.formatting` (the
formatters), and one module per section — :mod:`~harness.report.header` (header and gate banner),
:mod:`~harness.report.prediction_panel`, :mod:`~harness.report.charts`, :mod:`~harness.report.matrix`
and :mod:`~harness.report.drilldown`. This module assembles them and re-exports the names other
modules and tests import from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.gate.baselines import Comparison
from harness.records.score_spec import spec
from harness.report.arms_view import arms_view
from harness.report.blocks import LONG_TEXT, OPEN_BLOCK_ROWS, flatten
from harness.report.breakdown import breakdown
from harness.report.charts import CHART_FAMILIES, charts
from harness.report.diagnostics import diagnostics
from harness.report.drilldown import (
    DETAIL_LIMIT,
    block_summary,
    case_details,
    detail_indices,
    expert_items,
    subject_detail,
)
from harness.report.formatting import (
    Tone,
    case_anchor,
    fmt_duration,
    fmt_num,
    fmt_p,
    fmt_pct,
    fmt_score,
    score_scale,
    score_tone,
    status_label,
)
from harness.report.header import CONFIG_HIGHLIGHTS, STATUSES, VERDICTS, gate_view, header_view
from harness.report.matrix import KEY_SCORES, group_results, matrix_rows, sort_keys
from harness.report.modes_view import modes_view
from harness.report.prediction_panel import INTERVAL_WIDTH, prediction_view
from harness.report.view_records import GATE_REASONS_SHOWN, PAGE_ROWS, KeyValue, ReportView
from harness.run.runs import Run
from harness.stats import PredictionReport

if TYPE_CHECKING:
    from harness.gate.regression import GateOutcome
    from harness.gate.run_verdicts import RunVerdicts

__all__ = [
    "CHART_FAMILIES",
    "CONFIG_HIGHLIGHTS",
    "DETAIL_LIMIT",
    "GATE_REASONS_SHOWN",
    "INTERVAL_WIDTH",
    "KEY_SCORES",
    "LONG_TEXT",
    "OPEN_BLOCK_ROWS",
    "PAGE_ROWS",
    "STATUSES",
    "VERDICTS",
    "ReportView",
    "Tone",
    "block_summary",
    "build_view",
    "case_anchor",
    "detail_indices",
    "flatten",
    "fmt_duration",
    "fmt_num",
    "fmt_p",
    "fmt_pct",
    "fmt_score",
    "score_scale",
    "score_tone",
    "sort_keys",
    "status_label",
    "subject_detail",
]


def build_view(
    run: Run,
    *,
    prediction: PredictionReport | None = None,
    comparison: Comparison | Sequence[Comparison] | None = None,
    gate: GateOutcome | None = None,
    verdicts: RunVerdicts | None = None,
) -> ReportView:
    """Everything the report shows, computed from a run.

    Args:
        run: the run read back from disk (:func:`harness.run.runs.load_run`).
        prediction: the >15% verdicts (:func:`harness.stats.evaluate_prediction`), for the prediction panel.
        comparison: the run compared with its baseline(s) (:func:`harness.gate.baselines.compare`, one per
            dataset), for the gate banner's regression counts and the matrix's delta column.
        gate: the gate outcome under the config's rule, for the banner (default: computed under the default rule).
        verdicts: the run's verdicts as finishing composed them (:func:`harness.finish.finish_run`), for the arms
            and modes panels, which show them as they are (none without: a view derives no verdict).
    """
    comparisons: tuple[Comparison, ...] = (
        () if comparison is None else (comparison,) if isinstance(comparison, Comparison) else tuple(comparison)
    )
    listed = list(run.manifest.subjects)
    subjects = tuple(listed + sorted({r.subject for r in run.results} - set(listed)))
    present = {k for r in run.results for k in r.scores}
    keys = [k for k in KEY_SCORES if k in present][:4]
    grouped = group_results(run.results)
    rows = matrix_rows(grouped, subjects, keys, comparisons)
    keep = detail_indices(rows)
    if len(keep) < len(rows):
        rows = tuple(r if i in keep else r.model_copy(update={"has_detail": False}) for i, r in enumerate(rows))
    return ReportView(
        header=header_view(run, subjects),
        gate=gate_view(run, subjects, comparisons, gate),
        prediction=prediction_view(prediction) if prediction is not None else None,
        charts=charts(run.results, subjects),
        subjects=subjects,
        key_scores=tuple(KeyValue(key=spec(k).short, value=spec(k).description) for k in keys),
        has_comparison=bool(comparisons),
        rows=rows,
        cases=case_details(grouped, subjects, keep),
        omitted_details=len(rows) - len(keep),
        expert_review=expert_items(grouped, subjects),
        corrupt_lines=", ".join(str(n) for n in run.corrupt_lines),
        diagnostics=diagnostics(run),
        arms=arms_view(run.results, verdicts, run.manifest.unrecorded_calls) if verdicts is not None else None,
        modes=modes_view(run.results, verdicts) if verdicts is not None else None,
        sort_keys=sort_keys(subjects, keys),
        breakdowns=tuple(
            b
            for b in (breakdown(run.results, subjects, "category"), breakdown(run.results, subjects, "tag"))
            if b is not None
        ),
    )
