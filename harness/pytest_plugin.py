"""pytest plugin: golden datasets and suites collected as test items (pytest's non-python tests pattern).

Each case becomes one item per subject, ``<file>::<dataset>::<case>[<subject>]``, marked ``golden``
or ``suite`` (and ``category_<name>`` for suite challenges). Running an item runs the case through
the subject on the configured models, scores it and fails with a readable report.

Case-level concurrency: when the run loop starts, every selected item's (case, subject) pair starts
in a background event loop (:meth:`harness.run.background.BackgroundCases.for_run`: the CLI's engine,
window and writer from :mod:`harness.run.orchestrate`), and each item waits for its own result, so
requests of many cases are in flight while pytest reports items in order. Under pytest-xdist each
worker runs its items one at a time (the workers are the parallelism), and the workers share each
endpoint's ``concurrency``, ``429`` pause and rate buckets, and the session's ``token_limit`` /
``cost_limit`` spend, through files in the run folder's ``limits/`` (:data:`LIMITS_DIR`;
:mod:`harness.providers.limits`, :class:`harness.run.ledger.Budget`). Items whose pairs the budget
stopped are skipped with the reason, and the run is recorded as stopped (the gate: ``incomplete``).
At the end of the session the controller finishes the run as ``council-harness run`` does
(:func:`harness.finish.finish_run`).

Completeness: the selected case items (after ``-k``/``-m``) are the run's planned pairs, less those
pytest skipped without a result (a ``skip``/``skipif`` mark, ``xfail(run=False)``, ``pytest.skip()``):
those are recorded as the manifest's ``skipped`` and excused like deselected items, while an item that
errored, was never reached (``-x``, an interrupt) or was stopped by the budget stays planned and makes the
run ``incomplete``
(:mod:`harness.gate.completeness`). When collection selects case items, the run folder is marked
unfinished (:func:`harness.run.summary.mark_unfinished`), so a killed session leaves a ``summary.json``
that says ``incomplete``; the end of the session replaces it with the gate's outcome.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.common.errors import BudgetReached, CacheMiss, HarnessError
from harness.common.untrusted import printable
from harness.data.cases import Case, Dataset, is_dataset_file, load_datasets
from harness.report.failure_report import format_failure
from harness.run.result import CaseResult
from harness.scorers.names import check_scorer_names

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from harness.records.transcript import CallRecord
    from harness.run.background import BackgroundCases

_SESSION = pytest.StashKey["HarnessSession"]()

#: a (case, subject) pair as results key it: (dataset, case id, subject)
Key = tuple[str, str, str]

#: how a killed session is finished (a pytest session cannot be resumed with ``run --resume``)
RERUN = "a pytest session cannot be resumed: re-run the pytest command"


def pair_name(key: Key) -> str:
    """``dataset::case[subject]``, as pytest reports the item."""
    dataset, case_id, subject = key
    return f"{dataset}::{case_id}[{subject}]"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("council-harness")
    group.addoption("--harness-subjects", default=None, help="subjects to run cases through (default council,baseline)")
    group.addoption(
        "--cache-mode",
        default=None,
        choices=["off", "readwrite", "replay"],
        help="record/replay cache mode for model calls",
    )
    group.addoption("--harness-config", default=None, help="council-harness.yaml to use")
    group.addoption("--harness-report", default=None, metavar="PATH", help="write the HTML report here at the end")
    group.addoption(
        "--update-baseline",
        action="store_true",
        default=False,
        help="write reports/baselines/<dataset>.json from this session's results",
    )
    parser.addini(
        "harness_data_paths", "folders holding golden datasets and suites", type="paths", default=["golden", "suites"]
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "golden: a golden-dataset case run through a subject")
    config.addinivalue_line("markers", "suite: a reasoning-suite challenge run through a subject")
    config.addinivalue_line("markers", "xdist_group(name): items pytest-xdist's --dist loadgroup keeps on one worker")
    if {"golden", "suite"} & set((config.option.markexpr or "").replace("(", " ").replace(")", " ").split()):
        # The optional deepeval/ragas extras install pytest plugins (deepeval's, langsmith's) that print their
        # own teardown lines in every session; a golden/suite run does not use them, so its output is the
        # same whatever the rootdir and its addopts.
        for name in QUIET_PLUGINS:
            plugin = config.pluginmanager.get_plugin(name)
            if plugin is not None:
                config.pluginmanager.unregister(plugin)


#: the run folder's sub-folder where pytest-xdist workers share the endpoints' limits and the session's spend
LIMITS_DIR = "limits"

#: third-party pytest plugins that a golden/suite session switches off (see :func:`pytest_configure`)
QUIET_PLUGINS = ("deepeval", "langsmith_plugin")


class HarnessSession:
    """Per-session state: settings, the case runner (built on first use), the run folder and results.

    Under pytest-xdist every worker appends its results to the same run folder (whole lines under
    a lock); only the controller writes the manifest and the report at the end.
    """

    def __init__(self, config: pytest.Config) -> None:
        from harness.run.runs import new_run_id, now_iso

        self.config = config
        self.results: list[CaseResult] = []
        self._background: BackgroundCases | None = None
        self.settings: Any = None
        self.subjects: list[str] | None = None
        workerinput = getattr(config, "workerinput", None)
        self.is_worker = workerinput is not None
        self.run_id: str = workerinput["harness_run_id"] if workerinput else new_run_id()
        self.started_at = workerinput.get("harness_started_at", now_iso()) if workerinput else now_iso()
        self.cache_hits = 0
        self.cache_misses = 0
        #: the (case, subject) items selected (after ``-k``/``-m``/``--deselect``), recorded in the manifest as
        #: ``planned`` so the gate can tell a session that ran them all from one cut short (``-x``, an interrupt)
        self.planned: int | None = None
        self.stopped: str | None = None  # why token_limit / cost_limit stopped pairs (any worker's)
        self.unrecorded: list[CallRecord] = []  # the calls of the pairs it stopped (paid, in no result)
        #: node id -> pair of the case items this process collected (none on the pytest-xdist controller)
        self.pairs: dict[str, Key] = {}
        #: the pairs pytest reported skipped (a worker's own; the controller's: every worker's), except
        #: those the budget stopped (``stopped_pairs``: the run is partial, they stay planned)
        self.skipped: set[Key] = set()
        self.stopped_pairs: set[Key] = set()

    def load(self) -> None:
        from harness.config import load_settings
        from harness.run.subjects import parse_subjects

        if self.settings is None:
            from harness.common import vault

            self.settings = load_settings(
                self.config.getoption("--harness-config"), cache_mode=self.config.getoption("--cache-mode")
            )
            self.subjects = parse_subjects(self.config.getoption("--harness-subjects"))
            # before any case starts a child: secrets out of the environment, this process non-dumpable
            vault.seal([self.settings.api_key_env, *(s.api_key_env or "" for s in self.settings.all_specs())])
            vault.protect_process()

    @property
    def run_dir(self) -> Path:
        from harness.run.runs import runs_dir

        self.load()
        return runs_dir(self.settings) / self.run_id

    def _cases(self) -> BackgroundCases:
        """The session's runner (:meth:`BackgroundCases.for_run`: the CLI's engine, window and writer)."""
        from harness.run.background import BackgroundCases

        self.load()
        if self._background is None:
            # pytest-xdist: the workers of one session share the endpoints' limits and the budget (files in
            # the run folder)
            shared = self.run_dir / LIMITS_DIR if self.is_worker else None
            self._background = BackgroundCases.for_run(self.settings, self.subjects or [], self.run_dir, shared)
        return self._background

    def start_background(self, pairs: list[tuple[Case, str]]) -> None:
        """Start every pair concurrently in a background loop (see the module docstring)."""
        if self._background is not None or len(pairs) < 2:
            return
        self._cases().start(pairs)

    def run(self, case: Case, subject: str) -> CaseResult:
        """The pair's result: started at the run loop's start, or now (an xdist worker runs its items one
        at a time; an item a plugin added later); written to the run folder as it finishes."""
        cases = self._cases()
        if not cases.has(case, subject):
            cases.start([(case, subject)])
        result = cases.result(case, subject)
        self.results.append(result)
        return result

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note a case item of this process that pytest skipped (at setup or call: a mark, ``pytest.skip()``,
        an xfail); whether it has a result is decided when the session finishes (:meth:`finish`)."""
        key = self.pairs.get(report.nodeid)
        if report.skipped and key is not None and key not in self.stopped_pairs:
            self.skipped.add(key)

    def close_engine(self) -> None:
        if self._background is None:
            return
        self._background.close()  # cancels pairs never asked for (-x, an interrupt), closes the engine
        hits, misses = self._background.cache_stats()
        self.stopped = self.stopped or self._background.stopped
        self.unrecorded += self._background.unrecorded()
        self._background = None
        self.cache_hits += hits
        self.cache_misses += misses

    def finish(self) -> tuple[Path | None, list[str], bool]:
        """Close the engine; on the controller, write the manifest and finish the run exactly as
        ``council-harness run`` does (:func:`harness.finish.finish_run`: prediction, baseline
        comparison or ``--update-baseline``, report, ``summary.json``).

        Returns the report path (``--harness-report`` when given), lines to print, and whether a
        baseline comparison failed or the gate found the run incomplete (scoring errors).
        """
        from harness.finish import finish_run
        from harness.gate.prediction import verdict_lines
        from harness.gate.regression import comparison_lines
        from harness.run.orchestrate import finish_manifest
        from harness.run.runs import RESULTS, load_run, new_manifest, read_results
        from harness.run.summary import SUMMARY

        self.close_engine()
        if self.is_worker:
            out = self.config.workeroutput  # type: ignore[attr-defined]
            out["harness_cache"] = (self.cache_hits, self.cache_misses)
            out["harness_stopped"] = self.stopped
            out["harness_unrecorded"] = [c.model_dump_json() for c in self.unrecorded]
            out["harness_planned"] = self.planned
            out["harness_skipped"] = sorted(self.skipped)
            return None, [], False
        if not (self.run_dir / RESULTS).exists() and not (self.run_dir / SUMMARY).exists():
            return None, [], False  # no case item ran and none was selected: no run
        results = read_results(self.run_dir / RESULTS)[0]
        held = {r.key for r in results}
        # skipped after its result was written (awaiting review, a pair run ahead): a result, not a skip
        skipped = sorted(k for k in self.skipped if k not in held)
        planned = self.planned - len(skipped) if self.planned is not None else None
        datasets = sorted({r.dataset for r in results} | {k[0] for k in skipped})
        manifest = new_manifest(self.settings, self.run_id, datasets, self.subjects or [])
        finish_manifest(
            self.run_dir,
            manifest.model_copy(
                update={
                    "started_at": self.started_at,
                    "planned": planned,
                    "skipped": tuple(pair_name(k) for k in skipped),
                }
            ),
            self.cache_hits,
            self.cache_misses,
            results=results,
            stopped=self.stopped,
            unrecorded=self.unrecorded,
        )
        update_baseline = bool(self.config.getoption("--update-baseline"))
        outcome = finish_run(load_run(self.run_dir), self.settings, update_baseline=update_baseline)
        lines = [f"baseline written: {p}" for p in outcome.baselines_written]
        lines += comparison_lines(outcome.comparisons, outcome.gate)
        lines += outcome.validity_lines
        if outcome.gate.scoring.errors:  # a scorer that fails on every case must not leave the session green
            lines.append(outcome.gate.scoring.words())
        state = outcome.gate.completeness
        if state is not None and not state.complete:
            lines.append(outcome.gate.line())  # e.g. token_limit stopped the session: says so, in red
        elif state is not None and state.skipped:
            lines.append(state.words())  # complete, and the pairs pytest skipped are named
        if outcome.prediction is not None:
            lines += verdict_lines(outcome.prediction)
        path = outcome.report
        target = self.config.getoption("--harness-report")
        if target:
            from harness.report.html import write_report

            path = write_report(
                outcome.run,
                Path(target),
                prediction=outcome.prediction,
                comparison=list(outcome.comparisons),
                gate=outcome.gate,
                verdicts=outcome.verdicts,
            )
        return path, lines, outcome.regressed or outcome.gate.outcome == "incomplete"


