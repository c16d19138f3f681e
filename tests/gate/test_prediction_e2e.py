"""Issue 11's done-when scenarios, end to end: ``council-harness run`` against a scripted loopback server.

55 numeric cases; the server answers the council's synthesis and the baseline's answer right or wrong
per question. The run's primary endpoint is ``correct`` (55 cases have ``expected:``) and its verdict
must come out of the real command: its console lines, ``summary.json`` and the HTML report.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_env import run_cli, scripted_project
from tests.scripted_server import SOLO, ScriptedServer

N = 55


def _project(root: Path, base_url: str, extra_config: str = "") -> Path:
    return scripted_project(root, base_url, N, concurrency=8, extra=f"baseline: {SOLO}\n" + extra_config)


def _summary(root: Path) -> dict:
    (run_dir,) = (root / "reports" / "runs").iterdir()
    return json.loads((run_dir / "summary.json").read_text())


def _console(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [" ".join(line.split()) for line in (proc.stdout + proc.stderr).splitlines()]


@pytest.mark.parametrize(
    ("council_right", "baseline_right", "verdict", "headline"),
    [
        # issue 11: 20/55 vs 5/55 (+300%) was "inconclusive"; baseline right on 0-4, council on 0-19
        (
            range(20),
            range(5),
            "supported",
            "primary endpoint: council vs single model on correctness: +300.0% (n=55), "
            "better by more than 15%: supported",
        ),
        # 1/55 vs 9/55: refuted by the exact test on the discordant pairs (p = 0.0059; 2 vs 8 gives 0.034, issue 27)
        (
            range(1),
            range(1, 10),
            "refuted",
            "primary endpoint: council vs single model on correctness: -88.9% (n=55), better by more than 15%: refuted",
        ),
    ],
)
def test_run_reaches_the_primary_verdict(tmp_path: Path, council_right, baseline_right, verdict, headline) -> None:
    with ScriptedServer(council_right, baseline_right) as server:
        root = _project(tmp_path, server.base_url)
        proc = run_cli(root)
        assert server.requests == N * (3 + 3 + 1 + 1)  # per case: 3 answers, 3 reviews, 1 synthesis, 1 baseline
    lines = _console(proc)
    assert any(line.startswith(headline) for line in lines), "\n".join(lines)
    # the primary verdict is printed before every secondary one
    first = next(i for i, line in enumerate(lines) if line.startswith("primary endpoint:"))
    assert all(i > first for i, line in enumerate(lines) if line.startswith("secondary"))
    assert any(line.startswith("measurement: council: truncated final answers 0/55 (0%)") for line in lines)

    verdicts = _summary(root)["verdicts"]
    assert (verdicts["primary"], verdicts["primary_verdict"]) == ("correct", verdict)
    assert verdicts["primary_reason"] == "default: 55 cases have an expected answer (at least 10)"
    assert verdicts["min_informative_pairs"] == 10
    primary = [r for r in verdicts["records"] if r["role"] == "primary"]
    assert len(primary) == 1 and primary[0]["family"] == "correct" and primary[0]["n"] == N
    assert primary[0]["verdict"] == verdict and "sign-flip" in primary[0]["method"]
    assert verdicts["artifact_warning"] == ""

    (run_dir,) = (root / "reports" / "runs").iterdir()
    html = (run_dir / "index.html").read_text()
    assert 'id="primary-verdict"' in html and f'<span class="badge {verdict}">{verdict}</span>' in html


def test_arms_that_truncate_differently_mark_the_verdict(tmp_path: Path) -> None:
    # the baseline's answer is cut off ("length") on 6 of 55 cases, the council's never: 11 points apart
    with ScriptedServer(range(20), range(5), truncate=range(30, 36), truncate_arm=SOLO) as server:
        root = _project(tmp_path, server.base_url)
        proc = run_cli(root)
    lines = _console(proc)
    assert any("baseline: truncated final answers 6/55 (11%)" in line for line in lines), "\n".join(lines)
    warning = _summary(root)["verdicts"]["artifact_warning"]
    assert warning.startswith(
        "the arms differ by more than 5% points in truncated final answers: baseline 11% vs council 0%"
    )
    assert f"warning: {warning}" in lines
