"""User scorers cannot end, freeze or corrupt a run (issue 25 item 2): every call is bounded by
``scorer_timeout`` and runs off the event loop; any ``BaseException``, a value ``float()`` cannot convert,
a non-finite or out-of-scale score is a per-case scoring error naming ``module:function`` that keeps the
answer, the transcript, the other scores and the ledger; a scorer gets copies of the case and transcript.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.common import scorer_refs
from harness.config import Settings
from harness.council.calls import Caller
from harness.data.cases import Case
from harness.records.transcript import Answer, Transcript
from harness.run.result import CaseResult
from harness.run.scoring import score_case
from harness.scorers import SCORES, user
from tests.scripted_server import SOLO, ScriptedServer, question

CLI = [sys.executable, "-m", "harness.cli"]

HOSTILE = """
import asyncio, sys, time

def good(*, case, transcript):
    return 0.5

def exits(*, case, transcript):
    sys.exit(0)

def cancels(*, case, transcript):
    raise asyncio.CancelledError()

async def cancels_async(*, case, transcript):
    raise asyncio.CancelledError()

def interrupts(*, case, transcript):
    raise KeyboardInterrupt()

def generator_exit(*, case, transcript):
    raise GeneratorExit()

def sleeps(*, case, transcript):
    time.sleep(3600)
    return 1.0

async def sleeps_async(*, case, transcript):
    await asyncio.sleep(3600)
    return 1.0

def huge(*, case, transcript):
    return {"huge": 10**400}

class Bad(float):
    def __float__(self):
        raise ValueError("no float for you")

def bad_float(*, case, transcript):
    return {"bad_float": Bad(0.5)}

def too_high(*, case, transcript):
    return {"too_high": 2.0}

class Unprintable(Exception):
    def __str__(self):
        raise SystemExit("from __str__")

def unprintable(*, case, transcript):
    raise Unprintable()

def escapes(*, case, transcript):
    return {"\x1b[31mred": 0.5}

def renames(*, case, transcript):
    object.__setattr__(case, "id", "same")
    object.__setattr__(transcript, "final_answer", "forged")
    return {"renamed": 1.0}
