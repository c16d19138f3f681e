"""Crash-safe file writes (whole-file replacement via temp file + rename, whole-line appends) and
bounded reads.

Rules for paths a user names:

* **Reading** (:func:`read_bounded`, :func:`open_regular`): only a regular file is read, and at most
  ``limit`` bytes of it; a character device (``/dev/zero``, an endless stream), a FIFO or a folder
  is refused with :class:`NotRegularFile` before a byte is read (a FIFO is opened non-blocking, so
  a writer that never comes cannot stall it).
* **Writing** (:func:`atomic_write_bytes`): a regular file (or a new path) is replaced atomically;
  a character device or a FIFO (``/dev/null``, ``/dev/stdout``) is written to directly and stays
  what it was (never renamed over); any other non-regular target (a folder, a block device, a
  socket) is refused with :class:`NotRegularFile`, naming it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from filelock import FileLock


class NotRegularFile(OSError):
    """A path that is not a regular file where one is needed, or a file over its size limit."""

    def __init__(self, message: str, path: Path | str) -> None:
        super().__init__(errno.EINVAL, message, str(path))
        self.message = message

    def __str__(self) -> str:
        return f"{self.filename}: {self.message}"


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str:
    """``a regular file``, ``a folder``, ``a character device``, ... for an ``st_mode``."""
    return next(
        (name for test, name in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode) else "not a regular file"
    )


def open_regular(path: Path | str, limit: int | None = None) -> int:
    """An OS file descriptor for reading ``path``, checked to be a regular file of at most ``limit`` bytes.

    Raises:
        FileNotFoundError: no such file.
        NotRegularFile: a folder, device, FIFO or socket, or a file over ``limit`` (the descriptor is closed).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"is {file_kind(st.st_mode)}, not a regular file; expected a file", path)
        if limit is not None and st.st_size > limit:
            raise NotRegularFile(f"is {_size(st.st_size)}, over the {_size(limit)} limit for this file", path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: Path | str, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (:func:`open_regular`), at most ``limit`` of them (a file
    that grows past ``limit`` while it is read is refused too)."""
    fd = open_regular(path, limit)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise NotRegularFile(f"grew over the {_size(limit)} limit for this file while it was read", path)
    return data


def bounded_lines(fh: BinaryIO, limit: int) -> Iterator[bytes | None]:
    """The lines of a binary file, each at most ``limit`` bytes; a longer line is skipped (read in
    ``limit``-sized pieces, never held whole) and yielded as ``None``, so line numbers stay right."""
    while True:
        line = fh.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith(b"\n") and len(line) == limit + 1:
            yield line
            continue
        while line and not line.endswith(b"\n"):  # the rest of the over-long line
            line = fh.readline(limit)
        yield None


def read_bounded_text(path: Path | str, limit: int, encoding: str = "utf-8") -> str:
    """:func:`read_bounded` decoded (``UnicodeDecodeError`` on bytes that are not ``encoding``)."""
    return read_bounded(path, limit).decode(encoding)


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n} bytes"


def atomic_write_text(path: Path | str, text: str, encoding: str = "utf-8", *, durable: bool = True) -> None:
    """Write ``text`` to ``path`` atomically: readers see the old file or the new one, never half.

    The temp file lives in the same folder (same filesystem), is fsynced, then renamed over the
    target; on any error the temp file is removed and the old file is untouched. ``durable=False``
    skips the two fsyncs: still atomic for readers, but a power loss may lose the write (for state
    that lives only as long as the processes sharing it).
    """
    atomic_write_bytes(path, text.encode(encoding), durable=durable)


def atomic_write_bytes(path: Path | str, data: bytes, *, durable: bool = True) -> None:
    """:func:`atomic_write_text` for bytes; a device or FIFO target is written directly (module docstring)."""
    path = Path(path)
    if _write_through(path, data):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.chmod(tmp, _target_mode(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(path.parent)


def _write_through(path: Path, data: bytes) -> bool:
    """Write ``data`` into an existing character device or FIFO (``True``); ``False`` for a regular file
    or a new path; :class:`NotRegularFile` for any other kind of target."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return False
    if stat.S_ISREG(mode):
        return False
    if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        raise NotRegularFile(f"is {file_kind(mode)}; refusing to replace it (expected a file path)", path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # a FIFO without a reader: ENXIO, not a hang
        os.set_blocking(fd, True)
        with os.fdopen(fd, "wb") as fh:  # /dev/full: ENOSPC, and the node stays a device
            fh.write(data)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
    return True


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
