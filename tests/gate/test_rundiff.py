"""``council-harness diff``: two runs compared the way the gate compares a run with its baseline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.config import load_settings
from harness.gate.rundiff import diff_lines, diff_runs
from harness.records.transcript import Answer, Transcript
from harness.run.result import CaseResult
from harness.run.runs import load_run
from tests.builders import run_folder
from tests.chromium import Browser, chromium_path
from tests.cli_env import clear_harness_env

CLI = Path(sys.executable).parent / "council-harness"


def _r(case_id: str, status: str, answer: str, **scores: float) -> CaseResult:
    t = Transcript(
        subject="council", query="q?", answers=(Answer(member="m", model="x", text=answer),), final_answer=answer
    )
    return CaseResult(
        case_id=case_id,
        dataset="d",
        subject="council",
        status=status,  # type: ignore[arg-type]
        transcript=t,
        scores=scores,
    )


def _run(root: Path, run_id: str, results: list[CaseResult]) -> Path:
    return run_folder(root, run_id, results, subjects=("council",), finished_at=None)


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    clear_harness_env(monkeypatch)
    a = _run(
        tmp_path,
        "run-a",
        [
            _r("c1", "passed", "Paris", correct=1.0),
            _r("c2", "failed", "Lyon", correct=0.0),
            _r("c3", "passed", "A careful answer", rubric_composite=8.0),
            _r("c5", "passed", "only in A", correct=1.0),
            _r("c6", "passed", "same", correct=1.0),
        ],
    )
    b = _run(
        tmp_path,
        "run-b",
        [
            _r("c1", "failed", "Marseille", correct=0.0),
            _r("c2", "passed", "Paris", correct=1.0),
            _r("c3", "passed", "A sloppy answer <script>alert(1)</script>", rubric_composite=5.0),
            _r("c4", "passed", "only in B", correct=1.0),
            _r("c6", "passed", "same", correct=1.0),
        ],
    )
    return a, b


def test_diff_finds_flips_regressions_and_moves(runs: tuple[Path, Path]) -> None:
    a, b = runs
    diff = diff_runs(load_run(a), load_run(b), load_settings())
    kinds = [(c.kind, c.case_id) for c in diff.changes]
    assert kinds == [
        ("newly_failing", "c1"),
        ("regressed", "c3"),
        ("missing", "c5"),
        ("newly_passing", "c2"),
        ("new", "c4"),
    ]
    assert diff.unchanged == 1
    c1 = diff.changes[0]
    assert (c1.before_status, c1.after_status, c1.answer_before, c1.answer_after) == (
        "passed",
        "failed",
        "Paris",
        "Marseille",
    )
    c3 = diff.changes[1]
    assert any("rubric_composite dropped 3.000 > tolerance 0.5" in r for r in c3.reasons)
    # moves ranked by share of scale: correct moves 1 of 1, rubric_composite 3 of 10
    assert [(m.case_id, m.score, m.change, m.share_of_scale) for m in diff.moves] == [
        ("c1", "correct", -1.0, 1.0),
        ("c2", "correct", 1.0, 1.0),
        ("c3", "rubric_composite", -3.0, 0.3),
    ]
    assert diff.exit_code == 1
    lines = diff_lines(diff)
    assert lines[0] == (
        "run-b against run-a: 1 newly failing, 1 newly passing, 1 regressed, 0 improved, 1 missing, 1 new, 1 unchanged"
    )
    assert lines[1] == "regressed against run-a: yes"
    assert "    A: Paris" in lines and "    B: Marseille" in lines


def test_diff_of_a_run_with_itself_is_empty(runs: tuple[Path, Path]) -> None:
    a, _ = runs
    diff = diff_runs(load_run(a), load_run(a), load_settings())
    assert diff.changes == () and diff.moves == () and diff.exit_code == 0 and diff.unchanged == 5


def test_diff_command(runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = runs
    proc = subprocess.run(
        [str(CLI), "diff", str(a), str(b), "--json", "d.json", "--no-answers"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("run-b against run-a: 1 newly failing")
    assert "    A: Paris" not in proc.stdout
    data = json.loads((tmp_path / "d.json").read_text())
    assert [c["case_id"] for c in data["changes"]] == ["c1", "c3", "c5", "c2", "c4"]
    same = subprocess.run([str(CLI), "diff", str(a), str(a)], cwd=tmp_path, capture_output=True, text=True)
    assert same.returncode == 0 and "regressed against run-a: no" in same.stdout
    bad = subprocess.run(
        [str(CLI), "diff", str(a), str(tmp_path / "nope")], cwd=tmp_path, capture_output=True, text=True
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "nope" in bad.stderr


def test_report_with_a_what_changed_section(runs: tuple[Path, Path], tmp_path: Path) -> None:
    from harness.finish import finish_run

    a, b = runs
    out = finish_run(load_run(b), load_settings(), report_path=tmp_path / "r.html", against=load_run(a)).report
    html = out.read_text(encoding="utf-8")
    section = html[html.index('<section id="changes"') :]
    section = section[: section.index("</section>")]
    assert "5 of 6 case result(s) changed since run run-a" in section
    assert "regressed against that run" in section
    rows = section[section.index('id="changes-table"') : section.index("</table>")]
    assert rows.count("<tr>") == 6  # the header and the five changed results
    assert 'href="#case-d-c1"' in rows and 'id="case-d-c1"' in html  # links to the case's drill-down
    assert "A sloppy answer &lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert "<script>alert(1)" not in html
    moves = section[section.index('id="moves-table"') :]
    assert moves.count("<tr>") == 4 and "+1" in moves and "-3" in moves


@pytest.mark.skipif(
    chromium_path() is None and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
    reason="Chromium is not installed (HARNESS_REQUIRE_BROWSER=1 makes this a failure)",
)
@pytest.mark.parametrize("width", [1400, 420])
def test_what_changed_section_in_chromium(runs: tuple[Path, Path], tmp_path: Path, width: int) -> None:
    from harness.finish import finish_run

    a, b = runs
    out = finish_run(load_run(b), load_settings(), report_path=tmp_path / "r.html", against=load_run(a)).report
    with Browser(width=width, height=900) as browser:
        page = browser.open(out)
        assert page.errors() == []
        assert page.evaluate("document.scripts.length") == 1 and page.evaluate("typeof window.__pwned") == "undefined"
        rows = page.evaluate(
            "Array.from(document.querySelectorAll('#changes-table tbody tr')).map(r => r.cells[0].textContent.trim())"
        )
        assert rows == ["d::c1", "d::c3", "d::c5", "d::c2", "d::c4"]
        # the change column is on screen (scrolled into view, within the viewport's width)
        box = page.evaluate(
            "(() => { const e = document.querySelector('#changes-table tbody tr .badge');"
            " e.scrollIntoView(); const r = e.getBoundingClientRect(); return [r.left, r.right]; })()"
        )
        assert 0 <= box[0] and box[1] <= width, box
        page.click('#changes-table a[href="#case-d-c1"]')
        for _ in range(50):  # the report's script opens the case on hashchange, an event after the click
            if page.evaluate("document.getElementById('case-d-c1').open"):
                break
            time.sleep(0.05)
        assert page.evaluate("location.hash") == "#case-d-c1"
        assert page.evaluate("document.getElementById('case-d-c1').open") is True
        page.click("#changes-table details summary")
        shown = page.evaluate(
            "Array.from(document.querySelectorAll('#changes-table tbody tr')[0]"
            ".querySelectorAll('.side-by-side pre.answer')).map(e => e.textContent)"
        )
        assert shown == ["Paris", "Marseille"]  # before and after, side by side


def test_diff_and_the_gate_agree_on_a_case_that_passes_now_with_a_lower_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Failed in A with rubric 9, passes in B with rubric 5: the gate calls it regressed (a drop of 4 > 0.5),
    and so must ``diff`` (it used to call it "newly passing" and exit 0)."""
    from harness.gate.baselines import baseline_from_results, compare

    monkeypatch.chdir(tmp_path)
    clear_harness_env(monkeypatch)
    a = _run(tmp_path, "run-a", [_r("c7", "failed", "old", rubric_composite=9.0)])
    b = _run(tmp_path, "run-b", [_r("c7", "passed", "new", rubric_composite=5.0)])
    run_a, run_b = load_run(a), load_run(b)
    gate = compare(run_b.results, baseline_from_results("d", run_a.results, run_a.manifest), 0.5, ["rubric_composite"])
    assert [c.status for c in gate.cases] == ["regressed"] and gate.regressed
    diff = diff_runs(run_a, run_b, load_settings())
    assert [(c.kind, c.case_id) for c in diff.changes] == [("regressed", "c7")]
    assert diff.regressed and diff.exit_code == 1
    assert any("newly passing (baseline failed, now passed)" in r for r in diff.changes[0].reasons)
    proc = subprocess.run([str(CLI), "diff", str(a), str(b)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1 and "regressed against run-a: yes" in proc.stdout
    assert "0 newly passing, 1 regressed" in proc.stdout


def test_diff_output_shows_control_characters_as_escapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    clear_harness_env(monkeypatch)
    a = _run(tmp_path, "run-a", [_r("c1", "passed", "fine", correct=1.0)])
    b = _run(tmp_path, "run-b", [_r("c1", "failed", "bad\x00\x1b]0;pwned\x07\x1b[2J\u202eevil", correct=0.0)])
    proc = subprocess.run([str(CLI), "diff", str(a), str(b)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert "\x00" not in proc.stdout and "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert "\u202e" not in proc.stdout
    assert "    B: bad\\x00\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil" in proc.stdout