"""

#: each hostile scorer and the scoring error it must become (after ``scorer usc_bad:<name>: ``)
ERRORS = {
    "exits": "raised SystemExit: 0",
    "cancels": "raised CancelledError",
    "cancels_async": "raised CancelledError",
    "interrupts": "raised KeyboardInterrupt",
    "generator_exit": "raised GeneratorExit",
    "sleeps": "did not return within scorer_timeout (0.5 s); the call is abandoned",
    "sleeps_async": "did not return within scorer_timeout (0.5 s); the call is abandoned",
    "huge": "score 'huge': expected a finite float, got an integer too large for one",
    "bad_float": "score 'bad_float': float() of its Bad raised ValueError: no float for you",
    "too_high": "score 'too_high': 2 is outside its scale 0-1 (register_score declares another scale)",
    "unprintable": "raised Unprintable: <its message cannot be shown: str() raised>",
    "escapes": "expected score names of printable characters, at most 100, got '\\x1b[31mred'",
}


@pytest.fixture(autouse=True)
def _forget_user_scorers(monkeypatch) -> None:
    monkeypatch.setattr(scorer_refs, "_RESOLVED", set(scorer_refs._RESOLVED))
    monkeypatch.setattr(scorer_refs, "_ENTRY_POINTS", dict(scorer_refs._ENTRY_POINTS))
    monkeypatch.setattr(user, "_STUCK", {})
    monkeypatch.setattr(SCORES, "_specs", dict(SCORES._specs))


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "usc_bad.py").write_text(HOSTILE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _transcript(final: str) -> Transcript:
    return Transcript(
        subject="baseline", query="q", answers=(Answer(member="m", model="m", text=final),), final_answer=final
    )


def _score(case: Case, transcript: Transcript, settings: Settings) -> CaseResult:
    return asyncio.run(score_case(case, transcript, Caller({}, settings), settings))


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_a_hostile_scorer_is_one_scoring_error_that_keeps_the_rest(hostile: Path, name: str) -> None:
    settings = Settings(scorers=["usc_bad:good", f"usc_bad:{name}"], rubric_scoring=False, scorer_timeout=0.5)
    transcript = _transcript("The answer is 7.")
    r = _score(Case(id="c", query="q", expected={"type": "numeric", "value": 7}), transcript, settings)
    assert r.scoring_errors == (f"scorer usc_bad:{name}: {ERRORS[name]}",)
    # the answer, the transcript and every other scorer's scores are kept; the case is judged as usual
    assert r.transcript == transcript and r.transcript.final_answer == "The answer is 7."
    assert (r.scores["good"], r.scores["correct"]) == (0.5, 1.0)
    assert r.status == "passed" and r.error is None


def test_a_hung_scorer_is_not_called_again_while_its_call_runs(hostile: Path) -> None:
    settings = Settings(scorers=["usc_bad:sleeps"], rubric_scoring=False, scorer_timeout=0.5)
    first = _score(Case(id="a", query="q"), _transcript("x"), settings)
    second = _score(Case(id="b", query="q"), _transcript("x"), settings)
    assert first.scoring_errors == ("scorer usc_bad:sleeps: " + ERRORS["sleeps"],)
    assert second.scoring_errors == (
        "scorer usc_bad:sleeps: not called: an earlier call did not return within "
        "scorer_timeout (0.5 s) and is still running",
    )


def test_a_scorer_changes_only_its_own_copies(hostile: Path) -> None:
    settings = Settings(scorers=["usc_bad:renames"], rubric_scoring=False)
    case, transcript = Case(id="c1", query="q"), _transcript("The answer is 7.")
    r = _score(case, transcript, settings)
    assert (r.case_id, r.transcript.final_answer, r.scores["renamed"]) == ("c1", "The answer is 7.", 1.0)
    assert (case.id, transcript.final_answer) == ("c1", "The answer is 7.")


def test_hostile_scorers_in_a_real_run_keep_every_result_and_make_it_incomplete(tmp_path: Path) -> None:
    """The CLI on a scripted loopback endpoint: every hostile scorer at once, three cases, a mutating scorer.

    Before issue 25 the run ended at the first scorer (``sys.exit(0)``: exit 0, no results, no summary)."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "usc_bad.py").write_text(HOSTILE)
    lines = ["golden_datasets:", "  - name: sums", "    queries:"]
    for i in range(3):
        lines += [
            f"      - id: q{i:02d}",
            f'        query: "{question(i)}"',
            f"        expected: {{type: numeric, value: {i + 100}, tolerance: 0}}",
        ]
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "sums.yaml").write_text("\n".join(lines) + "\n")
    names = ["renames", "good", *ERRORS]
    with ScriptedServer(council_right=range(3), baseline_right=range(3)) as server:
        (tmp_path / "council-harness.yaml").write_text(
            f"base_url: {server.base_url}\nmodels:\n  - {{id: a, provider: openai, model: m-a}}\n"
            "  - {id: b, provider: openai, model: m-b, seed: 1}\n  - {id: c, provider: openai, model: m-c, seed: 2}\n"
            f"chairman: a\nbaseline: {SOLO}\nrubric_scoring: false\nquality_metrics: false\n"
            f"cache_path: {tmp_path / 'cache.sqlite'}\nreports_dir: {tmp_path / 'reports'}\n"
            "scorer_timeout: 0.5\nscorers:\n" + "".join(f"  - usc_bad:{n}\n" for n in names)
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_COUNCIL_")}
        env["OPENAI_API_KEY"] = "test-key"
        env["PYTHONPATH"] = os.pathsep.join([str(mods), env.get("PYTHONPATH", "")])
        run = subprocess.run(
            [*CLI, "run", "--data", str(tmp_path / "golden"), "--cache-mode", "off"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert "Traceback" not in run.stderr, run.stderr
    (run_dir,) = (tmp_path / "reports" / "runs").iterdir()
    results = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    # all six (case, subject) results, keyed by the ids the cases had before scoring
    assert sorted((r["case_id"], r["subject"]) for r in results) == [
        (f"q{i:02d}", s) for i in range(3) for s in ("baseline", "council")
    ]
    for r in results:
        right = f"The answer is {int(r['case_id'][1:]) + 100}."
        assert r["transcript"]["final_answer"] == right and r["status"] == "passed"
        assert r["transcript"]["calls"], "the model calls (the ledger) are kept"
        assert (r["scores"]["good"], r["scores"]["renamed"], r["scores"]["correct"]) == (0.5, 1.0, 1.0)
        by_scorer = {e.split(":", 2)[1] for e in r["scoring_errors"]}
        assert by_scorer == set(ERRORS), r["scoring_errors"]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["usage"]["total"]["calls"] == 3 * (7 + 1)  # the ledger: 7 council calls + 1 baseline per case
    assert (summary["gate"]["outcome"], summary["gate"]["counts"]["scoring_errors"]) == ("incomplete", 6 * len(ERRORS))
    assert run.returncode == 3, run.stdout + run.stderr


FAILS_ALWAYS = """
def broken(*, case, transcript):
    raise RuntimeError("kaput")

def fine(*, case, transcript):
    return 0.5
"""


def _sums_run(
    tmp_path: Path, server: ScriptedServer, scorers: list[str], *extra: str
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "council-harness.yaml").write_text(
        f"base_url: {server.base_url}\nmodels:\n  - {{id: a, provider: openai, model: m-a}}\n"
        "  - {id: b, provider: openai, model: m-b, seed: 1}\n  - {id: c, provider: openai, model: m-c, seed: 2}\n"
        f"chairman: a\nbaseline: {SOLO}\nrubric_scoring: false\nquality_metrics: false\n"
        f"cache_path: {tmp_path / 'cache.sqlite'}\nreports_dir: {tmp_path / 'reports'}\n"
        "scorers:\n" + "".join(f"  - {s}\n" for s in scorers)
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_COUNCIL_")}
    env["OPENAI_API_KEY"] = "test-key"
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "mods"), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [*CLI, "run", "--data", str(tmp_path / "golden"), "--cache-mode", "off", *extra],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _latest(tmp_path: Path) -> Path:
    return max((tmp_path / "reports" / "runs").iterdir(), key=lambda p: p.stat().st_mtime_ns)


def test_a_scorer_failing_on_every_case_cannot_leave_ci_green(tmp_path: Path) -> None:
    """Scoring errors are counted in the console, summary.json and the report's headline, and make the
    gate ``incomplete`` with exit 3, without a baseline and with one (before: "gate: pass", exit 0)."""
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "usc_always.py").write_text(FAILS_ALWAYS)
    lines = ["golden_datasets:", "  - name: sums", "    queries:"]
    for i in range(2):
        lines += [
            f"      - id: q{i:02d}",
            f'        query: "{question(i)}"',
            f"        expected: {{type: numeric, value: {i + 100}, tolerance: 0}}",
        ]
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "sums.yaml").write_text("\n".join(lines) + "\n")
    with ScriptedServer(council_right=range(2), baseline_right=range(2)) as server:
        bare = _sums_run(tmp_path, server, ["usc_always:fine", "usc_always:broken"])
        bare_dir = _latest(tmp_path)
        stored = _sums_run(tmp_path, server, ["usc_always:fine"], "--update-baseline")
        against = _sums_run(tmp_path, server, ["usc_always:fine", "usc_always:broken"])
        against_dir = _latest(tmp_path)
    assert stored.returncode == 0, stored.stdout + stored.stderr
    for proc, run_dir in ((bare, bare_dir), (against, against_dir)):
        assert proc.returncode == 3, proc.stdout + proc.stderr
        console = proc.stdout + proc.stderr
        assert "scoring errors: 4 in 4 result(s) (usc_always:broken 4)" in console, console
        assert "gate: incomplete" in console
        gate = json.loads((run_dir / "summary.json").read_text())["gate"]
        assert (gate["outcome"], gate["counts"]["scoring_errors"], gate["counts"]["scoring_error"]) == (
            "incomplete",
            4,
            4,
        )
        reasons = {(r["case_id"], r["subject"], r["kind"], r["n"]) for r in gate["reasons"]}
        assert reasons == {(f"q{i:02d}", s, "scoring_error", 1) for i in range(2) for s in ("baseline", "council")}
        html = (run_dir / "index.html").read_text()
        assert "Gate incomplete" in html and "scoring errors: 4 in 4 result(s)" in html
