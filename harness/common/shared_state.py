"""State shared by the processes of one session (pytest-xdist workers): small numbers in files.

Two kinds, both plain files in one folder, so the processes need no service to talk to:

* :class:`SharedState`: a flat JSON object of numbers. :meth:`SharedState.update` reads it, lets the
  caller change it and writes it back, all under a ``filelock`` lock on ``<file>.lock``, so two
  processes never lose each other's change; the write replaces the file atomically (temp file +
  rename, :func:`harness.common.fsutil.atomic_write_text` without fsync: the state lives only as long
  as the session), so :meth:`SharedState.read` needs no lock and sees the old object or the new one,
  never half. A missing or unreadable file reads as ``{}``; values that are not numbers are dropped.
* :class:`SharedSlots`: ``n`` lock files; holding slot ``i`` is holding the lock on ``<prefix>-slot-<i>.lock``
  (``flock``, released by the kernel when its process dies, so a killed worker never keeps a slot).
  :meth:`SharedSlots.take` never blocks: it tries each free slot below a bound once and says which it
  got, if any; waiting (an ``asyncio.sleep`` between tries) is the caller's.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from harness.common.fsutil import atomic_write_text


class SharedState:
    """A flat JSON object of numbers in ``path`` shared by processes (module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = FileLock(str(path) + ".lock", thread_local=False)

    def read(self) -> dict[str, float]:
        """The object as last written (``{}`` when missing or unreadable); no lock needed."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(raw, dict):
            return {}
        return {
            str(k): float(v)
            for k, v in raw.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
        }

    @contextlib.contextmanager
    def update(self) -> Iterator[dict[str, float]]:
        """Under the lock: the object to change in the ``with`` body; written back when the body ends
        without an exception."""
        with self._lock:
            state = self.read()
            yield state
            atomic_write_text(self.path, json.dumps(state, sort_keys=True), durable=False)


class SharedSlots:
    """``n`` slots held across processes as lock files ``<prefix>-slot-<i>.lock`` (module docstring).

    One object per process and set of slots: it remembers which slots this process holds, so it never
    tries a lock it already holds.
    """

    def __init__(self, prefix: Path, n: int) -> None:
        prefix.parent.mkdir(parents=True, exist_ok=True)
        self._locks = [FileLock(f"{prefix}-slot-{i}.lock", thread_local=False) for i in range(n)]
        self._held: set[int] = set()

    def take(self, below: int) -> int | None:
        """Take a free slot numbered below ``below`` without waiting; its number, or ``None`` when all
        are held (by this process or others)."""
        for i in range(min(below, len(self._locks))):
            if i in self._held:
                continue
            try:
                self._locks[i].acquire(timeout=0)
            except Timeout:
                continue
            self._held.add(i)
            return i
        return None

    def give(self, i: int) -> None:
        """Release slot ``i`` (taken by :meth:`take`)."""
        self._held.discard(i)
        self._locks[i].release()

    @property
    def held(self) -> int:
        """Slots this process holds."""
        return len(self._held)
