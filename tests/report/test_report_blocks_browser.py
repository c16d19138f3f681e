"""Drill-down sections in headless Chromium at 1400 and 420 px: a block's sections start collapsed under
their summaries, open to a table, and a wide table scrolls inside its box instead of widening the page.
Skipped without Chromium, as :mod:`tests.report.test_report_browser`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.bias.audit import audit_session
from harness.report.html import write_report
from harness.run.runs import load_run
from tests.builders import result, run_folder
from tests.chromium import Browser, chromium_path
from tests.report.test_report_blocks import _council_transcript

pytestmark = pytest.mark.skipif(
    chromium_path() is None and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
    reason="chromium is not installed (Debian: apt-get install -y chromium); set HARNESS_REQUIRE_BROWSER=1 to fail",
)

OPEN_ALL = (
    "document.querySelectorAll('#case-d-c1, #case-d-c1 details.block').forEach(d => { d.open = true; });"
    "const g = document.querySelector('#case-d-c1 details.group'); g.open = true;"
)
GROUP = (
    "(() => { const g = document.querySelector('#case-d-c1 details.group'); const t = g.querySelector('table');"
    " const r = t.closest('.scroll').getBoundingClientRect();"
    " return [g.querySelector('summary').textContent.trim(), t.rows.length, r.left, r.right,"
    " document.documentElement.scrollWidth]; })()"
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("blocks")
    t = _council_transcript()
    run = run_folder(root, "r", [result("c1", transcript=t, bias=audit_session(t))], datasets=(), finished_at=None)
    return write_report(load_run(run), root / "report.html")


@pytest.mark.parametrize("width", [1400, 420])
def test_sections_start_collapsed_and_tables_stay_inside_the_page(report: Path, width: int) -> None:
    with Browser(width=width, height=900) as browser:
        page = browser.open(report)
        groups = page.evaluate(
            "Array.from(document.querySelectorAll('#case-d-c1 details.group'))"
            ".map(g => [g.querySelector('summary').textContent.trim(), g.open])"
        )
        assert groups and not any(is_open for _, is_open in groups)
        assert groups[0][0] == "scores 6 rows"
        closed_width = page.evaluate("document.documentElement.scrollWidth")
        page.evaluate(OPEN_ALL)
        summary, rows, left, right, page_width = page.evaluate(GROUP)
        assert (summary, rows) == ("scores 6 rows", 7)  # the header and one row per reviewer score
        # the table's box is on screen and opening the drill-down does not widen the page (at 420 px the
        # subjects' grid column used to be 440 px wide)
        assert 0 <= left and right <= width and page_width == closed_width
        assert page.errors() == []
