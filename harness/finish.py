"""Finishing a run: the one function every command calls once a run's results are on disk.

:func:`finish_run` is used by ``council-harness run``, the pytest plugin's session end
(:meth:`harness.pytest_plugin.HarnessSession.finish`), ``review --apply``, ``report``, ``diff --html``
and ``merge``. It does, in this order:

1. the run's verdicts, composed once (:func:`harness.gate.run_verdicts.run_verdicts`, over the plan
   :func:`harness.gate.verdict_plan.plan_for_run` derives once from the results and the settings): the >15%
   prediction, written to ``summary.json`` ``"verdicts"``;
2. from the same composition, the arms' figures (:func:`harness.gate.arm_outcome.arms_outcome`: the best
   member's choice, the council against every arm, the leave-one-out effects and their cross-check; ``"arms"``, only
   when there are any), the seeds' remediation table (:mod:`harness.gate.remediation`: per CSS band of
   the plain council, the recommended mode minus the council; ``"remediation"``, only when a
   recommended mode ran beside the council) and the usage ledger (``"usage"``);
3. the comparison with the stored baseline of each of the run's datasets, unless
   ``update_baseline`` (the run is about to become the baseline: nothing is compared);
4. the gate outcome (:func:`harness.gate.regression.gate_outcome`, under the config's ``gate:`` rule:
   :mod:`harness.gate.fail_rule`), written to ``summary.json`` ``"gate"`` in step 5;
5. the HTML report (``<run>/index.html`` or ``report_path``; with ``against``, what changed since
   that run; its banner shows the gate outcome of step 4), then ``summary.json`` ``"gate"``;
6. with ``update_baseline``, the baselines of the run's datasets, written atomically;
7. the Markdown summary (:mod:`harness.report.markdown`): ``<run>/summary.md``, and ``markdown_path``.

Step 1 stores the composed verdicts in the run folder (``verdicts.json``,
:func:`harness.gate.run_verdicts.write_run_verdicts`). With ``persist=False`` (``report`` and ``diff --html``:
views of a run that is already finished) the verdicts are those stored (composed under the settings the run
finished with; for a run finished before they were stored, or whose results changed since, they are composed
once here from the settings its manifest records), steps 3-5 are computed the same way, and nothing is
written into the run's folder: only the HTML report at ``report_path``. A view never changes the run it shows.

What it returns (:class:`RunOutcome`) is everything a caller prints or exits with; printing stays
with the caller (the CLI and the plugin print different lines in different orders).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ConfigDict

from harness.common.errors import EXIT_INFRASTRUCTURE
from harness.common.model import Frozen
from harness.config import Settings
from harness.gate.arm_outcome import ArmsOutcome
from harness.gate.baselines import Comparison
from harness.gate.judge_validity import judge_validity, reviewer_validity
from harness.gate.prediction import write_verdicts
from harness.gate.regression import GateOutcome, compare_run, gate_outcome, update_baselines, write_gate_summary
from harness.gate.remediation import BandComparison, remediation_summary
from harness.gate.run_verdicts import RunVerdicts, read_run_verdicts, run_verdicts, write_run_verdicts
from harness.gate.verdict_plan import plan_for_run, plan_from_config
from harness.run.ledger import UsageLedger, usage_ledger
from harness.run.runs import Run
from harness.run.summary import SUMMARY, update_summary
from harness.stats import PredictionReport


class RunOutcome(Frozen):
    """What finishing a run produced (see :func:`finish_run`).

    Args:
        run: the run as finished.
        verdicts: the run's verdicts as composed (prediction, arms and remediation below are theirs).
        prediction: the >15% prediction, ``None`` when no score family pairs the council and the baseline.
        arms: the arms' figures (:mod:`harness.gate.arm_outcome`): the best member's choice, the council
            against every arm, each member's leave-one-out effect and its cross-check.
        usage: the usage ledger (calls, tokens, cost per subject and model).
        remediation: per CSS band, the seed's recommended mode against the plain council (exploratory).
        comparisons: one per dataset compared with its baseline (none with ``update_baseline``).
        gate: the gate outcome written to ``summary.json`` ``"gate"``.
        validity_lines: each judge's validity, then the reviewers flagged uninformative or inverted.
        report: the HTML report written.
        summary: the run's ``summary.json``.
        baselines_written: the baseline files written (``update_baseline`` only).
        markdown: the Markdown summaries written (``<run>/summary.md``, then ``markdown_path``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    run: Run
    verdicts: RunVerdicts
    prediction: PredictionReport | None
    arms: ArmsOutcome
    usage: UsageLedger
    remediation: tuple[BandComparison, ...] = ()
    comparisons: tuple[Comparison, ...]
    gate: GateOutcome
    validity_lines: tuple[str, ...]
    report: Path
    summary: Path
    baselines_written: tuple[Path, ...] = ()
    markdown: tuple[Path, ...] = ()

    @property
    def infrastructure_failed(self) -> bool:
        """Whether every result of the run is an ``error`` (nothing was evaluated: the endpoint or the models
        failed on every case); a run with no result at all is not (the gate says what is missing)."""
        return bool(self.run.results) and all(r.status == "error" for r in self.run.results)

    @property
    def exit_code(self) -> int:
        """:data:`~harness.common.errors.EXIT_INFRASTRUCTURE` (3) when :attr:`infrastructure_failed`, else the
        gate's: 0 pass, 1 fail, 3 incomplete (:attr:`harness.gate.regression.GateOutcome.exit_code`)."""
        return EXIT_INFRASTRUCTURE if self.infrastructure_failed else self.gate.exit_code

    @property
    def regressed(self) -> bool:
        """Whether any baseline comparison failed after the gate's rule (failing cases of datasets without a
        baseline do not count, nor the known or tolerated failures of ``gate.fail_on``/``gate.min_pass_rate``)."""
        return any(d.outcome != "pass" for d in self.gate.comparisons)


def finish_run(
    run: Run,
    settings: Settings,
    *,
    update_baseline: bool = False,
    report_path: Path | None = None,
    against: Run | None = None,
    persist: bool = True,
    markdown_path: Path | None = None,
) -> RunOutcome:
    """Predict, compare with the baselines, write the report and ``summary.json``, update baselines.

    Args:
        run: a run read back from its folder (:func:`harness.run.runs.load_run`).
        settings: the configuration (prediction threshold, primary endpoint, pricing, tolerances,
            gated scores, ``reports_dir`` holding the baselines).
        update_baseline: write ``<reports_dir>/baselines/<dataset>.json`` from this run instead of
            comparing with them.
        report_path: where to write the HTML report (default ``<run>/index.html``).
        against: an earlier run; the report adds what changed since it (as ``council-harness diff``).
        persist: write the verdicts, arms, usage and gate sections of ``summary.json`` (and the
            baselines with ``update_baseline``) and ``<run>/summary.md``; ``False`` for views, which
            write only the report.
        markdown_path: also write the Markdown summary here (``run --markdown PATH``), its report link
            relative to it.

    Returns:
        The outcome; the steps and their order are in the module docstring.
    """
    from harness.report.html import write_report

    if update_baseline and not persist:
        raise ValueError("update_baseline writes the baselines: it cannot be a view (persist=False)")
    verdicts = _verdicts(run, settings, persist)
    prediction, arms, bands = verdicts.prediction, verdicts.arms, verdicts.remediation
    ledger = usage_ledger(run.results, settings.pricing, run.manifest.unrecorded_calls)
    if persist:
        write_run_verdicts(run.run_dir, verdicts, run.results)
        write_verdicts(run.run_dir, prediction)
        if not arms.empty:
            update_summary(run.run_dir, "arms", arms.summary())
        if bands:
            update_summary(run.run_dir, "remediation", remediation_summary(bands))
        update_summary(
            run.run_dir,
            "usage",
            dict(ledger.model_dump(mode="json"), partial=run.manifest.partial, stopped=run.manifest.stopped),
        )
        update_summary(run.run_dir, "warnings", {"count": len(run.manifest.warnings), "lines": run.manifest.warnings})
    comparisons = [] if update_baseline else compare_run(run, settings)
    diff = None
    if against is not None:
        from harness.gate.rundiff import diff_runs

        diff = diff_runs(against, run, settings)
    gate = gate_outcome(run, comparisons, settings.gate)
    report = write_report(
        run, report_path, prediction=prediction, comparison=comparisons, diff=diff, gate=gate, verdicts=verdicts
    )
    summary = write_gate_summary(gate, run) if persist else run.run_dir / SUMMARY
    validity = [v.line() for v in judge_validity(run.results)]
    validity += [v.line() for v in reviewer_validity(run.results) if v.verdict in ("uninformative", "inverted")]
    written = update_baselines(run, settings) if update_baseline else []
    markdown = []
    if persist or markdown_path is not None:
        from harness.gate.prediction import verdict_lines
        from harness.report.markdown import SUMMARY_MD, write_markdown
        from harness.run.ledger import ledger_lines

        lines = verdict_lines(prediction) if prediction is not None else []
        usage_lines = ledger_lines(ledger)
        targets = ([run.run_dir / SUMMARY_MD] if persist else []) + ([markdown_path] if markdown_path else [])
        markdown = [write_markdown(t, run, gate, report, lines, usage_lines) for t in targets]
    return RunOutcome(
        run=run,
        verdicts=verdicts,
        prediction=prediction,
        arms=arms,
        usage=ledger,
        remediation=tuple(bands),
        comparisons=tuple(comparisons),
        gate=gate,
        validity_lines=tuple(validity),
        report=report,
        summary=summary,
        baselines_written=tuple(written),
        markdown=tuple(markdown),
    )


def _verdicts(run: Run, settings: Settings, persist: bool) -> RunVerdicts:
    """Step 1: the run's verdicts composed under ``settings``; for a view (``persist=False``), those stored when
    the run finished, else composed under the settings its manifest records."""
    if persist:
        return run_verdicts(plan_for_run(run.results, settings), run.results)
    stored = read_run_verdicts(run.run_dir, run.results)
    if stored is not None:
        return stored
    return run_verdicts(plan_from_config(run.results, run.manifest.config or {}), run.results)
