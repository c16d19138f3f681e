"""The Python API (issue 30 item 1): ``harness.api.run``/``run_async``/``assert_case`` on the scripted loopback
endpoint (:class:`tests.scripted_server.ScriptedServer`), inside a running event loop, from a plain script,
and in an ordinary test.

The server answers the council's synthesis right for questions 0-1 and the baseline model for question 0
only, so with three numeric cases the council passes q00 and q01 and the baseline q00: every assertion
below follows from that script.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.api import assert_case, case, run, run_async
from harness.common.errors import ConfigError
from harness.run.orchestrate import run_cases
from tests.cli_env import clear_harness_env, harness_env, scripted_project
from tests.scripted_server import SOLO, ScriptedServer, question

N = 3
EXPECTED = {
    ("q00", "council"): "passed",
    ("q01", "council"): "passed",
    ("q02", "council"): "failed",
    ("q00", "baseline"): "passed",
    ("q01", "baseline"): "failed",
    ("q02", "baseline"): "failed",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, ScriptedServer]]:
    clear_harness_env(monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.chdir(tmp_path)
    with ScriptedServer(range(2), range(1)) as server:
        yield scripted_project(tmp_path, server.base_url, N, extra=f"baseline: {SOLO}\ncache_mode: 'off'\n"), server


def _cases() -> list:
    return [
        case(
            f"q{i:02d}",
            question(i),
            ground_truth=str(i + 100),
            expected={"type": "numeric", "value": i + 100, "tolerance": 0},
        )
        for i in range(N)
    ]


def _statuses(outcome) -> dict[tuple[str, str], str]:  # noqa: ANN001 - a RunOutcome
    return {(r.case_id, r.subject): r.status for r in outcome.run.results}


def test_run_async_inside_a_running_loop_leaves_the_loop_serving(project) -> None:
    root, server = project
    ticks: list[int] = []

    async def ticker(stop: asyncio.Event) -> None:
        while not stop.is_set():
            ticks.append(1)
            await asyncio.sleep(0.01)

    async def main():  # noqa: ANN202
        stop = asyncio.Event()
        task = asyncio.create_task(ticker(stop))
        outcome = await run_async(_cases(), config=root / "council-harness.yaml")
        stop.set()
        await task
        return outcome

    outcome = asyncio.run(main())
    assert _statuses(outcome) == EXPECTED
    assert server.requests == N * 8  # per case: 3 answers, 3 reviews, 1 synthesis, 1 baseline
    assert len(ticks) > 1  # the caller's loop ran its own task while the run was going on
    assert outcome.run.run_dir.parent == root / "reports" / "runs"
    assert outcome.report == outcome.run.run_dir / "index.html" and outcome.report.exists()
    assert outcome.gate.outcome == "fail" and outcome.exit_code == 1  # 3 failing results, no baseline
    assert outcome.gate.counts["failing"] == 3
    summary = json.loads(outcome.summary.read_text())
    assert summary["gate"]["outcome"] == "fail"
    assert {r.dataset for r in outcome.run.results} == {"api"}


def test_run_called_while_a_loop_runs_in_the_thread(project) -> None:
    root, _ = project

    async def cell():  # noqa: ANN202 - what a Jupyter cell is: code running inside the kernel's loop
        return run(_cases()[:1], subjects="council", config=root / "council-harness.yaml", dataset="nb")

    outcome = asyncio.run(cell())
    assert _statuses(outcome) == {("q00", "council"): "passed"}
    assert outcome.exit_code == 0 and outcome.gate.outcome == "pass"
    assert {r.dataset for r in outcome.run.results} == {"nb"}


def test_run_cases_inside_a_running_loop_no_longer_raises_or_leaves_an_empty_folder(project) -> None:
    from harness.api import datasets_of
    from harness.config import load_settings

    root, _ = project
    settings = load_settings(root / "council-harness.yaml")

    async def cell():  # noqa: ANN202
        return run_cases(settings, datasets_of(_cases()), ["baseline"])

    finished = asyncio.run(cell())
    assert {(r.case_id, r.subject): r.status for r in finished.results} == {
        k: v for k, v in EXPECTED.items() if k[1] == "baseline"
    }
    assert len((finished.run_dir / "results.jsonl").read_text().splitlines()) == N


def test_a_plain_script_runs_yaml_and_python_cases(project) -> None:
    root, _ = project
    script = root / "script.py"
    script.write_text(
        textwrap.dedent(f"""
        from harness.api import case, run
        outcome = run([{str(root / "golden")!r}, case("extra", "Q01: What is 1 + 100? Reply with the number.",
                                                     expected={{"type": "numeric", "value": 101}})],
                      subjects=["council"])
        print(sorted((r.dataset, r.case_id, r.status) for r in outcome.run.results))
        print(outcome.gate.outcome, outcome.exit_code)
    """)
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=root,
        env=harness_env(OPENAI_API_KEY="test-key"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == str(
        [("api", "extra", "passed"), ("sums", "q00", "passed"), ("sums", "q01", "passed"), ("sums", "q02", "failed")]
    )
    assert lines[1] == "fail 1"
    assert done.stderr == ""  # no progress unless asked for


def test_assert_case_in_an_ordinary_test(project) -> None:
    root, _ = project
    config = root / "council-harness.yaml"
    passed = assert_case(_cases()[1], config=config)
    assert passed.status == "passed" and passed.subject == "council" and passed.case_id == "q01"
    with pytest.raises(AssertionError) as failure:
        assert_case(_cases()[1], subject="baseline", config=config)
    message = str(failure.value)
    assert message.startswith("api::q01 through 'baseline': FAILED")
    assert "expected (ground truth): 101" in message and "The answer is 7." in message


def test_a_bad_case_is_a_clear_error() -> None:
    with pytest.raises(ConfigError) as err:
        case("q 1", "What?")
    assert str(err.value).startswith("case 'q 1': invalid case: id: String should match pattern")
    with pytest.raises(ConfigError, match="repeated: \\['a'\\]"):
        run([case("a", "x?"), case("a", "y?")], subjects="council")
