"""Views never write into the run they show: ``report`` and ``diff --html`` write only their own output
(issue 31). ``summary.json``, ``results.jsonl`` and the manifest stay byte for byte as the run left them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.config import load_settings
from harness.finish import finish_run
from harness.run.runs import load_run
from tests.builders import result, run_folder
from tests.cli_env import clear_harness_env

CLI = Path(sys.executable).parent / "council-harness"


def _snapshot(run_dir: Path) -> dict[str, tuple[bytes, int, int]]:
    """Each file's bytes, inode and modification time: a rewrite with the same bytes (an atomic replace
    makes a new inode) is still a write."""
    return {
        p.name: (p.read_bytes(), p.stat().st_ino, p.stat().st_mtime_ns)
        for p in sorted(run_dir.iterdir())
        if p.is_file() and not p.name.endswith(".lock")
    }


@pytest.fixture
def finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    clear_harness_env(monkeypatch)
    a = run_folder(
        tmp_path,
        "run-a",
        [
            result("c1", answer="Paris", scores={"correct": 1.0}),
            result("c2", status="failed", answer="Lyon", scores={"correct": 0.0}),
        ],
    )
    b = run_folder(
        tmp_path,
        "run-b",
        [
            result("c1", status="failed", answer="Marseille", scores={"correct": 0.0}),
            result("c2", answer="Paris", scores={"correct": 1.0}),
        ],
    )
    for run in (a, b):  # finished as `run` finishes a run: summary.json written
        finish_run(load_run(run), load_settings())
    return a, b


def test_a_finished_run_has_its_summary(finished: tuple[Path, Path]) -> None:
    a, _ = finished
    assert {"summary.json", "results.jsonl", "manifest.json", "index.html"} <= set(_snapshot(a))


def test_report_with_output_writes_only_the_output(finished: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = finished
    before = _snapshot(a), _snapshot(b)
    proc = subprocess.run(
        [str(CLI), "report", str(b), "--output", str(tmp_path / "view.html"), "--against", str(a)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stderr  # the gate's code: c1 fails in run b
    assert "Marseille" in (tmp_path / "view.html").read_text(encoding="utf-8")
    assert (_snapshot(a), _snapshot(b)) == before


def test_diff_html_writes_only_the_html(finished: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = finished
    before = _snapshot(a), _snapshot(b)
    proc = subprocess.run(
        [str(CLI), "diff", str(a), str(b), "--html", str(tmp_path / "d.html")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stderr  # c1 newly failing
    assert (tmp_path / "d.html").is_file()
    assert (_snapshot(a), _snapshot(b)) == before


def test_a_view_cannot_update_the_baseline(finished: tuple[Path, Path]) -> None:
    _, b = finished
    with pytest.raises(ValueError, match="cannot be a view"):
        finish_run(load_run(b), load_settings(), update_baseline=True, persist=False)
