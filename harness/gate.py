"""The regression gate: a run against its stored baselines, and explicit baseline updates."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.baselines import (
    Comparison,
    baseline_from_results,
    baseline_path,
    compare,
    load_baseline,
    write_baseline,
)
from harness.config import Settings
from harness.runs import Run
from harness.scores import default_tolerance


def tolerances_for(settings: Settings, scores: Sequence[str]) -> dict[str, float]:
    """Configured tolerance per score, else 5% of the score's scale."""
    return {s: settings.tolerances.get(s, default_tolerance(s)) for s in scores}


def baseline_dir(settings: Settings) -> Path:
    return Path(settings.reports_dir) / "baselines"


def compare_run(run: Run, settings: Settings, baseline_file: Path | None = None) -> list[Comparison]:
    """Compare ``run`` with the baseline of each of its datasets that has one (or with ``baseline_file``)."""
    if baseline_file is not None:
        files = [Path(baseline_file)]
    else:
        datasets = sorted({r.dataset for r in run.results})
        files = [p for p in (baseline_path(d, baseline_dir(settings)) for d in datasets) if p.exists()]
    out = []
    for f in files:
        baseline = load_baseline(f)
        gated = settings.gated_scores if settings.gated_scores is not None else sorted(
            {s for e in baseline.entries for s in e.scores})
        out.append(compare(run.results, baseline, tolerances_for(settings, gated), gated))
    return out


def update_baselines(run: Run, settings: Settings) -> list[Path]:
    """Write ``reports/baselines/<dataset>.json`` for every dataset of the run (atomically)."""
    written = []
    for dataset in sorted({r.dataset for r in run.results}):
        baseline = baseline_from_results(dataset, run.results, run.manifest, settings.gated_scores)
        path = baseline_path(dataset, baseline_dir(settings))
        write_baseline(path, baseline)
        written.append(path)
    return written


def comparison_lines(comparisons: Sequence[Comparison]) -> list[str]:
    """A short human summary per compared dataset."""
    lines = []
    for c in comparisons:
        reg, imp = len(c.by_status("regressed")), len(c.by_status("improved"))
        verdict = "FAIL" if c.exit_code else "pass"
        lines.append(f"baseline {c.dataset}: {verdict} ({reg} regressed, {imp} improved)")
        lines += [f"  - {f}" for f in c.failures]
    return lines


def write_full_report(run: Run, settings: Settings, path: Path | None = None) -> Path:
    """The HTML report with the >15% panel and the baseline comparison, whatever command asks for it."""
    from harness.prediction import prediction_for_run, write_verdicts
    from harness.report.html import write_report

    prediction = prediction_for_run(run.results, settings)
    write_verdicts(run.run_dir, prediction)
    return write_report(run, path, prediction=prediction, comparison=compare_run(run, settings))
