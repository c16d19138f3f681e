"""Hostile replies from a real loopback server (tests/fault_server.py) through whole runs.

A reply with a lone surrogate must not stop the run; server text with rich markup or terminal
escape sequences is printed literally, with control characters escaped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.common.console import PlainConsole
from harness.common.untrusted import clean_surrogates, printable, printable_line
from harness.config import Settings, load_settings
from harness.data.cases import load_datasets
from harness.run.orchestrate import run_cases
from harness.run.runs import load_run, read_results
from tests.cli_env import harness_env, run_pytest
from tests.fault_server import FaultServer, ok, status

DATASET = """golden_datasets:
  - name: geo
    queries:
      - {id: geo-001, query: "Capital of France?", required_mentions: [Paris]}
      - {id: geo-002, query: "Capital of Italy?", required_mentions: [Rome]}
      - {id: geo-003, query: "Capital of Spain?", required_mentions: [Madrid]}
"""
ESC_TITLE = "\x1b]0;owned\x07\x1b[2J"


@pytest.fixture
def clean_env(clean_env: Path) -> Path:
    """The shared ``clean_env`` folder with ``golden/geo.yaml``."""
    (clean_env / "golden").mkdir()
    (clean_env / "golden" / "geo.yaml").write_text(DATASET, encoding="utf-8")
    return clean_env


def endpoint_settings(server: FaultServer, tmp: Path, cache_mode: str) -> Settings:
    return load_settings(
        None,
        base_url=server.base_url,
        models=[{"id": "m", "provider": "openai", "model": "m"}],
        rubric_scoring=False,
        cache_mode=cache_mode,
        reports_dir=tmp / "reports",
        cache_path=tmp / "cache.sqlite",
    )


def test_untrusted_text_helpers() -> None:
    assert clean_surrogates("a\ud800b") == "a\ufffdb"
    assert clean_surrogates("\ud83d\ude00 \udfff") == "\U0001f600 \ufffd"  # a pair is joined, a lone half replaced
    assert clean_surrogates("plain é") == "plain é"
    assert printable("red \x1b[31mX\x1b[0m\nnext\tcol") == "red \\x1b[31mX\\x1b[0m\nnext\tcol"
    assert printable("title \x1b]0;t\x07 \x9b1m \u202eevil") == "title \\x1b]0;t\\x07 \\x9b1m \\u202eevil"
    assert printable_line("two\nlines\r") == "two\\x0alines\\x0d"


@pytest.mark.parametrize("cache_mode", ["off", "readwrite"])
def test_lone_surrogate_reply_is_one_case_and_the_run_goes_on(
    fault_server: FaultServer,
    clean_env: Path,
    cache_mode: str,
) -> None:
    fault_server.script(ok("Paris \ud800 is the capital"), ok("Rome"), ok("Madrid"))
    settings = endpoint_settings(fault_server, clean_env, cache_mode)
    run = run_cases(settings, load_datasets(clean_env / "golden" / "geo.yaml"), ["baseline"], window=1)
    by_id = {r.case_id: r for r in run.results}
    assert sorted(by_id) == ["geo-001", "geo-002", "geo-003"]
    assert all(r.status == "passed" for r in run.results), [(r.case_id, r.status, r.error) for r in run.results]
    assert by_id["geo-001"].transcript is not None
    assert by_id["geo-001"].transcript.final_answer == "Paris \ufffd is the capital"
    assert run.manifest.finished_at is not None
    results, corrupt = read_results(run.run_dir / "results.jsonl")
    assert len(results) == 3 and corrupt == []


def test_resume_after_a_surrogate_reply_completes(fault_server: FaultServer, clean_env: Path) -> None:
    """A run interrupted before the hostile case resumes through it (it used to crash again)."""
    settings = endpoint_settings(fault_server, clean_env, "off")
    datasets = load_datasets(clean_env / "golden" / "geo.yaml")
    # Interrupted by its budget after the first case (one call of 12 + 7 tokens reaches the limit),
    # not by ``limit=1``: a resume completes the cases a run started with, and this one started with all three.
    first = run_cases(settings.model_copy(update={"token_limit": 19}), datasets, ["baseline"], window=1)
    assert [r.case_id for r in first.results] == ["geo-001"]
    fault_server.script(ok("Rome\udc00"), ok("Madrid"))
    run = run_cases(settings, datasets, ["baseline"], run_dir=first.run_dir, resume=True, window=1)
    assert sorted((r.case_id, r.status) for r in run.results) == [
        ("geo-001", "passed"),
        ("geo-002", "passed"),
        ("geo-003", "passed"),
    ]
    assert load_run(first.run_dir).manifest.finished_at is not None


def test_plain_console_prints_markup_literally_and_escapes_controls() -> None:
    console = PlainConsole(record=True, width=200, color_system=None)
    console.print(f"baseline geo: FAIL - geo-001 [baseline] errored: [/bold] [red]x{ESC_TITLE}")
    text = console.export_text()
    assert "geo-001 [baseline] errored: [/bold] [red]x\\x1b]0;owned\\x07\\x1b[2J" in text
    assert "\x1b" not in text and "\x07" not in text


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_prints_server_markup_and_escapes_literally(
    fault_server: FaultServer,
    clean_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("LLM_COUNCIL_BASE_URL", fault_server.base_url)
    monkeypatch.setenv("LLM_COUNCIL_MODELS", "m")
    monkeypatch.setenv("LLM_COUNCIL_RUBRIC_SCORING", "false")
    monkeypatch.setenv("LLM_COUNCIL_CACHE_MODE", "off")
    fault_server.default = ok("Paris, Rome and Madrid")
    code, _, err = _cli(["run", "--subjects", "baseline", "--update-baseline"], capsys)
    assert code == 0, err
    body = f"[/bold] bad [baseline]{ESC_TITLE}"  # a raw (non-JSON) error body carrying terminal escapes
    fault_server.default = status(400, body=body)  # every case errors (cases run concurrently)
    code, out, err = _cli(["run", "--subjects", "baseline"], capsys)
    assert code == 3  # every case errored: an infrastructure failure, not a gate verdict (docs/cli.md)
    both = out + err  # results on stdout, progress on stderr: the escaping holds on both streams
    assert "geo-001 [baseline]" in both  # rich used to swallow the bracketed subject
    # the error body used to raise rich.errors.MarkupError at the end of the run
    assert "[/bold] bad [baseline]" in out, out + "\n---ERR---\n" + err
    assert "\\x1b]0;owned\\x07" in out and "\x1b]" not in both and "\x07" not in both
    run_dir = sorted((clean_env / "reports" / "runs").iterdir())[-1]
    assert load_run(run_dir).manifest.finished_at is not None


def test_pytest_failure_report_escapes_terminal_sequences(fault_server: FaultServer, tmp_path: Path) -> None:
    """Item 11: an answer carrying OSC/CSI sequences is shown escaped in pytest's failure output."""
    (tmp_path / "golden").mkdir()
    (tmp_path / "golden" / "geo.yaml").write_text(
        "golden_datasets:\n  - name: geo\n    queries:\n"
        "      - {id: geo-001, query: 'Capital of France?', required_mentions: [Zanzibar]}\n",
        encoding="utf-8",
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    fault_server.default = ok(f"Paris{ESC_TITLE} [/bold]")
    env = harness_env()
    env.update(
        {
            "LLM_COUNCIL_BASE_URL": fault_server.base_url,
            "LLM_COUNCIL_MODELS": "m",
            "LLM_COUNCIL_RUBRIC_SCORING": "false",
            "LLM_COUNCIL_CACHE_MODE": "off",
        }
    )
    out = run_pytest(tmp_path, "--color=no", "-m", "golden", "--harness-subjects", "baseline", "golden", env=env)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "got: Paris\\x1b]0;owned\\x07\\x1b[2J [/bold]" in out.stdout, out.stdout
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
