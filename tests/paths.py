"""Where things are in the repository, for tests in any folder under ``tests/``."""

from __future__ import annotations

from pathlib import Path

#: The repository root (``pyproject.toml``, ``golden/``, ``suites/``, ``README.md``).
REPO = Path(__file__).resolve().parents[1]
#: Recorded files the tests read (transcripts, corpora).
TEST_DATA = REPO / "tests" / "fixtures"
#: The corpus of malformed inputs (:mod:`tests.data.test_bad_inputs`).
BAD_INPUTS = REPO / "tests" / "bad_inputs"
