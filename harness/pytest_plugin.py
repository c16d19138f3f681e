"""pytest plugin: golden datasets and suites as test items (filled in by the collection module)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "golden: a golden-dataset case run through a subject")
    config.addinivalue_line("markers", "suite: a reasoning-suite challenge run through a subject")
