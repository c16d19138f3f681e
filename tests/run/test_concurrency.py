"""Case-level concurrency against a real loopback HTTP endpoint (:mod:`tests.fault_server`).

The endpoint answers with :func:`tests.scripted.scripted_reply`, a pure function of each request, so
a reply delivered to the wrong case, member or stage would change the results.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from harness.common.errors import CacheMiss
from harness.config import Settings, load_settings
from harness.data.cases import load_datasets
from harness.run.engine import Engine, endpoint_limits
from harness.run.orchestrate import case_window, run_cases
from harness.run.result import CaseResult
from harness.run.runs import RESULTS, load_run, read_results
from harness.run.summary import SUMMARY
from tests.cli_env import plugin_args, scripted_pytest_env
from tests.cli_env import run_pytest as pytest_in
from tests.fault_server import FaultServer, status
from tests.scripted import expected_status, scripted_dataset, scripted_reply

N_CASES = 12
SUBJECTS = ["council", "baseline"]


def scripted_settings(base_url: str, tmp: Path, **extra: Any) -> Settings:
    values: dict[str, Any] = dict(
        base_url=base_url,
        api_key_env="NO_SUCH_KEY_VARIABLE",
        models=[
            {"id": "a", "provider": "openai", "model": "m-a", "temperature": 0.2},
            {"id": "b", "provider": "openai", "model": "m-b", "temperature": 0.7, "seed": 1},
            {"id": "c", "provider": "openai", "model": "m-c", "temperature": 0.9, "seed": 2},
        ],
        chairman="a",
        cache_mode="off",
        rubric_scoring=False,
        reports_dir=tmp / "reports",
        cache_path=tmp / "cache.sqlite",
        max_retries=0,
        request_timeout=30,
    )
    values.update(extra)
    return load_settings(**values)


def comparable(r: CaseResult) -> dict[str, Any]:
    """What must not depend on scheduling: identity, status, answers, checks, scores (not timings)."""
    t = r.transcript
    return {
        "key": r.key,
        "status": r.status,
        "error": r.error,
        "final": t.final_answer if t else None,
        "answers": [(a.member, a.text) for a in t.answers] if t else None,
        "ballots": [(v.reviewer, v.ballot.ranking) for v in t.reviews] if t else None,
        "checks": [(c.kind, c.target, c.passed) for c in r.checks],
        "scores": {k: v for k, v in r.scores.items() if "latency" not in k and "duration" not in k},
    }


def run_scripted(
    tmp: Path, concurrency: int, window: int | None = None, delay: float = 0.05, **extra: Any
) -> tuple[list[CaseResult], int, list[str]]:
    tmp.mkdir(parents=True, exist_ok=True)
    data = scripted_dataset(tmp / "scripted.yaml", N_CASES)
    order: list[str] = []
    with FaultServer(responder=scripted_reply, delay=delay) as server:
        settings = scripted_settings(server.base_url, tmp, concurrency=concurrency, **extra)
        run = run_cases(
            settings,
            load_datasets(data),
            SUBJECTS,
            console=Console(stderr=True, quiet=True),
            on_result=lambda r: order.append(f"{r.case_id}[{r.subject}]"),
            window=window,
        )
        peak = server.max_in_flight
    lines = (run.run_dir / RESULTS).read_text(encoding="utf-8").splitlines()
    assert len(lines) == N_CASES * len(SUBJECTS)  # one line per pair, none repeated
    return run.results, peak, order


def test_cases_run_concurrently_bounded_by_the_endpoint_concurrency(tmp_path: Path) -> None:
    results, peak, order = run_scripted(tmp_path / "c8", concurrency=8, delay=0.2)
    # 24 pairs, window 16: stage 1 alone asks for 3 requests per council case, so the 8 slots fill up
    assert peak == 8
    assert [r.key for r in results] == sorted(r.key for r in results)  # read back in (dataset, case, subject)
    assert len(results) == N_CASES * 2
    for r in results:
        i = int(r.case_id[1:])
        assert r.status == expected_status(i), (r.key, r.checks)
        assert r.transcript is not None and r.transcript.final_answer.startswith(f"What is item{i}?")
    council = [r for r in results if r.subject == "council"]
    assert all(len(r.transcript.answers) == 3 and len(r.transcript.reviews) == 3 for r in council if r.transcript)
    # stages within a case kept their order: every review saw the three answers of its own case
    for r in council:
        assert r.transcript is not None and [c.stage for c in r.transcript.calls] == ["stage1"] * 3 + ["stage2"] * 3 + [
            "stage3"
        ]
    assert order != sorted(order) or peak > 1  # results were recorded as they finished


def test_concurrency_1_and_16_give_identical_results(tmp_path: Path) -> None:
    serial, serial_peak, serial_order = run_scripted(tmp_path / "c1", concurrency=1, window=1, delay=0.01)
    wide, wide_peak, _ = run_scripted(tmp_path / "c16", concurrency=16, delay=0.2)
    assert serial_peak == 1 and wide_peak == 16
    assert [r.error for r in serial] == [r.error for r in wide] == [None] * len(serial)
    # one pair at a time finishes in dataset order; many at a time do not, yet the results are the same
    assert serial_order == [f"s{i:05d}[{s}]" for i in range(1, N_CASES + 1) for s in SUBJECTS]
    assert [comparable(r) for r in serial] == [comparable(r) for r in wide]


def test_case_window_follows_the_request_slots(tmp_path: Path) -> None:
    settings = scripted_settings("http://127.0.0.1:9/v1", tmp_path, concurrency=6)
    assert case_window(settings) == 12
    own = scripted_settings(
        "http://127.0.0.1:9/v1",
        tmp_path,
        concurrency=6,
        models=[
            {
                "id": "a",
                "provider": "openai",
                "model": "m",
                "base_url": "http://127.0.0.1:8/v1",
                "concurrency": 3,
                "requests_per_minute": 120,
            },
            {"id": "b", "provider": "openai", "model": "m", "base_url": "http://127.0.0.1:8/v1", "concurrency": 5},
            {"id": "c", "provider": "openai", "model": "m"},
        ],
    )
    limits = endpoint_limits(own)
    assert sorted(limits) == ["http://127.0.0.1:8/v1", "http://127.0.0.1:9/v1"]
    mine = limits["http://127.0.0.1:8/v1"]
    assert (mine.concurrency, mine.requests.rate if mine.requests else None) == (3, 2.0)  # smallest given
    assert limits["http://127.0.0.1:9/v1"].concurrency == 6 and limits["http://127.0.0.1:9/v1"].requests is None
    assert case_window(own) == 2 * (3 + 6)
    embedded = load_settings(concurrency=4, reports_dir=tmp_path)  # two embedded models, 4 queued each
    assert case_window(embedded) == 2 * (2 * 4)


def test_members_on_one_endpoint_share_its_limits(tmp_path: Path) -> None:
    """Two provider instances (two key variables) on one URL: one set of slots for both."""
    settings = scripted_settings(
        "http://127.0.0.1:9/v1",
        tmp_path,
        concurrency=2,
        models=[
            {"id": "a", "provider": "openai", "model": "m", "base_url": "http://127.0.0.1:7/v1", "api_key_env": "K1"},
            {"id": "b", "provider": "openai", "model": "m", "base_url": "http://127.0.0.1:7/v1", "api_key_env": "K2"},
        ],
    )
    engine = Engine(settings, ["council"])
    inner = [p for k, p in engine.providers.items() if k.startswith("openai@http://127.0.0.1:7")]
    assert len(inner) == 2 and inner[0].limits is inner[1].limits  # type: ignore[attr-defined]
    asyncio.run(engine.aclose())


def test_replay_miss_stops_a_concurrent_run_and_keeps_what_finished(tmp_path: Path) -> None:
    data = scripted_dataset(tmp_path / "scripted.yaml", N_CASES)
    with FaultServer(responder=scripted_reply) as server:
        record = scripted_settings(server.base_url, tmp_path, cache_mode="readwrite", concurrency=4)
        datasets = load_datasets(data)
        quiet = Console(stderr=True, quiet=True)
        run_cases(record, datasets, ["baseline"], limit=6, console=quiet)  # records cases 1-6 only
        replay = scripted_settings(server.base_url, tmp_path, cache_mode="replay", concurrency=4)
        run_dir = tmp_path / "reports" / "runs" / "replayed"
        with pytest.raises(CacheMiss, match="s0000[7-9]|s0001[0-2]"):
            run_cases(replay, datasets, ["baseline"], run_dir=run_dir, console=quiet)
    kept, corrupt = read_results(run_dir / RESULTS)
    assert corrupt == [] and {r.case_id for r in kept} <= {f"s{i:05d}" for i in range(1, 7)}


def test_a_429_pauses_the_whole_endpoint(tmp_path: Path) -> None:
    """The first request gets 429 with Retry-After: 1; the three sent with it are answered after
    0.3 s. No request may reach the endpoint during the pause (without the shared pause, the next
    ones would arrive at 0.3 s)."""
    data = scripted_dataset(tmp_path / "scripted.yaml", 8)
    with FaultServer(responder=scripted_reply, delay=0.3) as server:
        server.script(status(429, retry_after="1"))
        settings = scripted_settings(server.base_url, tmp_path, concurrency=4, max_retries=2)
        run = run_cases(settings, load_datasets(data), ["baseline"], console=Console(stderr=True, quiet=True))
        received = server.requests
    assert [r.status for r in run.results] == [expected_status(i) for i in range(1, 9)]
    refused = [r for r in received if r.status == 429]
    assert len(refused) == 1 and len(received) == 9  # 8 answered + the refused attempt
    t429 = refused[0].at
    first_burst = [r for r in received if r.at <= t429 + 0.1]
    during_pause = [r for r in received if t429 + 0.1 < r.at < t429 + 0.9]
    assert len(first_burst) == 4 and during_pause == []


def test_a_run_over_the_rate_limit_slows_down_and_finishes(tmp_path: Path) -> None:
    """The endpoint answers 8 requests per 0.5 s and refuses the rest with 429; concurrency 8, no
    client-side limit, 2 retries: every case still gets its answer."""
    n = 40
    data = scripted_dataset(tmp_path / "scripted.yaml", n)
    with FaultServer(responder=scripted_reply, rate_limit=(8, 0.5), delay=0.01) as server:
        settings = scripted_settings(server.base_url, tmp_path, concurrency=8, max_retries=2)
        run = run_cases(settings, load_datasets(data), ["baseline"], console=Console(stderr=True, quiet=True))
        refused = server.refused
    assert refused > 0  # the run did hit the limit
    assert [r.status for r in run.results] == [expected_status(i) for i in range(1, n + 1)]
    assert all(r.error is None for r in run.results)


def test_requests_per_minute_keeps_the_run_under_the_limit(tmp_path: Path) -> None:
    """360 requests/min: bursts of at most 6, then 6 per second, so never more than 12 in any second;
        the endpoint allows 13 per second and never has to refuse one (without the limit, 8 in flight at
    a time with no delay would send dozens per second)."""
    n = 24
    data = scripted_dataset(tmp_path / "scripted.yaml", n)
    with FaultServer(responder=scripted_reply, rate_limit=(13, 1.0)) as server:
        settings = scripted_settings(server.base_url, tmp_path, concurrency=8, max_retries=0, requests_per_minute=360)
        run = run_cases(settings, load_datasets(data), ["baseline"], console=Console(stderr=True, quiet=True))
        refused = server.refused
        received = server.requests
    assert refused == 0 and len(received) == n
    assert [r.status for r in run.results] == [expected_status(i) for i in range(1, n + 1)]


def run_pytest(
    project: Path, base_url: str, *args: str, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``pytest -m golden`` on ``project`` with the harness plugin, against the scripted endpoint
    (``extra_env``: more variables, e.g. settings)."""
    env = scripted_pytest_env(base_url, **(extra_env or {}))
    return pytest_in(project, *plugin_args(), "-m", "golden", "-q", "-rf", *args, env=env, timeout=600)


