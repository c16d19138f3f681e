"""The Python API: run cases from a notebook, a script or an existing event loop; assert a case in a test.

:func:`run` and :func:`run_async` do what ``council-harness run`` does (the cases through the subjects,
the repeats, then :func:`harness.finish.finish_run`: verdicts, gate, report, ``summary.json``) and
return the same :class:`~harness.finish.RunOutcome`. They print nothing unless ``progress=True``
(the progress then goes to stderr). The cases may be YAML (a file or folder of datasets, as ``--data``)
or Python objects: :class:`~harness.data.cases.Case` (or :func:`case`, the same with plain arguments),
a :class:`~harness.data.cases.Dataset`, or a list mixing them.

Event loops: the run has its own event loop. :func:`run` called where a loop is already running in the
thread (a Jupyter cell, inside ``asyncio.run``) runs in a worker thread and waits for it;
:func:`run_async` awaits that worker thread, so the caller's loop keeps serving its other tasks.

:func:`assert_case` runs one case through one subject and raises an ``AssertionError`` with the same
readable report as the pytest plugin when it does not pass: DeepEval's ``assert_test`` in an ordinary
pytest test.

Example (a notebook cell; ``docs/api.md`` has more)::

    from harness.api import case, run
    outcome = run([case("q1", "What is 2 + 2?", expected={"type": "numeric", "value": 4})],
                  subjects="council,baseline", config="council-harness.yaml")
    outcome.gate.outcome, outcome.report
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.common.errors import ConfigError
from harness.config import Settings, load_settings
from harness.data.cases import Case, Dataset
from harness.finish import RunOutcome
from harness.run.result import CaseResult

__all__ = ["Case", "CaseResult", "Dataset", "RunOutcome", "assert_case", "case", "run", "run_async"]

#: The dataset name given to cases passed as Python objects without one.
DEFAULT_DATASET = "api"

CaseSource = Case | Dataset | str | Path
Cases = CaseSource | Iterable[CaseSource]


def case(id: str, query: str, **fields: Any) -> Case:  # noqa: A002 - the field is called id in YAML too
    """A :class:`~harness.data.cases.Case` from plain arguments, validated as a YAML case is.

    Args:
        id: the case id (letters, digits, ``_ . : -``).
        query: the question.
        fields: any other case field, as in YAML: ``expected={"type": "numeric", "value": 4}``,
            ``ground_truth``, ``required_mentions=["Paris"]``, ``minimum_scores``, ``tags``, ``category``, ...

    Raises:
        ConfigError: a field that is not valid, naming it and what was expected.
    """
    from pydantic import ValidationError

    try:
        return Case(id=id, query=query, **fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'case'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"invalid case: {problems}", f"case {id!r}") from None


def datasets_of(cases: Cases, name: str = DEFAULT_DATASET) -> list[Dataset]:
    """The datasets to run: YAML paths loaded (as ``--data``), datasets kept, loose cases gathered into one
    dataset ``name`` (a case's own ``dataset``, when set, is kept).

    Raises:
        ConfigError: nothing to run, or two cases with the same id in one dataset.
        DatasetError: a YAML file that cannot be loaded (file:line).
    """
    from harness.data.cases import discover

    items: list[CaseSource] = [cases] if isinstance(cases, Case | Dataset | str | Path) else list(cases)
    out: list[Dataset] = []
    loose: dict[str, list[Case]] = {}
    for item in items:
        if isinstance(item, Dataset):
            out.append(item)
        elif isinstance(item, Case):
            group = item.dataset or name
            loose.setdefault(group, []).append(
                item.model_copy(update={"dataset": group, "source": item.source or "python"})
            )
        elif isinstance(item, str | Path):
            out += discover([Path(item)])
        else:
            raise ConfigError(f"expected a Case, a Dataset or a YAML path, got {type(item).__name__}", "cases")
    for group, members in loose.items():
        ids = [c.id for c in members]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ConfigError(f"case ids must be unique within a dataset, repeated: {dupes}", f"dataset {group!r}")
        out.append(Dataset(name=group, cases=tuple(members), path="python"))
    if not out or not any(d.cases for d in out):
        raise ConfigError("no case to run; pass Case objects, a Dataset or a YAML file or folder", "cases")
    return out


def _settings(config: str | Path | Settings | None, overrides: Mapping[str, Any] | None) -> Settings:
    if isinstance(config, Settings):
        return config.model_copy(update=dict(overrides or {})) if overrides else config
    return load_settings(config, **dict(overrides or {}))


def _subjects(subjects: str | Sequence[str], settings: Settings) -> list[str]:
    from harness.run.subjects import parse_subjects, validate_subject

    names = parse_subjects(subjects if isinstance(subjects, str) else ",".join(subjects))
    for name in names:
        validate_subject(name, settings)
    return names


def _execute(
    datasets: list[Dataset],
    subjects: list[str],
    settings: Settings,
    *,
    limit: int | None,
    update_baseline: bool,
    progress: bool,
) -> RunOutcome:
    """The run, its repeats and :func:`~harness.finish.finish_run`, in the calling thread (no loop running)."""
    from harness.common.console import plain_console
    from harness.finish import finish_run
    from harness.run.orchestrate import run_cases
    from harness.run.repeats import run_repeats

    console = plain_console(quiet=not progress)
    finished = run_cases(settings, datasets, subjects, limit=limit, console=console)
    run_repeats(settings, datasets, subjects, finished.run_dir, limit=limit, console=console)
    return finish_run(finished, settings, update_baseline=update_baseline)


def run(
    cases: Cases,
    *,
    subjects: str | Sequence[str] = "council,baseline",
    config: str | Path | Settings | None = None,
    settings: Mapping[str, Any] | None = None,
    dataset: str = DEFAULT_DATASET,
    limit: int | None = None,
    update_baseline: bool = False,
    progress: bool = False,
) -> RunOutcome:
    """Run ``cases`` through ``subjects`` and finish the run, as ``council-harness run`` does.

    Args:
        cases: :class:`Case` objects (see :func:`case`), :class:`Dataset` objects, YAML files or folders,
            or a list mixing them.
        subjects: as ``--subjects``: ``"council,baseline"`` or a list of names.
        config: a ``council-harness.yaml`` path or :class:`~harness.config.Settings`; ``None`` finds the
            configuration as the command line does (:func:`harness.config.discover_config`).
        settings: settings that win over the file and the environment, e.g. ``{"cache_mode": "replay"}``.
        dataset: the dataset name of cases given without one.
        limit: run only the first ``limit`` cases.
        update_baseline: store this run as the baselines of its datasets (as ``--update-baseline``).
        progress: show the progress on stderr.

    Returns:
        The :class:`~harness.finish.RunOutcome`: ``gate``, ``prediction``, ``report``, ``summary``,
        ``run.results``, ``exit_code`` (what the command would exit with).

    Raises:
        ConfigError, DatasetError: bad input, before any model call.
        CacheMiss: a replay-mode call not in the cache.
    """
    from harness.run.orchestrate import in_own_thread, loop_running

    cfg = _settings(config, settings)
    datasets = datasets_of(cases, dataset)
    names = _subjects(subjects, cfg)
    if loop_running():  # a notebook cell or a coroutine: the run needs a thread with no loop of its own
        return in_own_thread(
            _execute, datasets, names, cfg, limit=limit, update_baseline=update_baseline, progress=progress
        )
    return _execute(datasets, names, cfg, limit=limit, update_baseline=update_baseline, progress=progress)


async def run_async(
    cases: Cases,
    *,
    subjects: str | Sequence[str] = "council,baseline",
    config: str | Path | Settings | None = None,
    settings: Mapping[str, Any] | None = None,
    dataset: str = DEFAULT_DATASET,
    limit: int | None = None,
    update_baseline: bool = False,
    progress: bool = False,
) -> RunOutcome:
    """:func:`run` for an existing event loop: ``await run_async(...)`` (in Jupyter: a top-level ``await``).

    The run goes to a worker thread with its own loop (:func:`asyncio.to_thread`); the caller's loop
    keeps running its other tasks meanwhile. Arguments, result and errors are those of :func:`run`.
    """
    cfg = _settings(config, settings)
    datasets = datasets_of(cases, dataset)
    names = _subjects(subjects, cfg)
    return await asyncio.to_thread(
        _execute, datasets, names, cfg, limit=limit, update_baseline=update_baseline, progress=progress
    )


def assert_case(
    case: Case,
    *,
    subject: str = "council",
    config: str | Path | Settings | None = None,
    settings: Mapping[str, Any] | None = None,
    dataset: str = DEFAULT_DATASET,
) -> CaseResult:
    """Run one case through one subject; raise ``AssertionError`` unless it passes (or awaits review).

    For ordinary pytest tests: the message is the pytest plugin's failure report
    (:func:`harness.report.failure_report.format_failure`: the failed checks, what was expected, the
    answer and the scores), printable (control characters escaped). The run is recorded like any other
    (a run folder with its report).

    Returns:
        The case's result, when it passed or awaits expert review.
    """
    from harness.common.untrusted import printable
    from harness.report.failure_report import format_failure

    outcome = run([case], subjects=[subject], config=config, settings=settings, dataset=dataset)
    (result,) = [r for r in outcome.run.results if r.case_id == case.id and r.subject == subject]
    if result.status not in ("passed", "awaiting_review"):
        shown = case.model_copy(update={"dataset": case.dataset or dataset, "source": case.source or "python"})
        raise AssertionError(printable(format_failure(result, shown)))
    return result
