"""The seed-002 voting subject end to end on the embedded models: a golden dataset, second rounds, the report."""

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
  - name: vote
    description: open questions where small models disagree
    queries:
      - id: why-sky
        query: "Why is the sky blue? Answer in two sentences."
        ground_truth: "Sunlight is scattered by air molecules; blue light scatters most (Rayleigh scattering)."
        required_mentions: ["light"]
      - id: capital-fr
        query: "What is the capital of France? Answer in one sentence."
        ground_truth: "Paris"
        required_mentions: ["Paris"]
"""


def test_voting_subject_on_a_golden_dataset(tmp_path: Path) -> None:
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "vote.yaml").write_text(DATA)
    env = harness_env()
    env.update(
        {
            "LLM_COUNCIL_ANSWER_MAX_TOKENS": "48",
            "LLM_COUNCIL_REVIEW_MAX_TOKENS": "100",
            "LLM_COUNCIL_CACHE_PATH": str(tmp_path / "cache.sqlite"),
        }
    )
    cli = Path(sys.executable).with_name("council-harness")
    out = subprocess.run(
        [str(cli), "run", "--dataset", "vote", "--subjects", "voting"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert out.returncode in (0, 1), out.stderr
    run_dir = next((tmp_path / "reports" / "runs").iterdir())
    results = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines()]
    assert [(r["case_id"], r["subject"]) for r in results] == [("why-sky", "voting"), ("capital-fr", "voting")]
    for r in results:
        t = r["transcript"]
        v = t["voting"]
        assert v is not None, r.get("error")
        assert v["agreement_level"] in ("strong_agreement", "moderate_agreement", "weak_agreement", "disagreement")
        assert 0.0 <= v["confidence_score"] <= 1.0
        assert set(v["model_votes"]) <= {"smollm2-precise", "smollm2-explainer", "gemma3"}
        assert abs(sum(v["weights"].values()) - 1.0) < 1e-6
        assert t["final_answer"] == (v["synthesized_response"] or v["winning_response"])
        assert "heuristic_quality" in r["scores"]
        if v["second_round_triggered"]:
            assert v["round_count"] == 2
            assert any(c["stage"] == "round2" for c in t["calls"])
    assert any(r["transcript"]["voting"]["second_round_triggered"] for r in results), [
        r["transcript"]["voting"]["agreement_level"] for r in results
    ]
    html = (run_dir / "index.html").read_text()
    assert "why-sky" in html and "second_round_triggered" in html and "agreement_level" in html
