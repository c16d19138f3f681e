"""A pytest session's completeness, through real pytest subprocesses against a scripted endpoint.

Items pytest skips without a result (a ``skip``/``skipif`` mark added by the project's conftest) are not
planned and not missing: the session passes and names them (:mod:`harness.gate.completeness`). An item
that errors at setup has no result and is not skipped: the run is ``incomplete``. A session killed
mid-way leaves a ``summary.json`` that says ``incomplete`` and to re-run the pytest command.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from harness.pytest_plugin import RERUN
from harness.run.runs import MANIFEST, RESULTS, load_run, read_results
from harness.run.summary import SUMMARY
from tests.cli_env import plugin_args, scripted_pytest_env, start_pytest
from tests.fault_server import FaultServer
from tests.run.test_concurrency import run_pytest
from tests.scripted import expected_status, scripted_dataset, scripted_reply

#: the project's conftest: s00002 skipped through both subjects, s00005 through the council only
SKIPPING_CONFTEST = """\
import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "::s00002[" in item.nodeid:
            item.add_marker(pytest.mark.skip(reason="skipped by the project's conftest"))
        if item.nodeid.endswith("::s00005[council]"):
            item.add_marker(pytest.mark.skipif(True, reason="skipped by the project's conftest"))
"""

#: the pairs SKIPPING_CONFTEST skips, as the manifest and the console name them (sorted)
SKIPPED = ("scripted::s00002[baseline]", "scripted::s00002[council]", "scripted::s00005[council]")

#: s00004 through the baseline errors at setup (a setup hook of the project's conftest)
ERRING_CONFTEST = """

def pytest_runtest_setup(item):
    if item.nodeid.endswith("::s00004[baseline]"):
        raise RuntimeError("a setup hook of the project's conftest failed")
