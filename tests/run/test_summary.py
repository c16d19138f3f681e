"""summary.json: one section per writer, merged atomically under a lock, other sections kept."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from harness.common.errors import StoreError
from harness.common.model import Frozen
from harness.run.summary import SUMMARY, read_summary, update_summary


class _Rec(Frozen):
    outcome: str
    n: int


def test_sections_merge_and_replace(tmp_path: Path) -> None:
    path = update_summary(tmp_path, "gate", _Rec(outcome="fail", n=3))
    assert path == tmp_path / SUMMARY
    update_summary(tmp_path, "verdicts", {"items": ({"family": "correct"},)})
    assert json.loads(path.read_text()) == {
        "gate": {"outcome": "fail", "n": 3},
        "verdicts": {"items": [{"family": "correct"}]},
    }
    update_summary(tmp_path, "gate", {"outcome": "pass"})  # replaced whole, verdicts kept
    assert read_summary(tmp_path) == {"gate": {"outcome": "pass"}, "verdicts": {"items": [{"family": "correct"}]}}
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_not_an_object_is_a_clear_error_and_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / SUMMARY).write_text("[1, 2]")
    with pytest.raises(StoreError, match=r"summary\.json: .*expected an object"):
        update_summary(tmp_path, "gate", {"outcome": "pass"})
    assert (tmp_path / SUMMARY).read_text() == "[1, 2]"


def _writer(run_dir: str, section: str, count: int) -> None:
    for i in range(count):
        update_summary(Path(run_dir), section, {"i": i})


def test_concurrent_writers_keep_each_others_sections(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), f"s{k}", 15)) for k in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert read_summary(tmp_path) == {"s0": {"i": 14}, "s1": {"i": 14}, "s2": {"i": 14}}


def test_non_finite_numbers_become_null(tmp_path: Path) -> None:
    update_summary(tmp_path, "verdicts", {"ci": [float("nan"), float("inf"), 0.5], "p": float("-inf")})
    text = (tmp_path / SUMMARY).read_text()
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == {"verdicts": {"ci": [None, None, 0.5], "p": None}}
