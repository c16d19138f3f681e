"""glibc's allocator set for engine processes (harness.providers.malloc_setup): buffers of a few MB,
saved and dropped from several threads under a byte budget as the saved prompt openings are, leave the
process's peak RSS near the budget instead of stranding freed buffers in per-thread arenas.

Each side runs in a fresh interpreter (the settings are per process and the arenas never shrink)."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from harness.providers.malloc_setup import bound_malloc

ROOT = Path(__file__).parents[2]

# the saved openings' pattern: ctypes buffers of 1-8 MB from 4 threads, least recently used dropped over 64 MB
SIMULATION = """
import ctypes, random, sys, threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
if sys.argv[1] == "bounded":
    from harness.providers.malloc_setup import bound_malloc
    assert bound_malloc()
random.seed(0)
BUDGET = 64 * 2**20
saved, used, lock = OrderedDict(), [0], threading.Lock()
def work(i):
    size = random.randint(1, 8) * 2**20
    buf = (ctypes.c_uint8 * size)()
    ctypes.memset(buf, 1, size)
    other = [bytes(random.randint(100, 200_000)) for _ in range(10)]
    with lock:
        saved[i] = buf
        used[0] += size
        while used[0] > BUDGET and len(saved) > 1:
            used[0] -= len(saved.popitem(last=False)[1])
with ThreadPoolExecutor(4) as pool:
    list(pool.map(work, range(1500)))
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM")))
"""


def _peak_kb(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", SIMULATION, mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    return int(done.stdout.strip())


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc" or not Path("/proc/self/status").exists(), reason="glibc only")
def test_freed_buffers_are_returned_so_the_peak_stays_near_the_budget() -> None:
    assert bound_malloc() is True
    default, bounded = _peak_kb("default"), _peak_kb("bounded")
    # live at most: the 64 MB budget, a buffer of 8 MB in each of the other 3 threads, 4 x 2 MB of other
    # objects; plus the interpreter and small-object arenas (50 MB allowed; measured: 136 MB in all)
    assert bounded < (64 + 3 * 8 + 4 * 2 + 50) * 1024, (default, bounded)
    # the defaults strand freed buffers in arenas (measured: about 205 MB)
    assert default > bounded + 40 * 1024, (default, bounded)
