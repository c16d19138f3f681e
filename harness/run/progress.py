"""Run progress: a rich progress bar on a terminal, one plain line at most every 30 s elsewhere (CI logs).

The rate and the ETA come from :class:`CompletionRate`: the completions of the last ``window``
cases (with many cases in flight they finish in bursts, so the rate of the whole run so far or of
the last few seconds would both mislead).
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from datetime import timedelta
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TaskID, TextColumn
from rich.text import Text

#: Completions the rate is measured over.
RATE_WINDOW = 50
#: Seconds between two plain progress lines when stderr is not a terminal.
LOG_EVERY_S = 30.0


class CompletionRate:
    """Cases per second over the last ``window`` completions, and the ETA it gives.

    ``rate = k / (now - t0)`` where ``k`` is the number of completions kept (at most ``window``)
    and ``t0`` the time of the completion just before them (the start of the run while fewer than
    ``window + 1`` have finished). Measuring up to *now* makes the rate fall while nothing finishes.
    ``eta = remaining / rate``; it is ``None`` only before the first completion, 0 when all are done.

    Args:
        total: the number of cases.
        window: completions the rate is measured over.
        clock: seconds, monotonic.
    """

    def __init__(self, total: int, window: int = RATE_WINDOW, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self._clock = clock
        self._stamps: deque[float] = deque([clock()], maxlen=window + 1)

    def add(self, failed: bool = False) -> None:
        """Count one finished case."""
        self.done += 1
        self.failed += int(failed)
        self._stamps.append(self._clock())

    def rate(self) -> float | None:
        """Cases per second, ``None`` before the first completion."""
        k = len(self._stamps) - 1
        if k == 0:
            return None
        return k / max(self._clock() - self._stamps[0], 1e-9)

    def eta(self) -> float | None:
        """Seconds left, ``None`` before the first completion."""
        remaining = max(self.total - self.done, 0)
        if remaining == 0:
            return 0.0
        rate = self.rate()
        return None if rate is None else remaining / rate


def fmt_eta(seconds: float | None) -> str:
    """``0:01:05``; ``-:--:--`` when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "-:--:--"
    return str(timedelta(seconds=round(seconds)))


def fmt_rate(rate: float | None) -> str:
    if rate is None:
        return "-/s"
    return f"{rate:.1f}/s" if rate >= 0.1 else f"{rate * 60:.1f}/min"


def shorten(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters by an ellipsis in the middle (both ends stay readable)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return text[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def line(rate: CompletionRate, last: str = "") -> str:
    """The plain progress line: ``progress 120/2000 · 3.2/s · ETA 0:09:47 · 4 failed · last: ds::id [subject]``."""
    parts = [
        f"progress {rate.done}/{rate.total}",
        fmt_rate(rate.rate()),
        f"ETA {fmt_eta(rate.eta())}",
        f"{rate.failed} failed",
    ]
    if last:
        parts.append(f"last: {last}")
    return " · ".join(parts)


class _Stats(ProgressColumn):
    """Rate, ETA and failures from the shared :class:`CompletionRate`."""

    def __init__(self, rate: CompletionRate) -> None:
        super().__init__()
        self.counter = rate

    def render(self, task: Task) -> Text:
        c = self.counter
        text = f"{fmt_rate(c.rate()):>9} ETA {fmt_eta(c.eta())} {c.failed} failed"
        return Text(text, style="red" if c.failed else "")


#: Columns besides the case id: bar 16 + "20000/20000" 11 + stats ~30 + separators.
_FIXED_WIDTH = 16 + 11 + 32 + 4


class RunProgress:
    """Progress of a run, as a context manager: ``with RunProgress(console, total) as p: p.advance(...)``.

    Args:
        console: where it goes (stderr). On a terminal: a rich progress bar whose case id is
            shortened in the middle to fit the width (the line is never cut). Elsewhere: a plain line
            at the first completion, then at most one every ``every`` seconds, and one at the end.
        total: the number of (case, subject) pairs to run.
        every: seconds between two plain lines.
        clock: seconds, monotonic.
    """

    def __init__(
        self, console: Console, total: int, every: float = LOG_EVERY_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.console = console
        self.counter = CompletionRate(total, clock=clock)
        self.every = every
        self._clock = clock
        self._last_line: float | None = None
        self._emitted_done = 0
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._last = ""
        if console.is_terminal:
            self._progress = Progress(
                TextColumn("{task.description}", markup=False),
                BarColumn(bar_width=16),
                MofNCompleteColumn(),
                _Stats(self.counter),
                console=console,
                transient=False,
            )

    def _describe(self, name: str) -> str:
        return shorten(name, max(8, self.console.width - _FIXED_WIDTH))

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.__enter__()
            self._task = self._progress.add_task(self._describe("cases"), total=self.counter.total)
        return self

    def advance(self, name: str, failed: bool = False) -> None:
        """Count the case ``name`` (``dataset::case [subject]``) as finished."""
        self.counter.add(failed)
        self._last = name
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=self._describe(name), advance=1)
            return
        now = self._clock()
        if self._last_line is None or now - self._last_line >= self.every:
            self._emit(now)

    def _emit(self, now: float) -> None:
        self._last_line = now
        self._emitted_done = self.counter.done
        self.console.print(line(self.counter, self._last), soft_wrap=True, highlight=False, markup=False)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, tb)
        elif self.counter.done != self._emitted_done:
            self._emit(self._clock())
