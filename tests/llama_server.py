"""A real ``llama_cpp.server`` serving the embedded SmolLM2 on a free loopback port.

It is started through :mod:`harness.providers.llama_server` (the server's own ``main`` with the
harness's buffer-type choice and wait policy: an unmodified server dies on CPUs with AMX, issue 24),
after the start-up guard checked the engine (a crashing engine fails the tests that need the server
with the guard's message instead of a server that exits with no reason).

Tests use it through the session fixture ``llama_server`` of ``tests/conftest.py`` (a test argument
named ``llama_server``; its value is the base URL ``http://127.0.0.1:PORT/v1``); every test that asks
for it is marked ``slow`` there. The tests that use it are skipped (with the reason) when
llama-cpp-python's server extra or the embedded model is not installed.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from harness.common.errors import ConfigError

START_TIMEOUT_S = 60.0
N_CTX = 4096


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no output)"


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:  # noqa: S310 - loopback only
            return reply.status == 200
    except (urllib.error.URLError, OSError):
        return False


class RunningServer:
    """A started server process: its base URL, and :meth:`stop`."""

    def __init__(self, proc: subprocess.Popen[bytes], base: str, tmp: tempfile.TemporaryDirectory[str]) -> None:
        self.proc = proc
        self.base = base
        self.tmp = tmp

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.tmp.cleanup()


def start_llama_server() -> RunningServer:
    """Start ``llama_cpp.server`` (:mod:`harness.providers.llama_server`) with SmolLM2-135M; wait until it
    answers ``/models``.

    Skips the calling test when the server extra or the model is missing; fails it (with the
    server's last output) when the server exits or does not answer within ``START_TIMEOUT_S``.
    """
    for module in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"llama_cpp.server needs '{module}': pip install -e '.[local]'")
    from harness.providers.embedded import model_path

    try:
        gguf = model_path("smollm2-135m")
    except ConfigError as exc:
        pytest.skip(str(exc))
    from harness.providers.engine_guard import EngineCrash, check_engine
    from harness.providers.engine_setup import extra_bufts_choice

    try:
        check_engine([gguf], extra_bufts_choice()[0])
    except EngineCrash as exc:
        pytest.fail(str(exc), pytrace=False)
    port = free_port()
    base = f"http://127.0.0.1:{port}/v1"
    tmp = tempfile.TemporaryDirectory(prefix="llama-server-")
    log_path = Path(tmp.name) / "server.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "harness.providers.llama_server",
                "--model",
                str(gguf),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                str(N_CTX),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    running = RunningServer(proc, base, tmp)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not _answers(f"{base}/models"):
        problem = None
        if proc.poll() is not None:
            problem = f"exited with code {proc.returncode} before answering on {base}"
        elif time.monotonic() > deadline:
            problem = f"did not answer {base}/models within {START_TIMEOUT_S:g} s"
        if problem is not None:
            output = _tail(log_path)
            running.stop()
            pytest.fail(f"llama_cpp.server {problem}; last output:\n{output}", pytrace=False)
        time.sleep(0.25)
    return running
