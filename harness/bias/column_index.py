"""A columnar index beside an append-only bias store: read the old lines' columns, decode only new ones.

The bias store only grows by appends of whole lines (``BiasStore.append``, and llm-council-core's
writer, the same way); the one rewrite, ``BiasStore.prune``, replaces the file (a new inode) and
deletes the index. So what :func:`harness.bias.columns.read_columns` decoded from the first
``P`` bytes (``P`` just after a newline) stays true while those bytes are unchanged, and a read
can load those columns and decode only the bytes after ``P``.

File: ``<store name>.columns.idx`` in the store's folder, written atomically (temp file + rename)
after a read that decoded at least ``INDEX_MIN_BYTES`` of whole lines beyond what the index held.
Layout: the magic ``MAGIC``, the length of the JSON header as 8 little-endian bytes, the header,
then one ``8 x records`` float64 array in numpy's ``.npy`` format (no pickles) whose rows are the
eight columns of the kept records of the prefix (the integer codes are exact in float64). The
header holds the key, the ids in code order, every skipped line with its reason, the number of
newlines in the prefix, and the writer counts. One read of one contiguous array: loading an index
costs about as much as copying its bytes (the earlier ``.npz`` with a zip member per column cost
several times that, and is now ignored and removed).

Key (all must match, else the index is ignored and rebuilt by the read): the format version, the
store's device and inode, ``P`` <= the store's size, and the BLAKE2b digest of the prefix's first and
last 64 KiB (so a store replaced by another one, or rewritten in place around the ends, is not
mistaken for the indexed one). An index that cannot be read or written is ignored: it is a cache,
never the data, and never a reason for a read to fail.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from harness.bias.column_chunks import COLUMNS, Chunk, Coder

FORMAT = 2
MAGIC = b"council-harness bias columns\n"
#: A read rewrites the index only when it decoded at least this many bytes of whole lines beyond it.
INDEX_MIN_BYTES = 1 << 20
_ENDS = 64 << 10
#: columns kept as float64 (the others are integer codes, positions)
_FLOATS = frozenset({"length", "score", "time"})


def index_path(store_path: Path) -> Path:
    """Where the index of ``store_path`` lives."""
    return store_path.with_name(store_path.name + ".columns.idx")


def _old_index_path(store_path: Path) -> Path:
    """Where format 1 (``.npz``) kept it: removed when a new index is written."""
    return store_path.with_name(store_path.name + ".columns.npz")


def _key(fh: BinaryIO, prefix: int) -> dict[str, object]:
    """The key of the first ``prefix`` bytes of the open store ``fh`` (its position is restored)."""
    where = fh.tell()
    st = os.fstat(fh.fileno())
    digest = hashlib.blake2b(digest_size=16)
    fh.seek(0)
    digest.update(fh.read(min(_ENDS, prefix)))
    fh.seek(max(0, prefix - _ENDS))
    digest.update(fh.read(min(_ENDS, prefix)))
    fh.seek(where)
    return {"format": FORMAT, "device": st.st_dev, "inode": st.st_ino, "prefix": prefix, "ends": digest.hexdigest()}


@dataclass(frozen=True, slots=True)
class Indexed:
    """What an index gives a read: the prefix's columns as one chunk, its newlines, and the coders."""

    chunk: Chunk
    prefix: int
    newlines: int
    coders: dict[str, Coder]


def load(store_path: Path, fh: BinaryIO, size: int) -> Indexed | None:
    """The index of the open store ``fh`` (``size`` bytes in this snapshot), or ``None`` when there is
    none, it is stale, or it cannot be read."""
    try:
        with open(index_path(store_path), "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                return None
            meta = json.loads(f.read(int.from_bytes(f.read(8), "little")))
            prefix = int(meta["key"]["prefix"])
            if prefix > size or meta["key"] != _key(fh, prefix):
                return None
            data = np.lib.format.read_array(f, allow_pickle=False)
    except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        return None  # missing, unreadable or not an index: a cache miss
    if data.dtype != np.float64 or data.ndim != 2 or data.shape[0] != len(COLUMNS):
        return None
    columns = {name: data[i] if name in _FLOATS else data[i].astype(np.int64) for i, name in enumerate(COLUMNS)}
    coders: dict[str, Coder] = {}
    for name, ids in meta["ids"].items():
        coder = Coder()
        coder.index = dict(zip(ids, range(len(ids)), strict=True))
        coders[name] = coder
    chunk = Chunk(
        columns=columns,
        bad=[(int(i), str(why)) for i, why in meta["bad"]],
        foreign=int(meta["foreign"]),
        no_display=int(meta["no_display"]),
    )
    return Indexed(chunk=chunk, prefix=prefix, newlines=int(meta["newlines"]), coders=coders)


def save(
    store_path: Path, fh: BinaryIO, prefix: int, newlines: int, chunks: list[Chunk], coders: dict[str, Coder]
) -> None:
    """Write the index of the first ``prefix`` bytes (whole lines, decoded into ``chunks`` with
    ``coders`` as they stood after them); any error is ignored (the index is a cache)."""
    from harness.common.fsutil import atomic_write_bytes

    meta = {
        "key": _key(fh, prefix),
        "newlines": newlines,
        "ids": {name: list(coder.index) for name, coder in coders.items()},
        "bad": [list(b) for c in chunks for b in c.bad],
        "foreign": sum(c.foreign for c in chunks),
        "no_display": sum(c.no_display for c in chunks),
    }
    data = np.empty((len(COLUMNS), sum(c.columns["score"].size for c in chunks)), dtype=np.float64)
    for i, name in enumerate(COLUMNS):
        if chunks:
            np.concatenate([c.columns[name] for c in chunks], out=data[i], casting="unsafe")
    header = json.dumps(meta).encode()
    buffer = io.BytesIO()
    buffer.write(MAGIC + len(header).to_bytes(8, "little") + header)
    np.lib.format.write_array(buffer, data, allow_pickle=False)
    with contextlib.suppress(OSError):
        atomic_write_bytes(index_path(store_path), buffer.getvalue())
        _old_index_path(store_path).unlink(missing_ok=True)


def remove(store_path: Path) -> None:
    """Delete the index of ``store_path`` (after a prune: it would still hold the removed records)."""
    for path in (index_path(store_path), _old_index_path(store_path)):
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
