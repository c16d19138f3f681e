"""The HTML report in a real headless Chromium: it renders, logs no error, fetches nothing, stays inert.

Uses Debian's ``chromium`` (``apt-get install -y chromium``) through :mod:`tests.chromium` (Playwright). Without a
Chromium on the machine these tests are skipped, unless ``HARNESS_REQUIRE_BROWSER=1`` (then they fail).
The run is the hand-made one of :mod:`tests.report.test_report`, whose council texts for ``capital-x`` are
hostile HTML/JS (``<script>``, ``onerror``, ``javascript:`` links, ``onload``) that try to set
``window.__pwned`` and open ``alert`` dialogs.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.report.html import write_report
from tests.chromium import Browser, Tab, chromium_path
from tests.report.test_report import HOSTILE, build_run, make_comparison, make_prediction

pytestmark = pytest.mark.skipif(
    chromium_path() is None and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
    reason="chromium is not installed (Debian: apt-get install -y chromium); set HARNESS_REQUIRE_BROWSER=1 to fail",
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    run = build_run(root)
    return write_report(run, root / "report.html", prediction=make_prediction(), comparison=make_comparison(run))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as b:
        yield b


@pytest.fixture(scope="module")
def page(browser: Browser, report: Path) -> Tab:
    return browser.open(report)


def _visible(page: Tab) -> list[str]:
    return page.evaluate(
        "Array.from(document.querySelectorAll('#matrix tbody tr')).filter(r => !r.hidden).map(r => r.dataset.caseId)"
    )


def _reset_filters(page: Tab) -> None:
    page.evaluate(
        "(() => { document.querySelectorAll('input[data-filter]').forEach(b => { b.checked = false; });"
        "const s = document.getElementById('case-search'); s.value = '';"
        "s.dispatchEvent(new Event('input')); })()"
    )


def test_page_renders_the_matrix_panels_and_charts(page: Tab) -> None:
    assert page.evaluate("document.title") == "council-harness · run 20250101-100000-abcd"
    assert _visible(page) == ["arith-1", "arith-2", "boom-1", "capital-x", "essay-1"]
    # the primary verdict is a card above the table; the table holds the secondary (exploratory) verdicts
    assert page.evaluate("document.querySelectorAll('#prediction-table tbody tr.family-row').length") == 1
    assert (
        page.evaluate("document.querySelector('#primary-verdict .headline .badge').textContent")
        == "not enough evidence either way"
    )
    assert page.evaluate("document.querySelectorAll('figure svg.chart').length") == 3
    # the charts drew: every chart has a non-zero rendered size
    sizes = page.evaluate(
        "Array.from(document.querySelectorAll('svg.chart')).map(s => s.getBoundingClientRect())"
        ".map(r => [Math.round(r.width), Math.round(r.height)])"
    )
    assert all(w > 200 and h > 100 for w, h in sizes), sizes
    assert page.evaluate("document.getElementById('shown-count').textContent") == "5 of 5 cases shown"


def test_verdicts_are_visible_at_420_px(report: Path) -> None:
    """On a narrow screen the primary verdict and each secondary row's verdict (its first column) are on screen."""
    with Browser(width=420, height=900) as narrow:
        small = narrow.open(report)
        boxes = small.evaluate(
            "[document.querySelector('#primary-verdict .badge'),"
            " ...document.querySelectorAll('#prediction-table tbody tr.family-row td:first-child .badge')]"
            ".map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right, r.width]; })"
        )
    assert len(boxes) == 2
    assert all(0 <= left and right <= 420 and width > 0 for left, right, width in boxes), boxes


def test_console_has_no_errors_and_no_request_but_the_document(page: Tab, report: Path) -> None:
    assert page.errors() == []
    assert not [text for _level, text in page.console if "Content Security Policy" in text]
    assert page.requests == [report.resolve().as_uri()] and page.blocked == {}


def test_hostile_model_output_is_inert_text(page: Tab) -> None:
    assert page.dialogs == []
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('img, iframe, object, embed, a[href^=\"javascript\"]').length") == 0
    assert page.evaluate("document.querySelectorAll('[onerror], [onload], [onclick]').length") == 0
    assert page.evaluate("document.scripts.length") == 1
    final = page.evaluate(
        "document.querySelector('#case-mini-capital-x .subject[data-subject=\"council\"] pre.final').textContent"
    )
    assert final == HOSTILE  # shown exactly as the model wrote it, as text


def test_filters_hide_rows_that_do_not_match(page: Tab) -> None:
    _reset_filters(page)
    page.click("#filter-failing")
    assert _visible(page) == ["arith-1", "boom-1", "capital-x"]  # a failed or errored subject
    page.click("#filter-regressed")
    assert _visible(page) == ["capital-x"]  # failing and regressed
    assert page.evaluate("document.getElementById('shown-count').textContent") == "1 of 5 cases shown"
    page.click("#filter-failing")
    page.click("#filter-regressed")
    assert len(_visible(page)) == 5
    page.click("#filter-differ")
    assert _visible(page) == ["arith-1", "boom-1", "capital-x"]  # council and baseline statuses differ
    page.click("#filter-differ")
    page.focus("#case-search")
    page.keyboard.insert_text("ARITH")
    assert _visible(page) == ["arith-1", "arith-2"]
    _reset_filters(page)
    assert len(_visible(page)) == 5


