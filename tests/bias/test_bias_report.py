"""``bias-report``: text/json/csv rendering and the sub-command, run in-process and parsed back."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from harness.bias.aggregate import run_aggregated_bias_audit
from harness.bias.report import CSV_FIELDS, render_csv, render_json, render_text
from harness.bias.store import BiasMetricRecord, BiasStore, ConsentLevel
from harness.cli.bias_report import add_bias_report_parser
from tests.paths import REPO

T0 = datetime(2025, 5, 1, tzinfo=UTC)


def _records(sessions: int) -> list[BiasMetricRecord]:
    out = []
    for s in range(sessions):
        for r, rev in enumerate(("alpha", "beta", "gamma")):
            for pos in (1, 2, 3):
                length = 100 + 37 * ((s + 2 * r + pos) % 7)
                score = 1 + ((s * 3 + r * 5 + pos * 2) % 9) - (1.0 if rev == "gamma" and pos > 1 else 0.0)
                out.append(
                    BiasMetricRecord(
                        session_id=f"s{s:03d}",
                        timestamp=T0 + timedelta(hours=s),
                        consent_level=ConsentLevel.LOCAL_ONLY,
                        reviewer_id=rev,
                        model_id=f"m{pos}",
                        position=pos,
                        response_length_chars=length,
                        score_value=max(1.0, score),
                        council_config_version="0.1.0+test",
                    )
                )
    return out


def _store(tmp_path, sessions: int):
    path = tmp_path / "bias.jsonl"
    BiasStore(path).append(_records(sessions))
    return path


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="council-harness")
    sub = parser.add_subparsers(dest="command", required=True)
    add_bias_report_parser(sub)
    args = parser.parse_args(["bias-report", *argv])
    return args.func(args)


def test_json_output_parses_back_to_the_same_figures(tmp_path, capsys):
    path = _store(tmp_path, 25)
    assert _run(["--input", str(path), "--sessions", "0", "--days", "0", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = run_aggregated_bias_audit(_records(25))
    assert out["sessions"] == 25 and out["records"] == 225
    assert out["statistical_confidence"] == "moderate"
    assert out["window_start"] == "2025-05-01T00:00:00Z"
    assert out["window_end"] == "2025-05-02T00:00:00Z"
    lc = out["length_correlation"]
    assert lc["point_estimate"] == pytest.approx(expected.length_correlation.point_estimate)
    assert lc["ci_lower"] == pytest.approx(expected.length_correlation.ci_lower)
    assert lc["sample_size"] == expected.length_correlation.sample_size
    assert [p["reviewer_id"] for p in out["reviewer_profiles"]] == ["alpha", "beta", "gamma"]


def test_csv_output_has_one_row_per_figure(tmp_path, capsys):
    path = _store(tmp_path, 25)
    assert _run(["--input", str(path), "--sessions", "0", "--days", "0", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    expected = run_aggregated_bias_audit(_records(25)).metrics()
    assert tuple(rows[0]) == CSV_FIELDS
    assert rows[0][:8] == [
        "metric_name",
        "point_estimate",
        "ci_lower",
        "ci_upper",
        "sample_size",
        "window_start",
        "window_end",
        "statistical_confidence",
    ]
    assert len(rows) == 1 + len(expected)
    for row, metric in zip(rows[1:], expected, strict=True):
        record = dict(zip(rows[0], row, strict=True))
        assert record["metric_name"] == metric.metric_name
        assert record["subject"] == metric.subject
        assert float(record["point_estimate"]) == pytest.approx(metric.point_estimate)
        assert int(record["sample_size"]) == metric.sample_size
        assert record["statistical_confidence"] == metric.statistical_confidence.value
        assert record["window_start"] == "2025-05-01T00:00:00Z"
    names = [r[0] for r in rows[1:]]
    assert names.count("reviewer_mean_score") == 3 and names.count("position_mean_score") == 3
    assert names[0] == "length_score_correlation"


def test_text_output_tiers(tmp_path, capsys):
    path = _store(tmp_path, 60)
    assert _run(["--input", str(path), "--sessions", "5", "--days", "0"]) == 0
    text = capsys.readouterr().out
    assert "Collecting data... 5 session(s) so far; figures appear from 10." in text
    assert "Minimum for robust figures" not in text  # one sentence gives both thresholds
    assert "pooled r" not in text and "High Volatility" not in text

    assert _run(["--input", str(path), "--sessions", "15", "--days", "0"]) == 0
    text = capsys.readouterr().out
    assert "High Volatility" in text and "pooled r:" in text and "Sessions: 15" in text

    assert _run(["--input", str(path), "--sessions", "0", "--days", "0", "--verbose"]) == 0
    text = capsys.readouterr().out
    assert "High Volatility" not in text and "Collecting data" not in text
    assert "Sessions: 60" in text and "Confidence: high" in text and "95% CI [" in text
    assert all(f"  {rev}: " in text for rev in ("alpha", "beta", "gamma"))  # verbose: every profile
    assert "position 3 mean score" in text


def test_render_functions_on_an_empty_window():
    report = run_aggregated_bias_audit([])
    assert "Collecting data... no bias records" in render_text(report)
    assert json.loads(render_json(report))["records"] == 0
    assert list(csv.reader(io.StringIO(render_csv(report)))) == [list(CSV_FIELDS)]


def test_missing_input_exits_2_with_a_clear_message(tmp_path, capsys):
    missing = tmp_path / "nope.jsonl"
    assert _run(["--input", str(missing), "--sessions", "0", "--days", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(missing) in err and "bias store not found" in err
    assert "Traceback" not in err


def test_corrupt_lines_warn_on_stderr_and_json_stays_clean(tmp_path, capsys):
    path = _store(tmp_path, 12)
    with open(path, "a") as fh:
        fh.write("{broken\n")
    assert _run(["--input", str(path), "--sessions", "0", "--days", "0", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["records"] == 108
    assert "skipped 1 unreadable line(s)" in captured.err and "line 109" in captured.err


def test_defaults_come_from_settings(tmp_path, monkeypatch, capsys):
    path = _store(tmp_path, 30)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LLM_COUNCIL_BIAS_STORE", str(path))
    monkeypatch.setenv("LLM_COUNCIL_BIAS_WINDOW_SESSIONS", "12")
    monkeypatch.setenv("LLM_COUNCIL_BIAS_WINDOW_DAYS", "0")
    assert _run(["--format", "json"]) == 2  # days must be >= 1 in settings
    assert "LLM_COUNCIL_BIAS_WINDOW_DAYS" in capsys.readouterr().err
    monkeypatch.setenv("LLM_COUNCIL_BIAS_WINDOW_DAYS", "100000")
    monkeypatch.setenv("LLM_COUNCIL_MIN_BIAS_SESSIONS", "40")
    assert _run(["--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["sessions"], out["window_sessions"], out["min_sessions"], out["meets_minimum"]) == (12, 12, 40, False)


def test_bad_options_are_usage_errors(tmp_path):
    with pytest.raises(SystemExit) as exc:
        _run(["--sessions", "-1"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        _run(["--format", "xml"])


def test_bias_report_command_imports_stay_light(tmp_path):
    # the command reads one file: no plotting, model, HTML-report, scipy or mpmath stack gets imported
    path = _store(tmp_path, 12)
    code = (
        "import sys\n"
        "from harness.cli import main\n"
        f"rc = main(['bias-report', '--input', {str(path)!r}, '--sessions', '0', '--days', '0', '--format', 'json'])\n"
        "heavy = ('matplotlib', 'torch', 'jinja2', 'rich', 'scipy', 'pandas', 'llama_cpp', 'harness.report',\n"
        "         'harness.run.engine', 'harness.bias.audit', 'httpx', 'mpmath')\n"
        "print('LOADED', [m for m in heavy if m in sys.modules], rc, file=sys.stderr)\n"
    )
    root = REPO
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["sessions"] == 12
    assert "LOADED [] 0" in proc.stderr


def test_both_session_thresholds_are_said_in_one_sentence() -> None:
    from harness.bias.report import thresholds_line

    assert thresholds_line(20) == (
        "Figures appear from 10 sessions, are preliminary below 20 (seed 003's tiers) "
        "and count as robust from 20 (LLM_COUNCIL_MIN_BIAS_SESSIONS)."
    )
    assert "robust from 35" in thresholds_line(35)


def test_bias_report_with_every_option_given_loads_no_settings_stack(tmp_path):
    # input, windows and minimum on the command line: nothing is left to env/YAML, so no pydantic-settings
    path = _store(tmp_path, 12)
    code = (
        "import sys\n"
        "from harness.cli import main\n"
        f"rc = main(['bias-report', '--input', {str(path)!r}, '--sessions', '0', '--days', '0', '--min-sessions', '5',"
        " '--format', 'json'])\n"
        "print('LOADED', [m for m in ('harness.config', 'pydantic_settings', 'yaml', 'harness.cli.parser')"
        " if m in sys.modules], rc, file=sys.stderr)\n"
    )
    root = REPO
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["sessions"], report["min_sessions"]) == (12, 5)
    assert "LOADED [] 0" in proc.stderr


def test_csv_cells_from_the_store_are_neither_formulas_nor_escape_sequences(tmp_path, capsys):
    """A reviewer id from the store such as ``=HYPERLINK(...)`` or one carrying ESC/BEL reaches the sheet as text."""
    hostile = {"alpha": '=HYPERLINK("http://evil","x")', "beta": "\x1b]0;pwned\x07beta", "gamma": "+gamma"}
    records = [r.model_copy(update={"reviewer_id": hostile[r.reviewer_id]}) for r in _records(25)]
    path = tmp_path / "bias.jsonl"
    BiasStore(path).append(records)
    assert _run(["--input", str(path), "--sessions", "0", "--days", "0", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    rows = list(csv.reader(io.StringIO(out)))
    subjects = {dict(zip(rows[0], row, strict=True))["subject"] for row in rows[1:]}
    assert '\'=HYPERLINK("http://evil","x")' in subjects and "'+gamma" in subjects
    assert "\\x1b]0;pwned\\x07beta" in subjects
    assert not any(cell.startswith(("=", "+", "@")) for row in rows for cell in row)
    numbers = [dict(zip(rows[0], row, strict=True))["point_estimate"] for row in rows[1:]]
    assert all(n == "" or float(n) == float(n) for n in numbers)  # numbers stay numbers (a "-0.1" is no formula)
