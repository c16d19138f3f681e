"""Expert review round trip: sheet out, verdicts in, merged into the run, its report and the baseline."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from harness.common.errors import StoreError
from harness.gate.baselines import baseline_from_results
from harness.run.expert_review import apply_sheet, load_verdicts, with_verdict, write_sheet
from harness.run.result import CaseResult
from harness.run.runs import Manifest, RunWriter, load_run
from tests.builders import result, run_folder


def _result(case_id: str, mode: str, answer: str, status: str) -> CaseResult:
    return result(
        case_id,
        "council",
        status,
        dataset="arch",
        answer=answer,
        query="q?",  # type: ignore[arg-type]
        transcript_fields={"model": "x"},
        evaluation_mode=mode,
        scores={"heuristic_quality": 41.5},
    )


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    results = [
        _result("arch-001", "expert_review", "Start with a monolith; split later.", "awaiting_review"),
        _result("arch-002", "expert_review", "Use microservices from day one.", "awaiting_review"),
        _result("auto-001", "automatic", "Paris", "passed"),
    ]
    started = "2026-11-25T10:00:00Z"
    return run_folder(
        tmp_path / "reports" / "runs", "r1", results, datasets=("arch",), started_at=started, finished_at=None
    )


def _fill(sheet: Path, verdicts: dict[str, tuple[str, str]], reviewer: str = "ana") -> None:
    rows = list(csv.DictReader(sheet.open()))
    for row in rows:
        if row["case_id"] in verdicts:
            row["verdict"], row["note"] = verdicts[row["case_id"]]
            row["reviewer"] = reviewer
    with sheet.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_round_trip(run_dir: Path, tmp_path: Path) -> None:
    run = load_run(run_dir)
    sheet = tmp_path / "sheet.csv"
    assert write_sheet(run.results, sheet) == 2  # only the expert-review cases
    rows = list(csv.DictReader(sheet.open()))
    assert [r["case_id"] for r in rows] == ["arch-001", "arch-002"]
    assert rows[0]["answer_excerpt"] == "Start with a monolith; split later."
    assert rows[0]["scores"] == "heuristic_quality=41.5" and rows[0]["verdict"] == ""

    _fill(sheet, {"arch-001": ("pass", "sound trade-off"), "arch-002": ("FAIL", "ignores team size")})
    global_file = tmp_path / "reports" / "reviews.json"
    new = apply_sheet(run_dir, run.results, sheet, global_file)
    assert len(new) == 2
    merged = {r.case_id: r for r in load_run(run_dir).results}
    assert merged["arch-001"].status == "passed" and merged["arch-001"].review.who == "ana"
    assert merged["arch-001"].review.note == "sound trade-off"
    assert merged["arch-002"].status == "failed" and merged["arch-002"].review.verdict == "fail"
    assert merged["auto-001"].review is None
    assert set(load_verdicts(global_file)) == {("arch", "arch-001", "council"), ("arch", "arch-002", "council")}

    baseline = baseline_from_results("arch", list(merged.values()), {"run_id": "r1"})
    entry = baseline.entry_map()[("arch-001", "council")]
    assert entry.review is not None and entry.review.verdict == "pass" and entry.status == "passed"


def test_verdict_carries_over_only_for_the_same_answer(run_dir: Path, tmp_path: Path) -> None:
    run = load_run(run_dir)
    sheet = tmp_path / "sheet.csv"
    write_sheet(run.results, sheet)
    _fill(sheet, {"arch-001": ("pass", "ok")})
    verdicts = load_verdicts(tmp_path / "g.json") | apply_sheet(run_dir, run.results, sheet, tmp_path / "g.json")
    key = ("arch", "arch-001", "council")
    same = _result("arch-001", "expert_review", "Start with a monolith; split later.", "awaiting_review")
    changed = _result("arch-001", "expert_review", "Something else entirely.", "awaiting_review")
    assert with_verdict(same, verdicts[key]).status == "passed"
    assert with_verdict(changed, verdicts[key]).status == "awaiting_review"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda rows: rows.__setitem__(0, {**rows[0], "case_id": "arch-999", "verdict": "pass"}),
            "case arch::arch-999::council is not an expert-review case of this run",
        ),
        (lambda rows: rows.__setitem__(0, {**rows[0], "verdict": "maybe"}), "verdict must be 'pass' or 'fail'"),
        (lambda rows: rows.__setitem__(0, {**rows[0], "verdict": "pass", "reviewer": ""}), "no reviewer"),
    ],
)
def test_bad_sheet_changes_nothing(run_dir: Path, tmp_path: Path, edit, message: str) -> None:  # noqa: ANN001
    run = load_run(run_dir)
    sheet = tmp_path / "sheet.csv"
    write_sheet(run.results, sheet)
    rows = list(csv.DictReader(sheet.open()))
    edit(rows)
    with sheet.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    before = (run_dir / "results.jsonl").read_bytes()
    with pytest.raises(StoreError) as err:
        apply_sheet(run_dir, run.results, sheet, tmp_path / "g.json")
    assert message in str(err.value) and "sheet.csv:2" in str(err.value)
    assert not (run_dir / "reviews.json").exists() and not (tmp_path / "g.json").exists()
    assert (run_dir / "results.jsonl").read_bytes() == before


def test_malformed_sheet_via_cli(run_dir: Path, tmp_path: Path) -> None:
    cli = Path(sys.executable).with_name("council-harness")
    out = subprocess.run([str(cli), "review", str(run_dir)], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0 and "2 expert-review row(s), 2 awaiting a verdict" in out.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text("case,who\narch-001,ana\n")
    out = subprocess.run(
        [str(cli), "review", str(run_dir), "--apply", str(bad)], capture_output=True, text=True, cwd=tmp_path
    )
    assert out.returncode == 2
    assert out.stderr.startswith("error: ") and "missing column(s)" in out.stderr and "bad.csv:1" in out.stderr
    assert "Traceback" not in out.stderr
    assert not (run_dir / "reviews.json").exists()


def test_sheet_neutralises_formulas_and_shows_controls(tmp_path: Path) -> None:
    """Issue 10 items 10 and 16: formula cells get a leading quote, bidi/control characters are shown as
    ``⟨U+XXXX⟩``, and a filled sheet still matches case ids that start with a formula character."""
    d = tmp_path / "reports" / "runs" / "r1"
    w = RunWriter(d)
    w.write_manifest(
        Manifest(run_id="r1", started_at="2026-11-25T10:00:00Z", datasets=("arch",), subjects=("council",))
    )
    w.add(
        [
            _result("-001", "expert_review", '=HYPERLINK("http://evil.example","click")', "awaiting_review"),
            _result("@two", "expert_review", "\u202e24 si rewsna ehT\u202c and a bell\x07", "awaiting_review"),
        ]
    )
    run = load_run(d)
    sheet = tmp_path / "sheet.csv"
    assert write_sheet(run.results, sheet) == 2
    rows = {r["case_id"]: r for r in csv.DictReader(sheet.open(encoding="utf-8"))}
    assert set(rows) == {"'-001", "'@two"}
    assert rows["'-001"]["answer_excerpt"] == "'" + '=HYPERLINK("http://evil.example","click")'
    assert rows["'@two"]["answer_excerpt"] == "⟨U+202E⟩24 si rewsna ehT⟨U+202C⟩ and a bell⟨U+0007⟩"
    assert "\u202e" not in sheet.read_text(encoding="utf-8")
    _fill(sheet, {"'-001": ("pass", "=fine"), "'@two": ("fail", "reversed text")})
    new = apply_sheet(d, run.results, sheet, tmp_path / "g.json")
    assert set(new) == {("arch", "-001", "council"), ("arch", "@two", "council")}
    merged = {r.case_id: r for r in load_run(d).results}
    assert merged["-001"].status == "passed" and merged["@two"].status == "failed"
    # a spreadsheet that dropped the protective quote on save still matches
    rows2 = list(csv.DictReader(sheet.open(encoding="utf-8")))
    for row in rows2:
        row["case_id"] = row["case_id"].lstrip("'")
    with sheet.open("w", newline="", encoding="utf-8") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows2[0]))
        wr.writeheader()
        wr.writerows(rows2)
    assert set(apply_sheet(d, run.results, sheet, tmp_path / "g.json")) == set(new)


def test_apply_rewrites_results_jsonl_and_keeps_every_other_line(run_dir: Path, tmp_path: Path) -> None:
    """``review --apply`` leaves ``results.jsonl`` saying the verdict, not ``awaiting_review``."""
    results_file = run_dir / "results.jsonl"
    with results_file.open("ab") as fh:
        fh.write(b'{"truncated": \xff\n')  # an unreadable line stays, byte for byte, for the gate to count
    before = results_file.read_bytes().splitlines(keepends=True)
    run = load_run(run_dir)
    sheet = tmp_path / "sheet.csv"
    write_sheet(run.results, sheet)
    _fill(sheet, {"arch-002": ("fail", "ignores team size")})
    apply_sheet(run_dir, run.results, sheet, tmp_path / "g.json")
    after = results_file.read_bytes().splitlines(keepends=True)
    assert len(after) == len(before) == 4
    assert after[0] == before[0] and after[2] == before[2] and after[3] == before[3]
    changed = CaseResult.model_validate_json(after[1])
    assert changed.case_id == "arch-002" and changed.status == "failed"
    assert changed.review is not None and changed.review.note == "ignores team size"
    assert load_run(run_dir).corrupt_lines == [4]
