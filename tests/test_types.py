"""The type check is part of the test command: mypy on ``harness/`` reports zero errors.

mypy reads its configuration from ``[tool.mypy]`` in pyproject.toml (``files = ["harness"]``; ignores
only for third-party libraries that ship no types) and runs in a subprocess with its incremental cache
in the repository's ``.mypy_cache/``: the first run checks everything (about two CPU-minutes), later
runs only what changed (seconds).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_reports_no_errors_in_the_package() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1100,
        check=False,
    )
    assert proc.returncode == 0, f"mypy found errors:\n{proc.stdout[-20000:]}{proc.stderr[-2000:]}"
    assert "Success: no issues found" in proc.stdout


def test_the_package_ships_its_py_typed_marker() -> None:
    """PEP 561: ``harness/py.typed`` exists and is listed as package data, so installed copies are typed."""
    import tomllib

    assert (ROOT / "harness" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["harness"]
