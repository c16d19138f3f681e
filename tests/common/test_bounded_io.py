"""Bounded work on every input: file arguments must be regular files of bounded size, writes never replace a
device node, YAML alias bombs fail fast, dataset regexes have a time limit.

Device nodes are made with ``mknod`` in the test's temp folder (never a system device); the tests that
need them are skipped where ``mknod`` is not permitted (not root).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.common.errors import DatasetError, StoreError
from harness.common.fsutil import NotRegularFile, atomic_write_text, read_bounded
from harness.common.yamlio import load_yaml
from harness.gate.baselines import Baseline, write_baseline
from harness.run.runs import Manifest, RunWriter
from tests.cli_env import harness_env

CLI = [sys.executable, "-m", "harness.cli"]
NULL, ZERO, FULL = (1, 3), (1, 5), (1, 7)  # the Linux major/minor numbers of null, zero and full


def device(folder: Path, name: str, numbers: tuple[int, int]) -> Path:
    """A character device node ``folder/name`` (skips the test where mknod is not permitted)."""
    path = folder / name
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(*numbers))
    except PermissionError:
        pytest.skip("mknod needs root (CAP_MKNOD)")
    return path


def is_device(path: Path) -> bool:
    return stat.S_ISCHR(os.stat(path).st_mode)


def test_reading_an_endless_device_or_a_fifo_is_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    zero = device(tmp_path, "zero", ZERO)
    with pytest.raises(NotRegularFile, match="is a character device, not a regular file"):
        read_bounded(zero, 1024)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: a blocking open would hang for ever
    with pytest.raises(NotRegularFile, match="is a FIFO"):
        read_bounded(fifo, 1024)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2048)
    with pytest.raises(NotRegularFile, match="over the 1024 bytes limit"):
        read_bounded(big, 1024)
    assert read_bounded(big, 4096) == b" " * 2048


def test_atomic_writes_go_through_a_device_and_never_replace_it(tmp_path: Path) -> None:
    null = device(tmp_path, "null", NULL)
    atomic_write_text(null, "hello\n")
    assert is_device(null)  # written to, not renamed over
    full = device(tmp_path, "full", FULL)
    with pytest.raises(OSError) as err:
        atomic_write_text(full, "x" * 10)
    assert err.value.errno == 28 and is_device(full)  # ENOSPC, and still the device
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(NotRegularFile, match="is a folder; refusing to replace it"):
        atomic_write_text(folder, "x")
    assert folder.is_dir()


def _run_folder(root: Path) -> Path:
    run_dir = root / "runs" / "r1"
    writer = RunWriter(run_dir)
    writer.write_manifest(
        Manifest(run_id="r1", started_at="2026-01-01T00:00:00Z", finished_at="2026-01-01T00:01:00Z", datasets=("d",))
    )
    return run_dir


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, env=harness_env(), capture_output=True, text=True, timeout=120)


def test_command_line_file_arguments_that_are_devices(tmp_path: Path) -> None:
    run_dir = _run_folder(tmp_path)
    zero = device(tmp_path, "zero", ZERO)
    # a baseline or compare --summary on an endless device: refused, named, not read (it used to read until OOM)
    proc = _cli(tmp_path, "compare", str(run_dir), "--baseline", str(zero))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{zero}: cannot read the baseline" in proc.stderr
    assert "a character device, not a regular file" in proc.stderr
    baseline = tmp_path / "d.json"
    write_baseline(baseline, Baseline(dataset="d", created_at=datetime(2026, 1, 1, tzinfo=UTC)))
    proc = _cli(tmp_path, "compare", str(run_dir), "--baseline", str(baseline), "--summary", str(zero))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{zero}: summary file cannot be read" in proc.stderr and "character device" in proc.stderr
    assert "Traceback" not in proc.stderr and is_device(zero)
    # a run whose results.jsonl is a device: refused (read_results) with the path
    (run_dir / "results.jsonl").unlink(missing_ok=True)
    os.mknod(run_dir / "results.jsonl", 0o666 | stat.S_IFCHR, os.makedev(*ZERO))
    proc = _cli(tmp_path, "report", str(run_dir), "--reports-dir", str(tmp_path))
    assert proc.returncode == 2 and "results.jsonl cannot be read" in proc.stderr and "character device" in proc.stderr
    # --junitxml-style outputs: report --output onto a null device writes through it
    os.unlink(run_dir / "results.jsonl")
    null = device(tmp_path, "null", NULL)
    proc = _cli(tmp_path, "report", str(run_dir), "--reports-dir", str(tmp_path), "--output", str(null))
    assert is_device(null), proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr  # a finished run with nothing planned: it passes
    full = device(tmp_path, "full", FULL)
    proc = _cli(tmp_path, "report", str(run_dir), "--reports-dir", str(tmp_path), "--output", str(full))
    assert proc.returncode == 2 and "No space left on device" in proc.stderr and is_device(full)


def test_a_dataset_on_a_device_is_refused(tmp_path: Path) -> None:
    zero = device(tmp_path, "zero.yaml", ZERO)
    with pytest.raises(DatasetError, match="character device"):
        load_yaml(zero)


def test_an_alias_bomb_after_a_mebibyte_of_comments_fails_fast_naming_the_file(tmp_path: Path) -> None:
    bomb = (Path(__file__).parents[1] / "bad_inputs" / "alias_bomb.yaml").read_text()
    path = tmp_path / "hidden_bomb.yaml"
    path.write_text("# padding\n" * (2**20 // 10 + 1) + bomb)
    assert path.stat().st_size > 2**20
    with pytest.raises(DatasetError) as err:
        load_yaml(path)
    assert err.value.where == str(path)
    assert "too many values once YAML aliases are expanded (an alias bomb?)" in err.value.message


def test_validate_on_the_hidden_alias_bomb_is_one_clear_error(tmp_path: Path) -> None:
    bomb = (Path(__file__).parents[1] / "bad_inputs" / "alias_bomb.yaml").read_text()
    path = tmp_path / "hidden_bomb.yaml"
    path.write_text("# padding\n" * (2**20 // 10 + 1) + bomb)
    proc = _cli(tmp_path, "validate", str(path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "alias bomb" in proc.stderr and str(path) in proc.stderr and "Traceback" not in proc.stderr


def test_a_yaml_memory_error_is_a_load_error_naming_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real MemoryError cannot be provoked safely on a shared machine: the composer raises it here."""
    import yaml

    def exhausted(*args: object, **kwargs: object) -> object:
        raise MemoryError

    path = tmp_path / "d.yaml"
    path.write_text("golden_datasets: []\n")
    monkeypatch.setattr(yaml, "compose_all", exhausted)
    with pytest.raises(DatasetError, match="out of memory parsing the YAML") as err:
        load_yaml(path)
    assert err.value.where == str(path)


