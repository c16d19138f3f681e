"""Open local HTML files in headless Chromium through Playwright, recording console, requests and dialogs.

Playwright's Python API drives Debian's ``chromium`` package (``executable_path``), so no browser is
downloaded. Chromium is started (with Playwright) when the first :class:`Browser` is entered and
stopped when the last one open is left; each is a fresh browser context (own viewport, storage and
tabs). Playwright's sync API runs an event loop in the calling thread while it is started, so one
kept for the whole process would make every later ``asyncio.run`` in that thread fail ("cannot be
called from a running event loop"): the harness's own runs, in the tests that follow. A :class:`Tab`
records, from before navigation:

* ``console``: console API calls, uncaught page errors and browser log entries (CSP violations are
  logged there as errors), each as ``(level, text)``;
* ``requests``: every URL the page tried to load (the document included); ``blocked`` maps those the
  browser refused before sending to the reason (Playwright's ``request.failure`` is then Chromium's
  ``blockedReason``, e.g. ``csp``, where a failed load reads ``net::ERR_...``);
* ``dialogs``: every ``alert``/``confirm``/``prompt`` opened (each is dismissed so the page goes on).

Everything else (``evaluate``, ``click``, ``screenshot``, ``keyboard``, ...) is Playwright's own
:class:`playwright.sync_api.Page`, reached through the tab::

    with Browser(width=420) as browser:
        tab = browser.open(Path("report.html"))
        tab.evaluate("document.title")
        tab.click("#filter-failing")
        tab.screenshot(path="shot.png")
        tab.errors()  # console messages at level error
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser as Chromium
from playwright.sync_api import BrowserContext, sync_playwright
from playwright.sync_api import Page as PlaywrightPage

#: Flags for a quiet, sandbox-free, offline headless Chromium (running as root in CI).
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--no-first-run",
    "--mute-audio",
    "--hide-scrollbars",
)
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT_MS = 30_000


def chromium_path() -> str | None:
    """The Chromium executable: ``$CHROMIUM`` when set, else the first of :data:`CANDIDATES` on PATH."""
    env = os.environ.get("CHROMIUM")
    if env:
        return env if Path(env).exists() else shutil.which(env)
    return next((p for p in map(shutil.which, CANDIDATES) if p), None)


#: the running Playwright and Chromium, and how many Browsers use them (the last one out stops them)
_shared: list[Any] = []


def _acquire() -> Chromium:
    """The running Chromium, started (with Playwright) when no :class:`Browser` holds it."""
    if not _shared:
        found = chromium_path()
        if not found:
            raise RuntimeError("chromium is not installed (Debian: apt-get install -y chromium)")
        playwright = sync_playwright().start()
        try:
            browser = playwright.chromium.launch(
                executable_path=found, args=list(CHROMIUM_ARGS), headless=True, timeout=TIMEOUT_MS
            )
        except BaseException:
            playwright.stop()
            raise
        _shared[:] = [playwright, browser, 0]
    _shared[2] += 1
    return _shared[1]


def _release() -> None:
    """One :class:`Browser` fewer; the last stops Chromium and Playwright (no event loop is left running)."""
    _shared[2] -= 1
    if _shared[2] == 0:
        playwright, browser, _ = _shared
        _shared.clear()
        try:
            browser.close()
        finally:
            playwright.stop()


def _blocked_reason(failure: str | None) -> str | None:
    """The reason a request was refused before it was sent (``csp``, ...), or ``None`` for a failed load."""
    return failure if failure and not failure.startswith("net::") else None


@dataclass
class Tab:
    """One Playwright page and what it recorded; other attributes are the page's own."""

    page: PlaywrightPage
    console: list[tuple[str, str]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    blocked: dict[str, str] = field(default_factory=dict)
    dialogs: list[tuple[str, str]] = field(default_factory=list)
    _pending: set[Any] = field(default_factory=set)

    def __post_init__(self) -> None:
        page = self.page
        page.on(
            "console", lambda m: self.console.append(("error" if m.type in ("error", "assert") else m.type, m.text))
        )
        page.on("pageerror", lambda exc: self.console.append(("error", str(exc))))
        page.on("request", self._request)
        page.on("requestfinished", lambda r: self._pending.discard(r))
        page.on("requestfailed", self._failed)
        page.on("dialog", self._dialog)

    def _request(self, request: Any) -> None:
        self.requests.append(request.url)
        self._pending.add(request)

    def _failed(self, request: Any) -> None:
        self._pending.discard(request)
        reason = _blocked_reason(request.failure)
        if reason:
            self.blocked[request.url] = reason

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append((dialog.type, dialog.message))
        dialog.dismiss()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.page, name)

    def settle(self) -> None:
        """Wait until the events sent before now are delivered and every request seen has finished or failed
        (a refused request's ``requestfailed`` comes after its console message)."""
        self.page.evaluate("0")  # a round trip: events sent before it have been delivered
        waited = 0
        while self._pending and waited < TIMEOUT_MS:
            self.page.wait_for_timeout(20)  # lets Playwright dispatch the events that arrive meanwhile
            waited += 20

    def errors(self) -> list[str]:
        """The text of every console message, page error or log entry at level ``error`` (after :meth:`settle`)."""
        self.settle()
        return [text for level, text in self.console if level == "error"]

    def sent(self) -> list[str]:
        """The URLs that actually went out: every attempt except those the browser blocked (after :meth:`settle`)."""
        self.settle()
        return [u for u in self.requests if u not in self.blocked]


class Browser:
    """A fresh browser context in headless Chromium (started for the first Browser open, stopped with the
    last); use as a context manager.

    Args:
        width, height: the viewport of its tabs, in CSS pixels.
    """

    def __init__(self, width: int = 1400, height: int = 1000) -> None:
        self.width, self.height = width, height
        self._context: BrowserContext | None = None

    def __enter__(self) -> Browser:
        chromium = _acquire()
        try:
            self._context = chromium.new_context(viewport={"width": self.width, "height": self.height})
            self._context.set_default_timeout(TIMEOUT_MS)
        except BaseException:
            _release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._context is not None:
                self._context.close()
        finally:
            if self._context is not None:
                self._context = None
                _release()

    def open(self, path: Path | str) -> Tab:
        """A new tab navigated to ``path`` (a file), loaded, with its events recorded from the start."""
        assert self._context is not None, "use Browser as a context manager"
        tab = Tab(self._context.new_page())
        tab.page.goto(Path(path).resolve().as_uri(), wait_until="load")
        tab.settle()
        return tab
