"""A model file shipped as byte-range parts (Gemma's GGUF in four PyPI packages), joined once into the cache.

llama.cpp reads one file, so the parts are joined into the cache (:func:`join_parts`, checked against
the expected SHA-256 while it writes). The parts stay where pip put them, so the bytes are on disk
twice (the parts, 242 MB, and the joined file). Deleting the parts after the join was tried and
reverted: every other cache location (another ``HOME`` or ``COUNCIL_HARNESS_CACHE_DIR``, a cleared
``~/.cache``, a CI job with a fresh cache) then had nothing to join from, and the embedded models
failed until the parts were reinstalled by hand.
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
            f"missing {', '.join(missing) or 'the parts (a package of them is not installed)'}: "
            f"reinstall them with: {reinstall}",
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
