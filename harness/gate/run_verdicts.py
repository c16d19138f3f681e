"""A run's verdicts, composed once (issue 31): the one place that calls the verdict modules.

:func:`run_verdicts` takes the run's :class:`~harness.gate.verdict_plan.VerdictPlan` (the primary endpoint,
the score families, the arms and the council's pairs, derived once by
:func:`~harness.gate.verdict_plan.verdict_plan`) and computes, each once:

1. the >15% prediction (:func:`harness.gate.prediction.prediction`; ``None`` when no family pairs the council
   and the baseline);
2. the arms' figures (:func:`harness.gate.arm_outcome.arms_outcome`: the best member's choice, the verdict
   against every arm, the leave-one-out effects and their cross-check);
3. the remediation table (:func:`harness.gate.remediation.remediation_table`).

Those modules compute from the plan and never derive it again.

Finishing a run stores what it composed in the run folder (:func:`write_run_verdicts`: ``verdicts.json``, with
the results it was composed over named by a digest); the views of a finished run (``report``, ``diff --html``)
read it back (:func:`read_run_verdicts`) instead of composing again. The ``best-solo`` results of the plan are
not stored: they are the stored choice's results, re-attached on reading.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from harness.common.errors import StoreError
from harness.common.fsutil import atomic_write_text, read_bounded_text
from harness.common.model import Frozen
from harness.common.run_files import VERDICTS
from harness.gate.arm_outcome import ArmsOutcome, arms_outcome
from harness.gate.best_member import best_solo_results
from harness.gate.prediction import prediction
from harness.gate.remediation import BandComparison, remediation_table
from harness.gate.verdict_plan import VerdictPlan
from harness.run.result import CaseResult
from harness.stats import PredictionReport


class RunVerdicts(Frozen):
    """Every verdict of one run (see the module docstring) and the plan they were computed from."""

    plan: VerdictPlan
    prediction: PredictionReport | None
    arms: ArmsOutcome
    remediation: tuple[BandComparison, ...]


def run_verdicts(plan: VerdictPlan, results: Sequence[CaseResult]) -> RunVerdicts:
    """The :class:`RunVerdicts` of ``results`` under ``plan`` (module docstring)."""
    return RunVerdicts(
        plan=plan,
        prediction=prediction(plan, results),
        arms=arms_outcome(plan, results),
        remediation=tuple(remediation_table(plan, results)),
    )


#: the largest ``verdicts.json`` read (its families and pairs hold a few numbers per case)
MAX_VERDICTS_BYTES = 256 * 2**20


def results_digest(results: Sequence[CaseResult]) -> str:
    """A digest of which results, with which status and scores, verdicts were composed over (order-free)."""
    rows = sorted(json.dumps([*r.key, r.status, r.scores], sort_keys=True, allow_nan=True) for r in results)
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def write_run_verdicts(run_dir: Path, verdicts: RunVerdicts, results: Sequence[CaseResult]) -> Path:
    """Write ``verdicts`` (composed over ``results``) to ``<run_dir>/verdicts.json`` atomically."""
    body = verdicts.model_dump(exclude={"plan": {"best_solo"}})  # floats as they are: a NaN stays NaN
    path = run_dir / VERDICTS
    atomic_write_text(path, json.dumps({"results": results_digest(results), "verdicts": body}, indent=1))
    return path


def read_run_verdicts(run_dir: Path, results: Sequence[CaseResult]) -> RunVerdicts | None:
    """The verdicts finishing stored for ``results``; ``None`` when none are stored or they were composed over
    other results (a run resumed and interrupted since; a run finished before they were stored).

    Raises:
        StoreError: ``verdicts.json`` is there but is not a verdicts record (named, with what to do).
    """
    path = run_dir / VERDICTS
    if not path.is_file():
        return None
    try:
        stored = json.loads(read_bounded_text(path, MAX_VERDICTS_BYTES))
        if stored.get("results") != results_digest(results):
            return None
        body = stored["verdicts"]
        body["plan"]["best_solo"] = []
        verdicts = RunVerdicts.model_validate(body)
        best_solo = tuple(best_solo_results(results, verdicts.plan.choice))
        return verdicts.model_copy(update={"plan": verdicts.plan.model_copy(update={"best_solo": best_solo})})
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
        raise StoreError(
            f"not a verdicts record ({type(exc).__name__}: {str(exc)[:200]}); delete it and the views compose "
            "the verdicts again from the run's recorded settings",
            str(path),
        ) from None
