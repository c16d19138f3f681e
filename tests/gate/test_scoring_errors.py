"""Scoring errors in the gate (issue 25): each result with scoring errors is a ``scoring_error`` reason; the
verdict is ``incomplete`` (exit 3) unless a failing reason makes it ``fail`` (exit 1), with or without a baseline."""

from __future__ import annotations

from pathlib import Path

from harness.gate.baselines import verdict_of
from harness.gate.regression import gate_outcome
from harness.gate.scoring_errors import scorer_of, scoring_errors
from harness.run.runs import load_run
from tests.builders import result, run_folder


def test_scorer_of_names_the_scorer() -> None:
    assert scorer_of("scorer my_scorers:brevity: raised SystemExit: 0") == "my_scorers:brevity"
    assert scorer_of("rubric judge smollm2-precise: timed out") == "rubric judge smollm2-precise"
    assert scorer_of("kaput") == "scorer"


def test_counts_and_words() -> None:
    results = [
        result("a", scoring_errors=("scorer m:f: raised X", "scorer m:g: raised Y")),
        result("b", scoring_errors=("scorer m:f: raised X",)),
        result("c"),
    ]
    s = scoring_errors(results)
    assert (s.errors, s.results, s.by_scorer) == (3, 2, {"m:f": 2, "m:g": 1})
    assert s.words() == "scoring errors: 3 in 2 result(s) (m:f 2, m:g 1)"
    assert scoring_errors([result("c")]).words() == ""


def test_verdict_precedence() -> None:
    assert verdict_of([]) == "pass"
    assert verdict_of(["scoring_error"]) == "incomplete"
    assert verdict_of(["scoring_error", "failing"]) == "fail"


def test_scoring_errors_make_a_run_without_baseline_incomplete(tmp_path: Path) -> None:
    run = load_run(run_folder(tmp_path, "r1", [result("a", scoring_errors=("scorer m:f: raised X",)), result("b")]))
    gate = gate_outcome(run, [])
    assert (gate.outcome, gate.exit_code, gate.counts["scoring_error"], gate.counts["scoring_errors"]) == (
        "incomplete",
        3,
        1,
        1,
    )
    (reason,) = gate.reasons
    assert (reason.case_id, reason.subject, reason.n) == ("a", "council", 1)
    assert reason.message == "case a [council]: 1 scoring error(s), its scores incomplete: scorer m:f: raised X"
    # a failing case as well: the verdict is fail (exit 1)
    run = load_run(
        run_folder(
            tmp_path, "r2", [result("a", scoring_errors=("scorer m:f: raised X",)), result("b", status="failed")]
        )
    )
    assert (gate_outcome(run, []).outcome, gate_outcome(run, []).exit_code) == ("fail", 1)
