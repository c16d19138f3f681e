"""A model file shipped as byte-range parts (Gemma's GGUF in four PyPI packages), joined where it is loaded.

llama.cpp reads one file, so the parts must be joined. Two places, chosen by
:func:`harness.providers.embedded.join_choice`:

* **memory** (the default on Linux): :func:`join_in_memory` copies the parts into an anonymous
  in-memory file (``memfd_create``) of the process that loads the model, checks the SHA-256 while it
  copies, seals it read-only (no write, grow or shrink) and names it ``/proc/self/fd/<fd>``, which
  llama.cpp opens and maps like any file. Nothing is written to disk, so the weights are on disk once
  (the parts), every cache location works, and ``pip uninstall`` leaves nothing behind. The file
  lives as long as the process (its descriptor is kept open: a model's mapping may outlive any one
  load); its pages are the ones llama.cpp maps, so a process's memory holds the weights once,
  as it did when they were mapped from the cache's file (measured in ``docs/install.md``). The path
  is valid only in this process and in children started with the descriptor (``pass_fds``, as the
  start-up guard's check child is); an identity (a cache key, a manifest, a check marker) uses the
  file's name, size and SHA-256 (:class:`JoinedInMemory`), never this path.
* **cache** (where there is no ``memfd_create``, or chosen): :func:`join_parts` writes the joined file
  into the cache once (:func:`harness.providers.embedded.joined_once`), so the bytes are on disk twice
  (the parts, 242 MB, and the joined file). The parts stay where pip put them: deleting them after the
  join was tried and reverted, since every other cache location (another ``HOME`` or
  ``COUNCIL_HARNESS_CACHE_DIR``, a cleared ``~/.cache``, a CI job with a fresh cache) then had nothing
  to join from.

Either way a missing part is a :class:`~harness.common.errors.ConfigError` naming the part and the
command that reinstalls the parts, and bytes with another SHA-256 are refused.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.common.errors import ConfigError

_BLOCK = 1 << 20
#: ``memory`` or ``cache``: where the parts are joined (``auto`` or unset: see
#: :func:`harness.providers.embedded.join_choice`)
JOIN_ENV = "COUNCIL_HARNESS_JOIN"


@dataclass(frozen=True)
class JoinedInMemory:
    """A model file joined in this process's memory (:func:`join_in_memory`).

    Attributes:
        fd: the descriptor of the sealed in-memory file (open for the process's lifetime).
        name: the model file's name (``gemma-3-270m-q4_k_m.gguf``): its identity, with ``size`` and ``sha256``.
        size: its size in bytes.
        sha256: its SHA-256, checked while it was joined.
        parts: the part files it was joined from.
        inode: ``(st_dev, st_ino)`` of the in-memory file, to tell it from a file that reused a closed ``fd``.
    """

    fd: int
    name: str
    size: int
    sha256: str
    parts: tuple[Path, ...]
    inode: tuple[int, int]

    @property
    def path(self) -> Path:
        """The path llama.cpp opens: ``/proc/self/fd/<fd>`` (valid in this process and children given ``fd``)."""
        return Path(f"/proc/self/fd/{self.fd}")

    def is_open(self) -> bool:
        """Whether :attr:`fd` is still this in-memory file (not closed, nor reused by another file)."""
        try:
            st = os.fstat(self.fd)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.inode


_joined: dict[str, JoinedInMemory] = {}  # by SHA-256: one in-memory file per model and process
_joined_lock = threading.Lock()


def memory_join_available() -> bool:
    """Whether this system can join in memory: ``os.memfd_create`` (Linux) and a ``/proc/self/fd`` to name the file."""
    return hasattr(os, "memfd_create") and Path("/proc/self/fd").is_dir()


def in_memory(path: str | Path) -> JoinedInMemory | None:
    """The in-memory file ``path`` names (``/proc/self/fd/<fd>`` of a :func:`join_in_memory` file), else None."""
    text = str(path)
    for joined in list(_joined.values()):
        if text == str(joined.path) and joined.is_open():
            return joined
    return None


def parts_present(parts: Sequence[Path]) -> bool:
    """Whether there are parts and every one is a file."""
    return bool(parts) and all(p.is_file() for p in parts)


def require_parts(parts: Sequence[Path], where: str, reinstall: str) -> None:
    """Raise a :class:`ConfigError` at ``where`` naming the missing parts (or that there are none) and ``reinstall``."""
    missing = [str(p) for p in parts if not p.is_file()]
    if missing or not parts:
        raise ConfigError(
            f"missing {', '.join(missing) or 'the parts (a package of them is not installed)'}: "
            f"reinstall them with: {reinstall}",
            where,
        )


def _copy_parts(
    parts: Sequence[Path], write: Callable[[bytes], object], sha256: str, where: str, reinstall: str
) -> None:
    """Pass the concatenation of ``parts`` to ``write`` block by block; raise unless it has SHA-256 ``sha256``."""
    require_parts(parts, where, reinstall)
    digest = hashlib.sha256()
    for part in parts:
        with part.open("rb") as src:
            for block in iter(lambda: src.read(_BLOCK), b""):
                digest.update(block)
                write(block)
    if digest.hexdigest() != sha256:
        raise ConfigError(
            f"the joined parts have SHA-256 {digest.hexdigest()}, expected {sha256}; reinstall them with: {reinstall}",
            where,
        )


def join_parts(parts: Sequence[Path], target: Path, sha256: str, reinstall: str) -> None:
    """Write the concatenation of ``parts`` to ``target``, which must have SHA-256 ``sha256`` (the cache join).

    Args:
        parts: the part files, in order.
        target: the file to write (replaced; removed again if the result is wrong).
        sha256: the SHA-256 of the joined file.
        reinstall: the command that reinstalls the parts, named when they are missing.

    Raises:
        ConfigError: a part is missing (named, with ``reinstall``), or the joined bytes have another SHA-256.
    """
    where = str(target.with_name(target.name.removesuffix(".partial")))  # built_once's temporary name
    try:
        with target.open("wb") as out:
            _copy_parts(parts, out.write, sha256, where, reinstall)
            out.flush()
            os.fsync(out.fileno())
    except ConfigError:
        target.unlink(missing_ok=True)
        raise


def _cannot(exc: OSError, where: str) -> ConfigError:
    return ConfigError(
        f"cannot join in memory ({exc.strerror or exc}); {JOIN_ENV}=cache joins into the cache instead", where
    )


def join_in_memory(parts: Sequence[Path], name: str, sha256: str, reinstall: str) -> JoinedInMemory:
    """The concatenation of ``parts`` as a sealed in-memory file of this process, joined once per process.

    A second call for the same ``sha256`` returns the same file (while its descriptor is open). The
    file is created close-on-exec, written block by block while the SHA-256 is computed, and sealed
    against writing, growing and shrinking (and against further seals); a wrong SHA-256 closes it.

    Args:
        parts: the part files, in order.
        name: the model file's name (shown in ``/proc/<pid>/fd`` as ``memfd:<name>``).
        sha256: the SHA-256 of the joined file.
        reinstall: the command that reinstalls the parts, named when they are missing.

    Raises:
        ConfigError: a part is missing (named, with ``reinstall``), the joined bytes have another
            SHA-256, this system has no ``memfd_create``, or it failed (memory full: the message
            names ``COUNCIL_HARNESS_JOIN=cache``).
    """
    where = f"{name} (joined in memory)"
    if not memory_join_available():
        raise ConfigError("this system cannot join in memory (no memfd_create or /proc/self/fd)", where)
    with _joined_lock:
        known = _joined.get(sha256)
        if known is not None and known.is_open():
            return known
        require_parts(parts, where, reinstall)
        try:
            fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        except OSError as exc:
            raise _cannot(exc, where) from None
        try:

            def write(block: bytes) -> None:
                view = memoryview(block)
                while view:
                    view = view[os.write(fd, view) :]

            _copy_parts(parts, write, sha256, where, reinstall)
            fcntl.fcntl(
                fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
            )
            st = os.fstat(fd)
        except OSError as exc:  # memory full (ENOSPC, ENOMEM), a part unreadable
            os.close(fd)
            raise _cannot(exc, where) from None
        except BaseException:
            os.close(fd)
            raise
        joined = JoinedInMemory(fd, name, st.st_size, sha256, tuple(parts), (st.st_dev, st.st_ino))
        _joined[sha256] = joined
        return joined
