"""The embedded llama.cpp models under case-level concurrency: the same answers and scores whatever
the concurrency (calls to one model run one at a time and set their seed; a chat call resets the
context, a probe reuses only whole 32-token chunks of its prompt's opening, which hold the numbers a
fresh evaluation computes, so the order the calls queue in changes nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from harness.config import load_settings
from harness.data.cases import load_datasets
from harness.run.orchestrate import case_window, run_cases
from tests.run.test_concurrency import comparable

pytestmark = pytest.mark.slow  # runs the embedded models

TINY = """\
golden_datasets:
  - name: tiny
    queries:
      - {id: t1, query: "What is the capital of France?", required_mentions: [Paris]}
      - {id: t2, query: "What is 2 plus 2?", required_mentions: ["4"]}
      - {id: t3, query: "Name a primary colour.", required_mentions: [red]}
"""


def test_embedded_council_gives_the_same_results_at_concurrency_1_and_16(tmp_path: Path) -> None:
    data = tmp_path / "tiny.yaml"
    data.write_text(TINY, encoding="utf-8")
    runs = []
    for concurrency, window in ((1, 1), (16, None)):
        settings = load_settings(
            concurrency=concurrency,
            cache_mode="off",
            rubric_scoring=False,
            answer_max_tokens=16,
            review_max_tokens=64,
            synthesis_max_tokens=16,
            reports_dir=tmp_path / f"c{concurrency}",
            llama_threads=1,
        )
        assert window == 1 or case_window(settings) == 2 * 2 * 16  # two embedded models, 16 calls queued each
        runs.append(
            run_cases(
                settings,
                load_datasets(data),
                ["council", "baseline"],
                console=Console(stderr=True, quiet=True),
                window=window,
            )
        )
    serial, wide = runs
    assert len(serial.results) == len(wide.results) == 6
    assert all(r.transcript is not None and r.transcript.final_answer for r in serial.results)
    assert [comparable(r) for r in serial.results] == [comparable(r) for r in wide.results]
