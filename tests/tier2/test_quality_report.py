"""``council-harness quality-report``: the seed 001 Appendix A box, JSON output, trends and usage errors."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.cli.quality_report import add_quality_report_parser
from harness.gate.baselines import Baseline, BaselineEntry, baseline_path, write_baseline
from harness.metrics.quality_metrics import CoreMetrics, QualityMetrics
from harness.metrics.rubric import HIGH_VARIANCE_FLAG, peer_composite, peer_rubric_breakdown
from harness.metrics.tier1 import SynthesisAttribution
from harness.report.bars import bar
from harness.run.result import CaseResult
from harness.tier2.quality_text import BOX_WIDTH
from tests.builders import run_folder
from tests.tier2.test_tier2_calibration import calibration_transcript


def _council_result(case_id: str, css: float, ddi: float, risk: float = 0.06, answer: str = "4") -> CaseResult:
    t = calibration_transcript(query=f"What is {case_id}?").model_copy(update={"final_answer": answer})
    peer = peer_rubric_breakdown(t)
    sas = SynthesisAttribution(winner_alignment=0.89, max_source_alignment=0.94, hallucination_risk=risk, grounded=True)
    qm = QualityMetrics(
        core=CoreMetrics(
            consensus_strength=css, deliberation_depth=ddi, deliberation_components={}, synthesis_attribution=sas
        )
    )
    composite = peer_composite(peer)
    assert composite is not None
    return CaseResult(
        case_id=case_id,
        dataset="arith",
        subject="council",
        status="passed",
        transcript=t,
        quality_metrics=qm,
        peer_rubric=peer,
        scores={
            "consensus_strength": css,
            "deliberation_depth": ddi,
            "winner_alignment": 0.89,
            "hallucination_risk": risk,
            "peer_composite": composite,
        },
    )


def _write_run(reports: Path, run_id: str, results: list[CaseResult]) -> None:
    started = f"2026-01-{run_id[6:8]}T12:00:00Z"
    run_folder(reports / "runs", run_id, results, datasets=(), subjects=(), started_at=started, finished_at=None)


def _session_run(reports: Path) -> None:
    # an earlier run (one match per case: too few for temporal consistency), then the reported run
    _write_run(reports, "20260101-000000-0001", [_council_result(f"q{i}", 0.5, 0.5) for i in (1, 2, 3)])
    _write_run(
        reports,
        "20260102-000000-0002",
        [
            _council_result("q1", 0.90, 0.70),
            _council_result("q2", 0.85, 0.71),
            _council_result("q3", 0.80, 0.72),
            CaseResult(case_id="q4", dataset="arith", subject="council", status="error", error="all members failed"),
            CaseResult(case_id="q1", dataset="arith", subject="baseline", status="passed"),
        ],
    )
    entries = tuple(
        BaselineEntry(case_id=f"q{i}", subject="council", status="passed", scores={"peer_composite": 5.03})
        for i in (1, 2, 3)
    )
    write_baseline(
        baseline_path("arith", reports / "baselines"),
        Baseline(dataset="arith", created_at=datetime(2026, 1, 1, tzinfo=UTC), entries=entries),
    )


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_quality_report_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["quality-report", *argv])
    return int(args.func(args))


def _flat(lines: list[str]) -> str:
    """The box's text with borders removed and wrapped lines joined."""
    return " ".join(line[1:-1].strip() for line in lines if line.startswith("║"))


def _cells(value: float) -> str:
    shown = bar(value)
    return shown[shown.index("[") + 1 : -1]


