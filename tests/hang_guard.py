"""Fail a test that hangs (a quadratic parser on a big hostile input) instead of waiting for it.

Tests never assert wall-clock times; this only turns "would take minutes" into a failure after a
generous limit, through ``SIGALRM`` (POSIX, main thread).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Hang(Exception):
    """The guarded block did not finish within its limit."""


@contextmanager
def hang_guard(seconds: int = 60) -> Iterator[None]:
    def _raise(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"did not finish within {seconds} s (quadratic on this input?)")

    old = signal.signal(signal.SIGALRM, _raise)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
