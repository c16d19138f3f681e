"""Incomplete runs never pass: a killed run and a limit-stopped run get the verdict ``incomplete`` (exit 3)
with or without a stored baseline, through the command line on the scripted loopback endpoint; ``merge``
returns the merged gate's exit code and names every dropped line and unfinished shard; ``--resume``
refuses another configuration and a second concurrent resume; ``diff`` and the gate agree on "regressed".
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from harness.gate.baselines import EXIT_INCOMPLETE
from harness.gate.completeness import SKIPPED_NAMED, Completeness
from harness.run.runs import load_run
from tests.cli_env import CLI, harness_env, run_cli, run_command, scripted_project
from tests.scripted_server import QID, SOLO, ScriptedServer

N = 6
WAIT_S = 120.0


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``council-harness ARGS`` in ``root`` (a dummy API key, no harness variables from the shell)."""
    return subprocess.run(
        [*CLI, *args], cwd=root, env=harness_env(OPENAI_API_KEY="test-key"), capture_output=True, text=True, timeout=600
    )


def project(root: Path, base_url: str, extra: str = "", concurrency: int = 1) -> Path:
    return scripted_project(root, base_url, N, third_model=SOLO, concurrency=concurrency, extra=extra)


class Stalling(ScriptedServer):
    """Answers Q00 at once; every other question waits until :attr:`release` is set (or 60 s)."""

    def __init__(self) -> None:
        super().__init__(council_right=range(N), baseline_right=range(N))
        self.release = threading.Event()

    def reply(self, body: dict[str, Any]) -> tuple[str, str]:
        match = QID.search(str(body["messages"][-1]["content"]))
        if match and match.group(1) != "Q00":
            self.release.wait(60)
        return super().reply(body)


