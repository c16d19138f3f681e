"""Start-up imports: heavy libraries load only in the commands that use them (issue 13 item 7).

Each check runs a fresh interpreter (``sys.modules`` of this test process is full of everything) and
lists which of the heavy libraries the command left loaded. No timing is asserted here; the start-up
ratio is measured by ``bench/bench_startup.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: imported only by the commands that use them
HEAVY = ("scipy", "pandas", "torch", "matplotlib", "llama_cpp", "deepeval", "ragas", "sentence_transformers")

_PROBE = f"""
import json, sys
HEAVY = {HEAVY!r}
from harness.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({{"code": code, "loaded": sorted(m for m in HEAVY if m in sys.modules)}}), file=sys.stderr)
"""


def _loaded_by(*argv: str, cwd: Path = ROOT) -> tuple[int, list[str]]:
    """Run ``council-harness argv`` in a fresh interpreter: its exit code and the heavy modules it loaded."""
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["code"], report["loaded"]


def test_importing_the_cli_and_building_its_parser_loads_no_heavy_library() -> None:
    code = (
        "import sys, json, harness.cli; harness.cli.build_parser(); "
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True
    )
    assert json.loads(proc.stdout) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["run", "--help"],
        ["quality-report", "--help"],
        ["run", "--no-such-option"],  # a usage error: exit 2 before any work
        ["compare", "--run", "no-such-run", "--reports-dir", "/nonexistent-reports"],
    ],
)
def test_help_and_usage_errors_load_no_heavy_library(argv: list[str]) -> None:
    code, loaded = _loaded_by(*argv)
    assert code in (0, 2)
    assert loaded == []


def test_quality_report_loads_torch_only_to_compute_embeddings(tmp_path: Path) -> None:
    """With Jaccard similarity (or no earlier run to compare with) the report computes no embedding, so
    neither torch nor sentence-transformers is imported."""
    from tests.tier2.test_quality_report import _session_run, _write_run

    reports = tmp_path / "reports"
    _session_run(reports)
    code, loaded = _loaded_by("quality-report", "--reports-dir", str(reports), "--temporal", "jaccard", cwd=tmp_path)
    assert code == 0
    assert "torch" not in loaded and "sentence_transformers" not in loaded

    alone = tmp_path / "alone"
    _write_run(alone, "20260103-000000-0003", [])
    code, loaded = _loaded_by("quality-report", "--reports-dir", str(alone), cwd=tmp_path)
    assert code == 0
    assert "torch" not in loaded and "sentence_transformers" not in loaded