"""


def skipping_project(root: Path, conftest: str = SKIPPING_CONFTEST) -> Path:
    """Five scripted cases (s00003 fails by construction; the sessions deselect it) and ``conftest``."""
    (root / "golden").mkdir()
    scripted_dataset(root / "golden" / "scripted.yaml", 5)
    assert [expected_status(i) for i in (1, 2, 4, 5)] == ["passed"] * 4
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "conftest.py").write_text(conftest, encoding="utf-8")
    return root


def the_run_dir(root: Path) -> Path:
    [run_dir] = list((root / "reports" / "runs").iterdir())
    return run_dir


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_pytest_items_skipped_by_marks_are_not_planned_and_the_session_passes(
    tmp_path: Path, workers: list[str]
) -> None:
    """Three of the eight selected items are skipped by marks: 5 passed, 3 skipped; the run planned the
    5 others, holds their 5 results, passes, and names the 3 skipped pairs in the manifest, in
    ``summary.json`` and on the console; none of them was run (not even ahead, in the background)."""
    if workers:
        pytest.importorskip("xdist")
    project = skipping_project(tmp_path)
    with FaultServer(responder=scripted_reply) as server:
        out = run_pytest(project, server.base_url, "-k", "not s00003", *workers)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "5 passed, 3 skipped" in out.stdout, out.stdout  # (the xdist controller does not count deselected)
    run_dir = the_run_dir(tmp_path)
    run = load_run(run_dir)
    assert run.manifest.planned == 5 and run.manifest.skipped == SKIPPED
    assert sorted(f"{r.dataset}::{r.case_id}[{r.subject}]" for r in run.results) == [
        "scripted::s00001[baseline]",
        "scripted::s00001[council]",
        "scripted::s00004[baseline]",
        "scripted::s00004[council]",
        "scripted::s00005[baseline]",
    ]
    gate = json.loads((run_dir / SUMMARY).read_text(encoding="utf-8"))["gate"]
    assert gate["outcome"] == "pass", gate
    state = gate["completeness"]
    assert (state["planned"], state["results"], state["not_run"], tuple(state["skipped"])) == (5, 5, 0, SKIPPED)
    assert "running" not in gate
    line = (
        f"council-harness complete: 5 of 5 planned result(s), 3 skipped by pytest, not planned ({', '.join(SKIPPED)})"
    )
    assert line in out.stdout, out.stdout


def test_pytest_item_that_errors_at_setup_is_not_skipped_and_the_run_is_incomplete(tmp_path: Path) -> None:
    """``-n 2`` (items run one at a time, none ahead): s00004 through the baseline errors at setup, so it
    has no result; unlike the skipped pairs it stays planned, and the run is incomplete (1 not run)."""
    pytest.importorskip("xdist")
    project = skipping_project(tmp_path, SKIPPING_CONFTEST + ERRING_CONFTEST)
    with FaultServer(responder=scripted_reply) as server:
        out = run_pytest(project, server.base_url, "-k", "not s00003", "-n", "2")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "4 passed, 3 skipped, 1 error" in out.stdout, out.stdout
    run_dir = the_run_dir(tmp_path)
    assert load_run(run_dir).manifest.skipped == SKIPPED
    gate = json.loads((run_dir / SUMMARY).read_text(encoding="utf-8"))["gate"]
    assert gate["outcome"] == "incomplete" and gate["counts"]["not_run"] == 1, gate
    state = gate["completeness"]
    assert (state["planned"], state["results"], state["not_run"]) == (5, 4, 1)
    assert (
        "council-harness gate: incomplete (1 reason(s)); incomplete: 4 of 5 planned result(s), 3 skipped" in out.stdout
    ), out.stdout


def complete_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


#: the most the killed session may take to write its first result (a failsafe, not a measurement)
WAIT_S = 300.0


def test_killed_pytest_session_leaves_a_summary_that_says_incomplete_and_to_rerun_pytest(tmp_path: Path) -> None:
    """SIGKILL a ``pytest -m golden`` session once its first result is written: the session never finished,
    and its ``summary.json`` (written when collection selected the items) says ``incomplete``, how many
    pairs were planned, and to re-run the pytest command (a pytest session has no ``--resume``)."""
    (tmp_path / "golden").mkdir()
    scripted_dataset(tmp_path / "golden" / "scripted.yaml", 40)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    runs = tmp_path / "reports" / "runs"
    with FaultServer(responder=scripted_reply, delay=0.2) as server:
        env = scripted_pytest_env(server.base_url, LLM_COUNCIL_CONCURRENCY="2")
        with (tmp_path / "killed.log").open("wb") as log:
            proc = start_pytest(tmp_path, *plugin_args(), "-m", "golden", "-q", env=env, log=log)
        try:
            deadline = time.monotonic() + WAIT_S
            found: list[Path] = []
            while not found or complete_lines(found[0]) < 1:
                assert proc.poll() is None, "the session ended before it could be killed:\n" + (
                    tmp_path / "killed.log"
                ).read_text(errors="replace")
                assert time.monotonic() < deadline, "no result after waiting"
                found = sorted(runs.glob(f"*/{RESULTS}")) if runs.exists() else []
                time.sleep(0.05)
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    run_dir = found[0].parent
    results, _ = read_results(run_dir / RESULTS)
    assert 1 <= len(results) < 80  # killed mid-session
    assert not (run_dir / MANIFEST).exists()  # the session never finished
    gate = json.loads((run_dir / SUMMARY).read_text(encoding="utf-8"))["gate"]
    assert (gate["outcome"], gate["running"], gate["planned"]) == ("incomplete", True, 80), gate
    assert gate["words"] == (
        f"incomplete: run {run_dir.name} started and has not finished; if it is no longer running it was "
        f"killed or crashed ({RERUN})"
    )
    assert "re-run the pytest command" in gate["words"] and "--resume" not in gate["words"]


def test_pytest_items_awaiting_review_skip_with_a_result_and_stay_planned(tmp_path: Path) -> None:
    """Expert-review cases are scored, written and then reported skipped (awaiting review): they have
    results, so they are planned results, not skipped pairs, and the run is complete."""
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "review.yaml").write_text(
        "golden_datasets:\n"
        "  - name: review\n"
        "    evaluation_mode: expert_review\n"
        "    queries:\n"
        "      - {id: r1, query: What is item1? Answer in one line.}\n"
        "      - {id: r2, query: What is item2? Answer in one line.}\n",
        encoding="utf-8",
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    with FaultServer(responder=scripted_reply) as server:
        out = run_pytest(tmp_path, server.base_url)
    assert "4 skipped" in out.stdout, out.stdout + out.stderr
    run = load_run(the_run_dir(tmp_path))
    assert [r.status for r in run.results] == ["awaiting_review"] * 4
    assert run.manifest.planned == 4 and run.manifest.skipped == ()
    state = json.loads((run.run_dir / SUMMARY).read_text(encoding="utf-8"))["gate"]["completeness"]
    assert (state["planned"], state["results"], state["not_run"], state["skipped"]) == (4, 4, 0, [])
    assert "skipped by pytest" not in out.stdout
