"""glibc's allocator set for an engine process: large buffers from ``mmap``, two arenas.

The embedded engines save prompt openings as KV states of a few MB each (ctypes buffers, so
``malloc``), dropped least recently used once :data:`harness.providers.prompt_cache.PREFIX_CACHE_BYTES`
are held, from several threads. With glibc's defaults the first such buffer is ``mmap``-ed, but freeing
it raises the ``mmap`` threshold to its size (the "dynamic threshold", up to 32 MB), so every later
one is carved from a per-thread arena heap of 64 MB (up to 8 per core), where a freed buffer between
live ones cannot be returned to the system: the main job's RSS grew to 1.8 GB by challenge 32 with
about 600 MB of it in ten such arenas. :func:`bound_malloc` fixes the threshold at
:data:`MMAP_THRESHOLD` (which also turns the dynamic threshold off), so a buffer that large is
``munmap``-ed when freed, and caps the arenas at :data:`ARENA_MAX`. Small objects are unaffected.
A simulation of the saved openings (8 threads, 3,000 buffers of 1-12 MB under a 256 MB budget) peaked
at 678 MB of RSS with the defaults and 381 MB with these settings.

``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_ARENA_MAX`` set by the user win: their values are left alone.
On a C library without ``mallopt`` (musl, macOS) nothing is changed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
M_ARENA_MAX = -8
#: allocations of this many bytes or more are mmap-ed (glibc's initial default, kept fixed)
MMAP_THRESHOLD = 128 * 1024
#: malloc arenas (threads share them beyond this)
ARENA_MAX = 2

_done: list[bool] = []


def bound_malloc() -> bool:
    """Apply the settings once per process; whether glibc accepted them (False where there is no ``mallopt``)."""
    if _done:
        return _done[0]
    ok = False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        pass
    else:
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        ok = True
        if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
            ok = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and ok
        if "MALLOC_ARENA_MAX" not in os.environ:
            ok = mallopt(M_ARENA_MAX, ARENA_MAX) == 1 and ok
    _done.append(ok)
    return ok
