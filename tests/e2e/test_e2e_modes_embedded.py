"""Issue 29 on the embedded models: council modes through the command, their report in Chromium.

The command is ``council-harness run --suite reasoning-100 --limit 10 --subjects
council,council:debate,council+dissent,debate:2,self-consistency:smollm2-precise`` on the embedded
llama.cpp models. Two ways of checking it, with the same checks (every (case, subject) pair with its
mode record, the band table in ``summary.json``; in headless Chromium every subject's usage row, the
mode summaries, the remediation band table and the quality-per-cost chart):

* **the recorded run** (plain ``pytest``, no model call): ``tests/fixtures/modes_run/`` holds the run
  folder that command wrote cold on 2 shared cores (``manifest.json``, ``summary.json`` and
  ``results.jsonl.gz``; the figures are in docs/modes.md). The test copies it, rebuilds its report with
  ``council-harness report`` (the report of today's code on the recorded answers) and checks it. To
  re-record: run the command with ``LLM_COUNCIL_REPORTS_DIR`` and ``LLM_COUNCIL_CACHE_PATH`` in a fresh
  folder, then copy ``manifest.json`` and ``summary.json`` of its run folder here and
  ``gzip -9 -c results.jsonl > results.jsonl.gz``;
* **the cold run** (marked ``matrix`` and ``slow``: ``pytest -m matrix``; about 36 minutes on 2 shared
  cores): the command itself in a fresh reports folder and cache. ``HARNESS_MATRIX_LIMIT`` changes the
  number of challenges (default 10, as in the issue); ``HARNESS_MODES_RUN`` names a run folder of the
  command already made, to check it without running again.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.run.ledger import SCORING
from tests.chromium import Browser, Tab, chromium_path
from tests.cli_env import harness_env
from tests.e2e.suite_run import ROOT, run_suite, texts

pytestmark = [
    pytest.mark.skipif(
        chromium_path() is None and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
        reason="chromium is not installed (Debian: apt-get install -y chromium); set HARNESS_REQUIRE_BROWSER=1 to fail",
    ),
]

LIMIT = int(os.environ.get("HARNESS_MATRIX_LIMIT", "10"))
RECORDED = ROOT / "tests" / "fixtures" / "modes_run"
RECORDED_LIMIT = 10
SUBJECTS = ("council", "council:debate", "council+dissent", "debate:2", "self-consistency:smollm2-precise")


def check_run_folder(run_dir: Path, limit: int) -> None:
    """Every (case, subject) pair, each mode's record, the band table in ``summary.json``."""
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest.get("partial") is not True
    assert manifest["subjects"] == list(SUBJECTS) and manifest["planned"] == limit * len(SUBJECTS)
    results = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines() if line.strip()]
    pairs = {(r["case_id"], r["subject"]) for r in results}
    assert len(pairs) == limit * len(SUBJECTS)
    kinds = {r["subject"]: (r.get("transcript") or {}).get("mode", {}) or {} for r in results}
    assert kinds["council:debate"].get("kind") == "debate"
    assert kinds["council+dissent"].get("kind") == "dissent"
    assert kinds["debate:2"].get("kind") == "multi_round" and kinds["debate:2"]["rounds"] == 2
    summary = json.loads((run_dir / "summary.json").read_text())
    bands = summary["remediation"]["bands"]
    assert [b["mode"] for b in bands] == ["council+dissent", "council:debate"]
    assert sum(b["cases"] for b in bands) <= limit and all(b["confidence"] == 0.975 for b in bands)


def check_report_page(page: Tab) -> None:
    """Every subject's usage row (and the judge's), the mode summaries, the band table, the chart."""
    assert sorted(texts(page, "#usage-ledger tr td:first-child")) == sorted([*SUBJECTS, SCORING])
    assert set(texts(page, "#mode-summaries tr td:first-child")) == {"council:debate", "council+dissent", "debate:2"}
    assert texts(page, "#remediation-bands tr td:first-child") == ["CSS 0.50-0.69", "below CSS 0.50"]
    size = page.evaluate(
        "(() => { const r = document.querySelector('#quality-per-cost svg.chart')"
        ".getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; })()"
    )
    assert size[0] > 200 and size[1] > 100, size
    assert page.errors() == []


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recorded run folder, copied, with its report rebuilt by ``council-harness report``."""
    run_dir = tmp_path_factory.mktemp("modes-recorded") / "run"
    run_dir.mkdir()
    for name in ("manifest.json", "summary.json"):
        shutil.copy(RECORDED / name, run_dir / name)
    (run_dir / "results.jsonl").write_bytes(gzip.decompress((RECORDED / "results.jsonl.gz").read_bytes()))
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", "report", str(run_dir)],
        cwd=run_dir.parent,
        env=harness_env(PYTHONDONTWRITEBYTECODE="1"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 1: the recorded run's gate failed
    assert (run_dir / "index.html").is_file()
    return run_dir


@pytest.fixture(scope="module")
def cold_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if existing := os.environ.get("HARNESS_MODES_RUN"):
        return Path(existing)
    return run_suite(tmp_path_factory.mktemp("modes"), LIMIT, SUBJECTS, timeout=10700)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as b:
        yield b


def test_the_recorded_run_completed_every_pair_with_mode_records(recorded_run: Path) -> None:
    check_run_folder(recorded_run, RECORDED_LIMIT)


def test_the_recorded_run_report_has_the_modes_panel_band_table_ledger_and_chart(
    recorded_run: Path, browser: Browser
) -> None:
    check_report_page(browser.open(recorded_run / "index.html"))


@pytest.mark.matrix
@pytest.mark.slow
@pytest.mark.timeout(10800)
def test_the_cold_run_completed_every_pair_with_mode_records(cold_run: Path) -> None:
    check_run_folder(cold_run, LIMIT)


@pytest.mark.matrix
@pytest.mark.slow
@pytest.mark.timeout(10800)
def test_the_cold_run_report_has_the_modes_panel_band_table_ledger_and_chart(cold_run: Path, browser: Browser) -> None:
    check_report_page(browser.open(cold_run / "index.html"))