def test_pytest_items_run_concurrently_into_one_run_folder(tmp_path: Path) -> None:
    """Golden items through pytest: the pairs run ahead in the background, 8 requests in flight, and
    every item still reports its own outcome."""
    (tmp_path / "golden").mkdir()
    scripted_dataset(tmp_path / "golden" / "scripted.yaml", N_CASES)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    with FaultServer(responder=scripted_reply, delay=0.1) as server:
        out = run_pytest(tmp_path, server.base_url)
        peak = server.max_in_flight
    failing = [i for i in range(1, N_CASES + 1) if expected_status(i) == "failed"]
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"{2 * len(failing)} failed, {2 * (N_CASES - len(failing))} passed" in out.stdout, out.stdout
    for i in failing:
        assert f"FAILED golden/scripted.yaml::scripted::s{i:05d}[council]" in out.stdout
    assert peak == 8
    [run_dir] = list((tmp_path / "reports" / "runs").iterdir())
    lines = (run_dir / RESULTS).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 * N_CASES and (run_dir / "index.html").is_file()


def test_pytest_xdist_workers_write_every_pair_once_into_one_run_folder(tmp_path: Path) -> None:
    """``pytest -n 2``: the workers run their items one at a time and append to the controller's run folder."""
    pytest.importorskip("xdist")
    (tmp_path / "golden").mkdir()
    scripted_dataset(tmp_path / "golden" / "one.yaml", 4, name="one")
    scripted_dataset(tmp_path / "golden" / "two.yaml", 3, name="two")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    with FaultServer(responder=scripted_reply) as server:
        out = run_pytest(tmp_path, server.base_url, "-n", "2")
    assert out.returncode == 1, out.stdout + out.stderr  # s00003 fails in both datasets
    assert "4 failed, 10 passed" in out.stdout, out.stdout
    [run_dir] = list((tmp_path / "reports" / "runs").iterdir())
    keys = sorted(
        CaseResult.model_validate_json(line).key
        for line in (run_dir / RESULTS).read_text(encoding="utf-8").splitlines()
    )
    expected = [("one", f"s{i:05d}", s) for i in range(1, 5) for s in SUBJECTS]
    expected += [("two", f"s{i:05d}", s) for i in range(1, 4) for s in SUBJECTS]
    assert keys == sorted(expected)
    assert (run_dir / "index.html").is_file() and (run_dir / "manifest.json").is_file()
    # each worker collects every item: the controller records the selected count once, not per worker
    assert load_run(run_dir).manifest.planned == 14
    gate = json.loads((run_dir / SUMMARY).read_text(encoding="utf-8"))["gate"]
    assert (gate["completeness"]["planned"], gate["completeness"]["results"]) == (14, 14)


def test_pytest_records_the_selected_items_as_the_runs_planned_pairs(tmp_path: Path) -> None:
    """As ``run`` does, a pytest session records how many (case, subject) pairs it selected (``-k`` and ``-m``
    applied) as the manifest's ``planned``, so the gate's completeness says how many results were expected."""
    (tmp_path / "golden").mkdir()
    scripted_dataset(tmp_path / "golden" / "scripted.yaml", 5)
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    with FaultServer(responder=scripted_reply) as server:
        out = run_pytest(tmp_path, server.base_url, "-k", "not s00003 and not s00005")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "6 passed, 4 deselected" in out.stdout, out.stdout
    [run_dir] = list((tmp_path / "reports" / "runs").iterdir())
    run = load_run(run_dir)
    assert run.manifest.planned == 6 == len(run.results)
    gate = json.loads((run_dir / SUMMARY).read_text(encoding="utf-8"))["gate"]
    assert gate["outcome"] == "pass" and gate["completeness"]["planned"] == 6
