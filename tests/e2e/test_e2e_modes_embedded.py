"""Issue 29 on the embedded models: council modes through the command, their report in Chromium.

Runs ``council-harness run --suite reasoning-100 --limit 10 --subjects
council,council:debate,council+dissent,debate:2,self-consistency:smollm2-precise`` cold on the embedded
llama.cpp models, then opens the report in headless Chromium and checks every subject's usage row, the
mode summaries, the remediation band table and the quality-per-cost chart.

Marked ``matrix`` (and ``slow``): plain ``pytest`` deselects it; run it with ``pytest -m matrix``.
``HARNESS_MATRIX_LIMIT`` changes the number of challenges (default 10, as in the issue);
``HARNESS_MODES_RUN`` names a run folder of that command already made, to check it without running again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.run.ledger import SCORING
from tests.chromium import Browser, Tab, chromium_path
from tests.e2e.suite_run import run_suite, texts

pytestmark = [
    pytest.mark.matrix,
    pytest.mark.slow,
    pytest.mark.timeout(10800),
    pytest.mark.skipif(
        chromium_path() is None and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
        reason="chromium is not installed (Debian: apt-get install -y chromium); set HARNESS_REQUIRE_BROWSER=1 to fail",
    ),
]

LIMIT = int(os.environ.get("HARNESS_MATRIX_LIMIT", "10"))
SUBJECTS = ("council", "council:debate", "council+dissent", "debate:2", "self-consistency:smollm2-precise")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if existing := os.environ.get("HARNESS_MODES_RUN"):
        return Path(existing)
    return run_suite(tmp_path_factory.mktemp("modes"), LIMIT, SUBJECTS, timeout=10700)


@pytest.fixture(scope="module")
def page(run_dir: Path) -> Iterator[Tab]:
    with Browser() as browser:
        yield browser.open(run_dir / "index.html")


def test_the_run_completed_every_pair_with_mode_records(run_dir: Path) -> None:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest.get("partial") is not True
    results = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines() if line.strip()]
    pairs = {(r["case_id"], r["subject"]) for r in results}
    assert len(pairs) == LIMIT * len(SUBJECTS)
    kinds = {r["subject"]: (r.get("transcript") or {}).get("mode", {}) or {} for r in results}
    assert kinds["council:debate"].get("kind") == "debate"
    assert kinds["council+dissent"].get("kind") == "dissent"
    assert kinds["debate:2"].get("kind") == "multi_round" and kinds["debate:2"]["rounds"] == 2
    summary = json.loads((run_dir / "summary.json").read_text())
    bands = summary["remediation"]["bands"]
    assert [b["mode"] for b in bands] == ["council+dissent", "council:debate"]
    assert sum(b["cases"] for b in bands) <= LIMIT and all(b["confidence"] == 0.975 for b in bands)


def test_modes_panel_band_table_ledger_and_chart(page: Tab) -> None:
    # every subject's row, and the judge's calls in their own row (harness.run.ledger.SCORING)
    assert sorted(texts(page, "#usage-ledger tr td:first-child")) == sorted([*SUBJECTS, SCORING])
    assert set(texts(page, "#mode-summaries tr td:first-child")) == {"council:debate", "council+dissent", "debate:2"}
    assert texts(page, "#remediation-bands tr td:first-child") == ["CSS 0.50-0.69", "below CSS 0.50"]
    size = page.evaluate(
        "(() => { const r = document.querySelector('#quality-per-cost svg.chart')"
        ".getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; })()"
    )
    assert size[0] > 200 and size[1] > 100, size
    assert page.errors() == []
