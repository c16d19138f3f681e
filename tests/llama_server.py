"""Session fixture: a real ``llama_cpp.server`` serving the embedded SmolLM2 on a free loopback port.

Use it with ``from tests.llama_server import llama_server_fixture  # noqa: F401`` and a test
argument named ``llama_server`` (the fixture's value is the base URL ``http://127.0.0.1:PORT/v1``).
Importing the function under another name than the fixture's keeps ruff's F811 quiet;
``from tests.llama_server import llama_server`` works too. The tests that use it are skipped (with the
reason) when llama-cpp-python's server extra or the embedded model is not installed.
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
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.errors import ConfigError

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


class _Running:
    """The server process shared by every module that imports the fixture."""

    def __init__(self, proc: subprocess.Popen[bytes], base: str, tmp: tempfile.TemporaryDirectory[str]) -> None:
        self.proc = proc
        self.base = base
        self.tmp = tmp
        self.users = 0

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.tmp.cleanup()


_running: _Running | None = None


def _start() -> _Running:
    for module in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"llama_cpp.server needs '{module}': pip install -e '.[local]'")
    from harness.providers.embedded import model_path

    try:
        gguf = model_path("smollm2-135m")
    except ConfigError as exc:
        pytest.skip(str(exc))
    port = free_port()
    base = f"http://127.0.0.1:{port}/v1"
    tmp = tempfile.TemporaryDirectory(prefix="llama-server-")
    log_path = Path(tmp.name) / "server.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", str(N_CTX)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    running = _Running(proc, base, tmp)
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


@pytest.fixture(scope="session", name="llama_server")
def llama_server_fixture() -> Iterator[str]:
    """Start ``python -m llama_cpp.server`` with SmolLM2-135M; yield its base URL; stop it.

    Each test module that imports the fixture gets its own session-scoped definition; they
    share one server process, stopped when the last of them is torn down.
    """
    global _running
    if _running is None or _running.proc.poll() is not None:
        _running = _start()
    running = _running
    running.users += 1
    try:
        yield running.base
    finally:
        running.users -= 1
        if running.users == 0:
            running.stop()
            if _running is running:
                _running = None


llama_server = llama_server_fixture  # the name the fixture is registered under
