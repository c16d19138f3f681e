"""A model file shipped as byte-range parts (Gemma's GGUF in four PyPI packages), kept on disk once.

llama.cpp reads one file, so the parts are joined into the cache (:func:`join_parts`, checked against
the expected SHA-256 while it writes). Afterwards the parts are the same bytes a second time (253 MB
for Gemma), so once the joined file is in place and verified, :func:`drop_parts` deletes them from
the installed packages: the cache's copy is then the only one. Where a part's folder is read-only
(a system-wide install) they stay. Should the cache be deleted later, the parts are reinstalled with
the command that :func:`join_parts` names in its error.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from harness.common.errors import ConfigError


def join_parts(parts: Sequence[Path], target: Path, sha256: str, reinstall: str) -> None:
    """Write the concatenation of ``parts`` to ``target``, which must have SHA-256 ``sha256``.

    Args:
        parts: the part files, in order.
        target: the file to write (replaced; removed again if the result is wrong).
        sha256: the SHA-256 of the joined file.
        reinstall: the command that reinstalls the parts, named when they are missing.

    Raises:
        ConfigError: a part is missing (named, with ``reinstall``), or the joined bytes have another SHA-256.
    """
    where = str(target.with_name(target.name.removesuffix(".partial")))  # built_once's temporary name
    missing = [str(p) for p in parts if not p.is_file()]
    if missing or not parts:
        raise ConfigError(
            f"missing {', '.join(missing) or 'the parts (a package of them is not installed)'} (the parts are "
            f"deleted once joined into the cache, and the cache's copy is gone too): reinstall them with: {reinstall}",
            where,
        )
    digest = hashlib.sha256()
    with target.open("wb") as out:
        for part in parts:
            with part.open("rb") as src:
                for block in iter(lambda: src.read(1 << 20), b""):
                    digest.update(block)
                    out.write(block)
        out.flush()
        os.fsync(out.fileno())
    if digest.hexdigest() != sha256:
        target.unlink()
        raise ConfigError(
            f"the joined parts have SHA-256 {digest.hexdigest()}, expected {sha256}; reinstall them with: {reinstall}",
            where,
        )


def drop_parts(parts: Sequence[Path]) -> int:
    """Delete the part files that exist and may be deleted; returns how many bytes that freed."""
    freed = 0
    for part in parts:
        try:
            size = part.stat().st_size
            part.unlink()
        except OSError:  # already gone, or a read-only install: nothing to free there
            continue
        freed += size
    return freed
