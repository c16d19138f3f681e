"""Benchmark: the extra cost of the sandbox's private file system per answer-code run (issue 25 item 1).

Run: ``python bench/bench_sandbox.py [--repeats N]``.

One :func:`harness.sandbox.run_python` of a tiny solution with one assert, in three set-ups measured
in the same run, interleaved (one of each per round, so a busy machine slows all three alike):

* **private root** (the default): the namespaces plus the private file system and the process limit
  (:mod:`harness.sandbox.filesystem`: a build step of ``mount`` calls, ``pivot_root``);
* **namespaces only**: ``PATH`` holds only ``unshare``, ``setpriv`` and ``true``, so the root cannot
  be built and the child runs in the namespaces alone: the isolation before issue 25;
* **bare**: ``PATH`` without util-linux: no isolation at all.

It prints the median and the best time of each and the ratios private root / namespaces only (the
price of the private file system) and private root / bare. Figures are from this run only; nothing
asserts them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import sandbox  # noqa: E402

CODE, TESTS = "def double(x):\n    return 2 * x\n", "assert double(21) == 42\n"


def _one(path: str) -> tuple[float, str]:
    os.environ["PATH"] = path
    started = time.perf_counter()
    result = sandbox.run_python(CODE, TESTS, 10)
    took = time.perf_counter() - started
    if not result.passed:
        raise SystemExit(f"the benchmark's own code failed in the sandbox: {result.summary()}")
    return took, result.isolation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    full_path = os.environ.get("PATH", os.defpath)
    with tempfile.TemporaryDirectory() as ns_dir, tempfile.TemporaryDirectory() as bare_dir:
        for tool in ("unshare", "setpriv", "true"):
            found = shutil.which(tool, path=full_path)
            if found is None:
                raise SystemExit(f"{tool} (util-linux) is not installed: nothing to compare")
            os.symlink(found, os.path.join(ns_dir, tool))
        setups = {"private root": full_path, "namespaces only": ns_dir, "bare": bare_dir}
        times: dict[str, list[float]] = {name: [] for name in setups}
        how: dict[str, str] = {}
        for path in setups.values():  # warm up: the isolation probe runs once per PATH
            _one(path)
        for _ in range(args.repeats):
            for name, path in setups.items():
                took, how[name] = _one(path)
                times[name].append(took)
        os.environ["PATH"] = full_path
    med = {name: statistics.median(t) for name, t in times.items()}
    for name in setups:
        print(
            f"{name:16s} median {med[name] * 1000:6.1f} ms, best {min(times[name]) * 1000:6.1f} ms  ({how[name][:90]})"
        )
    print(
        f"private root / namespaces only: {med['private root'] / med['namespaces only']:.2f}x "
        f"(+{(med['private root'] - med['namespaces only']) * 1000:.1f} ms per run)"
    )
    print(f"private root / bare: {med['private root'] / med['bare']:.2f}x")


if __name__ == "__main__":
    main()
