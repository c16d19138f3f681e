"""Issue 31 item 4: a run's verdict inputs derived once (gate/verdict_plan) and its verdicts composed once
(gate/run_verdicts); the report reuses them only when its own plan (from the manifest's settings) is the same."""

from __future__ import annotations

from pathlib import Path

from harness.config import Settings
from harness.gate.run_verdicts import run_verdicts
from harness.gate.verdict_plan import paired_families, plan_for_run, plan_from_config, verdict_plan
from harness.records.transcript import CallRecord
from harness.report.view import build_view
from harness.run.result import CaseResult
from harness.run.runs import load_run
from tests.builders import result, run_folder


def _result(i: int, subject: str, correct: float, rubric: float, tags: tuple[str, ...] = ()) -> CaseResult:
    calls = (CallRecord(stage="answer", member="m", model="m", tokens_in=10, tokens_out=1),)
    return result(
        f"q{i:02d}",
        subject,
        transcript_fields={"calls": calls},
        tags=tags,
        scores={"correct": correct, "rubric_composite": rubric},
    )


def _results(n: int = 12) -> list[CaseResult]:
    out = []
    for i in range(n):
        tags = ("selection",) if i < 4 else ()
        out.append(_result(i, "council", 1.0, 0.8, tags))
        out.append(_result(i, "baseline", float(i % 2), 0.5, tags))
        out.append(_result(i, "solo:a", float(i % 3 > 0), 0.6, tags))
        out.append(_result(i, "solo:b", 0.0, 0.4, tags))
        out.append(_result(i, "council-without:a", 0.0 if i < 6 else 1.0, 0.7, tags))
        out.append(_result(i, "council+dissent", float(i % 4 > 0), 0.7, tags))
    return out


def test_the_plan_holds_the_primary_endpoint_the_arms_and_the_councils_pairs() -> None:
    results = _results()
    plan = verdict_plan(results, 0.15, None, "selection")
    # 12 cases with `correct`: the default primary endpoint (rule: at least 10)
    assert (plan.primary, plan.primary_reason) == ("correct", "default: 12 cases have an expected answer (at least 10)")
    assert plan.choice is not None and plan.choice.chosen == "a"
    assert {r.case_id for r in plan.best_solo} == {f"q{i:02d}" for i in range(4, 12)}
    assert plan.arms == ("baseline", "solo:a", "solo:b", "best-solo")
    # every pair is the one paired_families gives, in either orientation
    for s in ("baseline", "solo:a", "council-without:a", "council+dissent"):
        assert plan.pair("council", s) == paired_families(results, "council", s, ("correct",))[0]["correct"]
        assert plan.pair(s, "council") == paired_families(results, s, "council", ("correct",))[0]["correct"]
    assert plan.pair("council", "best-solo").ids == tuple(f"d::q{i:02d}" for i in range(4, 12))  # type: ignore[union-attr]
    assert plan.pair("solo:a", "solo:b") is None  # pairs are the council's
    assert plan.families == paired_families(results)[0]
    configured = verdict_plan(results, 0.15, "rubric_composite", None)
    assert (configured.primary, configured.primary_reason) == ("rubric_composite", "configured (primary_endpoint)")
    assert configured.choice is not None and configured.choice.chosen is None and "best-solo" not in configured.arms


def test_the_verdicts_are_composed_from_one_plan() -> None:
    results = _results()
    plan = verdict_plan(results, 0.15, None, "selection")
    v = run_verdicts(plan, results)
    assert v.prediction is not None and v.prediction.headline is not None
    assert v.prediction.headline.family == v.arms.primary == "correct"
    assert [a.arm for a in v.arms.verdicts] == list(plan.arms)
    assert [x.member for x in v.arms.leave_one_out] == ["a"] and v.arms.leave_one_out[0].n == 12
    assert {b.family for b in v.remediation} == {"correct"}


def test_the_report_reuses_the_runs_verdicts_only_under_the_same_plan(tmp_path: Path) -> None:
    results = _results()
    recorded = Settings(reports_dir=str(tmp_path / "reports"), primary_endpoint="correct")
    run = load_run(run_folder(tmp_path, "r1", results, config=recorded.public_dict()))
    same = run_verdicts(plan_for_run(run.results, recorded), run.results)
    assert same.plan == plan_from_config(run.results, run.manifest.config)
    view = build_view(run, verdicts=same)
    assert view.arms is not None and view.arms.primary == "correct"
    # a view under other settings (`report` with another config): the panels follow the run's recorded settings
    other = Settings(reports_dir=str(tmp_path / "reports"), primary_endpoint="rubric_composite")
    elsewhere = run_verdicts(plan_for_run(run.results, other), run.results)
    assert elsewhere.arms.primary == "rubric_composite"
    view = build_view(run, verdicts=elsewhere)
    assert view.arms is not None and view.arms.primary == "correct"
    assert view.modes is not None and view.modes.primary == "correct"
    assert view.arms.arms == build_view(run).arms.arms  # type: ignore[union-attr]
