"""``token_limit`` under the pytest plugin (issue 28): one budget for the whole session, also across
pytest-xdist workers, on the scripted loopback endpoint.

Every reply reports 12 prompt + 7 completion tokens (:func:`tests.fault_server.completion_body`), so
each call costs :data:`PER_CALL` live tokens and the limit is reached after a known number of calls.
No new call starts once the session's sum reaches the limit; the calls already in flight finish. In
flight at most: ``concurrency`` requests holding the endpoint's slots, plus, per process, a call whose
reply is in but not yet charged (another worker may start a call in between).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.run.ledger import UNRECORDED, usage_ledger
from harness.run.runs import load_run
from tests.fault_server import FaultServer
from tests.run.test_concurrency import run_pytest
from tests.scripted import scripted_reply

PER_CALL = 12 + 7
CASES = 24
CONCURRENCY = 2
LIMIT = 8 * PER_CALL  # reached after 8 calls of the 24


def _passing_dataset(path: Path) -> None:
    """:data:`CASES` cases that every scripted reply passes (it repeats the question, which names the word)."""
    queries = [
        {"id": f"p{i:03d}", "query": f"What is word{i}? Answer in one line.", "required_mentions": [f"word{i}"]}
        for i in range(1, CASES + 1)
    ]
    path.write_text(yaml.safe_dump({"golden_datasets": [{"name": "one", "queries": queries}]}), encoding="utf-8")


@pytest.mark.parametrize("workers", [2, 0], ids=["n2", "plain"])
def test_token_limit_holds_for_the_pytest_session(tmp_path: Path, workers: int) -> None:
    if workers:
        pytest.importorskip("xdist")
    (tmp_path / "golden").mkdir()
    _passing_dataset(tmp_path / "golden" / "one.yaml")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    xdist = ["-n", str(workers)] if workers else []
    with FaultServer(responder=scripted_reply, delay=0.05) as server:
        out = run_pytest(
            tmp_path,
            server.base_url,
            *xdist,
            "--harness-subjects",
            "baseline",
            "-rfs",
            extra_env={"LLM_COUNCIL_CONCURRENCY": str(CONCURRENCY), "LLM_COUNCIL_TOKEN_LIMIT": str(LIMIT)},
        )
        calls = len(server.requests)
    text = out.stdout + out.stderr
    # the session stopped: not every case was asked, and it is not a pass (every case it ran passed)
    assert out.returncode == 1, text
    assert " failed" not in text.splitlines()[-1], text
    assert LIMIT / PER_CALL <= calls < CASES, (calls, text)
    in_flight = CONCURRENCY + max(workers, 1)
    assert calls * PER_CALL - LIMIT < in_flight * PER_CALL, (calls, in_flight)
    # the run folder: partial, and the ledger holds every call the endpoint saw (those of the pairs the
    # budget stopped mid-way in its unrecorded row)
    (run_dir,) = (tmp_path / "reports" / "runs").iterdir()
    run = load_run(run_dir)
    assert run.manifest.partial and f"token_limit {LIMIT} reached" in (run.manifest.stopped or "")
    # the items the budget stopped are skipped by the plugin, not by the user: they stay planned (not run)
    assert run.manifest.planned == CASES and run.manifest.skipped == ()
    ledger = usage_ledger(run.results, {}, run.manifest.unrecorded_calls)
    unrecorded = ledger.by_subject[UNRECORDED].calls if UNRECORDED in ledger.by_subject else 0
    assert ledger.total.calls == len(run.results) + unrecorded == calls
    # every item without a result is skipped and says why
    assert f"{CASES - len(run.results)} skipped" in text, text
    assert f"not run: token_limit {LIMIT} reached" in text, text
    assert "the session stopped early and its run is incomplete" in text
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["gate"]["outcome"] == "incomplete", summary["gate"]
    assert f"stopped early: token_limit {LIMIT} reached" in text, text
