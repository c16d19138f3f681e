"""User-defined scorers (issue 13 item 3, issue 25): ``module:function`` or an entry point's name from the
config, names of those or of installed ``council_harness.scorers`` entry points from a dataset; their
scores reach results, ``minimum_scores``, the report, ``export`` and baselines; a failing scorer is a
per-case scoring error naming it."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.common import scorer_refs
from harness.common.errors import ConfigError, DatasetError
from harness.config import Settings, load_settings
from harness.council.calls import Caller
from harness.data.cases import Case, load_datasets
from harness.records.transcript import Answer, Transcript
from harness.run.result import CaseResult
from harness.run.scoring import score_case
from harness.scorers import SCORES, ScoreOutcome
from tests.scripted_server import SOLO, ScriptedServer, question

CLI = [sys.executable, "-m", "harness.cli"]

SCORERS = """
import math
from harness.scorers import ScoreOutcome, register_score

register_score("answer_words", "words in the answer, 0-1000", scale=1000)

def answer_chars(*, case, transcript):
    return len(transcript.final_answer) / 100

async def words(*, case, transcript):
    return {"answer_words": len(transcript.final_answer.split())}

def boom(*, case, transcript):
    raise RuntimeError("kaput")

def text(*, case, transcript):
    return "high"

def nan(*, case, transcript):
    return {"bad": math.nan}

def outcome(*, case, transcript):
    return ScoreOutcome(scores={"has_seven": float("7" in transcript.final_answer)},
                        detail={"first_word": transcript.final_answer.split()[0]})
"""

ENTRY_POINT_SCORER = """
def shout(*, case, transcript):
    return float(transcript.final_answer.isupper())
