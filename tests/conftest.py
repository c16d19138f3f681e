"""Fixtures shared by every test module (pytest finds them here; nothing to import).

- ``llama_server`` (session): the base URL ``http://127.0.0.1:PORT/v1`` of one real ``llama_cpp.server``
  serving the embedded SmolLM2 (:mod:`tests.llama_server`), started on first use and stopped at the end
  of the session. A test that asks for it is marked ``slow`` automatically.
- ``fault_server``: a running :class:`tests.fault_server.FaultServer` answering normally until scripted.
- ``clean_env``: no ``LLM_COUNCIL_*`` variable and no ``COUNCIL_HARNESS_CONFIG``, the working folder a
  fresh ``tmp_path`` (returned), so no configuration from the developer's shell or folder leaks in.

Plain helpers live in modules: :mod:`tests.builders` (transcripts and case results),
:mod:`tests.cli_env` (a scripted project, the CLI in a subprocess with a clean environment).

The ``slow`` marker means "loads an embedded llama.cpp model" (in the test process, in a subprocess the
test starts, or behind ``llama_server``); ``pytest -m "not slow"`` runs everything else.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_env import clear_harness_env
from tests.fault_server import FaultServer
from tests.llama_server import start_llama_server


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "llama_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def llama_server() -> Iterator[str]:
    """Start ``python -m llama_cpp.server`` with SmolLM2-135M once; yield its base URL; stop it."""
    running = start_llama_server()
    try:
        yield running.base
    finally:
        running.stop()


@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    """A running :class:`FaultServer` answering normally until scripted."""
    with FaultServer() as server:
        yield server


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No ``LLM_COUNCIL_*`` variables and no config file in the working folder (a fresh tmp folder)."""
    clear_harness_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    return tmp_path
