"""The command line in a subprocess, with the harness's own environment variables removed.

:func:`harness_env` is ``os.environ`` without ``LLM_COUNCIL_*`` and ``COUNCIL_HARNESS_CONFIG`` (a
developer's shell must not change what a test runs) plus the given variables;
:func:`scripted_project` writes a numeric golden dataset of ``n`` :func:`tests.scripted_server.question`
cases and a three-member ``council-harness.yaml`` for an OpenAI-compatible ``base_url``;
:func:`run_cli` runs ``council-harness run`` on such a project; :func:`run_pytest` runs ``pytest`` on a
project in a subprocess (:data:`PYTEST`: without the cache and the optional extras' session plugins),
:func:`start_pytest` starts it (to kill it); :func:`plugin_args` and :func:`scripted_pytest_env` are the
arguments and environment of ``pytest -m golden`` against a scripted endpoint.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import IO

import pytest

from tests.scripted_server import question

#: ``council-harness`` itself (its console script runs the same ``harness.cli:main``).
CLI = [sys.executable, "-m", "harness.cli"]

#: ``pytest`` in a subprocess, without its cache and the session plugins of the optional extras (deepeval's,
#: langsmith's), which print their own lines in every session
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:deepeval", "-p", "no:langsmith_plugin"]


def _harness_variable(name: str) -> bool:
    return name.startswith("LLM_COUNCIL_") or name == "COUNCIL_HARNESS_CONFIG"


def harness_env(**extra: str) -> dict[str, str]:
    """``os.environ`` without the harness's settings variables, then ``extra``."""
    env = {k: v for k, v in os.environ.items() if not _harness_variable(k)}
    env.update(extra)
    return env


def clear_harness_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove the harness's settings variables from this process for the test."""
    for name in [n for n in os.environ if _harness_variable(n)]:
        monkeypatch.delenv(name)


def scripted_project(
    root: Path,
    base_url: str,
    n: int,
    *,
    third_model: str = "m-c",
    concurrency: int = 4,
    extra: str = "",
    fourth_model: str | None = None,
) -> Path:
    """``root/golden/sums.yaml`` (cases ``q00``.. with the numeric answer ``i + 100``) and
    ``root/council-harness.yaml``: members ``a`` (chairman), ``b`` and ``c`` (model ``third_model``), and
    ``d`` (model ``fourth_model``) when given, on ``base_url``, rubric scoring and quality metrics off, cache
    and reports inside ``root``; ``extra``
    is appended to the config."""
    lines = ["golden_datasets:", "  - name: sums", "    description: scripted arithmetic", "    queries:"]
    for i in range(n):
        lines += [
            f"      - id: q{i:02d}",
            f'        query: "{question(i)}"',
            f'        ground_truth: "{i + 100}"',
            f"        expected: {{type: numeric, value: {i + 100}, tolerance: 0}}",
        ]
    (root / "golden").mkdir()
    (root / "golden" / "sums.yaml").write_text("\n".join(lines) + "\n")
    (root / "council-harness.yaml").write_text(
        f"base_url: {base_url}\n"
        "models:\n"
        "  - {id: a, provider: openai, model: m-a}\n"
        "  - {id: b, provider: openai, model: m-b, seed: 1}\n"
        f"  - {{id: c, provider: openai, model: {third_model}, seed: 2}}\n"
        + (f"  - {{id: d, provider: openai, model: {fourth_model}, seed: 3}}\n" if fourth_model else "")
        + "chairman: a\n"
        f"rubric_scoring: false\nquality_metrics: false\nconcurrency: {concurrency}\n"
        f"cache_path: {root / 'cache.sqlite'}\nreports_dir: {root / 'reports'}\n" + extra
    )
    return root


def run_command(root: Path, *args: str) -> list[str]:
    """The ``council-harness run ARGS`` command line for a :func:`scripted_project` (its datasets and
    config, cache off)."""
    data, config = str(root / "golden"), str(root / "council-harness.yaml")
    return [*CLI, "run", "--data", data, "--config", config, "--cache-mode", "off", *args]


def run_cli(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``council-harness run ARGS`` on a :func:`scripted_project` (cache off, a dummy API key, the
    variables ``env``), in ``root``."""
    return subprocess.run(
        run_command(root, *args),
        cwd=root,
        env=harness_env(OPENAI_API_KEY="test-key", **env),
        capture_output=True,
        text=True,
        timeout=600,
    )


def run_pytest(
    project: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``pytest ARGS`` (:data:`PYTEST`) in ``project``, its output captured; ``env``: default :func:`harness_env`."""
    return subprocess.run(
        [*PYTEST, *args],
        cwd=project,
        env=dict(env) if env is not None else harness_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_pytest(project: Path, *args: str, env: Mapping[str, str], log: IO[bytes]) -> subprocess.Popen[bytes]:
    """``pytest ARGS`` (:data:`PYTEST`) started in ``project``, its output into ``log`` (to kill it mid-session)."""
    return subprocess.Popen(
        [*PYTEST, *args], cwd=project, env=dict(env), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
    )


def plugin_args() -> list[str]:
    """``-p harness.pytest_plugin``, unless the installed package registers the plugin (``pytest11``)."""
    installed = any(e.name == "council_harness" for e in entry_points(group="pytest11"))
    return [] if installed else ["-p", "harness.pytest_plugin"]


def scripted_pytest_env(base_url: str, **extra: str) -> dict[str, str]:
    """The environment of ``pytest -m golden`` against a scripted endpoint at ``base_url`` (three models
    ``m-a,m-b,m-c``, 8 requests in flight, no rubric judge, cache off, no retries), then ``extra``."""
    settings = {
        "LLM_COUNCIL_BASE_URL": base_url,
        "LLM_COUNCIL_MODELS": "m-a,m-b,m-c",
        "LLM_COUNCIL_CONCURRENCY": "8",
        "LLM_COUNCIL_RUBRIC_SCORING": "false",
        "LLM_COUNCIL_CACHE_MODE": "off",
        "LLM_COUNCIL_MAX_RETRIES": "0",
    }
    return harness_env(**{**settings, **extra})
