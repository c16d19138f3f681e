"""``council-harness validate``: every problem in every dataset file, with file:line, and no model call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.common.errors import DatasetError
from harness.data.cases import load_datasets
from harness.run.validate import validate

CLI = Path(sys.executable).parent / "council-harness"

GOOD = """\
golden_datasets:
  - name: good
    queries:
      - id: q1
        query: "What is 2 + 2?"
        expected: {type: numeric, value: 4}
"""

BAD = """\
golden_datasets:
  - name: bad
    queries:
      - id: q1
        qeury: "typo in the key"
      - id: q2
        query: "fine"
      - id: q3
        query: "also fine"
        minimum_scores: {nonsense: 1}
      - id: q2
        query: "duplicate id"
"""


def test_loader_collects_every_case_problem_in_a_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(BAD, encoding="utf-8")
    with pytest.raises(DatasetError) as info:
        load_datasets(f)
    problems = info.value.problems
    assert [p.where for p in problems] == [f"{f}:4", f"{f}:10", f"{f}:11"]
    assert "'query': required key is missing" in problems[0].message
    assert "'qeury': unknown key" in problems[0].message
    assert "unknown score name(s) ['nonsense']" in problems[1].message
    assert "duplicate case id 'q2' (first at" in problems[2].message
    # the one-line message names the first problem and how many more there are
    assert str(info.value).startswith(f"{f}:4: ")
    assert "(and 2 more problems; `council-harness validate` lists them all)" in str(info.value)
    assert "\n" not in str(info.value)


def test_validate_reports_all_problems_across_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "data" / "bad.yaml").write_text(BAD, encoding="utf-8")
    (tmp_path / "data" / "dup.yaml").write_text(GOOD, encoding="utf-8")  # same dataset name again
    result = validate([tmp_path / "data", tmp_path / "missing.yaml"])
    assert not result.ok
    wheres = [w for w, _ in result.problems]
    assert f"{tmp_path / 'data' / 'bad.yaml'}:4" in wheres
    assert str(tmp_path / "missing.yaml") in wheres
    dup = [m for w, m in result.problems if w == str(tmp_path / "data" / "good.yaml")]
    assert dup and "dataset name 'good' is also defined in" in dup[0]
    assert len(result.problems) == 5
    assert result.lines()[-1] == "5 problem(s) in 3 place(s); 3 dataset file(s) checked"


def test_validate_ok(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    result = validate([tmp_path / "good.yaml"])
    assert result.ok
    assert result.lines() == ["ok: 1 file(s), 1 dataset(s), 1 case(s)"]


def test_validate_command_exit_codes_and_output(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(BAD, encoding="utf-8")
    ok = subprocess.run([str(CLI), "validate", "good.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "ok: 1 file(s), 1 dataset(s), 1 case(s)"
    bad = subprocess.run([str(CLI), "validate", "good.yaml", "bad.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    lines = bad.stderr.strip().splitlines()
    assert lines[0].startswith("bad.yaml:4: ") and "'qeury'" in lines[0]
    assert lines[1].startswith("bad.yaml:10: ") and lines[2].startswith("bad.yaml:11: ")
    assert lines[-1] == "3 problem(s) in 1 place(s); 2 dataset file(s) checked"


def test_run_lists_every_problem_before_any_model_call(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(BAD, encoding="utf-8")
    proc = subprocess.run(
        [str(CLI), "run", "--data", "bad.yaml", "--cache-mode", "replay"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error: ")]
    assert [e.split(":")[1] for e in errors] == [" bad.yaml"] * 3
    assert not (tmp_path / "reports").exists()
