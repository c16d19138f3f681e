"""Issue 15 item 3: the usage ledger (totals equal the recorded calls; costs from ``pricing:``) and
``token_limit`` (a partial run that ``--resume`` completes), on the scripted loopback server."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

from harness.config import ModelPrice
from harness.records.transcript import CallRecord
from harness.report.frames import results_frame
from harness.run.ledger import call_cost
from harness.run.runs import load_run
from tests.cli_env import run_cli
from tests.council.test_arms import N, VaryingUsage, _project
from tests.scripted_server import ScriptedServer

PRICING = "pricing:\n  m-a: {input: 2.0, output: 10.0}\n  m-b: {input: 1.0, output: 1.0}\n"


def test_call_cost_per_million_tokens() -> None:
    pricing = {"m": ModelPrice(input=3.0, output=15.0)}
    call = CallRecord(stage="stage1", member="x", model="m", tokens_in=1000, tokens_out=200)
    assert math.isclose(call_cost(call, pricing), (1000 * 3 + 200 * 15) / 1e6)  # $0.006
    assert call_cost(call.model_copy(update={"model": "gemma3-270m"}), pricing) == 0.0  # embedded
    assert call_cost(call.model_copy(update={"model": "other"}), pricing) is None


def test_ledger_totals_equal_the_recorded_calls(tmp_path: Path) -> None:
    with VaryingUsage(council_right=range(N), baseline_right=()) as server:
        root = _project(tmp_path, server.base_url, PRICING)
        proc = run_cli(root, "--subjects", "council,solo:c")
        requests = server.requests
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    (run_dir,) = (root / "reports" / "runs").iterdir()
    run = load_run(run_dir)
    calls = [c for r in run.results for c in r.transcript.calls]
    assert len(calls) == requests == N * (7 + 1)
    usage = json.loads((run_dir / "summary.json").read_text())["usage"]
    total = usage["total"]
    assert total["calls"] == len(calls)
    assert total["tokens_in"] == sum(c.tokens_in for c in calls)
    assert total["tokens_out"] == sum(c.tokens_out for c in calls)
    # per case by hand: answers 3 x (20 + 11), reviews 3 x (90 + 40), synthesis 50 + 30; solo 20 + 11
    assert total["tokens_in"] + total["tokens_out"] == N * (563 + 31)
    # cost: member a (m-a) answers (20 in, 11 out), reviews (90, 40) and synthesizes (50, 30);
    # member b (m-b) answers and reviews; c ('solo') has no price
    a = (20 + 90 + 50) * 2.0 + (11 + 40 + 30) * 10.0
    b = (20 + 90) * 1.0 + (11 + 40) * 1.0
    assert math.isclose(total["cost_usd"], N * (a + b) / 1e6)
    assert total["unpriced_calls"] == N * (2 + 1)
    for group in ("by_subject", "by_member", "by_stage", "by_model", "by_case"):
        rows = usage[group].values()
        assert sum(r["calls"] for r in rows) == total["calls"]
        assert sum(r["tokens_in"] + r["tokens_out"] for r in rows) == N * (563 + 31)
    assert usage["by_stage"]["review"]["tokens_in"] == N * 3 * 90
    assert usage["by_subject"]["solo:c"]["calls"] == N
    assert usage["partial"] is False
    assert f"usage: {N * 8} calls" in proc.stdout + proc.stderr
    # the export's usage columns add up to the same totals (no scoring calls in this run)
    frame = results_frame(run)
    assert int(frame["calls"].sum()) == total["calls"]
    assert math.isclose(float(frame["cost_usd"].sum()), total["cost_usd"])
    assert int(frame["unpriced_calls"].sum()) == total["unpriced_calls"]


def test_token_limit_makes_a_partial_run_that_resume_completes(tmp_path: Path) -> None:
    # one request slot, two pairs in flight; each solo call is 26 tokens: the limit of 52 is reached
    # after two results, the pair in flight then finishes and no other starts
    with ScriptedServer(council_right=(), baseline_right=range(N)) as server:
        root = _project(tmp_path, server.base_url, "token_limit: 52\n")
        cfg = root / "council-harness.yaml"
        cfg.write_text(cfg.read_text().replace("concurrency: 4", "concurrency: 1"))
        proc = run_cli(root, "--subjects", "solo:c")
        out = proc.stdout + proc.stderr
        (run_dir,) = (root / "reports" / "runs").iterdir()
        first = load_run(run_dir)
        assert first.manifest.partial and "token_limit 52 reached" in (first.manifest.stopped or "")
        assert 2 <= len(first.results) <= 3 < N, out
        assert "the run is partial" in out
        assert json.loads((run_dir / "summary.json").read_text())["usage"]["partial"] is True
        before = {r.key: r for r in first.results}
        resumed = _run_resume(root, run_dir.name, token_limit=100_000)  # the limit counts per invocation
        assert resumed.returncode in (0, 1), resumed.stdout + resumed.stderr
        assert server.requests == N  # nothing asked twice
    done = load_run(run_dir)
    assert not done.manifest.partial and done.manifest.stopped is None
    assert len(done.results) == N
    assert all(before[k] == r for r in done.results if (k := r.key) in before)


def _run_resume(root: Path, run_id: str, token_limit: int) -> subprocess.CompletedProcess[str]:
    return run_cli(root, "--resume", run_id, LLM_COUNCIL_TOKEN_LIMIT=str(token_limit))


class PrefixCaching(ScriptedServer):
    """Model ``m-a`` reports 16 of its 20 prompt tokens served from its prefix cache, ``m-b`` 0; the
    ``solo`` model leaves ``prompt_tokens_details`` out (not known)."""

    def cached_tokens(self, body: dict[str, object]) -> int | None:
        return {"m-a": 16, "m-b": 0}.get(str(body.get("model")))


def test_cached_tokens_from_the_endpoint_and_replayed_calls_counted_apart(tmp_path: Path) -> None:
    with PrefixCaching(council_right=range(N), baseline_right=()) as server:
        root = _project(tmp_path, server.base_url)
        first = run_cli(root, "--subjects", "council,solo:c", "--cache-mode", "readwrite")
        second = run_cli(root, "--subjects", "council,solo:c", "--cache-mode", "replay")
        assert server.requests == N * (7 + 1)  # the second run asked the server nothing
    assert first.returncode in (0, 1) and second.returncode in (0, 1), first.stdout + second.stderr
    runs = sorted((root / "reports" / "runs").iterdir())
    live, replayed = (json.loads((r / "summary.json").read_text())["usage"] for r in runs)
    # per case: member a answers, reviews and synthesizes (3 calls x 16), b answers and reviews (2 x 0);
    # c (the 'solo' model) answers and reviews in the council and answers alone: 3 calls not known
    assert live["total"]["cached_tokens"] == N * 3 * 16
    assert live["total"]["cached_tokens_unknown"] == N * 3
    assert live["by_member"]["a"]["cached_tokens"] == N * 3 * 16 and live["by_member"]["b"]["cached_tokens"] == 0
    assert live["by_member"]["c"]["cached_tokens_unknown"] == N * 3
    assert (live["total"]["cached_calls"], live["total"]["replayed_tokens"]) == (0, 0)
    # replayed: every call came from the record/replay cache; its tokens are counted as replayed,
    # the endpoint's prefix-cache figure is not counted again
    total = replayed["total"]
    assert total["calls"] == total["cached_calls"] == N * 8
    assert total["replayed_tokens"] == N * 8 * 26
    assert (total["cached_tokens"], total["cached_tokens_unknown"]) == (0, 0)
    assert (
        f"{N * 3 * 16} cached prompt tokens (not known for {N * 3} call(s)); 0 call(s) replayed"
        in first.stderr + first.stdout
    )
    assert (
        f"0 cached prompt tokens; {N * 8} call(s) replayed from the record/replay cache ({N * 8 * 26} tokens)"
        in second.stderr + second.stdout
    )
    calls = [c for r in load_run(runs[0]).results for c in r.transcript.calls]
    assert {c.member: c.cached_tokens for c in calls} == {"a": 16, "b": 0, "c": None}
    # the export's columns add up to the same figures
    frame, again = results_frame(load_run(runs[0])), results_frame(load_run(runs[1]))
    assert int(frame["cached_tokens"].sum()) == N * 3 * 16 and int(frame["cached_tokens_unknown"].sum()) == N * 3
    assert int(again["replayed_tokens"].sum()) == N * 8 * 26 and int(again["cached_tokens"].sum()) == 0


class AbsurdUsage(ScriptedServer):
    """Reports ``prompt_tokens: 10**30`` (and a negative completion count) for every call."""

    def usage_block(self, body: dict[str, object]) -> dict[str, object] | None:
        return {"prompt_tokens": 10**30, "completion_tokens": -6, "total_tokens": 10**30}


class NoUsage(ScriptedServer):
    """Leaves ``usage`` out of every reply (some OpenAI-compatible servers do)."""

    def usage_block(self, body: dict[str, object]) -> dict[str, object] | None:
        return None


def test_absurd_usage_with_tokens_per_minute_neither_hangs_nor_reaches_the_ledger(tmp_path: Path) -> None:
    # 10**30 prompt tokens charged to a 6,000 tokens/minute bucket used to stall the endpoint for ever
    with AbsurdUsage(council_right=(), baseline_right=range(N)) as server:
        root = _project(tmp_path, server.base_url, "tokens_per_minute: 6000\n")
        proc = run_cli(root, "--subjects", "solo:c")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    (run_dir,) = (root / "reports" / "runs").iterdir()
    calls = [c for r in load_run(run_dir).results for c in r.transcript.calls]
    assert len(calls) == N and all(c.tokens_estimated for c in calls)
    # not a valid count (over 20 million, negative): both sides estimated from the text at 4 characters a token
    assert all(0 < c.tokens_in < 1000 and 0 < c.tokens_out < 10 for c in calls)
    assert f"({N} call(s) estimated: the endpoint reported no usable usage)" in out


def test_token_limit_with_no_usage_counts_estimated_tokens_and_says_so(tmp_path: Path) -> None:
    with NoUsage(council_right=(), baseline_right=range(N)) as server:
        root = _project(tmp_path, server.base_url, "token_limit: 40\n")
        cfg = root / "council-harness.yaml"
        cfg.write_text(cfg.read_text().replace("concurrency: 4", "concurrency: 1"))
        proc = run_cli(root, "--subjects", "solo:c")
    out = proc.stdout + proc.stderr
    (run_dir,) = (root / "reports" / "runs").iterdir()
    run = load_run(run_dir)
    assert run.manifest.partial and len(run.results) < N, out  # it used to run every pair: usage 0
    assert "counted by estimated tokens: the endpoint reported no usable usage" in (run.manifest.stopped or "")
    assert proc.returncode == 3 and "gate: incomplete" in out


def test_a_price_that_would_make_costs_infinite_is_a_config_error(tmp_path: Path) -> None:
    with ScriptedServer(council_right=(), baseline_right=range(N)) as server:
        root = _project(tmp_path, server.base_url, "pricing:\n  solo: {input: 1.0e308, output: 1.0}\n")
        proc = run_cli(root, "--subjects", "solo:c")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "pricing" in proc.stderr and "less than or equal to 1000000" in proc.stderr
    assert "$inf" not in proc.stdout + proc.stderr
