"""``run --resume`` selects the cases the run started with (``harness.run.resume`` rule 2).

A run of ``--limit 3`` over six scripted cases is stopped by ``token_limit`` after a few calls, on the
loopback scripted endpoint; its resume without ``--limit`` completes those three cases and runs no
other; a resume with a different ``--limit`` is refused before any call, naming both limits; an equal
``--limit`` is accepted. A manifest written before the limit was recorded gives it from its planned
pairs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.config import load_settings
from harness.data.cases import discover
from harness.gate.baselines import EXIT_INCOMPLETE
from harness.run.orchestrate import run_cases
from harness.run.resume import recorded_limit
from harness.run.runs import Manifest, load_run
from tests.cli_env import clear_harness_env, run_cli, scripted_project
from tests.scripted_server import ScriptedServer

N = 6
LIMIT = 3
COUNCIL_CALLS = 7  # three answers, three reviews, one synthesis


def test_resume_without_limit_completes_the_limited_cases_only(tmp_path: Path) -> None:
    with ScriptedServer(council_right=range(N), baseline_right=range(N)) as server:
        root = scripted_project(tmp_path, server.base_url, N, extra="token_limit: 60\n")
        first = run_cli(root, "--subjects", "council", "--limit", str(LIMIT))
        assert first.returncode == EXIT_INCOMPLETE, first.stdout + first.stderr
        (run_dir,) = (root / "reports" / "runs").iterdir()
        stopped = load_run(run_dir)
        assert stopped.manifest.partial and stopped.manifest.limit == LIMIT
        assert stopped.manifest.planned == LIMIT
        assert len(stopped.results) < LIMIT
        calls_before = server.requests

        refused = run_cli(root, "--resume", run_dir.name, "--limit", "5", LLM_COUNCIL_TOKEN_LIMIT="100000")
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "limit: 3 -> 5" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr
        assert server.requests == calls_before  # refused before any model call

        resumed = run_cli(root, "--resume", run_dir.name, LLM_COUNCIL_TOKEN_LIMIT="100000")
        assert resumed.returncode in (0, 1), resumed.stdout + resumed.stderr
        done = load_run(run_dir)
        assert sorted(r.case_id for r in done.results) == [f"q{i:02d}" for i in range(LIMIT)]
        assert not done.manifest.partial and done.manifest.limit == LIMIT and done.manifest.planned == LIMIT
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["usage"]["total"]["calls"] == server.requests

        again = run_cli(root, "--resume", run_dir.name, "--limit", str(LIMIT))  # the same limit: accepted
        assert again.returncode in (0, 1), again.stdout + again.stderr
        assert len(load_run(run_dir).results) == LIMIT
        # every council case has its full set of calls: nothing of cases 4-6 was asked
        assert server.requests <= LIMIT * COUNCIL_CALLS + 2 * COUNCIL_CALLS


def test_run_cases_refuses_a_resume_with_another_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_harness_env(monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with ScriptedServer(council_right=range(N), baseline_right=range(N)) as server:
        root = scripted_project(tmp_path, server.base_url, N)
        first = run_cli(root, "--subjects", "council", "--limit", "2")
        assert first.returncode in (0, 1), first.stdout + first.stderr
        (run_dir,) = (root / "reports" / "runs").iterdir()
        settings = load_settings(str(root / "council-harness.yaml"), cache_mode="off")
        datasets = discover([root / "golden"])
        calls = server.requests
        with pytest.raises(ConfigError, match=r"limit: 2 -> 4"):
            run_cases(settings, datasets, ["council"], limit=4, run_dir=run_dir, resume=True)
        assert server.requests == calls
        unlimited = run_cases(settings, datasets, ["council"], run_dir=run_dir, resume=True)
        assert sorted(r.case_id for r in unlimited.results) == ["q00", "q01"] and server.requests == calls


def _manifest(**fields: object) -> Manifest:
    base = {"run_id": "r", "started_at": "2026-11-27T00:00:00Z", "subjects": ["council", "baseline"]}
    return Manifest.model_validate_json(json.dumps(base | fields))


def test_recorded_limit_of_new_and_old_manifests() -> None:
    assert recorded_limit(_manifest(limit=3, planned=6)) == 3
    assert recorded_limit(_manifest(limit=None, planned=6)) is None  # recorded: every case
    assert recorded_limit(_manifest(planned=6)) == 3  # before the key existed: planned / subjects
    assert recorded_limit(_manifest()) is None  # nothing recorded: every case
