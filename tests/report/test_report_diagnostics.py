"""The report's diagnostics panel: model time per stage, position consistency, judge validity.

A hand-made run (written with :class:`RunWriter`, read back with ``load_run``): ten council cases
(five right, five wrong) whose judge gives accuracy 7 to every answer, right or wrong (so it
cannot tell them apart), with calls of known seconds and two-order reviews of known
consistency. Checked in the view model and in a real headless Chromium (skipped without one
unless ``HARNESS_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.gate.judge_validity import UNINFORMATIVE_LINE
from harness.metrics.correctness import CorrectnessResult
from harness.metrics.extraction import Extraction
from harness.metrics.judge_rubric import RubricJudgement
from harness.records.transcript import Answer, Ballot, BallotPass, CallRecord, Review
from harness.report.html import write_report
from harness.report.view import build_view
from harness.run.result import CaseResult
from harness.run.runs import Run, load_run
from tests.builders import result, run_folder
from tests.chromium import Browser, chromium_path

LABELS = {"Response A": "m1", "Response B": "m2"}
HOSTILE_CRITIQUE = "<script>window.__pwned=1</script> B is best"


WHOLE = Extraction(value="x", method="whole_answer", detail="")


def _review(reviewer: str, consistent: bool) -> Review:
    first = BallotPass(
        order=("Response A", "Response B"), probabilities={"Response A": 0.7, "Response B": 0.3}, winner="Response A"
    )
    second_probs = {"Response A": 0.6, "Response B": 0.4} if consistent else {"Response A": 0.2, "Response B": 0.8}
    second = BallotPass(
        order=("Response B", "Response A"),
        probabilities=second_probs,
        winner=max(second_probs, key=second_probs.__getitem__),
    )
    return Review(
        reviewer=reviewer,
        model="smollm2-135m",
        raw_text=HOSTILE_CRITIQUE,
        ballot=Ballot(ranking=("Response A", "Response B"), method="probabilities", critique=HOSTILE_CRITIQUE),
        presentation_order=first.order,
        shuffle_seed=5,
        passes=(first, second),
        position_consistent=consistent,
        shown_labels={"Response A": "Response B", "Response B": "Response A"},
    )


def _result(i: int, correct: bool) -> CaseResult:
    calls = (
        CallRecord(stage="stage1", member="m1", model="smollm2-135m", latency_s=1.0, tokens_in=20, tokens_out=50),
        CallRecord(stage="stage2", member="m1", model="smollm2-135m", latency_s=0.5, tokens_in=300, tokens_out=10),
        CallRecord(stage="stage3", member="m1", model="smollm2-135m", latency_s=0.5, tokens_in=200, tokens_out=40),
    )
    answers = (Answer(member="m1", model="smollm2-135m", text="a"), Answer(member="m2", model="gemma3-270m", text="b"))
    reviews = (_review("m1", True), _review("m2", i % 2 == 0))
    return result(
        f"c{i}",
        query=f"q{i}",
        transcript_fields={"answers": answers, "label_to_member": LABELS, "reviews": reviews, "calls": calls},
        rubric=RubricJudgement(judge="j", judge_model="smollm2-135m", scores={"accuracy": 7.0}, method="logprobs"),
        correctness=CorrectnessResult(correct=correct, expected_display="x", detail="", extraction=WHOLE),
        scoring_calls=(CallRecord(stage="judge", member="j", model="smollm2-135m", latency_s=2.0, tokens_in=400),),
    )


def build_run(root: Path) -> Run:
    results = [_result(i, correct=i < 5) for i in range(10)]
    return load_run(run_folder(root, "run", results, datasets=(), subjects=("council",), finished_at=None))


def test_diagnostics_view(tmp_path: Path) -> None:
    d = build_view(build_run(tmp_path)).diagnostics
    assert d is not None
    # per case: answer 1.0 s, review 0.5 s, synthesis 0.5 s, judge 2.0 s -> 4 s; ten cases -> 40 s
    assert [(r.stage, r.calls, r.seconds, r.share) for r in d.stages] == [
        ("answer", 10, "10.0 s", "25%"),
        ("review", 10, "5.0 s", "12%"),
        ("synthesis", 10, "5.0 s", "12%"),
        ("judge", 10, "20.0 s", "50%"),
    ]
    assert d.total_seconds == "40.0 s"
    assert [(c.reviewer, c.consistent, c.ballots, c.rate) for c in d.consistency] == [
        ("m1", 10, 10, "100%"),
        ("m2", 5, 10, "50%"),
    ]
    [judge] = [v for v in d.validity if v.kind == "judge"]
    # accuracy 7 for 5 right and 5 wrong answers: every pair ties, AUC = 0.5
    assert (judge.auc, judge.means, judge.verdict) == ("0.500", "7.00 vs 7.00", "uninformative")
    assert any(UNINFORMATIVE_LINE in w for w in d.warnings)


@pytest.mark.skipif(
    chromium_path() is None and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
    reason="chromium is not installed (Debian: apt-get install -y chromium)",
)
def test_diagnostics_in_chromium(tmp_path: Path) -> None:
    report = write_report(build_run(tmp_path), tmp_path / "report.html")
    with Browser() as browser:
        page = browser.open(report)
        rows = page.evaluate(
            "Array.from(document.querySelectorAll('#stage-time tr')).slice(1)"
            ".map(r => Array.from(r.cells).slice(0, 7).map(c => c.innerText.trim()))"
        )
        assert rows[0] == ["answer", "10", "0", "200", "500", "10.0 s", "25%"]
        assert rows[3][0] == "judge" and rows[3][6] == "50%"
        consistency = page.evaluate(
            "Array.from(document.querySelectorAll('#position-consistency tr')).slice(1)"
            ".map(r => r.cells[0].innerText + ' ' + r.cells[3].innerText)"
        )
        assert consistency == ["m1 100%", "m2 50%"]
        warning = page.evaluate("document.querySelector('.validity-warning').innerText")
        assert UNINFORMATIVE_LINE in warning
        visible = page.evaluate("document.querySelector('#diagnostics').getBoundingClientRect().height")
        assert visible > 100
        assert page.evaluate("window.__pwned === undefined")
        assert page.errors() == []
