"""Usage that belongs to the subject, cache-aware cost and limits that hold (issue 28 items 4-6).

On the scripted loopback server (:mod:`tests.scripted_server`) with every model priced: the judge's
calls are the ledger's ``scoring`` row and never a subject's; a replayed call costs 0 (its cost is
recorded as replayed) so ``cost_limit`` does not stop a replay; ``token_limit`` is checked before
every call, so a stopped run overshoots by at most the calls in flight, and the resume command it
prints works as printed.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import subprocess
import threading
from pathlib import Path
from typing import Any

from harness.gate.baselines import EXIT_INCOMPLETE
from harness.run.runs import load_run
from tests.cli_env import CLI, harness_env, run_cli, scripted_project
from tests.scripted import schema_instance
from tests.scripted_server import SOLO, ScriptedServer

N = 6
PRICES = (
    "pricing:\n  m-a: {input: 1.0, output: 2.0}\n  m-b: {input: 1.0, output: 2.0}\n  solo: {input: 1.0, output: 2.0}\n"
)


class Judged(ScriptedServer):
    """Answers a JSON-schema request that is no ballot (the rubric judge) with an instance of the
    schema, and counts the tokens of those requests and of all the others."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.judge_tokens = 0
        self.other_tokens = 0
        self.lock = threading.Lock()

    def _judge(self, body: dict[str, Any]) -> dict[str, Any] | None:
        rf = body.get("response_format")
        content = str(body["messages"][-1]["content"])
        if not isinstance(rf, dict) or content.startswith("You are reviewing anonymized answers"):
            return None
        return (rf.get("json_schema") or {}).get("schema") or rf.get("schema")

    def reply(self, body: dict[str, Any]) -> tuple[str, str]:
        schema = self._judge(body)
        if schema is not None:
            digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).digest()
            return json.dumps(schema_instance(schema, digest)), "stop"
        return super().reply(body)

    def usage(self, body: dict[str, Any]) -> tuple[int, int]:
        judge = self._judge(body) is not None
        prompt, completion = (300, 100) if judge else (20, 6)
        with self.lock:
            if judge:
                self.judge_tokens += prompt + completion
            else:
                self.other_tokens += prompt + completion
        return prompt, completion


def _project(root: Path, base_url: str, extra: str = "") -> Path:
    return scripted_project(root, base_url, N, third_model=SOLO, extra=PRICES + extra)


def test_the_judge_is_the_scoring_row_and_no_subjects(tmp_path: Path) -> None:
    with Judged(council_right=range(N), baseline_right=range(N)) as server:
        root = _project(tmp_path, server.base_url)
        cfg = root / "council-harness.yaml"
        cfg.write_text(cfg.read_text().replace("rubric_scoring: false", "rubric_scoring: true"))
        proc = run_cli(root, "--subjects", "council,solo:c")
        judge_tokens, other_tokens = server.judge_tokens, server.other_tokens
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out
    (run_dir,) = (root / "reports" / "runs").iterdir()
    usage = json.loads((run_dir / "summary.json").read_text())["usage"]
    rows = usage["by_subject"]
    assert set(rows) == {"council", "solo:c", "scoring"}
    assert judge_tokens > 0
    scoring = rows["scoring"]
    assert scoring["tokens_in"] + scoring["tokens_out"] == judge_tokens  # every judge token, nothing else
    # the subjects: their own calls only (council 7 calls of 26 tokens per case, solo 1)
    assert rows["council"]["tokens_in"] + rows["council"]["tokens_out"] == N * 7 * 26
    assert rows["solo:c"]["tokens_in"] + rows["solo:c"]["tokens_out"] == N * 26
    assert N * 8 * 26 == other_tokens
    assert abs(rows["solo:c"]["cost_usd"] - N * (20 * 1.0 + 6 * 2.0) / 1e6) < 1e-12
    # the console: the scoring row has its own line; the arm ratio is the subjects' own (7x tokens)
    assert "usage [scoring]: " in out
    page = (run_dir / "index.html").read_text()
    # tokens per case in the usage table: council 182, solo 26 (the judge's 400 per case in neither)
    assert (
        '<tr><td>solo:c</td><td class="num">6</td><td class="num">120</td><td class="num">36</td>'
        '<td class="num">26</td>' in page
    )


