"""The hand mutations of ``bench/mutations.py`` (issue 27, item 5) still apply: each snippet occurs exactly
once in its file, so a refactor cannot silently turn a mutation into a crash of the mutation run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _mutations() -> list[tuple[str, str, str, str, list[str]]]:
    spec = importlib.util.spec_from_file_location("bench_mutations", ROOT / "bench" / "mutations.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.MUTATIONS)


@pytest.mark.parametrize("mutation", _mutations(), ids=lambda m: m[0])
def test_every_mutation_snippet_occurs_once_and_its_tests_exist(mutation):
    name, file, old, new, tests = mutation
    assert (ROOT / file).read_text(encoding="utf-8").count(old) == 1, f"{name}: snippet not found once in {file}"
    assert old != new
    for test in tests:
        assert (ROOT / test).is_file(), f"{name}: no test file {test}"