"""


@pytest.fixture(autouse=True)
def _forget_user_scorers(monkeypatch) -> None:
    """Each test starts and ends with the process state it found: the user scorers loaded and the
    score names they registered are per process (a CLI run loads one config), so they are restored."""
    monkeypatch.setattr(scorer_refs, "_RESOLVED", set(scorer_refs._RESOLVED))
    monkeypatch.setattr(scorer_refs, "_ENTRY_POINTS", dict(scorer_refs._ENTRY_POINTS))
    monkeypatch.setattr(SCORES, "_specs", dict(SCORES._specs))


def _module(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(text)
    return folder


def _entry_point(folder: Path, module: str, ep_name: str, ref: str) -> Path:
    """A real installed distribution: ``<name>-1.0.dist-info`` with ``entry_points.txt`` (what pip writes)."""
    _module(folder, module, ENTRY_POINT_SCORER)
    info = folder / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[council_harness.scorers]\n{ep_name} = {ref}\n")
    return folder


def _transcript(final: str) -> Transcript:
    return Transcript(
        subject="baseline", query="q", answers=(Answer(member="m", model="m", text=final),), final_answer=final
    )


def _score(case: Case, final: str, settings: Settings) -> CaseResult:
    return asyncio.run(score_case(case, _transcript(final), Caller({}, settings), settings))


def test_config_scorers_score_and_their_failures_are_scoring_errors(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(_module(tmp_path, "usc_unit", SCORERS)))
    names = ["answer_chars", "words", "boom", "text", "nan", "outcome"]
    settings = Settings(scorers=[f"usc_unit:{n}" for n in names], rubric_scoring=False)
    case = Case(id="c", query="q", minimum_scores={"answer_chars": 0.17, "answer_words": 4})
    r = _score(case, "The answer is 7.", settings)
    # 16 characters / 100; 4 words; "7" is in the answer; built-in heuristic quality still first
    assert [k for k in r.scores if not k.startswith(("hq_", "heuristic"))] == [
        "answer_chars",
        "answer_words",
        "has_seven",
    ]
    assert (r.scores["answer_chars"], r.scores["answer_words"], r.scores["has_seven"]) == (0.16, 4.0, 1.0)
    assert list(r.scores)[0] == "heuristic_quality"  # built-in scorers run first, in their fixed order
    assert r.details["usc_unit:outcome"] == {"first_word": "The"}
    assert r.scoring_errors == (
        "scorer usc_unit:boom: raised RuntimeError: kaput",
        "scorer usc_unit:text: expected a float, a mapping of score names to floats, or a ScoreOutcome, got str",
        "scorer usc_unit:nan: score 'bad': expected a finite float, got nan",
    )
    # minimum_scores gate a user score like a built-in one: 0.16 < 0.17 fails, 4 >= 4 passes
    mins = {c.target: (c.passed, c.detail) for c in r.checks if c.kind == "minimum_score"}
    assert mins == {
        "answer_chars": (False, "expected answer_chars >= 0.17, got 0.16"),
        "answer_words": (True, "expected answer_words >= 4.0, got 4"),
    }
    assert r.status == "failed"
    # the result (with a user detail) survives results.jsonl
    assert CaseResult.model_validate_json(r.model_dump_json()) == r


def test_a_user_score_cannot_take_a_builtin_name(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(
        str(_module(tmp_path, "usc_clash", "def correct(*, case, transcript):\n    return 1.0\n"))
    )
    r = _score(Case(id="c", query="q"), "yes", Settings(scorers=["usc_clash:correct"], rubric_scoring=False))
    assert "correct" not in r.scores
    assert r.scoring_errors == (
        "scorer usc_clash:correct: score 'correct' is a built-in score; expected a name of its own",
    )


def test_a_scorer_that_does_not_import_is_a_config_error_naming_file_and_field(tmp_path: Path) -> None:
    cfg = tmp_path / "council-harness.yaml"
    cfg.write_text("seed: 1\nscorers:\n  - usc_no_such_module:score\n")
    with pytest.raises(ConfigError) as err:
        load_settings(cfg)
    msg = str(err.value)
    assert f"{cfg}:2" in msg and "'scorers'" in msg
    assert "entry 0: scorer 'usc_no_such_module:score': cannot import module 'usc_no_such_module'" in msg
    with pytest.raises(ConfigError, match="expected 'module:function'"):
        load_settings(None, scorers=["not a reference"])


def test_a_dataset_scorer_name_must_have_the_form_of_a_name(tmp_path: Path) -> None:
    data = tmp_path / "g.yaml"
    data.write_text(
        "golden_datasets:\n  - name: g\n    scorers:\n      - ok_name\n      - 'os.system(1)'\n"
        "    queries:\n      - {id: a, query: q}\n"
    )
    with pytest.raises(DatasetError) as err:
        load_datasets(data)
    assert err.value.where == f"{data}:5"
    assert "'scorers.1': expected the name of a scorer the config declares or an installed entry point" in str(
        err.value
    )


def test_an_entry_point_scorer_runs_where_it_is_named_and_nowhere_else(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(_entry_point(tmp_path, "usc_ep", "shouting", "usc_ep:shout")))
    case = Case(id="c", query="q", minimum_scores={"shout": 1})  # known once the entry point is found
    named = Settings(rubric_scoring=False, scorers=["shouting"])  # the config names the entry point
    loud, quiet = _score(case, "YES", named), _score(case, "yes", named)
    assert (loud.scores["shout"], quiet.scores["shout"]) == (1.0, 0.0)
    assert (loud.status, quiet.status) == ("passed", "failed")
    # installed but named by nobody: it does not run (its minimum score is then missing, so the case fails)
    unnamed = _score(Case(id="c", query="q"), "YES", Settings(rubric_scoring=False))
    assert "shout" not in unnamed.scores and not unnamed.scoring_errors
    # named by the case's dataset: it runs on that dataset's cases
    by_dataset = _score(Case(id="c", query="q", scorers=("shouting",)), "YES", Settings(rubric_scoring=False))
    assert by_dataset.scores["shout"] == 1.0


def test_unknown_minimum_score_names_are_still_rejected_without_user_scorers(monkeypatch) -> None:
    monkeypatch.setattr(scorer_refs, "_RESOLVED", set())  # a process that has loaded none (earlier tests did)
    monkeypatch.setattr(scorer_refs, "_ENTRY_POINTS", {})
    with pytest.raises(ValueError, match="unknown score name"):
        Case(id="c", query="q", minimum_scores={"corect": 1})


def test_user_scorers_reach_export_report_and_baseline_in_a_real_run(tmp_path: Path) -> None:
    mods = _module(tmp_path / "mods", "usc_e2e", SCORERS)
    eps = _entry_point(tmp_path / "eps", "usc_e2e_ep", "shouting", "usc_e2e_ep:shout")
    lines = ["golden_datasets:", "  - name: sums", "    scorers: [usc_e2e:words, shouting]", "    queries:"]
    for i in range(3):
        lines += [
            f"      - id: q{i:02d}",
            f'        query: "{question(i)}"',
            f"        expected: {{type: numeric, value: {i + 100}, tolerance: 0}}",
        ]
    lines += ["        minimum_scores: {answer_chars: 0.17}"]  # on q02 only
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "sums.yaml").write_text("\n".join(lines) + "\n")
    with ScriptedServer(council_right=range(3), baseline_right=()) as server:
        (tmp_path / "council-harness.yaml").write_text(
            f"base_url: {server.base_url}\nmodels:\n  - {{id: a, provider: openai, model: m-a}}\n"
            "  - {id: b, provider: openai, model: m-b, seed: 1}\n  - {id: c, provider: openai, model: m-c, seed: 2}\n"
            f"chairman: a\nbaseline: {SOLO}\nrubric_scoring: false\nquality_metrics: false\n"
            f"cache_path: {tmp_path / 'cache.sqlite'}\nreports_dir: {tmp_path / 'reports'}\n"
            "scorers:\n  - usc_e2e:answer_chars\n  - usc_e2e:words\n"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_COUNCIL_")}
        env["OPENAI_API_KEY"] = "test-key"
        env["PYTHONPATH"] = os.pathsep.join([str(mods), str(eps), env.get("PYTHONPATH", "")])
        run = subprocess.run(
            [*CLI, "run", "--data", str(tmp_path / "golden"), "--cache-mode", "off", "--update-baseline"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert run.returncode in (0, 1), run.stdout + run.stderr
    (run_dir,) = (tmp_path / "reports" / "runs").iterdir()
    results = {
        (r["case_id"], r["subject"]): r for r in map(json.loads, (run_dir / "results.jsonl").read_text().splitlines())
    }
    # council: "The answer is 10i." (18 chars, 4 words); baseline: "The answer is 7." (16 chars)
    got = {
        k: (r["scores"]["answer_chars"], r["scores"]["answer_words"], r["scores"]["shout"]) for k, r in results.items()
    }
    assert got == {
        (f"q{i:02d}", s): (0.18 if s == "council" else 0.16, 4.0, 0.0)
        for i in range(3)
        for s in ("council", "baseline")
    }
    q02 = (results[("q02", "council")]["status"], results[("q02", "baseline")]["status"])
    assert q02 == ("passed", "failed")
    assert all(not r["scoring_errors"] for r in results.values())

    out = tmp_path / "export.csv"
    exp = subprocess.run(
        [*CLI, "export", str(run_dir), "--output", str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert exp.returncode == 0, exp.stderr
    rows = list(csv.DictReader(out.open()))
    assert {"answer_chars", "answer_words", "shout"} <= set(rows[0])
    assert sorted((r["case_id"], r["subject"], float(r["answer_chars"])) for r in rows) == sorted(
        (f"q{i:02d}", s, 0.18 if s == "council" else 0.16) for i in range(3) for s in ("council", "baseline")
    )

    html = (run_dir / "index.html").read_text()
    assert '<span class="score"><b>answer_chars</b> 0.18</span>' in html
    assert '<span class="score"><b>answer_words</b> 4</span>' in html  # its declared scale 0-1000: whole numbers

    baseline = json.loads((tmp_path / "reports" / "baselines" / "sums.json").read_text())
    stored = {s for e in baseline["entries"] for s in e["scores"]}
    assert {"answer_chars", "answer_words", "shout"} <= stored


def test_a_scorer_that_does_not_import_stops_the_run_with_exit_2(tmp_path: Path) -> None:
    (tmp_path / "council-harness.yaml").write_text("scorers: [usc_missing_module:f]\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_COUNCIL_")}
    proc = subprocess.run(
        [*CLI, "run", "--dataset", "nothing"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 2
    assert "council-harness.yaml:1" in proc.stderr and "usc_missing_module" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_outcome_detail_must_be_json(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(
        str(
            _module(
                tmp_path,
                "usc_obj",
                "from harness.scorers import ScoreOutcome\n"
                "def odd(*, case, transcript):\n"
                "    return ScoreOutcome(scores={'odd': 1.0}, detail=object())\n",
            )
        )
    )
    r = _score(Case(id="c", query="q"), "x", Settings(scorers=["usc_obj:odd"], rubric_scoring=False))
    assert "odd" not in r.scores
    assert r.scoring_errors == ("scorer usc_obj:odd: expected a JSON-serialisable detail, got object",)
    assert ScoreOutcome().scores == {}