def pytest_collection_finish(session: pytest.Session) -> None:
    """Count the selected case items: the run's ``planned`` pairs (under pytest-xdist each worker collects the
    same items and reports its count; the controller collects none), and mark the run folder unfinished
    (see the module docstring; not with ``--collect-only``)."""
    from harness.run.summary import mark_unfinished

    items = [i for i in session.items if isinstance(i, CaseItem)]
    if not items:
        return
    state = _session(session.config)
    state.planned = len(items)
    state.pairs = {i.nodeid: i.key for i in items}
    if not session.config.pluginmanager.is_registered(state):
        session.config.pluginmanager.register(state, "council-harness-session")  # its pytest_runtest_logreport
    if session.config.option.collectonly:
        return
    try:
        mark_unfinished(state.run_dir, state.run_id, len(items), finish_with=RERUN)
    except (HarnessError, OSError):
        return  # an unwritable run folder: each item reports it when it runs


def _may_skip(item: CaseItem) -> bool:
    """Whether pytest may skip ``item`` at setup without running it (a ``skip`` or ``skipif`` mark,
    ``xfail(run=False)``): such a pair is not run ahead (it runs when its item asks, if it does)."""
    if item.get_closest_marker("skip") is not None or item.get_closest_marker("skipif") is not None:
        return True
    return any(not m.kwargs.get("run", True) for m in item.iter_markers("xfail"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """Start the selected items' pairs in the background (not on xdist workers, not with --collect-only)."""
    if session.config.option.collectonly or getattr(session.config, "workerinput", None) is not None:
        return
    if session.config.pluginmanager.has_plugin("dsession"):  # the xdist controller runs no items itself
        return
    pairs = [(i.case, i.subject) for i in session.items if isinstance(i, CaseItem) and not _may_skip(i)]
    if len(pairs) < 2:
        return
    state = _session(session.config)
    try:
        state.start_background(pairs)
    except HarnessError:
        return  # each item reports the configuration error itself


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: every worker writes into the controller's run folder."""
    state = _session(node.config)
    node.workerinput["harness_run_id"] = state.run_id
    node.workerinput["harness_started_at"] = state.started_at


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist: add a finished worker's cache statistics and what the budget stopped to the controller's,
    and take its planned count (every worker collects the same items)."""
    from harness.records.transcript import CallRecord

    output = getattr(node, "workeroutput", {})
    hits, misses = output.get("harness_cache", (0, 0))
    state = _session(node.config)
    state.cache_hits += hits
    state.cache_misses += misses
    planned = output.get("harness_planned")
    if planned is not None:
        state.planned = max(state.planned or 0, planned)
    state.stopped = state.stopped or output.get("harness_stopped")
    state.unrecorded += [CallRecord.model_validate_json(c) for c in output.get("harness_unrecorded", ())]
    state.skipped |= {(d, c, s) for d, c, s in output.get("harness_skipped", ())}


_ITEMS = pytest.StashKey[list["CaseItem"]]()


def _session(config: pytest.Config) -> HarnessSession:
    if _SESSION not in config.stash:
        config.stash[_SESSION] = HarnessSession(config)
    return config.stash[_SESSION]


_NAMED = pytest.StashKey[frozenset[Path]]()
_DATASET_FILES = pytest.StashKey[dict[str, Path]]()


def _named_files(config: pytest.Config) -> frozenset[Path]:
    """The files named on the command line (``pytest PATH/to/file.yaml``, with or without ``::node``)."""
    if _NAMED not in config.stash:
        base = config.invocation_params.dir
        config.stash[_NAMED] = frozenset((base / arg.split("::", 1)[0]).resolve() for arg in config.args)
    return config.stash[_NAMED]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Dataset files under ``harness_data_paths`` (default ``golden`` and ``suites``), and any dataset
    file named on the command line wherever it is."""
    roots = [Path(p).resolve() for p in parent.config.getini("harness_data_paths")]
    resolved = file_path.resolve()
    if not any(resolved.is_relative_to(r) for r in roots) and resolved not in _named_files(parent.config):
        return None
    if not is_dataset_file(file_path):
        return None
    return DatasetFile.from_parent(parent, path=file_path)


class DatasetLoadError(Exception):
    """A dataset file that could not be loaded (shown as a one-paragraph collection error)."""


class DatasetFile(pytest.File):
    def collect(self):  # noqa: ANN201 - pytest hook signature
        try:
            datasets = load_datasets(self.path)
        except HarnessError as exc:
            raise DatasetLoadError(str(exc)) from None
        seen = self.config.stash.setdefault(_DATASET_FILES, {})
        for dataset in datasets:
            first = seen.setdefault(dataset.name, self.path)
            if first != self.path:
                raise DatasetLoadError(
                    f"{self.path}: dataset name '{dataset.name}' is defined in two files: {first} and {self.path} "
                    "(dataset names must be unique: results and baselines are keyed by them)"
                )
        for dataset in datasets:
            yield DatasetNode.from_parent(self, name=dataset.name, dataset=dataset)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str | TerminalRepr:  # noqa: ANN001
        if isinstance(excinfo.value, DatasetLoadError):
            return printable(f"dataset error: {excinfo.value}")
        return super().repr_failure(excinfo)


class DatasetNode(pytest.Collector):
    def __init__(self, *, dataset: Dataset, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dataset = dataset

    def collect(self):  # noqa: ANN201
        session = _session(self.config)
        try:
            session.load()
            assert session.settings is not None
            check_scorer_names([self.dataset], session.settings)
        except HarnessError as exc:
            raise DatasetLoadError(str(exc)) from None
        items = self.config.stash.setdefault(_ITEMS, [])
        for case in self.dataset.cases:
            for subject in session.subjects or []:
                item = CaseItem.from_parent(self, name=f"{case.id}[{subject}]", case=case, subject=subject)
                item.add_marker(self.dataset.kind)
                item.add_marker(pytest.mark.xdist_group(name=self.dataset.name))  # --dist loadgroup: by dataset
                if case.category:
                    self.config.addinivalue_line("markers", f"category_{case.category}: suite category")
                    item.add_marker(f"category_{case.category}")
                for tag in case.tags:
                    item.user_properties.append(("tag", tag))
                items.append(item)
                yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str | TerminalRepr:  # noqa: ANN001
        if isinstance(excinfo.value, DatasetLoadError):
            return printable(f"configuration error: {excinfo.value}")
        return super().repr_failure(excinfo)


class CaseFailure(Exception):
    """A case that did not pass; carries its result for the report."""

    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.case_id)
        self.result = result


class CaseItem(pytest.Item):
    """One case through one subject."""

    def __init__(self, *, case: Case, subject: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.subject = subject

    @property
    def key(self) -> Key:
        """The pair as results key it."""
        return (self.case.dataset, self.case.id, self.subject)

    def runtest(self) -> None:
        session = _session(self.config)
        problem = None
        try:
            result = session.run(self.case, self.subject)
        except BudgetReached as exc:
            session.stopped_pairs.add(self.key)  # not a skip the user asked for: the pair stays planned
            pytest.skip(
                printable(f"not run: {exc}; the session stopped early and its run is incomplete"),
            )
        except CacheMiss as exc:
            problem = str(exc)
        except HarnessError as exc:
            problem = f"configuration error: {exc}"
        if problem is not None:  # failed outside the handler: one message, not a chained second copy
            pytest.fail(printable(problem), pytrace=False)
        for key, value in sorted(result.scores.items()):
            self.user_properties.append((key, value))
        if result.status == "awaiting_review":
            pytest.skip("awaiting expert review (evaluation_mode: expert_review); scored, verdict pending")
        if result.status != "passed":
            raise CaseFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str | TerminalRepr:  # noqa: ANN001
        if isinstance(excinfo.value, CaseFailure):
            return printable(format_failure(excinfo.value.result, self.case))
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = None
        if ":" in self.case.source:
            try:
                line = int(self.case.source.rsplit(":", 1)[1]) - 1
            except ValueError:
                line = None
        return self.path, line, pair_name(self.key)


_SUMMARY = pytest.StashKey[list[tuple[str, bool]]]()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Finish the run (manifest, gate, report); the lines are printed in the terminal summary."""
    state = session.config.stash.get(_SESSION, None)
    if state is None:
        return
    out = session.config.stash.setdefault(_SUMMARY, [])
    try:
        path, lines, gate_failed = state.finish()
    except HarnessError as exc:
        out.append((printable(f"council-harness: {exc}"), True))
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
        return
    red = ("baseline", "  -", "gate:")
    out += [(printable(f"council-harness {line}"), line.startswith(red) and gate_failed) for line in lines]
    if path is not None:
        out.append((printable(f"council-harness report: {path}"), False))
    if gate_failed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The run's closing lines on lines of their own (never glued to pytest's progress line)."""
    lines = config.stash.get(_SUMMARY, [])
    if not lines:
        return
    terminalreporter.ensure_newline()
    terminalreporter.section("council-harness", sep="-")
    for text, red in lines:
        terminalreporter.line(text, red=red)
