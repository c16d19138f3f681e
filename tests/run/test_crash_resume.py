"""Crash safety: a run killed with SIGKILL halfway resumes to a complete record without repeating
finished cases, and a writer killed in the middle of an atomic write never leaves a half file.

The run uses the embedded SmolLM2 through the single-model ``baseline`` subject only, with short
answers and no LLM judge, so that it stays quick on two cores.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.providers.cache import CacheStore
from harness.run.result import CaseResult
from harness.run.runs import load_run, read_results
from tests.cli_env import harness_env

CLI = Path(sys.executable).parent / "council-harness"
CASES = ["c1", "c2", "c3", "c4", "c5", "c6"]
DATASET = """\
golden_datasets:
  - name: crash
    queries:
      - {id: c1, query: "What is the capital of France?", required_mentions: [Paris]}
      - {id: c2, query: "What is 2 plus 2?", required_mentions: ["4"]}
      - {id: c3, query: "Name a primary colour.", required_mentions: [red]}
      - {id: c4, query: "What is the opposite of hot?", required_mentions: [cold]}
      - {id: c5, query: "How many legs does a cat have?", required_mentions: ["4"]}
      - {id: c6, query: "What colour is the sky on a clear day?", required_mentions: [blue]}
"""
PARTIAL_LINE = b'{"case_id": "c9", "dataset": "crash", "subj'
WAIT_S = 600.0


def run_env(tmp: Path) -> dict[str, str]:
    """The environment of both invocations: tmp cache and reports, short answers, no LLM judge."""
    env = harness_env()
    env.update(
        {
            "LLM_COUNCIL_ANSWER_MAX_TOKENS": "24",
            "LLM_COUNCIL_CACHE_PATH": str(tmp / "cache" / "cache.sqlite"),
            "LLM_COUNCIL_REPORTS_DIR": str(tmp / "reports"),
            "LLM_COUNCIL_RUBRIC_SCORING": "false",
            "LLM_COUNCIL_PEER_RUBRIC": "false",
        }
    )
    return env


def complete_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


@pytest.mark.slow
def test_sigkill_halfway_then_resume_completes_the_run(tmp_path: Path) -> None:
    data = tmp_path / "crash.yaml"
    data.write_text(DATASET, encoding="utf-8")
    env = run_env(tmp_path)
    runs_dir = tmp_path / "reports" / "runs"
    with (tmp_path / "killed.log").open("wb") as log:
        proc = subprocess.Popen(
            [str(CLI), "run", "--data", str(data), "--dataset", "crash", "--subjects", "baseline"],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + WAIT_S
        results_path: Path | None = None
        while results_path is None or complete_lines(results_path) < 2:
            assert proc.poll() is None, "the run ended before it could be killed:\n" + (
                tmp_path / "killed.log"
            ).read_text(errors="replace")
            assert time.monotonic() < deadline, "no results after waiting"
            found = sorted(runs_dir.glob("*/results.jsonl")) if runs_dir.exists() else []
            results_path = found[0] if found else None
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    run_dir = results_path.parent
    run_id = run_dir.name
    before, corrupt_before = read_results(results_path)
    done_before = {r.case_id for r in before}
    assert 2 <= len(done_before) < len(CASES) and corrupt_before == []
    assert load_run(run_dir).manifest.finished_at is None  # killed: never finished
    with results_path.open("ab") as fh:  # as if the crash had cut a line in half
        fh.write(PARTIAL_LINE)
    partial_line_no = complete_lines(results_path) + 1

    resumed = subprocess.run(
        [str(CLI), "run", "--resume", run_id, "--data", str(data)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    killed_log = (tmp_path / "killed.log").read_text(errors="replace")
    context = f"killed run:\n{killed_log}\nresumed run:\n{resumed.stderr}"
    assert resumed.returncode in (0, 1), context  # 1 = some small-model answer failed its checks
    assert "Traceback" not in resumed.stderr

    # every (case, subject) exactly once among the valid lines; the cut line skipped and counted
    results, corrupt = read_results(run_dir / "results.jsonl")
    assert sorted(r.case_id for r in results) == CASES, context
    assert {r.subject for r in results} == {"baseline"}
    assert corrupt == [partial_line_no]
    raw_keys = []
    for line in (run_dir / "results.jsonl").read_bytes().splitlines():
        try:
            raw_keys.append(CaseResult.model_validate(json.loads(line)).key)
        except ValueError:
            continue
    assert sorted(raw_keys) == sorted(("crash", c, "baseline") for c in CASES)  # no case written twice
    # the results written before the kill are kept as they were
    assert {r.key: r for r in results if r.case_id in done_before} == {r.key: r for r in before}

    run = load_run(run_dir)
    assert run.manifest.run_id == run_id and run.manifest.finished_at is not None
    assert (run_dir / "index.html").is_file() and run_id in (run_dir / "index.html").read_text(encoding="utf-8")
    # only the unfinished cases were asked again (a reply cached just before the kill is a hit)
    remaining = len(CASES) - len(done_before)
    assert run.manifest.cache_hits + run.manifest.cache_misses == remaining, (run.manifest, context)
    assert run.manifest.cache_hits <= 1 and run.manifest.cache_misses < len(CASES)
    store = CacheStore(Path(env["LLM_COUNCIL_CACHE_PATH"]))
    try:
        assert len(store) == len(CASES)  # one recorded reply per case, none lost by the kill
    finally:
        store.close()


WRITER = """
import sys
from harness.common.fsutil import atomic_write_text
print("ready", flush=True)
atomic_write_text(sys.argv[1], "n" * int(sys.argv[2]))
print("done", flush=True)
"""


def test_writer_killed_during_atomic_write_leaves_the_old_file(tmp_path: Path) -> None:
    """SIGKILL a process in the middle of ``atomic_write_text`` of 64 MiB: the target is old or new, never half."""
    target = tmp_path / "baseline.json"
    old = '{"schema_version": 1, "dataset": "geo"}\n'
    size = 64 * 2**20
    killed_midway = 0
    for _ in range(5):
        target.write_text(old, encoding="utf-8")
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(target), str(size)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
            deadline = time.monotonic() + 60
            while proc.poll() is None and time.monotonic() < deadline:
                temps = list(tmp_path.glob(".baseline.json.*.tmp"))
                if any(t.stat().st_size > 0 for t in temps if t.exists()):
                    os.kill(proc.pid, signal.SIGKILL)
                    break
                time.sleep(0.001)
        finally:
            proc.wait(timeout=60)
            if proc.stdout is not None:
                proc.stdout.close()
        data = target.read_bytes()
        assert data in (old.encode(), b"n" * size), f"a half-written target of {len(data)} bytes"
        if proc.returncode == -signal.SIGKILL and data == old.encode():
            killed_midway += 1  # killed after writing had started, before the rename: old content intact
        for t in tmp_path.glob(".baseline.json.*.tmp"):  # what a killed writer leaves (harmless)
            t.unlink()
    if killed_midway == 0:
        pytest.fail("the writer always finished before it could be killed; the test proved nothing")


def test_sigkill_of_a_concurrent_run_then_resume_runs_each_case_exactly_once(tmp_path: Path) -> None:
    """30 cases x (council, baseline) through a loopback endpoint with 8 requests in flight: killed
    with SIGKILL while many cases are in flight, then resumed: every pair has exactly one line."""
    from tests.fault_server import FaultServer
    from tests.scripted import scripted_dataset, scripted_reply

    n = 30
    data = scripted_dataset(tmp_path / "scripted.yaml", n)
    env = run_env(tmp_path)
    runs_dir = tmp_path / "reports" / "runs"
    with FaultServer(responder=scripted_reply, delay=0.1) as server:
        env.update(
            {
                "LLM_COUNCIL_BASE_URL": server.base_url,
                "LLM_COUNCIL_MODELS": "m-a,m-b,m-c",
                "LLM_COUNCIL_CONCURRENCY": "8",
                "LLM_COUNCIL_MAX_RETRIES": "0",
            }
        )
        with (tmp_path / "killed.log").open("wb") as log:
            proc = subprocess.Popen(
                [str(CLI), "run", "--data", str(data), "--dataset", "scripted"],
                cwd=tmp_path,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        try:
            deadline = time.monotonic() + WAIT_S
            results_path: Path | None = None
            while results_path is None or complete_lines(results_path) < 6:
                assert proc.poll() is None, "the run ended before it could be killed:\n" + (
                    tmp_path / "killed.log"
                ).read_text(errors="replace")
                assert time.monotonic() < deadline, "no results after waiting"
                found = sorted(runs_dir.glob("*/results.jsonl")) if runs_dir.exists() else []
                results_path = found[0] if found else None
                time.sleep(0.02)
            in_flight_at_kill = server.max_in_flight
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        before, _ = read_results(results_path)
        assert 6 <= len(before) < 2 * n and in_flight_at_kill == 8
        resumed = subprocess.run(
            [str(CLI), "run", "--resume", results_path.parent.name, "--data", str(data)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=WAIT_S,
        )
    assert resumed.returncode in (0, 1) and "Traceback" not in resumed.stderr, resumed.stderr
    raw_keys = []
    for line in results_path.read_bytes().splitlines():
        try:
            raw_keys.append(CaseResult.model_validate(json.loads(line)).key)
        except ValueError:
            continue  # a line cut by the kill
    expected = sorted(("scripted", f"s{i:05d}", s) for i in range(1, n + 1) for s in ("baseline", "council"))
    assert sorted(raw_keys) == expected  # each pair exactly once across the killed and the resumed run
    results, _ = read_results(results_path)
    assert {r.key: r for r in results if r.key in {b.key for b in before}} == {r.key: r for r in before}
    assert load_run(results_path.parent).manifest.finished_at is not None