def test_text_report_follows_the_appendix_box(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    _session_run(tmp_path)
    assert _run(["--reports-dir", str(tmp_path), "--temporal", "jaccard"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "╔" + "═" * BOX_WIDTH + "╗"
    assert lines[-1] == "╚" + "═" * BOX_WIDTH + "╝"
    assert all(len(line) == BOX_WIDTH + 2 and line[0] in "╔║╠╚" and line[-1] in "╗║╣╝" for line in lines)
    assert "LLM Council Quality Report" in lines[1]
    assert "Session: 20260102-000000-0002 (2026-01-02T12:00:00Z)" in lines[2]
    assert "╠═══════════════════════╦══════════╦═══════════════════════════════╣" in lines
    # means of (0.90, 0.85, 0.80), (0.70, 0.71, 0.72), 0.89 and 0.06; the errored result has no metrics
    assert "║ Consensus Strength    ║   0.85   ║ ████████░░ Strong consensus   ║" in lines
    assert "║ Deliberation Depth    ║   0.71   ║ ███████░░░ Adequate depth     ║" in lines
    assert "║ Winner Alignment      ║   0.89   ║ ████████░░ Well-grounded      ║" in lines
    assert "║ Hallucination Risk    ║   0.06   ║ ░░░░░░░░░░ Low risk           ║" in lines
    assert _cells(0.85) == "████████░░"
    # peer rubric per answer: A 2.0 (std 0), B 8.0 (std 0), C 6.0 (std 4): mean 16/3 = 5.3, mean std 4/3 > 1
    assert "║ Accuracy (35%)        ║   5.3    ║ █████░░░░░ ⚠ High variance    ║" in lines
    assert "║ Relevance (10%)       ║   5.3    ║ █████░░░░░ ⚠ High variance    ║" in lines
    assert _cells(16 / 3 / 10) == "█████░░░░░"
    assert "╠═══════════════════════╬══════════╬═══════════════════════════════╣" in lines
    # peer_composite = mean(2, 8, 6) = 5.33 on each case; baseline 5.03 -> +0.30
    assert "║ Weighted Composite    ║   5.33   ║ Above baseline (+0.30)        ║" in lines
    assert "║ Consistency           ║   n/a    ║ ░░░░░░░░░░ 0 scored, 3 too few║" in lines
    assert any("TEMPORAL CONSISTENCY (Tier 2) · jaccard · 1 earlier run(s)" in line for line in lines)
    assert "║ CALIBRATION NOTES" + " " * (BOX_WIDTH - 18) + "║" in lines
    flat = _flat(lines)
    assert "• 3 council session(s): confidence insufficient_data •" in flat
    assert "• m1 gave 5.0, received 6.0 (delta -1.0); ranks itself first 100% of 3 ballot(s) •" in flat
    assert "• Position bias detected (variance: 29.39) • Length correlation: r=0.03 (acceptable) →" in flat
    assert "→ m1 scores 0.5 points below median; consider calibration weight →" in flat
    assert "→ m1 ranks its own answer first in 100% of 3 ballots (chance 33%); possible self-preference →" in flat
    assert "║ ALERTS: 1" + " " * (BOX_WIDTH - 10) + "║" in lines
    assert any("• 1 of 4 council results errored" in line for line in lines)


def test_text_report_without_alerts_says_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    _write_run(tmp_path, "20260101-000000-0001", [_council_result("q1", 0.9, 0.7)])
    results = tmp_path / "runs" / "20260101-000000-0001" / "results.jsonl"
    with results.open("a", encoding="utf-8") as fh:
        fh.write('{"case_id": "truncated\n')
    assert _run(["--reports-dir", str(tmp_path), "--temporal", "off"]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"warning: skipped 1 unreadable line(s) in {results} (line 2)\n"
    lines = captured.out.splitlines()
    assert "║ ALERTS: None" + " " * (BOX_WIDTH - 13) + "║" in lines
    assert "║ Weighted Composite    ║   5.33   ║ No baseline                   ║" in lines
    assert not any("TEMPORAL" in line for line in lines)


def test_json_report_round_trips_with_the_same_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    _session_run(tmp_path)
    assert _run(["--reports-dir", str(tmp_path), "--format", "json", "--temporal", "jaccard"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["report"] == "quality"
    assert data["session"] == {
        "run_id": "20260102-000000-0002",
        "started_at": "2026-01-02T12:00:00Z",
        "datasets": ["arith"],
        "subject": "council",
        "results": 4,
        "errors": 1,
    }
    assert (data["core"]["results"], data["core"]["consensus_strength"], data["core"]["deliberation_depth"]) == (
        3,
        0.85,
        0.71,
    )
    rubric = data["rubric_breakdown"]
    assert rubric["weighted_composite"] == 5.33
    assert rubric["baseline"] == {
        "score": "peer_composite",
        "current": 5.33,
        "baseline": 5.03,
        "delta": 0.3,
        "cases": 3,
    }
    accuracy = rubric["dimensions"][0]
    assert (accuracy["dimension"], accuracy["weight"], accuracy["mean"], accuracy["std"]) == (
        "accuracy",
        0.35,
        5.333,
        1.333,
    )
    assert (accuracy["answers"], accuracy["flagged_answers"], accuracy["flag"]) == (3 * 3, 3, HIGH_VARIANCE_FLAG)
    cal = data["calibration_report"]
    assert cal["session_count"] == 3
    assert cal["models"]["m1"] == {
        "model": "model-m1",
        "mean_score_given": 5.0,
        "mean_score_received": 6.0,
        "calibration_delta": -1.0,
        "self_preference_rate": 1.0,
    }
    assert data["temporal_consistency"] == {
        "method": "jaccard",
        "history_runs": 1,
        "calculated": 0,
        "insufficient": 3,
        "mean_score": None,
        "drifted": [],
    }
    assert data["alerts"] == ["1 of 4 council results errored"]
    first = data["results"][0]
    assert (first["case_id"], first["subject"]) == ("q1", "council")
    # seed 001 section 2.3 shape per member answer: C was scored 2 and 10 on every dimension
    c = first["rubric_breakdown"]["m3"]
    assert c["accuracy"] == {
        "mean": 6.0,
        "std": 4.0,
        "n": 2,
        "weight": 0.35,
        "ceiling_applied": False,
        "flag": HIGH_VARIANCE_FLAG,
    }
    assert (c["weighted_composite"], c["accuracy_ceiling_effect"]) == (6.0, "none")
    assert first["temporal_consistency"] == {
        "status": "insufficient_data",
        "score": None,
        "sample_size": 1,
        "drift_detected": False,
        "method": "jaccard",
    }


def test_session_trends_over_the_last_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    css = [0.4, 0.5, 0.6, 0.7, 0.8]
    risk = [0.0, 0.1, 0.2, 0.3, 0.4]
    for i, (c, r) in enumerate(zip(css, risk, strict=True)):
        _write_run(tmp_path, f"2026010{i + 1}-000000-000{i + 1}", [_council_result("q1", c, 0.7, risk=r)])
    assert _run(["--reports-dir", str(tmp_path), "--sessions", "4", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["run_id"] for p in data["sessions"]] == [f"2026010{i}-000000-000{i}" for i in (2, 3, 4, 5)]
    assert [p["consensus_strength"] for p in data["sessions"]] == [0.5, 0.6, 0.7, 0.8]
    trends = {t["metric"]: t for t in data["trends"]}
    # y = 0.5 + 0.1 x on x = 0..3: slope 0.1 per run
    assert trends["consensus_strength"]["slope"] == pytest.approx(0.1)
    assert trends["consensus_strength"]["direction"] == "improving"
    assert trends["hallucination_risk"]["slope"] == pytest.approx(0.1)
    assert trends["hallucination_risk"]["direction"] == "declining"
    assert (trends["deliberation_depth"]["slope"], trends["deliberation_depth"]["direction"]) == (0.0, "stable")
    assert trends["rubric_composite"]["direction"] == "n/a"
    assert data["calibration_report"]["session_count"] == 4
    assert data["alerts"][0].startswith("hallucination_risk is declining (+0.100 per run, p=")

    # ending at an earlier run; text form
    assert _run(["--reports-dir", str(tmp_path), "--sessions", "3", "--session", "20260103-000000-0003"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) == BOX_WIDTH + 2 for line in lines)
    assert "3 session(s): 20260101-000000-0001 .. 20260103-000000-0003" in lines[2]
    assert any(
        line.startswith("║ 20260102-000000-0002   ║ 0.50 ║ 0.70 ║ 0.89 ║ 0.10 ║ 5.33 ║ n/a  ║") for line in lines
    )
    # CSS 0.4, 0.5, 0.6 -> block int(v * 8): 3, 4, 4 -> "▄▅▅"
    assert any(line.startswith("║ CSS   ▄▅▅  +0.100/run") for line in lines)
    assert any(line.startswith("║ DDI   ▆▆▆  constant") for line in lines)


def test_latest_on_an_empty_reports_dir_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert _run(["--reports-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path / 'runs'}: no runs found; run `council-harness run` first\n"


def test_unknown_run_id_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    _write_run(tmp_path, "20260101-000000-0001", [_council_result("q1", 0.9, 0.7)])
    assert _run(["--reports-dir", str(tmp_path), "--session", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --session: no run 'nope' (expected 'latest', a run id under ")
