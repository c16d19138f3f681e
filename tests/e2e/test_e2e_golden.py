"""End to end on the embedded models: golden YAML as pytest items, the run record, the report, replay.

One cold run records every model call in a cache; the later runs replay it, so the whole module
makes real llama.cpp calls only once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_env import harness_env, run_pytest

MINI = """\
golden_datasets:
  - name: mini
    description: quick facts for the end-to-end test
    queries:
      - id: capital-fr
        query: "What is the capital of France? Answer in one sentence."
        ground_truth: "Paris is the capital of France."
        required_mentions: ["Paris"]
      - id: add-small
        query: "What is 2 plus 3? Answer in one sentence."
        ground_truth: "5"
        required_mentions: ["5"]
      - id: impossible
        query: "What is the capital of France? Answer in one sentence."
        ground_truth: "(a case that must fail: the mention is never produced)"
        required_mentions: ["Zanzibar"]
"""


def _env(project: Path) -> dict[str, str]:
    env = harness_env()
    env.update(
        {
            "LLM_COUNCIL_ANSWER_MAX_TOKENS": "40",
            "LLM_COUNCIL_REVIEW_MAX_TOKENS": "120",
            "LLM_COUNCIL_FINAL_ANSWER_MAX_TOKENS": "40",
            "LLM_COUNCIL_CACHE_PATH": str(project / "cache.sqlite"),
            "LLM_COUNCIL_BIAS_PERSISTENCE": "true",
            # a monitoring endpoint that refuses connections: delivery fails in the background, runs complete
            "LLM_COUNCIL_QUALITY_WEBHOOK_URL": "http://127.0.0.1:9/hook",
            "LLM_COUNCIL_BIAS_STORE": str(project / "bias.jsonl"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    return env


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_pytest(project, *args, env=_env(project), timeout=900)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden-project")
    (root / "golden").mkdir()
    (root / "golden" / "mini.yaml").write_text(MINI)
    (root / "pytest.ini").write_text("[pytest]\n")
    return root


@pytest.fixture(scope="module")
def cold_run(project: Path) -> subprocess.CompletedProcess[str]:
    return _pytest(project, "-m", "golden", "--harness-report", str(project / "report.html"), "-q")


def _runs(project: Path) -> list[Path]:
    return sorted((project / "reports" / "runs").iterdir())


def test_collect_only_lists_one_item_per_case_and_subject(project: Path) -> None:
    out = _pytest(project, "-m", "golden", "--collect-only", "-q")
    items = [line for line in out.stdout.splitlines() if line.startswith("golden/")]
    assert items == [
        f"golden/mini.yaml::mini::{case}[{subject}]"
        for case in ("capital-fr", "add-small", "impossible")
        for subject in ("council", "baseline")
    ]


@pytest.mark.slow
def test_cold_run_fails_only_the_impossible_case_with_a_readable_report(
    project: Path, cold_run: subprocess.CompletedProcess[str]
) -> None:
    out = cold_run.stdout
    assert cold_run.returncode == 1, out + cold_run.stderr
    assert "FAILED golden/mini.yaml::mini::impossible[council]" in out
    assert "FAILED golden/mini.yaml::mini::impossible[baseline]" in out
    assert "required_mention 'Zanzibar': 'Zanzibar' does not appear in the answer" in out
    assert "got: " in out and "expected (ground truth)" in out
    assert "Traceback" not in out
    assert (project / "report.html").exists()


@pytest.mark.slow
def test_run_record_and_tier1_metrics(project: Path, cold_run: subprocess.CompletedProcess[str]) -> None:
    run_dir = _runs(project)[0]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["subjects"] == ["council", "baseline"] and manifest["finished_at"]
    assert {m["name"] for m in manifest["models"]} == {"smollm2-135m", "gemma3-270m"}
    assert all(len(m["sha256"]) == 64 for m in manifest["models"])
    assert manifest["cache_misses"] > 0
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    results = [json.loads(line) for line in lines]
    assert len(results) == 6
    council = [r for r in results if r["subject"] == "council"]
    for r in council:
        qm = r["details"]["quality_metrics"]  # per-scorer records live under details
        assert qm["tier"] == "standard"  # Tier 1 plus the rubric judge
        assert 0.0 <= qm["core"]["consensus_strength"] <= 1.0
        assert qm["core"]["deliberation_components"]["coverage"] == 1.0  # every member reviewed
        assert len(r["transcript"]["answers"]) == 3 and len(r["transcript"]["reviews"]) == 3
        assert r["transcript"]["synthesis"]
    for r in (r for r in results if r["subject"] == "baseline"):
        assert "quality_metrics" not in r["details"] and len(r["transcript"]["answers"]) == 1


@pytest.mark.slow
def test_replay_makes_no_model_call_and_gives_identical_results(
    project: Path, cold_run: subprocess.CompletedProcess[str]
) -> None:
    replay = _pytest(project, "-m", "golden", "--cache-mode", "replay", "-q")
    assert replay.returncode == 1
    assert "2 failed, 4 passed" in replay.stdout
    cold_dir, replay_dir = _runs(project)[:2]
    manifest = json.loads((replay_dir / "manifest.json").read_text())
    assert manifest["cache_misses"] == 0 and manifest["cache_hits"] > 0

    def answers(d: Path) -> dict:
        rows = [json.loads(x) for x in (d / "results.jsonl").read_text().splitlines()]
        return {(r["case_id"], r["subject"]): (r["transcript"]["final_answer"], r["scores"]) for r in rows}

    assert answers(cold_dir) == answers(replay_dir)


@pytest.mark.slow
def test_replay_miss_names_the_case(project: Path, cold_run: subprocess.CompletedProcess[str]) -> None:
    extra = project / "golden" / "extra.yaml"
    extra.write_text(MINI.replace("name: mini", "name: extra").replace("France?", "Spain?"))
    try:
        out = _pytest(project, "-m", "golden", "--cache-mode", "replay", "-q", "golden/extra.yaml")
    finally:
        extra.unlink()
    assert out.returncode == 1
    assert "replay mode: no cached reply" in out.stdout and "extra::capital-fr" in out.stdout


@pytest.mark.slow
def test_cli_run_writes_report(project: Path, cold_run: subprocess.CompletedProcess[str]) -> None:
    cli = Path(sys.executable).with_name("council-harness")
    out = subprocess.run(
        [str(cli), "run", "--dataset", "mini", "--cache-mode", "replay"],
        cwd=project,
        env=_env(project),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 1, out.stderr  # the impossible case fails
    report_line = [x for x in out.stdout.splitlines() if x.startswith("report: ")]
    assert report_line, out.stdout
    html = (project / report_line[0].removeprefix("report: ").strip()).read_text()
    assert "Consensus Strength" in html and "capital-fr" in html and "[█" in html
    assert "<script" not in html.lower().split("</head>")[1]


def test_bad_dataset_is_a_one_paragraph_collection_error(project: Path) -> None:
    bad = project / "golden" / "broken.yaml"
    bad.write_text("golden_datasets:\n  - name: broken\n    queries:\n      - id: a\n        qury: x\n")
    try:
        out = _pytest(project, "-m", "golden", "--collect-only", "-q", "golden/broken.yaml")
    finally:
        bad.unlink()
    assert out.returncode != 0
    assert "dataset error:" in out.stdout and "broken.yaml:5" in out.stdout and "unknown key" in out.stdout
    assert "Traceback" not in out.stdout


@pytest.mark.slow
def test_baseline_gate_round_trip(project: Path, cold_run: subprocess.CompletedProcess[str]) -> None:
    """--update-baseline writes the baseline; a worse run against a better baseline exits 1; updating clears it."""
    select = ["-m", "golden", "--cache-mode", "replay", "-q", "-k", "not impossible"]
    first = _pytest(project, *select, "--update-baseline")
    assert first.returncode == 0, first.stdout
    baseline_file = project / "reports" / "baselines" / "mini.json"
    assert "baseline written" in first.stdout and baseline_file.exists()
    data = json.loads(baseline_file.read_text())
    # make the stored baseline better than what the models produce on one case and score
    for entry in data["entries"]:
        s = entry["scores"]
        if entry["subject"] == "council" and s.get("hallucination_risk", 0) >= 0.2:
            s["hallucination_risk"] = 0.0  # lower is better: the baseline now beats the run
            target = (entry["case_id"], "hallucination_risk")
            break
        if entry["subject"] == "council" and s.get("consensus_strength", 1) <= 0.8:
            s["consensus_strength"] = 1.0
            target = (entry["case_id"], "consensus_strength")
            break
    else:
        pytest.fail(f"no council score can be made to regress: {data['entries']}")
    baseline_file.write_text(json.dumps(data))

    gated = _pytest(project, *select)
    assert gated.returncode == 1, gated.stdout
    assert "baseline mini: FAIL (1 regressed" in gated.stdout
    assert f"case {target[0]} [council]: {target[1]} " in gated.stdout
    report = sorted((project / "reports" / "runs").iterdir())[-1] / "index.html"
    assert "regressed" in report.read_text()  # the matrix's baseline delta marks the case

    cli = Path(sys.executable).with_name("council-harness")
    run_dir = sorted((project / "reports" / "runs").iterdir())[-1]
    compared = subprocess.run(
        [str(cli), "compare", str(run_dir)], cwd=project, env=_env(project), capture_output=True, text=True, timeout=120
    )
    assert compared.returncode == 1
    assert f"case {target[0]} [council]: {target[1]} " in compared.stdout
    assert json.loads((run_dir / "summary.json").read_text())["gate"]["outcome"] == "fail"

    assert _pytest(project, *select, "--update-baseline").returncode == 0
    assert _pytest(project, *select).returncode == 0


@pytest.mark.slow
def test_bias_records_and_report(project: Path, cold_run: subprocess.CompletedProcess[str]) -> None:
    lines = (project / "bias.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    sessions = {r["session_id"] for r in records}
    assert len(sessions) >= 3  # one per council case of the cold run (replays add more)
    first = records[0]
    assert first["schema_version"] == "1.1.0" and first["query_hash"] is None  # consent 1: no hash
    assert "query" not in first and 1 <= first["position"] <= 3
    assert {r["reviewer_id"] for r in records} == {"smollm2-precise", "smollm2-explainer", "gemma3"}
    assert all(r["reviewer_id"] != r["model_id"] for r in records)
    cli = Path(sys.executable).with_name("council-harness")
    out = subprocess.run(
        [str(cli), "bias-report", "--input", str(project / "bias.jsonl"), "--format", "json"],
        cwd=project,
        env=_env(project),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report  # figures carry N, estimate, CI and window (checked in the bias unit tests)
    results = [json.loads(x) for x in next(iter(_runs(project)[:1])).joinpath("results.jsonl").read_text().splitlines()]
    council = [r for r in results if r["subject"] == "council"]
    assert all(r["details"]["bias"]["risk"] in ("low", "medium", "high") for r in council)


@pytest.mark.slow
def test_xdist_workers_write_one_merged_run(project: Path, cold_run: subprocess.CompletedProcess[str]) -> None:
    before = set(_runs(project))
    out = _pytest(project, "-m", "golden", "--cache-mode", "replay", "-q", "-n", "2")
    assert out.returncode == 1 and "2 failed, 4 passed" in out.stdout, out.stdout
    (run_dir,) = set(_runs(project)) - before
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    keys = sorted((json.loads(x)["case_id"], json.loads(x)["subject"]) for x in lines)
    assert keys == sorted((c, s) for c in ("capital-fr", "add-small", "impossible") for s in ("council", "baseline"))
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["cache_misses"] == 0 and manifest["cache_hits"] > 0 and manifest["finished_at"]
    assert (run_dir / "index.html").exists()