def test_case_link_opens_its_transcript_and_expand_all_opens_every_case(page: Tab) -> None:
    assert page.evaluate("document.getElementById('case-mini-capital-x').open") is False
    page.click('#matrix a[href="#case-mini-capital-x"]')
    assert page.evaluate("location.hash") == "#case-mini-capital-x"
    assert page.evaluate("document.getElementById('case-mini-capital-x').open") is True
    page.click('button[data-details="open"]')
    assert page.evaluate("Array.from(document.querySelectorAll('details.case')).every(d => d.open)") is True
    page.click('button[data-details="close"]')
    assert page.evaluate("Array.from(document.querySelectorAll('details.case')).some(d => d.open)") is False
    assert page.dialogs == [] and page.evaluate("typeof window.__pwned") == "undefined"
    assert page.errors() == []


def test_csp_blocks_injected_scripts_and_loads(browser: Browser, report: Path) -> None:
    """Even markup that got past escaping could not run or fetch: the policy refuses it."""
    tab = browser.open(report)
    tab.evaluate(
        "(() => { document.body.insertAdjacentHTML('beforeend', '<img id=\"probe\" src=\"http://127.0.0.1:9/x.png\">');"
        "const s = document.createElement('script'); s.textContent = 'window.__pwned = 5'; document.head.append(s);"
        "})()"
    )
    try:
        errors = tab.errors()
        assert tab.evaluate("typeof window.__pwned") == "undefined"
        assert any("Content Security Policy" in e and "img-src" in e for e in errors), errors
        assert any("Content Security Policy" in e and "script-src" in e for e in errors), errors
        # the image was refused by the policy before any request went out
        assert tab.blocked == {"http://127.0.0.1:9/x.png": "csp"}
        assert tab.sent() == [report.resolve().as_uri()]
    finally:
        tab.close()


def test_screenshot_is_a_full_width_png(page: Tab, tmp_path: Path) -> None:
    _reset_filters(page)
    page.evaluate("window.scrollTo(0, 0)")
    data = page.screenshot(path=tmp_path / "report.png")
    assert (tmp_path / "report.png").read_bytes() == data
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1400, 1000)
    keep = os.environ.get("HARNESS_SCREENSHOT_DIR")
    if keep:
        page.screenshot(path=Path(keep) / "report-top.png")
        page.screenshot(path=Path(keep) / "report-full.png", full_page=True)


@pytest.fixture(scope="module")
def large(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Tab:
    """A 350-case run (every 7th case failing): more rows than a page, more cases than DETAIL_LIMIT."""
    from harness.report.view import DETAIL_LIMIT, PAGE_ROWS
    from harness.run.result import CaseResult
    from harness.run.runs import RunWriter, load_run
    from tests.report.test_report import make_manifest

    assert (PAGE_ROWS, DETAIL_LIMIT) == (100, 300)
    root = tmp_path_factory.mktemp("large")
    writer = RunWriter(root / "run")
    writer.write_manifest(make_manifest().model_copy(update={"subjects": ("baseline",)}))
    writer.add(
        [
            CaseResult(
                case_id=f"c{i:04d}", dataset="big", subject="baseline", status="failed" if i % 7 == 0 else "passed"
            )
            for i in range(1, 351)
        ]
    )
    return browser.open(write_report(load_run(root / "run"), root / "large.html"))


def test_large_matrix_pages_through_100_rows_and_keeps_300_transcripts(large: Tab) -> None:
    visible = _visible(large)
    assert len(visible) == 100 and visible[0] == "c0001" and visible[-1] == "c0100"
    assert large.evaluate("document.getElementById('page-info').textContent") == "page 1 of 4"
    large.click("#page-next")
    assert _visible(large)[0] == "c0101" and large.evaluate("document.getElementById('page-prev').disabled") is False
    large.click("#filter-failing")  # 50 failing cases: one page, the pager hides itself
    assert _visible(large) == [f"c{i:04d}" for i in range(7, 351, 7)]
    assert large.evaluate("document.getElementById('pager').hidden") is True
    large.click("#filter-failing")
    assert large.evaluate("document.getElementById('page-info').textContent") == "page 1 of 4"
    # transcripts: the 50 failing cases first, then the others in order up to 300; only they are linked
    assert large.evaluate("document.querySelectorAll('details.case').length") == 300
    assert large.evaluate("document.querySelectorAll('#matrix a[href^=\"#case-\"]').length") == 300
    assert large.evaluate("!!document.querySelector('#matrix tr[data-case-id=\"c0350\"] a')") is True  # failing
    assert large.evaluate("!!document.querySelector('#matrix tr[data-case-id=\"c0349\"] a')") is False
    assert large.errors() == []


def _sort_by(page: Tab, label: str) -> list[str]:
    page.evaluate(
        "(() => { const s = document.getElementById('case-sort');"
        f" const o = Array.from(s.options).find(o => o.textContent === {label!r});"
        " s.value = o ? o.value : ''; s.dispatchEvent(new Event('change')); })()"
    )
    return page.evaluate("Array.from(document.querySelectorAll('#matrix tbody tr')).map(r => r.dataset.caseId)")


def test_matrix_sorts_by_a_subjects_status_or_score(page: Tab) -> None:
    _reset_filters(page)
    by_status = _sort_by(page, "council: status (failing first)")
    assert by_status == ["boom-1", "capital-x", "essay-1", "arith-1", "arith-2"]
    # no value (an errored case, an essay) sorts last, in case order
    by_correct = _sort_by(page, "council: correct (highest first)")
    assert by_correct == ["arith-1", "arith-2", "capital-x", "boom-1", "essay-1"]
    page.click("#filter-failing")
    assert _visible(page) == ["arith-1", "capital-x", "boom-1"]  # filters keep the sorted order
    page.click("#filter-failing")
    assert _sort_by(page, "case (dataset, id)") == ["arith-1", "arith-2", "boom-1", "capital-x", "essay-1"]
