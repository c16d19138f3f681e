"""The cold embedded run the whole-suite browser tests share: ``council-harness run --suite reasoning-100``
on the first ``limit`` challenges for ``subjects``, in a fresh reports folder and record/replay cache."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.chromium import Tab
from tests.cli_env import harness_env

ROOT = Path(__file__).resolve().parents[2]


def run_suite(root: Path, limit: int, subjects: Sequence[str], timeout: float) -> Path:
    """Run the suite cold under ``root`` (its output kept in ``root/output.txt``) and return the run folder.

    The run must end with the gate's verdict (exit 0 or 1), not as a crash or an error."""
    env = harness_env(
        LLM_COUNCIL_REPORTS_DIR=str(root / "reports"),
        LLM_COUNCIL_CACHE_PATH=str(root / "cache.sqlite"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    cmd = [sys.executable, "-m", "harness.cli", "run", "--suite", "reasoning-100", "--limit", str(limit),
           "--subjects", ",".join(subjects)]  # fmt: skip
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    (root / "output.txt").write_text(proc.stdout + proc.stderr)
    assert proc.returncode in (0, 1), (proc.stdout + proc.stderr)[-3000:]  # 1: the gate failed, not the run
    (found,) = (root / "reports" / "runs").iterdir()
    return found


def texts(page: Tab, selector: str) -> list[str]:
    """The trimmed text of every element ``selector`` matches on ``page``."""
    return page.evaluate(f"Array.from(document.querySelectorAll({selector!r})).map(e => e.textContent.trim())")
