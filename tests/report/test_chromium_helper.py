"""The Playwright helper (``tests/chromium.py``) leaves nothing running: after a ``Browser`` is left, the
thread has no running event loop, so later tests can call ``asyncio.run`` (the harness's own runs do).
A Playwright kept for the whole process made 49 later tests fail with "asyncio.run() cannot be called
from a running event loop"."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tests.chromium import Browser, chromium_path

pytestmark = pytest.mark.skipif(
    chromium_path() is None and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
    reason="chromium is not installed (Debian: apt-get install -y chromium); set HARNESS_REQUIRE_BROWSER=1 to fail",
)


def test_no_event_loop_is_left_running_after_a_browser(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text("<!doctype html><title>t</title><p id=x>42</p>", encoding="utf-8")
    with Browser(width=400, height=300) as browser:
        assert browser.open(page).evaluate("document.getElementById('x').textContent") == "42"
    assert asyncio.run(asyncio.sleep(0, result=7)) == 7
    with Browser() as again:  # and a second one starts cleanly after the first stopped
        assert again.open(page).evaluate("document.title") == "t"
    assert asyncio.run(asyncio.sleep(0, result=8)) == 8