def _kill_after_first_result(root: Path) -> Path:
    """Start ``run --subjects solo:c``, SIGKILL it once one result is on disk; return the run folder."""
    runs = root / "reports" / "runs"
    earlier = set(runs.iterdir()) if runs.exists() else set()
    proc = subprocess.Popen(
        run_command(root, "--subjects", "solo:c"),
        cwd=root,
        env=harness_env(OPENAI_API_KEY="test-key"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            found = [p for p in runs.glob("*/results.jsonl") if p.parent not in earlier] if runs.exists() else []
            if found and found[0].read_bytes().count(b"\n") >= 1:
                break
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no result after waiting"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return found[0].parent


def test_a_killed_run_without_a_baseline_is_incomplete_not_passed(tmp_path: Path) -> None:
    with Stalling() as server:
        root = project(tmp_path, server.base_url)
        run_dir = _kill_after_first_result(root)
        server.release.set()
    run = load_run(run_dir)
    assert len(run.results) == 1 and run.results[0].status == "passed"
    assert run.manifest.finished_at is None and run.manifest.planned == N
    # the CI script that reads summary.json after the kill finds "incomplete", not a missing file or a pass
    left = json.loads((run_dir / "summary.json").read_text())["gate"]
    assert left["outcome"] == "incomplete" and left["running"] is True and left["planned"] == N
    assert f"--resume {run.run_id}" in left["words"]
    proc = cli(root, "report", str(run_dir), "--config", str(root / "council-harness.yaml"))
    out = proc.stdout + proc.stderr
    assert proc.returncode == EXIT_INCOMPLETE == 3, out
    assert f"gate: incomplete (2 reason(s)); incomplete: 1 of {N} planned result(s)" in out
    assert "the run never finished (killed or crashed mid-run)" in out
    html = (run_dir / "index.html").read_text(encoding="utf-8")
    assert f"Gate incomplete: 1 result(s), 0 failed, 0 error(s), incomplete: 1 of {N} planned result(s)" in html
    assert "Gate passed" not in html


def test_skipped_pairs_are_named_and_do_not_make_a_run_incomplete() -> None:
    """Pairs pytest skipped are not planned: a run holding every planned result is complete, and the words
    name the first SKIPPED_NAMED skipped pairs and count the rest."""
    names = tuple(f"ds::c{i}[council]" for i in range(SKIPPED_NAMED + 2))
    state = Completeness(planned=3, results=3, skipped=names)
    assert state.complete
    shown = ", ".join(names[:SKIPPED_NAMED])
    assert state.words() == (
        f"complete: 3 of 3 planned result(s), {SKIPPED_NAMED + 2} skipped by pytest, not planned ({shown} and 2 more)"
    )
    short = Completeness(planned=3, results=2, not_run=1, skipped=names[:1])
    assert not short.complete
    assert short.words() == "incomplete: 2 of 3 planned result(s), 1 skipped by pytest, not planned (ds::c0[council])"


def test_a_killed_run_with_a_baseline_is_incomplete(tmp_path: Path) -> None:
    with Stalling() as server:
        root = project(tmp_path, server.base_url)
        server.release.set()
        first = run_cli(root, "--subjects", "solo:c", "--update-baseline")
        assert first.returncode == 0, first.stdout + first.stderr
        server.release.clear()
        run_dir = _kill_after_first_result(root)
        server.release.set()
    proc = cli(root, "compare", str(run_dir), "--config", str(root / "council-harness.yaml"))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 3, out
    assert f"gate: incomplete: {2 + N - 1} reason(s); 1 result(s) read, {N - 1} baselined case(s) missing" in out
    assert "baseline sums: INCOMPLETE" in out
    gate = json.loads((run_dir / "summary.json").read_text())["gate"]
    assert gate["outcome"] == "incomplete"
    assert (gate["counts"]["unfinished"], gate["counts"]["not_run"], gate["counts"]["missing"]) == (1, 1, N - 1)
    assert gate["completeness"] == {
        "planned": N,
        "results": 1,
        "not_run": N - 1,
        "unreadable_lines": 0,
        "finished": False,
        "stopped": None,
        "skipped": [],
    }


def test_a_limit_stopped_run_without_a_baseline_is_incomplete_until_resumed(tmp_path: Path) -> None:
    with ScriptedServer(council_right=(), baseline_right=range(N)) as server:
        root = project(tmp_path, server.base_url, "token_limit: 52\n")
        proc = run_cli(root, "--subjects", "solo:c")
        out = proc.stdout + proc.stderr
        assert proc.returncode == 3, out  # every answer is right: only the limit stops it passing
        assert "gate: incomplete" in out and "stopped early: token_limit 52 reached" in out
        (run_dir,) = (root / "reports" / "runs").iterdir()
        gate = json.loads((run_dir / "summary.json").read_text())["gate"]
        assert gate["outcome"] == "incomplete" and gate["counts"]["stopped"] == 1
        assert 0 < gate["completeness"]["results"] < N
        resumed = run_cli(root, "--resume", run_dir.name, LLM_COUNCIL_TOKEN_LIMIT="100000")
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert f"gate: pass (0 reason(s)); complete: {N} of {N} planned result(s)" in resumed.stdout + resumed.stderr
        assert server.requests == N


def test_resume_refuses_another_configuration_naming_the_differences(tmp_path: Path) -> None:
    with ScriptedServer(council_right=(), baseline_right=range(N)) as server:
        root = project(tmp_path, server.base_url, "token_limit: 52\n")
        run_cli(root, "--subjects", "solo:c")
        (run_dir,) = (root / "reports" / "runs").iterdir()
        before = server.requests
        cfg = root / "council-harness.yaml"
        cfg.write_text(cfg.read_text().replace("seed: 2", "seed: 7").replace("model: m-b", "model: m-x"))
        proc = run_cli(root, "--resume", run_dir.name, "--subjects", "solo:b")
        assert proc.returncode == 2, proc.stdout + proc.stderr
        err = proc.stderr
        assert f"cannot resume run {run_dir.name} with a different configuration" in err
        assert "models: " in err and "subjects: solo:c -> solo:b" in err and "Traceback" not in err
        assert server.requests == before  # nothing ran
        # the budget may change on a resume (it counts per invocation)
        cfg.write_text(cfg.read_text().replace("seed: 7", "seed: 2").replace("model: m-x", "model: m-b"))
        ok = run_cli(root, "--resume", run_dir.name, LLM_COUNCIL_TOKEN_LIMIT="100000")
        assert ok.returncode == 0, ok.stdout + ok.stderr


def test_two_resumes_at_once_never_run_the_same_pairs(tmp_path: Path) -> None:
    with Stalling() as server:
        root = project(tmp_path, server.base_url)
        run_dir = _kill_after_first_result(root)
        requests_before = server.requests
        first = subprocess.Popen(
            run_command(root, "--resume", run_dir.name),
            cwd=root,
            env=harness_env(OPENAI_API_KEY="test-key"),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            deadline = time.monotonic() + WAIT_S
            while server.requests == requests_before:  # the first resume holds the lock and waits on Q01
                assert first.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            second = run_cli(root, "--resume", run_dir.name)
            assert second.returncode == 2, second.stdout + second.stderr
            assert "another council-harness process is writing this run" in second.stderr
        finally:
            server.release.set()
            out, _ = first.communicate(timeout=WAIT_S)
        assert first.returncode == 0, out
    keys = [json.loads(line)["case_id"] for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert sorted(keys) == [f"q{i:02d}" for i in range(N)]  # each pair once: nothing ran twice
    # Q00 answered by the killed run; Q01 may have been in flight when it died (asked again once)
    assert server.requests in (N, N + 1)


def _shards(tmp_path: Path, right: range) -> tuple[Path, Path, Path]:
    """Two finished shards of one configuration: ``a`` ran q00-q02, ``b`` q03-q05 (solo answers the ids in
    ``right`` right); returns the project and both run folders."""
    with ScriptedServer(council_right=(), baseline_right=right) as server:
        root = project(tmp_path, server.base_url)
        runs = root / "reports" / "runs"
        run_cli(root, "--subjects", "solo:c", "--limit", "3")
        (a,) = runs.iterdir()
        run_cli(root, "--subjects", "solo:c")
        (b,) = [p for p in runs.iterdir() if p != a]
    lines = (b / "results.jsonl").read_text().splitlines()  # shard b keeps the cases shard a does not have
    (b / "results.jsonl").write_text("".join(x + "\n" for x in lines if json.loads(x)["case_id"] >= "q03"))
    manifest = json.loads((b / "manifest.json").read_text())
    (b / "manifest.json").write_text(json.dumps(manifest | {"planned": 3}))
    return root, a, b


def _merge(root: Path, a: Path, b: Path) -> subprocess.CompletedProcess[str]:
    return cli(
        root, "merge", str(a), str(b), "--output", str(root / "merged"), "--config", str(root / "council-harness.yaml")
    )


def test_merge_returns_the_merged_gates_exit_code(tmp_path: Path) -> None:
    root, a, b = _shards(tmp_path, range(3))  # q03-q05 answered wrong
    proc = _merge(root, a, b)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"gate: fail (3 reason(s)); complete: {N} of {N} planned result(s)" in proc.stdout
    assert proc.stderr == ""


def test_merge_warns_about_every_dropped_line_and_unfinished_shard(tmp_path: Path) -> None:
    root, a, b = _shards(tmp_path, range(N))  # every answer right
    with (a / "results.jsonl").open("a") as fh:
        fh.write('{"case_id": "q9", "dataset"\nnot json either\n')
    manifest = json.loads((b / "manifest.json").read_text())
    (b / "manifest.json").write_text(json.dumps(manifest | {"finished_at": None}))
    lines = (b / "results.jsonl").read_text().splitlines()
    (b / "results.jsonl").write_text("".join(x + "\n" for x in lines[:2]))  # q05 lost with the kill
    proc = _merge(root, a, b)
    err = proc.stderr
    assert f"warning: shard {a.name}: results.jsonl:4 is not a valid result record; dropped from the merge" in err
    assert f"warning: shard {a.name}: results.jsonl:5 is not a valid result record" in err
    assert f"warning: shard {b.name} never finished (killed or still running)" in err
    assert f"warning: shard {b.name} holds 2 of 3 planned result(s)" in err
    assert proc.returncode == 3, proc.stdout + err
    assert f"gate: incomplete (2 reason(s)); incomplete: 5 of {N} planned result(s)" in proc.stdout
    gate = json.loads((root / "merged" / "summary.json").read_text())["gate"]
    assert gate["outcome"] == "incomplete" and gate["counts"]["unfinished"] == 1 and gate["counts"]["not_run"] == 1
