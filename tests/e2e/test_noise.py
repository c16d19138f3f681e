"""A newcomer's runs print what matters once: no duplicated replay-miss messages, no foreign plugin
teardown lines, the report line on its own line, and no ResourceWarning from the embedded models."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO

MINI = """\
golden_datasets:
  - name: mini
    queries:
      - id: q1
        query: "What is 2 + 2?"
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_COUNCIL_", "PYTEST_ADDOPTS"))}
    env["PYTHONPATH"] = str(REPO)
    return env


def test_replay_miss_from_another_folder_prints_once_and_nothing_foreign(tmp_path: Path) -> None:
    (tmp_path / "mini.yaml").write_text(MINI, encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "mini.yaml",
            "-m",
            "golden",
            "--cache-mode",
            "replay",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(),
    )
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    failures = out[out.index("= FAILURES =") : out.index("short test summary")]
    miss = "replay mode: no cached reply for model"
    assert failures.count(miss) == 2  # one per item (council, baseline), not a chained second copy
    assert "During handling of the above exception" not in out
    assert "Running teardown with pytest sessionfinish" not in out  # deepeval's plugin is switched off
    lines = out.splitlines()
    report = [ln for ln in lines if "council-harness report: " in ln]
    assert len(report) == 1 and report[0].startswith("council-harness report: ")


@pytest.mark.slow
def test_an_embedded_model_call_leaves_no_resource_warning(tmp_path: Path) -> None:
    code = (
        "import asyncio\n"
        "from harness.providers.local import LocalProvider\n"
        "from harness.records.transcript import Message\n"
        "p = LocalProvider(n_threads=1)\n"
        "c = asyncio.run(p.chat('smollm2-135m', [Message(role='user', content='Say hi')], temperature=0.0,"
        " max_tokens=4, seed=1))\n"
        "print('answered', bool(c.text))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-W", "default", "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(),
    )
    assert proc.returncode == 0, proc.stderr
    assert "answered True" in proc.stdout
    assert "ResourceWarning" not in proc.stderr, proc.stderr
