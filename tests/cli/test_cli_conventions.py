"""CLI conventions (issue 30 item 4): results on stdout and progress on stderr, one exit code per kind of
outcome (0 pass, 1 gate failure, 2 usage or configuration error, 3 infrastructure error), ``--version``,
``-q``/``-v`` on ``run``. Runs ``council-harness`` in a subprocess against the scripted loopback endpoint."""

from __future__ import annotations

import shlex
import socket
import subprocess
from importlib.metadata import version
from pathlib import Path

from tests.cli_env import CLI, harness_env, run_cli, scripted_project
from tests.scripted_server import SOLO, ScriptedServer

N = 3


def _project(root: Path, base_url: str, extra: str = "") -> Path:
    return scripted_project(root, base_url, N, extra=f"baseline: {SOLO}\n" + extra)


def test_version_prints_the_installed_package_version() -> None:
    done = subprocess.run([*CLI, "--version"], capture_output=True, text=True, timeout=60, env=harness_env())
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"council-harness {version('council-harness')}\n"


def test_exit_0_and_the_results_on_stdout_progress_on_stderr(tmp_path: Path) -> None:
    with ScriptedServer(range(N), range(N)) as server:
        done = run_cli(_project(tmp_path, server.base_url))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout.splitlines()
    assert any(line.startswith("primary endpoint: council vs single model") for line in out)
    assert any(line.startswith("report: ") and line.endswith("index.html") for line in out)
    assert out[-2] == "rule: fail_on=failures"
    assert out[-1].startswith("gate: pass (0 reason(s))")
    assert "gate:" not in done.stderr and "report:" not in done.stderr and "primary endpoint" not in done.stderr
    assert "progress 6/6" in done.stderr  # the progress is chatter: stderr


def test_a_pipe_through_tee_captures_the_results(tmp_path: Path) -> None:
    with ScriptedServer(range(N), range(N)) as server:
        root = _project(tmp_path, server.base_url)
        shell = (
            f"{shlex.join(CLI)} run --data golden --config council-harness.yaml --cache-mode off -q "
            "| tee run.log > /dev/null; exit ${PIPESTATUS[0]}"
        )
        done = subprocess.run(
            ["bash", "-c", shell],
            cwd=root,
            env=harness_env(OPENAI_API_KEY="test-key"),
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    log = (root / "run.log").read_text().splitlines()
    assert log[0].startswith("primary endpoint: ")
    assert log[-3].startswith("report: ") and log[-1].startswith("gate: pass (0 reason(s))")


def test_exit_1_gate_failure_and_quiet_and_verbose(tmp_path: Path) -> None:
    with ScriptedServer(range(1), range(1)) as server:
        root = _project(tmp_path, server.base_url)
        quiet = run_cli(root, "-q")
        verbose = run_cli(root, "-v")
    assert quiet.returncode == 1 and verbose.returncode == 1
    assert quiet.stderr == ""  # no progress
    lines = quiet.stdout.splitlines()
    assert lines[0].startswith("primary endpoint: ")  # the verdict lines, then the report, the rule, the gate
    assert [line.split(":")[0] for line in lines[-3:]] == ["report", "rule", "gate"]
    assert not any(line.startswith(("baseline ", "usage", "run ")) for line in lines)
    assert lines[-1].startswith("gate: fail (4 reason(s))")
    assert "awaiting_review" not in quiet.stdout and "usage:" not in quiet.stdout  # no table, no ledger with -q
    assert "  failed sums::q01 [council]" in verbose.stderr and "  passed sums::q00 [baseline]" in verbose.stderr
    assert "usage: " in verbose.stdout


def test_exit_2_usage_and_configuration_errors(tmp_path: Path) -> None:
    usage = subprocess.run(
        [*CLI, "run", "--limit", "0"], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=harness_env()
    )
    assert usage.returncode == 2 and "expected a whole number >= 1, got 0" in usage.stderr and usage.stdout == ""
    (tmp_path / "council-harness.yaml").write_text("repeats: 0\n")
    config = subprocess.run([*CLI, "run"], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=harness_env())
    assert config.returncode == 2 and "council-harness.yaml:1: 'repeats'" in config.stderr
    assert "Traceback" not in config.stderr and config.stdout == ""


def test_exit_3_replay_miss_and_unreachable_endpoint(tmp_path: Path) -> None:
    with ScriptedServer(range(N), range(N)) as server:
        root = _project(tmp_path, server.base_url)
        miss = run_cli(root, "--cache-mode", "replay")
    assert miss.returncode == 3, miss.stdout + miss.stderr
    assert "replay mode: no cached reply" in miss.stderr and "Traceback" not in miss.stderr
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = root / "council-harness.yaml"
    config.write_text(config.read_text().replace(server.base_url, f"http://127.0.0.1:{port}/v1") + "max_retries: 0\n")
    down = run_cli(root)
    assert down.returncode == 3, down.stdout + down.stderr
    assert "error" in down.stdout and "gate: fail" in down.stdout  # every case errored: the gate says so, exit 3
