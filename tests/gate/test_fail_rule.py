"""What fails the gate is the user's choice (issue 30 item 3): ``gate.fail_on`` and ``gate.min_pass_rate``.

End to end on the scripted loopback endpoint (:class:`tests.scripted_server.ScriptedServer`): a run is
stored as the baseline with failing cases; a rerun against it fails under ``fail_on: failures`` (the
default) and passes under ``fail_on: regressions`` (the failures are known), and a case that regresses
still fails it. The pass-rate threshold is checked on run folders written by :mod:`tests.builders`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.config import GateSettings, load_settings
from harness.gate.fail_rule import pass_rates
from harness.gate.regression import gate_outcome
from harness.run.runs import load_run
from tests.builders import result, run_folder
from tests.cli_env import run_cli, scripted_project
from tests.scripted_server import SOLO, ScriptedServer

N = 6


def _gate(root: Path) -> tuple[dict, str]:
    runs = sorted((root / "reports" / "runs").iterdir(), key=lambda p: p.stat().st_mtime)
    latest = runs[-1]
    return json.loads((latest / "summary.json").read_text())["gate"], (latest / "index.html").read_text()


def test_fail_on_regressions_passes_a_rerun_against_its_own_baseline_and_fails_a_regression(tmp_path: Path) -> None:
    # the council is right on cases 0-3 (4 pass, 2 fail); the baseline model on 0-1 (2 pass, 4 fail)
    with ScriptedServer(range(4), range(2)) as server:
        root = scripted_project(tmp_path, server.base_url, N, extra=f"baseline: {SOLO}\n")
        config = root / "council-harness.yaml"
        # temperature 0: the strict gate (a sampled run is noise-aware, where failing in both runs is no reason)
        config.write_text(re.sub(r"model: (m-[abc])", r"model: \1, temperature: 0", config.read_text()))
        stored = run_cli(root, "--update-baseline")
        assert stored.returncode == 1, stored.stderr  # failing cases and no baseline yet: the default rule fails
        default = run_cli(root)
        assert default.returncode == 1, default.stdout + default.stderr
        gate, _ = _gate(root)
        assert gate["outcome"] == "fail" and gate["counts"]["failing"] == 6 and gate["rule"]["fail_on"] == "failures"

        config.write_text(config.read_text() + "gate:\n  fail_on: regressions\n")
        rerun = run_cli(root)
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr
        gate, html = _gate(root)
        assert gate["outcome"] == "pass" and gate["reasons"] == []
        assert gate["rule"] == {"fail_on": "regressions", "min_pass_rate": None}
        assert gate["counts"]["known_failure"] == 6 and len(gate["excused"]) == 6
        assert {(r["case_id"], r["subject"]) for r in gate["excused"]} == (
            {(f"q{i:02d}", "council") for i in (4, 5)} | {(f"q{i:02d}", "baseline") for i in (2, 3, 4, 5)}
        )
        assert "rule: fail_on=regressions (6 known failure(s) not counted)" in rerun.stdout
        assert "rule: fail_on=regressions (6 known failure(s) not counted)" in html  # the report's banner

    # case 3 now fails through the council: a regression, which the rule never excuses
    with ScriptedServer(range(3), range(2)) as server:
        config.write_text(config.read_text().replace("base_url: ", f"base_url: {server.base_url}\n#", 1))
        regressed = run_cli(root)
    assert regressed.returncode == 1, regressed.stdout + regressed.stderr
    gate, _ = _gate(root)
    assert gate["outcome"] == "fail"
    assert {(r["case_id"], r["subject"]) for r in gate["reasons"]} == {("q03", "council")}  # and nothing else
    assert "newly_failing" in {r["kind"] for r in gate["reasons"]}
    assert gate["counts"]["known_failure"] == 6


def _run(tmp_path: Path, council: str, baseline: str, **extra: object):  # noqa: ANN202 - a Run
    results = [result(f"c{i}", "council", "passed" if ch == "p" else "failed") for i, ch in enumerate(council)]
    results += [result(f"c{i}", "baseline", "passed" if ch == "p" else "failed") for i, ch in enumerate(baseline)]
    results += [result("c9", "council", "passed", scoring_errors=("scorer x:y: boom",))] if extra else []
    return load_run(run_folder(tmp_path, "r", results))


def test_min_pass_rate_tolerates_failures_of_a_subject_at_or_above_it_and_fails_one_below(tmp_path: Path) -> None:
    run = _run(tmp_path, "pppf", "pfff")
    assert pass_rates(run.results) == {"baseline": 0.25, "council": 0.75}
    gate = gate_outcome(run, [], GateSettings(min_pass_rate=0.75))
    assert gate.outcome == "fail"
    assert [(r.kind, r.subject) for r in gate.reasons] == [("failing", "baseline")] * 3 + [("pass_rate", "baseline")]
    assert [(r.kind, r.case_id, r.subject) for r in gate.excused] == [("tolerated_failure", "c3", "council")]
    assert gate.reasons[-1].message == "[baseline] pass rate 25.0% below gate.min_pass_rate 75.0%"
    assert gate.words == "rule: fail_on=failures, min_pass_rate=0.75 (1 tolerated failure(s) not counted)"
    assert gate_outcome(run, [], GateSettings(min_pass_rate=0.25)).outcome == "pass"
    assert gate_outcome(run, [], GateSettings(min_pass_rate=0.76)).counts["pass_rate"] == 2
    assert gate_outcome(run, [], GateSettings()).counts["failing"] == 4  # the default: every failure counts


def test_the_rule_never_excuses_a_scoring_error(tmp_path: Path) -> None:
    run = _run(tmp_path, "pppp", "pppp", scoring_error=True)
    gate = gate_outcome(run, [], GateSettings(fail_on="regressions", min_pass_rate=0.0))
    assert gate.outcome == "incomplete" and gate.exit_code == 3
    assert [r.kind for r in gate.reasons] == ["scoring_error"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gate:\n  fail_on: known\n", "gate.fail_on"),
        ("gate:\n  min_pass_rate: 1.5\n", "gate.min_pass_rate"),
    ],
)
def test_a_bad_gate_setting_is_a_config_error_naming_the_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "council-harness.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_settings(path)
    assert message in str(err.value) and f"{path}:2" in str(err.value)
