"""Open a local HTML file in headless Chromium and report what happened: console, requests, dialogs.

A small Chrome DevTools Protocol client over one websocket (the ``websockets`` package, sync API),
no browser-automation framework: Chromium is Debian's ``chromium`` package, started with
``--remote-debugging-port=0`` so it picks a free loopback port and writes it to
``<user-data-dir>/DevToolsActivePort``. Every page event is recorded from before navigation:

* ``console``: console API calls, uncaught exceptions and browser log entries (CSP violations are
  logged there as errors), each as ``(level, text)``;
* ``requests``: every URL the page tried to load (``Network.requestWillBeSent``), the document included;
  ``blocked`` maps those that the browser refused before sending (``Network.loadingFailed`` with a
  ``blockedReason``, e.g. ``csp``) to the reason;
* ``dialogs``: every ``alert``/``confirm``/``prompt`` opened (each is dismissed so the page goes on).

Usage::

    with Browser() as browser:
        page = browser.open(Path("report.html"))
        page.evaluate("document.title")
        page.click("#filter-failing")
        page.screenshot(Path("shot.png"))
        page.errors()  # console messages at level error
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

#: Flags for a quiet, sandbox-free, offline headless Chromium (running as root in CI).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class BrowserError(RuntimeError):
    """Chromium could not be started or did not answer in time."""


def chromium_path() -> str | None:
    """The Chromium executable: ``$CHROMIUM`` when set, else the first of :data:`CANDIDATES` on PATH."""
    env = os.environ.get("CHROMIUM")
    if env:
        return env if Path(env).exists() else shutil.which(env)
    return next((p for p in map(shutil.which, CANDIDATES) if p), None)


@dataclass
class Page:
    """One tab, attached through a flat CDP session.

    Args:
        browser: the owning :class:`Browser`.
        session_id: the CDP session of this tab.
        console: ``(level, text)`` of every console message, exception and log entry so far.
        requests: every URL the page tried to load so far.
        blocked: URL -> reason, for the attempts the browser refused before sending (``csp``, ...).
        dialogs: ``(type, message)`` of every JavaScript dialog opened so far.
    """

    browser: Browser
    session_id: str
    target_id: str = ""
    console: list[tuple[str, str]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    blocked: dict[str, str] = field(default_factory=dict)
    dialogs: list[tuple[str, str]] = field(default_factory=list)
    loaded: bool = False
    _ids: dict[str, str] = field(default_factory=dict)

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a CDP command to this tab and return its result."""
        return self.browser.send(method, params, session_id=self.session_id)

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page (awaits promises)."""
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in res:
            raise BrowserError(f"evaluating {expression!r} threw: {res['exceptionDetails'].get('text')}")
        return res["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) on the first element matching ``selector``.

        The click lands at the centre of the element's first box fragment (a wrapped link has several).
        """
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getClientRects()[0] || e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if box is None:
            raise BrowserError(f"no element matches {selector!r}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def type_text(self, selector: str, text: str) -> None:
        """Focus ``selector`` and type ``text`` as keyboard input."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", {"text": text})

    def screenshot(self, path: Path, *, full_page: bool = False, max_height: int = 8000) -> Path:
        """Save a PNG of the viewport (or of the whole page, up to ``max_height`` CSS pixels)."""
        self.send("Page.bringToFront")  # a background tab produces no frames to capture
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            metrics = self.send("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], max_height),
                              "scale": 1}
        data = self.send("Page.captureScreenshot", params)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def sent(self) -> list[str]:
        """The URLs that actually went out: every attempt except those the browser blocked."""
        self.browser.drain(self)
        return [u for u in self.requests if u not in self.blocked]

    def close(self) -> None:
        """Close this tab."""
        self.browser.send("Target.closeTarget", {"targetId": self.target_id})

    def errors(self) -> list[str]:
        """The text of every console message, exception or log entry at level ``error``."""
        self.browser.drain(self)
        return [text for level, text in self.console if level == "error"]


class Browser:
    """A headless Chromium with a DevTools connection; use as a context manager.

    Args:
        executable: the Chromium binary (default: :func:`chromium_path`).
        width, height: the viewport of new tabs, in CSS pixels.
        timeout: seconds to wait for start-up, each command and each page load.
    """

    def __init__(self, executable: str | None = None, width: int = 1400, height: int = 1000,
                 timeout: float = 30.0) -> None:
        found = executable or chromium_path()
        if not found:
            raise BrowserError("chromium is not installed (Debian: apt-get install -y chromium)")
        self.executable = found
        self.width, self.height, self.timeout = width, height, timeout
        self._profile: tempfile.TemporaryDirectory[str] | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._ws: ClientConnection | None = None
        self._stack = contextlib.ExitStack()
        self._next_id = 0
        self._pages: dict[str, Page] = {}

    # ------------------------------------------------------------ lifecycle

    def __enter__(self) -> Browser:
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-profile-")
        profile = Path(self._profile.name)
        self._proc = subprocess.Popen(
            [self.executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode(errors="replace")[-2000:] if self._proc.stderr else ""
                self._cleanup()
                raise BrowserError(f"chromium exited with {self._proc.returncode}: {err}")
            if time.monotonic() > deadline:
                self._cleanup()
                raise BrowserError(f"chromium did not open its DevTools port within {self.timeout} s")
            time.sleep(0.05)
        port, ws_path = port_file.read_text().splitlines()[:2]
        try:
            self._ws = self._stack.enter_context(connect(
                f"ws://127.0.0.1:{port}{ws_path}", max_size=64 * 1024 * 1024, open_timeout=self.timeout,
                ping_interval=None,
            ))
        except BaseException:
            self._cleanup()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._cleanup()

    def _cleanup(self) -> None:
        if self._ws is not None:
            try:
                self.send("Browser.close")
            except Exception:  # noqa: BLE001 - the browser may already be gone
                pass
            self._ws = None
        self._stack.close()
        if self._proc is not None:
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=5)
            if self._proc.stderr:
                self._proc.stderr.close()
        if self._profile is not None:
            self._profile.cleanup()
            self._profile = None

    # ------------------------------------------------------------ protocol

    def send(self, method: str, params: dict[str, Any] | None = None, *, session_id: str | None = None
             ) -> dict[str, Any]:
        """Send one command and wait for its answer, recording every event that arrives meanwhile."""
        if self._ws is None:
            raise BrowserError("the browser is not running")
        self._next_id += 1
        msg_id = self._next_id
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session_id:
            msg["sessionId"] = session_id
        self._ws.send(json.dumps(msg))
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise BrowserError(f"{method} failed: {reply['error'].get('message')}")
                return reply.get("result", {})

    def _receive(self, deadline: float) -> dict[str, Any]:
        assert self._ws is not None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise BrowserError(f"no answer from chromium within {self.timeout} s")
        try:
            message = json.loads(self._ws.recv(timeout=remaining))
        except TimeoutError:
            raise BrowserError(f"no answer from chromium within {self.timeout} s") from None
        if "method" in message:
            self._event(message)
        return message

    def _event(self, message: dict[str, Any]) -> None:
        page = self._pages.get(message.get("sessionId", ""))
        if page is None:
            return
        method, params = message["method"], message.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            page.console.append(("error" if params.get("type") in ("error", "assert") else params.get("type", "log"),
                                 text))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            page.console.append(("error", details.get("exception", {}).get("description") or details.get("text", "")))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            page.console.append((entry.get("level", "info"), f"[{entry.get('source')}] {entry.get('text', '')}"))
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            page.requests.append(url)
            page._ids[params.get("requestId", "")] = url
        elif method == "Network.loadingFailed" and params.get("blockedReason"):
            page.blocked[page._ids.get(params.get("requestId", ""), "")] = params["blockedReason"]
        elif method == "Page.javascriptDialogOpening":
            page.dialogs.append((params.get("type", ""), params.get("message", "")))
            assert self._ws is not None
            self._next_id += 1  # answered without waiting: the reply is read (and skipped) by a later command
            self._ws.send(json.dumps({"id": self._next_id, "method": "Page.handleJavaScriptDialog",
                                      "params": {"accept": False}, "sessionId": message["sessionId"]}))
        elif method == "Page.loadEventFired":
            page.loaded = True

    def drain(self, page: Page) -> None:
        """Process every event the browser sent before now (a round trip through the page)."""
        page.send("Runtime.evaluate", {"expression": "0"})

    # ------------------------------------------------------------ pages

    def open(self, path: Path | str) -> Page:
        """A new tab with every event domain enabled, navigated to ``path`` (a file) and loaded."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(browser=self, session_id=session, target_id=target)
        self._pages[session] = page
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.send(f"{domain}.enable")
        page.send("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False})
        url = Path(path).resolve().as_uri()
        page.requests.clear()  # about:blank
        nav = page.send("Page.navigate", {"url": url})
        if nav.get("errorText"):
            raise BrowserError(f"cannot open {url}: {nav['errorText']}")
        deadline = time.monotonic() + self.timeout
        while not page.loaded:
            self._receive(deadline)
        self.drain(page)
        return page


def open_html(path: Path | str, *, screenshot: Path | None = None) -> Page:
    """Open ``path`` in a fresh headless Chromium, optionally screenshot it, and return the recorded page.

    The browser is closed on return; the page's ``console``, ``requests`` and ``dialogs`` stay readable.
    """
    with Browser() as browser:
        page = browser.open(path)
        if screenshot is not None:
            page.screenshot(screenshot)
        browser.drain(page)
        return page
