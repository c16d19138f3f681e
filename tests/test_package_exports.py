"""Every package's public names import: ``from harness.<pkg> import *`` works for each package, and
each name in a package's ``__all__`` is really there (a stale entry makes the star import raise)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import harness


def _packages() -> list[str]:
    names = ["harness"]
    for info in pkgutil.walk_packages(harness.__path__, prefix="harness."):
        if info.ispkg:
            names.append(info.name)
    return sorted(names)


PACKAGES = _packages()


def test_the_walk_finds_the_packages() -> None:
    # the walk itself must see the packages ARCHITECTURE.md names, or the test below checks nothing
    for name in (
        "harness.common",
        "harness.records",
        "harness.bias",
        "harness.stats",
        "harness.gate",
        "harness.report",
        "harness.scorers",
        "harness.run",
        "harness.cli",
    ):
        assert name in PACKAGES


@pytest.mark.parametrize("package", PACKAGES)
def test_star_import_works(package: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from {package} import *", namespace)  # noqa: S102 - our own package names, not model text
    module = importlib.import_module(package)
    for name in getattr(module, "__all__", ()):
        assert name in namespace, f"{package}.__all__ lists {name!r}, which the star import did not bind"