def test_a_replay_run_with_cost_limit_completes_and_costs_nothing(tmp_path: Path) -> None:
    with ScriptedServer(council_right=range(N), baseline_right=()) as server:
        root = _project(tmp_path, server.base_url)
        first = run_cli(root, "--subjects", "council,solo:c", "--cache-mode", "readwrite")
        replay = run_cli(
            root, "--subjects", "council,solo:c", "--cache-mode", "replay", LLM_COUNCIL_COST_LIMIT="0.0000001"
        )
        assert server.requests == N * 8
    assert first.returncode in (0, 1) and replay.returncode in (0, 1), replay.stdout + replay.stderr
    live_dir, replay_dir = sorted((root / "reports" / "runs").iterdir())
    live = json.loads((live_dir / "summary.json").read_text())["usage"]["total"]
    again = load_run(replay_dir)
    assert not again.manifest.partial and again.manifest.stopped is None and len(again.results) == 2 * N
    total = json.loads((replay_dir / "summary.json").read_text())["usage"]["total"]
    nominal = N * 8 * (20 * 1.0 + 6 * 2.0) / 1e6
    assert abs(live["cost_usd"] - nominal) < 1e-12 and live["replayed_cost_usd"] == 0
    assert total["cost_usd"] == 0 and abs(total["replayed_cost_usd"] - nominal) < 1e-12
    assert f"$0.0000 paid (+${nominal:.4f} replayed, not paid)" in replay.stdout + replay.stderr


def test_token_limit_holds_per_call_and_the_printed_resume_command_works(tmp_path: Path) -> None:
    # concurrency 2: at most 2 calls in flight; each call is 26 tokens; limit 100 tokens
    with ScriptedServer(council_right=range(N), baseline_right=range(N)) as server:
        root = _project(tmp_path, server.base_url, "token_limit: 100\n")
        cfg = root / "council-harness.yaml"
        cfg.write_text(cfg.read_text().replace("concurrency: 4", "concurrency: 2"))
        proc = run_cli(root, "--subjects", "council,solo:c")
        out = proc.stdout + proc.stderr
        first_requests = server.requests
        (run_dir,) = (root / "reports" / "runs").iterdir()
        first = load_run(run_dir)
        assert first.manifest.partial and "token_limit 100 reached" in (first.manifest.stopped or "")
        # the limit is reached after 4 calls (104 tokens); at most 2 calls were in flight then
        assert 4 <= first_requests <= 4 + 2, first_requests
        # a limit-stopped run is incomplete, never pass (harness.gate's completeness reasons)
        assert proc.returncode == EXIT_INCOMPLETE and "gate: incomplete" in out, out
        # the ledger counts every call the endpoint saw, the stopped pairs' calls in its 'unrecorded' row
        usage = json.loads((run_dir / "summary.json").read_text())["usage"]
        assert usage["total"]["calls"] == first_requests
        unrecorded = usage["by_subject"].get("unrecorded", {"calls": 0})["calls"]
        assert unrecorded == first_requests - sum(len(r.transcript.calls) for r in first.results if r.transcript)
        if unrecorded:  # the report's usage table has the row too
            assert f'<tr><td>unrecorded</td><td class="num">{unrecorded}</td>' in (run_dir / "index.html").read_text()
        line = next(ln for ln in out.splitlines() if "finish it with: " in ln)
        command = shlex.split(line.split("finish it with: ", 1)[1])
        assert command[:4] == ["council-harness", "run", "--resume", run_dir.name]
        assert "--data" in command and "--config" in command and "--subjects" in command
        # run exactly as printed (from another folder), without the limit
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        resumed = subprocess.run(
            [*CLI, *command[1:]],
            cwd=elsewhere,
            capture_output=True,
            text=True,
            timeout=600,
            env=harness_env(OPENAI_API_KEY="test-key", LLM_COUNCIL_TOKEN_LIMIT="100000"),
        )
        assert resumed.returncode in (0, 1), resumed.stdout + resumed.stderr
        total_requests = server.requests
    done = load_run(run_dir)
    assert not done.manifest.partial and len(done.results) == 2 * N
    assert json.loads((run_dir / "summary.json").read_text())["usage"]["total"]["calls"] == total_requests
    # the pairs the budget stopped were not recorded half-done: each result has its full set of calls
    assert all(len(r.transcript.calls) == (7 if r.subject == "council" else 1) for r in done.results if r.transcript)
