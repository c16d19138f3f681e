"""Smoke test of bench/: every benchmark runs in its smallest mode and reports the figures it promises.

Benchmarks are not tests: nothing here looks at how long anything took, only that each module ran,
produced its expected keys and finite numbers, and (where the bench checks its own work) did
the same work in every arm.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from bench import BenchResult, BenchRow, bench_http, bench_overhead, bench_replay, bench_tier1, bench_xdist
from bench import run as bench_run


def _assert_figures(result: BenchResult, name: str, keys: set[str]) -> None:
    assert result.name == name
    missing = keys - set(result.figures)
    assert not missing, f"{name}: missing figures {sorted(missing)}"
    not_finite = sorted(k for k in keys if not math.isfinite(result.figures[k]))
    assert not not_finite, f"{name}: figures not finite: {not_finite}"
    assert result.rows and all(r.name.startswith(f"{name}.") for r in result.rows)


def test_tier1_transcript_is_a_five_member_council() -> None:
    t = bench_tier1.build_transcript()
    assert len(t.answers) == 5 and len(t.reviews) == 5 and len(t.aggregate) == 5
    assert all(150 <= len(a.text.split()) <= 175 for a in t.answers)
    # every review is a fenced JSON ballot with a critique, parsed by the real parser
    assert all(r.ballot.method == "json_fenced" and r.ballot.critique for r in t.reviews)
    assert all(len(r.ballot.ranking) == 5 for r in t.reviews)
    assert sum(r.votes for r in t.aggregate) == 5 * 4  # self-votes dropped: 4 per ballot
    assert t.synthesis and t.final_answer == t.synthesis


def test_tier1_quick() -> None:
    result = bench_tier1.run(quick=True, reps=2, call_tokens=4, threads=1)
    _assert_figures(
        result,
        "tier1",
        {
            "metrics_ms",
            "metrics_cpu_ms",
            "metrics_warm_ms",
            "budget_ratio",
            "model_call_ms",
            "model_call_tokens",
            "metrics_per_model_call",
        },
    )
    assert 1 <= result.figures["model_call_tokens"] <= 4


def test_overhead_quick_arms_do_the_same_work() -> None:
    result = bench_overhead.run(quick=True, threads=1)
    _assert_figures(
        result,
        "overhead",
        {
            "raw_ms",
            "provider_ms",
            "harness_ms",
            "provider_pct",
            "harness_pct",
            "provider_cpu_pct",
            "harness_cpu_pct",
            "provider_inrun_pct",
            "harness_inrun_ms",
            "harness_inrun_pct",
            "judge_case_ms",
            "judge_inrun_pct",
            "judge_model_ratio",
        },
    )
    assert result.figures["prompts"] == 1 and result.figures["max_tokens"] == 8
    # same prompt, sampling and seed: the provider and the harness return exactly the raw text
    assert result.figures["identical_outputs"] == 1


def test_replay_quick_records_cold_then_replays(tmp_path: Path) -> None:
    result = bench_replay.run(quick=True, cache=tmp_path / "absent.sqlite", threads=1)
    _assert_figures(
        result,
        "replay",
        {
            "replay_s",
            "replay_per_result_ms",
            "cold_s",
            "cold_per_result_ms",
            "cold_over_replay",
        },
    )
    assert result.figures["cases"] == 3 and result.figures["subjects"] == 1
    assert result.figures["results"] == 3 and result.figures["replay_hits"] == 3  # every call served from the cache
    assert not (tmp_path / "absent.sqlite").exists()  # the cold record went to a temporary cache
    assert any("recording the suite cold" in n for n in result.notes)


def test_replay_uses_an_existing_cache_that_holds_the_suite(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    settings = bench_replay.cold_settings(cache, tmp_path, answer_tokens=8)
    cases = bench_replay.suite_cases(1)
    recorded = bench_replay.run_suite(settings, cases, ["baseline"], tmp_path / "rec", threads=1)
    assert recorded.results == 1 and recorded.misses == 1
    replay_settings = settings.model_copy(update={"cache_mode": "replay"})
    assert bench_replay.recorded_subjects(replay_settings, cases[0], tmp_path) == ["baseline"]


def test_http_quick() -> None:
    result = bench_http.run(quick=True)
    _assert_figures(result, "http", {"c1_s", "c4_s", "c4_speedup", "c4_ideal", "c4_efficiency"})
    assert result.figures["c4_ideal"] == 4.0  # 4 requests, 4 at a time: one delay period instead of four
    assert result.figures["requests"] == 4


def test_bias_tiny() -> None:
    from bench import bench_bias  # written separately; the runner calls its run()

    result = bench_bias.run(quick=True, sizes=(50,), resamples=20)
    assert isinstance(result, BenchResult) and result.name == "bias"
    assert result.figures and all(math.isfinite(v) for v in result.figures.values())
    assert result.figures["sessions_50.records"] == 50 * 12  # 4 reviewers x 3 candidates per session


def test_hostile_quick() -> None:
    from bench import bench_hostile

    result = bench_hostile.run(quick=True)
    _assert_figures(
        result,
        "hostile",
        {
            "hq_small_ms",
            "hq_big_ms",
            "hq_ratio",
            "ballot_small_ms",
            "ballot_big_ms",
            "sandbox_isolated_ms",
            "sandbox_bare_ms",
            "sandbox_isolation_ratio",
        },
    )
    assert "not found on PATH" in result.rows[2].note  # the bare arm really ran without namespaces


def test_cases_quick_measures_throughput_and_scale() -> None:
    from bench import bench_cases

    result = bench_cases.run(quick=True, scale_cases=60)
    keys = {
        f"{label}_{k}"
        for label in ("c20_serial", "c20")
        for k in ("wall_s", "peak_in_flight", "requests", "wall_per_sum", "wall_per_ideal", "ideal_s", "errors")
    }
    _assert_figures(
        result,
        "cases",
        keys
        | {
            "scale_run_s",
            "scale_peak_rss_mb",
            "scale_yaml_load_s",
            "scale_report_s",
            "scale_report_mb",
            "scale_export_s",
            "scale_results",
        },
    )
    # 4 cases x (council 3 + 3 + 1 + judge 1, baseline 1 + judge 1): the same work in both arms
    assert result.figures["c20_serial_requests"] == result.figures["c20_requests"] == 4 * 10
    # one pair at a time: at most the council's three stage-1 requests at once; concurrently, at least 8
    assert result.figures["c20_serial_peak_in_flight"] <= 3 and result.figures["c20_peak_in_flight"] >= 8
    assert result.figures["c20_errors"] == result.figures["c20_serial_errors"] == 0
    assert result.figures["scale_results"] == 60


def test_extraction_quick() -> None:
    from bench import bench_extraction

    result = bench_extraction.run(quick=True)
    kinds = ("numeric", "choice", "boolean", "exact", "any_of", "all")
    _assert_figures(
        result,
        "extraction",
        {"corpus_n", "corpus_wrong", "hostile_128k_ms", "hostile_1m_ms"}
        | {f"{k}.{m}" for k in kinds for m in ("precision", "recall", "ambiguous")},
    )
    assert "python.precision" not in result.figures  # --quick leaves out the sandboxed rows
    assert all(0.97 <= result.figures[f"{k}.recall"] <= 1 and result.figures[f"{k}.precision"] >= 0.99 for k in kinds)
    assert result.notes[-1] == "hostile answers capped: True"


def test_json_line_and_table() -> None:
    results = [
        BenchResult(
            name="a",
            figures={"x_ms": 1.5, "missing": math.nan},
            rows=(BenchRow(name="a.x", figure="1.50 ms", ratio="0.05x of 30 ms", note="n"),),
        ),
        BenchResult(name="b", figures={"y": 2.0}, rows=(BenchRow(name="b.y", figure="2", ratio="1x"),)),
    ]
    line = bench_run.json_line(results, {"quick": True})
    assert line.startswith("BENCH_JSON ")
    data = json.loads(line.removeprefix("BENCH_JSON "))
    assert data == {"quick": True, "figures": {"a.x_ms": 1.5, "a.missing": None, "b.y": 2.0}}
    lines = bench_run.table(results)
    assert lines[0].split() == ["name", "figure", "ratio", "note"]
    assert lines[2].split() == ["a.x", "1.50", "ms", "0.05x", "of", "30", "ms", "n"]
    assert lines[3].split() == ["b.y", "2", "1x"]


def test_entry_point_prints_the_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_run.main(["--quick", "--only", "http"]) == 0
    out = capsys.readouterr().out
    json_lines = [line for line in out.splitlines() if line.startswith("BENCH_JSON ")]
    assert len(json_lines) == 1
    data = json.loads(json_lines[0].removeprefix("BENCH_JSON "))
    assert data["benches"] == ["http"] and data["quick"] is True
    assert {"http.c1_s", "http.c4_speedup", "http.c4_ideal"} <= set(data["figures"])
    assert any(line.startswith("http.c4 ") for line in out.splitlines())


def test_a_failing_benchmark_is_reported_not_raised() -> None:
    def broken(options: bench_run.Options) -> BenchResult:
        raise ValueError("no such input")

    result, _ = bench_run.run_one("http", bench_run.Options(quick=True), benches={"http": broken})
    assert result.figures == {"failed": 1.0}
    assert result.rows[0].name == "http.FAILED" and "ValueError: no such input" in result.rows[0].note


def test_loading_quick() -> None:
    from bench import bench_loading

    result = bench_loading.run(quick=True)
    _assert_figures(result, "loading", {"cases", "load_s", "per_1000_cases_ms", "peak_rss_mb", "refuse_ms"})
    assert result.figures["cases"] > 10_000  # 1 MiB of three-line cases
    assert "8 MiB (8.0 MiB), the cap on dataset and config files" in result.rows[1].note  # refused, not parsed


def test_startup_one_run_of_each_command() -> None:
    from bench import bench_startup

    result = bench_startup.run(runs=1)
    _assert_figures(
        result, "startup", {"python_ms", "libs_ms", "help_ms", "usage_error_ms", "help_ratio", "usage_error_ratio"}
    )
    assert [r.name for r in result.rows] == ["startup.python", "startup.libs", "startup.help", "startup.usage_error"]
    assert result.figures["help_ratio"] == pytest.approx(result.figures["help_ms"] / result.figures["libs_ms"])


def test_xdist_quick() -> None:
    pytest.importorskip("xdist")
    result = bench_xdist.run(quick=True)
    f = result.figures
    # 4 cases x (council: 3 answers + 3 ballots + 1 synthesis, baseline: 1) in both sessions, never over concurrency
    assert f["plain_requests"] == f["n2_requests"] == 4 * 8
    assert 1 <= f["plain_peak_in_flight"] <= 4 and 1 <= f["n2_peak_in_flight"] <= 4
    assert f["n2_s"] > 0 and f["plain_s"] > 0


def test_extraction_scores_split_by_whether_the_answer_followed_the_format(tmp_path: Path) -> None:
    """``--corpus`` splits its figures by the answer-format protocol: an ``Answer:`` last line (after any
    visible thinking) or a fenced python block follows it; a declared line with text after it does not."""
    from bench import bench_extraction

    num = {"type": "numeric", "value": 42}
    rows = [
        {"id": "a", "expected": num, "answer": "6 * 7 = 42.\nAnswer: 42", "correct": True},
        {"id": "b", "expected": num, "answer": "<think>42?</think>\n6 * 7 = 41.\n**Answer:** 41", "correct": False},
        {"id": "c", "expected": num, "answer": "Answer: 42\nHope that helps!", "correct": True},
        {"id": "d", "expected": num, "answer": "The answer is 42 or maybe 43.", "correct": True},
        {
            "id": "e",
            "expected": {"type": "python", "tests": "assert f() == 1"},
            "answer": "```python\ndef f():\n    return 1\n```",
            "correct": True,
        },
    ]
    corpus = tmp_path / "c.yaml"
    corpus.write_text(yaml.safe_dump(rows), encoding="utf-8")
    scored, _ = bench_extraction.score_file(corpus)
    assert [r["follows_format"] for r in scored] == [True, True, False, False, True]
    split = bench_extraction.by_format(scored)
    assert (split["followed"]["n"], split["followed"]["tp"], split["followed"]["fp"]) == (3, 2, 0)
    assert (split["not followed"]["n"], split["not followed"]["tp"], split["not followed"]["fn"]) == (2, 1, 1)
    assert split["not followed"]["recall"] == 0.5
