"""DeepEval and RAGAS through a real run (opt-in): scores per case in the results and the HTML report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_env import harness_env

pytestmark = pytest.mark.slow  # runs the embedded models

DATA = """\
golden_datasets:
  - name: ext
    queries:
      - id: fr
        query: "What is the capital of France? Answer in one sentence."
        required_mentions: ["Paris"]
"""


def test_external_validation_in_a_run(tmp_path: Path) -> None:
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "ext.yaml").write_text(DATA)
    env = harness_env()
    env.update(
        {
            "LLM_COUNCIL_EXTERNAL_VALIDATION": "true",
            "LLM_COUNCIL_ANSWER_MAX_TOKENS": "24",
            "LLM_COUNCIL_RUBRIC_SCORING": "false",
            "LLM_COUNCIL_CACHE_PATH": str(tmp_path / "c.sqlite"),
            "HOME": str(tmp_path),
        }
    )
    cli = Path(sys.executable).with_name("council-harness")
    out = subprocess.run(
        [str(cli), "run", "--dataset", "ext", "--subjects", "baseline"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode in (0, 1), out.stderr
    run_dir = next((tmp_path / "reports" / "runs").iterdir())
    (result,) = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    block = result["details"]["external_validation"]  # per-scorer records live under details
    assert block["deepeval"]["validation_framework"] == "deepeval"
    assert block["ragas"]["validation_framework"] == "ragas"
    # no ground truth and no context: relevancy only, from each framework
    for name in ("deepeval_relevancy", "ragas_answer_relevancy"):
        assert 0.0 <= result["scores"][name] <= 1.0, result["scores"]
    assert "deepeval_correctness" not in result["scores"] and "ragas_faithfulness" not in result["scores"]
    html = (run_dir / "index.html").read_text()
    assert "deepeval_relevancy" in html and "ragas_answer_relevancy" in html
    assert not (tmp_path / ".deepeval").exists() or not any((tmp_path / ".deepeval").iterdir())
