"""Crash-safe file writes: whole-file replacement via temp file + rename, whole-line appends."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from filelock import FileLock


def atomic_write_text(path: Path | str, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically: readers see the old file or the new one, never half.

    The temp file lives in the same folder (same filesystem), is fsynced, then renamed over the
    target; on any error the temp file is removed and the old file is untouched.
    """
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """:func:`atomic_write_text` for bytes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _target_mode(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def _target_mode(path: Path) -> int:
    """The permission bits for the replacement: the old file's, else 0o644 (``mkstemp`` makes 0o600)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o644


def fsync_dir(directory: Path | str) -> None:
    """Flush a folder's entry table so that a rename in it survives a power loss (no-op where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def append_lines(path: Path | str, lines: list[str]) -> None:
    """Append whole lines under an inter-process file lock, then fsync.

    Each element must be one line without a newline; concurrent writers never interleave.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = "".join(line.rstrip("\n") + "\n" for line in lines)
    with FileLock(str(path) + ".lock"), open(path, "a+b") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() > 0:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":  # a line cut off by a crash stays alone on its (skipped) line
                payload = "\n" + payload
        fh.seek(0, os.SEEK_END)
        fh.write(payload.encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())
