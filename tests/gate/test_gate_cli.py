"""The gate end to end: ``council-harness run`` and ``compare`` as a user runs them, against a real
loopback OpenAI-compatible server whose answers and judge replies are scripted.

Scenarios of issue 11 (done-when) and issue 10 item 3: one case's rubric scores falling 8 -> 2 in a
five-case dataset fails the run naming that case; ``compare`` of a run whose results.jsonl is
empty, garbage, or holds 1 of 5 lines exits 1 and says how many results are missing or
unreadable; ``summary.json`` records every reason; ``--repeats`` sends a different seed per repeat.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_env import harness_env
from tests.fault_server import FaultServer, ok

CLI = Path(sys.executable).parent / "council-harness"
QUESTIONS = ["one", "two", "three", "four", "five"]
DIMENSIONS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")
GATED = ["rubric_composite", *DIMENSIONS]


def judge_reply(score: int) -> str:
    return json.dumps({**dict.fromkeys(DIMENSIONS, score), "reason": "scripted"})


@pytest.fixture
def project(tmp_path: Path):
    """A project folder (config + one five-case dataset) wired to a scripted loopback server."""
    with FaultServer(default=ok("Two.")) as server:
        server.when("Grade one answer", ok(judge_reply(8)), model="grader")
        (tmp_path / "golden").mkdir()
        cases = "\n".join(
            f'      - {{id: q{i + 1}, query: "Question {q}: say something."}}' for i, q in enumerate(QUESTIONS)
        )
        (tmp_path / "golden" / "gate.yaml").write_text(f"golden_datasets:\n  - name: gate\n    queries:\n{cases}\n")
        (tmp_path / "council-harness.yaml").write_text(
            f"base_url: {server.base_url}\n"
            "models:\n"
            "  - {id: m1, provider: openai, model: answerer, temperature: 0.7}\n"
            "  - {id: m2, provider: openai, model: answerer2}\n"
            "  - {id: m3, provider: openai, model: answerer3}\n"
            "chairman: m1\njudge: grader\nrubric_scoring: true\ncache_mode: 'off'\n"
            f"gated_scores: {json.dumps(GATED)}\n"
        )
        yield tmp_path, server


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = harness_env()
    env["OPENAI_API_KEY"] = "sk-test-gate"
    return subprocess.run([str(CLI), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def run_dirs(root: Path) -> list[Path]:
    return sorted(p for p in (root / "reports" / "runs").iterdir() if (p / "manifest.json").exists())


def baseline_run(root: Path) -> Path:
    done = cli(root, "run", "--subjects", "baseline", "--data", "golden", "--update-baseline")
    assert done.returncode == 0, done.stderr
    assert (root / "reports" / "baselines" / "gate.json").exists()
    (run,) = run_dirs(root)
    return run


def test_one_case_falling_8_to_2_fails_the_run_naming_it(project):
    root, server = project
    first = baseline_run(root)
    gate = json.loads((first / "summary.json").read_text())["gate"]
    assert gate["outcome"] == "pass" and gate["reasons"] == []

    server.clear_rules()
    server.when("Question three", ok(judge_reply(2)), model="grader")
    server.when("Grade one answer", ok(judge_reply(8)), model="grader")
    done = cli(root, "run", "--subjects", "baseline", "--data", "golden")
    assert done.returncode == 1, done.stderr
    # m1 samples at temperature 0.7: the gate is noise-aware (issue 27) and still names the collapse
    assert (
        "baseline gate: FAIL (1 regressed beyond noise, 0 changed within noise, 0 improved, noise-aware" in done.stdout
    )
    assert "case q3 [baseline]: accuracy 8.000 -> 2.000, worse by 6.000 > tolerance 0.5 + noise band " in done.stdout
    for other in ("q1", "q2", "q4", "q5"):
        assert f"case {other} " not in done.stdout

    second = run_dirs(root)[-1]
    gate = json.loads((second / "summary.json").read_text())["gate"]
    assert gate["outcome"] == "fail" and gate["counts"]["score_drop"] == len(GATED)
    assert gate["counts"]["missing"] == 0 and gate["counts"]["unreadable"] == 0
    accuracy = next(r for r in gate["reasons"] if r["score"] == "accuracy")
    assert {k: accuracy[k] for k in ("kind", "dataset", "case_id", "subject", "baseline", "current", "tolerance")} == {
        "kind": "score_drop",
        "dataset": "gate",
        "case_id": "q3",
        "subject": "baseline",
        "baseline": 8.0,
        "current": 2.0,
        "tolerance": 0.5,
    }
    html = (second / "index.html").read_text()
    # the reason is in the banner itself, not behind a click
    banner = html[html.index('<section id="gate">') : html.index("</section>")]
    assert "why the gate failed" in banner and "case q3 [baseline]: accuracy 8.000 -&gt; 2.000" in banner
    assert "<details" not in banner.split("why the gate failed")[1].split("case q3")[0]


@pytest.mark.parametrize(
    ("content", "read", "missing", "unreadable"),
    [
        ("", 0, 5, 0),  # empty results.jsonl
        ("garbage\n{not json\n\x00\x01\n", 0, 5, 3),  # garbage
        (None, 1, 4, 0),  # 1 of 5 lines
    ],
)
def test_compare_fails_on_missing_or_unreadable_results(project, content, read, missing, unreadable):
    root, _ = project
    first = baseline_run(root)
    broken = first.with_name("broken")
    shutil.copytree(first, broken)
    (broken / "summary.json").unlink()
    lines = (broken / "results.jsonl").read_text().splitlines()
    (broken / "results.jsonl").write_text(lines[0] + "\n" if content is None else content)

    done = cli(root, "compare", str(broken))
    assert done.returncode == 3, done.stdout + done.stderr  # incomplete: never a pass, not a regression either
    # the reasons: each missing case and unreadable line, and once for the run: fewer results than planned
    assert (
        f"gate: incomplete: {missing + unreadable + 1} reason(s); {read} result(s) read, {missing} baselined "
        f"case(s) missing, {unreadable} unreadable line(s)"
    ) in done.stdout
    assert f"incomplete: {read} of 5 planned result(s)" in done.stdout
    gate = json.loads((broken / "summary.json").read_text())["gate"]
    assert gate["outcome"] == "incomplete" and gate["counts"]["not_run"] == 1
    assert (gate["counts"]["missing"], gate["counts"]["unreadable"], gate["counts"]["results"]) == (
        missing,
        unreadable,
        read,
    )
    # cases run concurrently, so results.jsonl's first line may be any case: the kept one is read from it
    kept = {json.loads(lines[0])["case_id"]} if content is None else set()
    expected_missing = sorted({f"q{i}" for i in range(1, 6)} - kept)
    assert len(expected_missing) == missing
    assert sorted(r["case_id"] for r in gate["reasons"] if r["kind"] == "missing") == expected_missing
    assert [r["line"] for r in gate["reasons"] if r["kind"] == "unreadable"] == [
        f"results.jsonl:{n}" for n in range(1, unreadable + 1)
    ]

    # --summary writes the same section elsewhere and leaves other sections of that file alone
    elsewhere = root / "ci" / "gate.json"
    elsewhere.parent.mkdir()
    elsewhere.write_text('{"verdicts": {"kept": true}}')
    done = cli(root, "compare", str(broken), "--summary", str(elsewhere))
    assert done.returncode == 3
    data = json.loads(elsewhere.read_text())
    assert data["verdicts"] == {"kept": True} and data["gate"] == gate


def test_compare_of_an_unchanged_run_passes(project):
    root, _ = project
    first = baseline_run(root)
    done = cli(root, "compare", str(first))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "gate: pass: 0 reason(s); 5 result(s) read, 0 baselined case(s) missing, 0 unreadable line(s)" in done.stdout


def test_repeats_use_a_new_seed_per_repeat_and_store_spreads(project):
    root, server = project
    config = root / "council-harness.yaml"
    config.write_text(config.read_text().replace("cache_mode: 'off'", "cache_mode: readwrite"))
    done = cli(root, "run", "--subjects", "baseline", "--data", "golden", "--repeats", "3", "--update-baseline")
    assert done.returncode == 0, done.stderr
    asked = [
        r.body
        for r in server.requests
        if r.body and r.body["model"] == "answerer" and "Question one" in json.dumps(r.body["messages"])
    ]
    # the configured seed 42, then 42 + 1009 and 42 + 2018 (member m1 has seed offset 0)
    assert sorted(b["seed"] for b in asked) == [42, 1051, 2060]
    run = run_dirs(root)[-1]
    assert sorted(p.name for p in (run / "repeats").iterdir()) == ["r1", "r2"]
    baseline = json.loads((root / "reports" / "baselines" / "gate.json").read_text())
    spread = baseline["entries"][0]["spread"]["accuracy"]
    assert spread == {"k": 3, "mean": 8.0, "sd": 0.0, "low": 8.0, "high": 8.0}
    # the same run again is served from the cache: each repeat has its own cache keys
    before = len(server.requests)
    done = cli(root, "run", "--subjects", "baseline", "--data", "golden", "--repeats", "3")
    assert done.returncode == 0, done.stderr
    assert len(server.requests) == before
    assert "noise-aware" in done.stdout
