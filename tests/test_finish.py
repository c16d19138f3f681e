"""``finish_run``: the one way a run is finished (prediction, arms, usage, gate, report, baselines)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.config import Settings, load_settings
from harness.finish import finish_run
from harness.records.transcript import Answer, Transcript
from harness.run.result import CaseResult
from harness.run.runs import load_run
from tests.builders import run_folder


def _r(case_id: str, subject: str, status: str, correct: float) -> CaseResult:
    t = Transcript(
        subject=subject,
        query="q?",
        answers=(Answer(member="m", model="x", text="an answer"),),
        final_answer="an answer",
    )
    return CaseResult(
        case_id=case_id,
        dataset="d",
        subject=subject,
        status=status,  # type: ignore[arg-type]
        transcript=t,
        scores={"correct": correct},
    )


def _run(root: Path, run_id: str, results: list[CaseResult]) -> Path:
    return run_folder(root / "runs", run_id, results, subjects=("council", "baseline"))


@pytest.fixture
def reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("LLM_COUNCIL_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LLM_COUNCIL_REPORTS_DIR", str(tmp_path / "custom"))
    return tmp_path / "custom"


GOOD = [
    _r("c1", "council", "passed", 1.0),
    _r("c2", "council", "passed", 1.0),
    _r("c1", "baseline", "passed", 1.0),
    _r("c2", "baseline", "passed", 1.0),
]


def _deterministic(settings: Settings) -> Settings:
    """Every member at temperature 0: the gate keeps the strict rule."""
    return settings.model_copy(update={"models": [m.model_copy(update={"temperature": 0.0}) for m in settings.models]})


def test_update_baseline_then_a_regression_fails_the_gate(reports: Path) -> None:
    settings = _deterministic(load_settings(None))
    good = load_run(_run(reports, "run-a", GOOD))
    written = finish_run(good, settings, update_baseline=True)
    assert written.baselines_written == (reports / "baselines" / "d.json",)
    assert written.comparisons == () and written.gate.outcome == "pass" and written.exit_code == 0
    assert written.report == good.run_dir / "index.html" and written.report.is_file()

    same = finish_run(good, settings)  # the run against its own baseline
    assert [c.dataset for c in same.comparisons] == ["d"] and same.baselines_written == ()
    assert same.gate.outcome == "pass" and not same.regressed and same.exit_code == 0

    bad = load_run(_run(reports, "run-b", [_r("c1", "council", "failed", 0.0), *GOOD[1:]]))
    outcome = finish_run(bad, settings, report_path=reports / "b.html")
    assert outcome.regressed and outcome.exit_code == 1 and outcome.report == reports / "b.html"
    kinds = sorted((r.kind, r.case_id, r.subject) for r in outcome.gate.reasons)
    assert kinds == [("newly_failing", "c1", "council"), ("score_drop", "c1", "council")]
    summary = json.loads((bad.run_dir / "summary.json").read_text(encoding="utf-8"))
    assert outcome.summary == bad.run_dir / "summary.json"
    assert summary["gate"]["outcome"] == "fail" and summary["gate"]["counts"]["reasons"] == 2
    assert {"verdicts", "usage", "gate"} <= set(summary)
    assert summary["usage"]["partial"] is False


def test_a_sampled_subject_gets_the_noise_aware_gate(reports: Path) -> None:
    """The default members sample at temperature > 0: one case newly failing once (k = 1) is within
    the noise (a Fisher p of 0.5 can never reach the level), and the console says so."""
    from harness.gate.regression import comparison_lines, sampled

    settings = load_settings(None)
    good = load_run(_run(reports, "run-a", GOOD))
    finish_run(good, settings, update_baseline=True)
    bad = load_run(_run(reports, "run-b", [_r("c1", "council", "failed", 0.0), *GOOD[1:]]))
    assert sampled(bad, settings) and not sampled(bad, _deterministic(settings))
    outcome = finish_run(bad, settings, report_path=reports / "b.html")
    assert outcome.gate.outcome == "pass" and not outcome.regressed
    (cmp,) = outcome.comparisons
    assert cmp.noise_aware and [(c.case_id, c.subject) for c in cmp.cases if c.within_noise] == [("c1", "council")]
    lines = comparison_lines(outcome.comparisons)
    assert lines[0].startswith(
        "baseline d: pass (0 regressed beyond noise, 1 changed within noise, 0 improved, noise-aware"
    )
    assert lines[1].startswith("  ~ within noise: case c1 [council]: failed 1/1 run(s) (baseline 0/1), Fisher p=0.5")
    (dataset,) = outcome.gate.comparisons
    assert dataset.noise_aware and len(dataset.within_noise) == 1
    assert "1 case(s) changed within noise (noise-aware gate)" in (reports / "b.html").read_text(encoding="utf-8")


def test_failing_cases_without_a_baseline_fail_the_gate_but_are_no_regression(reports: Path) -> None:
    run = load_run(_run(reports, "run-c", [_r("c1", "council", "error", 0.0), *GOOD[1:]]))
    outcome = finish_run(run, load_settings(None))
    assert outcome.comparisons == () and not outcome.regressed  # nothing to regress against
    assert outcome.exit_code == 1 and [(r.kind, r.case_id) for r in outcome.gate.reasons] == [("failing", "c1")]