def test_a_catastrophic_regex_is_stopped_and_says_so() -> None:
    from harness.data.expected import ExpectRegex
    from harness.metrics.correctness import REGEX_TIMEOUT_S, _check_regex

    nested = ExpectRegex(type="regex", pattern=r"^(a+)+$")  # 2**40 ways to split the a's: hours with `re`
    assert not _check_regex(nested, "a" * 40 + "!").correct
    assert _check_regex(nested, "a" * 40).correct
    alternation = ExpectRegex(type="regex", pattern=r"^(a|aa)+$")  # backtracks even in `regex`: stopped
    result = _check_regex(alternation, "a" * 60 + "!")
    assert not result.correct and result.verdict == "unanswered"
    assert f"took more than {REGEX_TIMEOUT_S:g} s on the whole answer and was stopped" in result.detail
    assert _check_regex(alternation, "a" * 60).correct


def test_a_store_error_names_a_summary_that_is_a_folder(tmp_path: Path) -> None:
    from harness.run.summary import read_summary_file

    folder = tmp_path / "summary.json"
    folder.mkdir()
    with pytest.raises(StoreError, match="is a folder, not a regular file"):
        read_summary_file(folder)


def test_bounded_lines_skip_an_over_long_line_without_holding_it(tmp_path: Path) -> None:
    from harness.common.fsutil import bounded_lines

    path = tmp_path / "lines"
    path.write_bytes(b"short\n" + b"x" * 100 + b"\n" + b"y" * 10 + b"\n" + b"exactly10\n" + b"z" * 25)
    with path.open("rb") as fh:
        assert list(bounded_lines(fh, 10)) == [b"short\n", None, b"y" * 10 + b"\n", b"exactly10\n", None]


def test_an_over_long_result_line_is_unreadable_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.run import runs
    from tests.builders import result

    run_dir = _run_folder(tmp_path)
    RunWriter(run_dir).add([result("c1"), result("c2")])
    lines = (run_dir / "results.jsonl").read_bytes().splitlines(keepends=True)
    (run_dir / "results.jsonl").write_bytes(lines[0] + b'{"case_id": "' + b"a" * 5000 + b'"}\n' + lines[1])
    monkeypatch.setattr(runs, "MAX_RESULT_LINE_BYTES", 4096)
    results, corrupt = runs.read_results(run_dir / "results.jsonl")
    assert [r.case_id for r in results] == ["c1", "c2"] and corrupt == [2]
