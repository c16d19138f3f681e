"""Bias stores written by the seeds' own system, ``llm-council-core`` (issue 11 item 6b).

The store is written by the installed package's real persistence functions
(``llm_council.bias_persistence.create_bias_records_from_session`` and ``append_bias_records``):
schema 1.2.0, 0-based display positions, ``query_metadata`` null or with ``token_bucket``, and
``score_value`` 0.0 where a reviewer gave no score.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.bias.aggregate import read_table, run_aggregated_bias_audit
from harness.bias.store import BiasStore
from harness.cli import main

persistence = pytest.importorskip("llm_council.bias_persistence")

MODELS = ("openai/gpt-x", "anthropic/claude-y", "google/gemini-z", "meta/llama-w")
LABELS = ("Response A", "Response B", "Response C", "Response D")


def _session(index: int, missing_score: bool = False) -> list:  # type: ignore[type-arg]
    """One council session as llm-council-core's stages hand it to persistence."""
    shift = index % len(MODELS)
    shown = MODELS[shift:] + MODELS[:shift]  # display order rotates from session to session
    pairs = enumerate(zip(LABELS, shown, strict=True))
    label_to_model = {lab: {"model": m, "display_index": i} for i, (lab, m) in pairs}
    stage1 = [{"model": m, "response": "x" * (200 + 150 * j + 7 * index)} for j, m in enumerate(MODELS)]
    stage2 = []
    for r, reviewer in enumerate(MODELS[:3]):
        ranking = [LABELS[(r + j) % 4] for j in range(4)]
        scores = {lab: float(9 - 2 * j) for j, lab in enumerate(ranking)}
        if missing_score and r == 0:
            del scores[ranking[-1]]  # the package records this as 0.0
        stage2.append({"model": reviewer, "parsed_ranking": {"ranking": ranking, "scores": scores}})
    return persistence.create_bias_records_from_session(
        session_id=f"session-{index}",
        stage1_results=stage1,
        stage2_results=stage2,
        label_to_model=label_to_model,
        query="Write a python function" if index % 2 else None,
    )


@pytest.fixture
def store_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))  # the package must not touch the real home folder
    path = tmp_path / "bias_metrics.jsonl"
    for i in range(12):
        assert persistence.append_bias_records(_session(i, missing_score=i == 5), store_path=path) == 12
    return path


def test_the_package_writes_what_the_reader_expects(store_path: Path):
    lines = [json.loads(line) for line in store_path.read_text().splitlines()]
    assert len(lines) == 144
    assert {line["schema_version"] for line in lines} == {"1.2.0"}
    assert {line["position"] for line in lines} == {0, 1, 2, 3}
    assert any(line["query_metadata"] is None for line in lines)
    assert any(isinstance(line["query_metadata"], dict) and "token_bucket" in line["query_metadata"] for line in lines)
    assert sum(line["score_value"] == 0.0 for line in lines) == 1


def test_columns_reader_converts_positions_and_says_why_a_line_is_skipped(store_path: Path):
    lines = [json.loads(line) for line in store_path.read_text().splitlines()]
    read = read_table(BiasStore(store_path))
    assert read.writers == (("llm-council-core", 143),)
    assert read.corrupt_lines == 1
    zero = next(i for i, line in enumerate(lines, start=1) if line["score_value"] == 0.0)
    assert read.corrupt_examples == (zero,)
    (reason,) = read.reasons
    assert reason.startswith(f"line {zero}: score_value: expected a number from 1 to 10") and "\n" not in reason
    assert "llm-council-core writes 0.0" in reason
    kept = [line for line in lines if line["score_value"] != 0.0]
    assert read.table.position.tolist() == [line["position"] + 1 for line in kept]
    assert read.table.score.tolist() == [line["score_value"] for line in kept]
    assert read.table.n_sessions == 12


def test_record_reader_agrees_with_the_columns_reader(store_path: Path):
    read = BiasStore(store_path).read()
    columns = read_table(BiasStore(store_path))
    assert read.total_records == 143 and read.corrupt_lines == 1
    assert [r.position for r in read.records] == columns.table.position.tolist()
    assert read.reasons[0].startswith(f"line {read.corrupt_examples[0]}: llm-council-core record: score_value")
    assert all(r.query_metadata.token_count_bucket is None for r in read.records)


def test_records_before_schema_1_2_have_no_display_position(store_path: Path):
    old = persistence.BiasMetricRecord(
        schema_version="1.1.0",
        session_id="old-session",
        timestamp="2025-12-01T10:00:00+00:00",
        reviewer_id=MODELS[0],
        model_id=MODELS[1],
        position=2,
        response_length_chars=500,
        score_value=7.0,
    )
    persistence.append_bias_records([old], store_path=store_path)
    read = read_table(BiasStore(store_path))
    assert read.no_display_position == 1 and read.table.position[-1] == 0
    report = run_aggregated_bias_audit(read.table)
    assert report.records == 144
    assert report.position_bias is not None and report.position_bias.records_without_position == 1
    assert sum(p.sample_size for p in report.position_bias.positions) == 143
    assert BiasStore(store_path).read().records[-1].position is None


def test_bias_report_command_on_the_package_store(store_path: Path, capsys: pytest.CaptureFixture[str]):
    code = main(
        [
            "bias-report",
            "--input",
            str(store_path),
            "--format",
            "json",
            "--sessions",
            "0",
            "--days",
            "0",
            "--min-sessions",
            "10",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0
    report = json.loads(out)
    assert (report["sessions"], report["records"]) == (12, 143)
    assert [p["subject"] for p in report["position_bias"]["positions"]] == ["1", "2", "3", "4"]
    assert "skipped 1 unreadable line(s)" in err
    assert "llm-council-core writes 0.0 when a reviewer gave no score" in err
    assert "143 from llm-council-core" in err
