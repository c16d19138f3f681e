"""Issue 31 item 4: a run's verdict inputs derived once (gate/verdict_plan) and its verdicts composed once
(gate/run_verdicts), stored in the run folder when it finishes; the report's views read them back and derive
no plan of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.common.errors import StoreError
from harness.common.run_files import VERDICTS
from harness.config import Settings
from harness.finish import finish_run
from harness.gate.run_verdicts import RunVerdicts, read_run_verdicts, run_verdicts, write_run_verdicts
from harness.gate.verdict_plan import paired_families, verdict_plan
from harness.report.view import build_view
from harness.run.result import CaseResult
from harness.run.runs import load_run
from tests.builders import metered, run_folder


def _result(i: int, subject: str, correct: float, rubric: float, tags: tuple[str, ...] = ()) -> CaseResult:
    return metered(i, subject, {"correct": correct, "rubric_composite": rubric}, tokens_out=1, answers=None, tags=tags)


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


def _same(a: RunVerdicts, b: RunVerdicts) -> bool:
    """Equal field by field, a NaN (an undefined interval) equal to a NaN."""
    return json.dumps(a.model_dump()) == json.dumps(b.model_dump())


def test_the_stored_verdicts_read_back_as_composed(tmp_path: Path) -> None:
    results = _results()
    composed = run_verdicts(verdict_plan(results, 0.15, None, "selection"), results)
    assert composed.plan.best_solo and composed.arms.verdicts
    path = write_run_verdicts(tmp_path, composed, results)
    assert "best_solo" not in json.loads(path.read_text())["verdicts"]["plan"]  # re-attached from the choice
    read = read_run_verdicts(tmp_path, results)
    assert read is not None and _same(read, composed) and read.plan.best_solo == composed.plan.best_solo
    # composed over other results (a result changed since): not theirs
    changed = [*results[:-1], results[-1].model_copy(update={"status": "failed"})]
    assert read_run_verdicts(tmp_path, changed) is None
    assert read_run_verdicts(tmp_path / "nothing", results) is None
    path.write_text('{"results": "x"')
    with pytest.raises(StoreError, match=r"verdicts.json: not a verdicts record .* delete it"):
        read_run_verdicts(tmp_path, results)


def test_the_reports_views_show_the_verdicts_the_run_finished_with(tmp_path: Path) -> None:
    results = _results()
    recorded = Settings(reports_dir=str(tmp_path / "reports"), primary_endpoint="correct", selection_tag="selection")
    run = load_run(run_folder(tmp_path, "r1", results, config=recorded.public_dict()))
    finished = finish_run(run, recorded)
    assert (run.run_dir / VERDICTS).is_file() and finished.verdicts.arms.primary == "correct"
    view = build_view(run, verdicts=finished.verdicts)
    assert view.arms is not None and view.arms.primary == "correct" and view.modes is not None
    assert [a.arm for a in view.arms.arms] == [v.arm for v in finished.verdicts.arms.verdicts]
    assert build_view(run).arms is None and build_view(run).modes is None  # a view derives no verdict itself
    # `report` under other settings: the verdicts the run finished with, read back, not composed again
    other = Settings(reports_dir=str(tmp_path / "reports"), primary_endpoint="rubric_composite")
    before = {p.name: p.read_bytes() for p in run.run_dir.iterdir()}
    shown = finish_run(run, other, report_path=tmp_path / "view.html", persist=False)
    assert _same(shown.verdicts, finished.verdicts)
    assert {p.name: p.read_bytes() for p in run.run_dir.iterdir()} == before  # the view wrote nothing there
    # a run finished before verdicts were stored: composed once from the settings its manifest records
    (run.run_dir / VERDICTS).unlink()
    older = finish_run(run, other, report_path=tmp_path / "view.html", persist=False)
    assert older.verdicts.plan.primary == "correct" and _same(older.verdicts, finished.verdicts)
