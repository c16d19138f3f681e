"""The lint is part of the test command (so ``.ci/run`` runs it): ``ruff check`` reports nothing.

ruff reads ``[tool.ruff]`` from pyproject.toml (line length 120; rules E, F, W, I, B, UP) and checks the
package, the tests and the benchmarks.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("harness", "tests", "bench", "conftest.py")


def test_ruff_check_is_clean() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", *CHECKED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"ruff check found problems:\n{proc.stdout[-20000:]}{proc.stderr[-2000:]}"


def test_ruff_format_check_is_clean() -> None:
    """The code is in ``ruff format``'s layout (``ruff format`` rewrites it; nothing to argue about in review)."""
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", *CHECKED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"ruff format would change files:\n{proc.stdout[-20000:]}{proc.stderr[-2000:]}"
