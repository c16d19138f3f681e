"""How the embedded llama.cpp engine runs on this machine: buffer types, threads, OpenMP wait policy.

**Buffer types** (issue 24). llama.cpp may move a model's weights into "extra" CPU buffer types
when it loads them: the repacked layouts of its x86 kernels and, on CPUs with AMX, the AMX buffer
type. llama-cpp-python built from source with ``GGML_NATIVE`` compiles the AMX kernels in on such
a CPU, and ggml's AMX matmul then dies with SIGILL on the first prompt batch (it issues tile
instructions before the kernel granted the thread the AMX state: ggml-org/llama.cpp PR 26954).
The rule, in this order:

1. ``COUNCIL_HARNESS_REPACK=on`` or ``off`` (the environment) decides;
2. otherwise, when ``/proc/cpuinfo`` lists any of :data:`AMX_FLAGS`, the extra buffer types are
   off (llama.cpp's ``--no-repack``, ``use_extra_bufts=False``): the weights never reach the AMX
   buffer type, whatever the wheel was built with;
3. otherwise they are on (llama.cpp's default).

A runtime choice rather than build flags: pip caches a built wheel by version, not by
``CMAKE_ARGS``, so changed build flags would silently reuse a cached native wheel, and a rebuild
costs about 8 minutes on 2 cores. What the choice costs where it applies is measured by
``bench/bench_engine_setup.py`` (``COUNCIL_HARNESS_REPACK=off`` forces it on any CPU).

**Threads**: :func:`choose_threads`. **Wait policy**: :func:`prepare_openmp`. The choice a run
made is recorded in its manifest (:class:`EngineSetup`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.common.errors import ConfigError
from harness.common.model import Frozen
from harness.providers.malloc_setup import bound_malloc

#: the CPU flags (``/proc/cpuinfo``) of Intel's AMX; any of them turns the extra buffer types off
AMX_FLAGS = ("amx_tile", "amx_int8", "amx_bf16")
#: ``on``/``off`` overrides the buffer-type rule (``auto`` or unset: the rule)
REPACK_ENV = "COUNCIL_HARNESS_REPACK"
#: the SIMD features worth naming in a manifest or an error message
SIMD_FLAGS = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni", *AMX_FLAGS)
WAIT_POLICY = "PASSIVE"

_patch_lock = threading.Lock()


class EngineSetup(Frozen):
    """The embedded engine's set-up for one run (recorded in ``manifest.json``).

    Attributes:
        threads: llama.cpp threads of an engine computing alone (engines at once share them).
        wait_policy: the ``OMP_WAIT_POLICY`` the engine runs with (empty: OpenMP's default).
        extra_bufts: whether llama.cpp may use its extra (repacking, AMX) buffer types.
        cpu_features: the SIMD features of :data:`SIMD_FLAGS` this CPU lists.
        why: one sentence per choice: threads, wait policy, buffer types.
    """

    threads: int
    wait_policy: str
    extra_bufts: bool
    cpu_features: tuple[str, ...]
    why: tuple[str, ...]


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The flags of the first CPU in ``cpuinfo`` (empty where there is no such file)."""
    try:
        with cpuinfo.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def cpu_features(flags: frozenset[str] | None = None) -> tuple[str, ...]:
    """The :data:`SIMD_FLAGS` among ``flags`` (default: this CPU's), in that order."""
    flags = cpu_flags() if flags is None else flags
    return tuple(f for f in SIMD_FLAGS if f in flags)


def extra_bufts_choice(flags: frozenset[str] | None = None, env: str | None = None) -> tuple[bool, str]:
    """Whether llama.cpp may use its extra buffer types, and why (the rule of the module docstring).

    Raises:
        ConfigError: :data:`REPACK_ENV` holds something other than ``on``, ``off`` or ``auto``.
    """
    env = os.environ.get(REPACK_ENV, "") if env is None else env
    value = env.strip().lower()
    if value in ("on", "off"):
        return value == "on", f"extra buffer types {value}: {REPACK_ENV}={value}"
    if value not in ("", "auto"):
        raise ConfigError(f"expected on, off or auto, got {env!r}", REPACK_ENV)
    flags = cpu_flags() if flags is None else flags
    amx = [f for f in AMX_FLAGS if f in flags]
    if amx:
        return False, (
            f"extra buffer types off (llama.cpp --no-repack): the CPU has {' '.join(amx)}, and "
            "ggml's AMX matmul dies with SIGILL (issue 24)"
        )
    return True, "extra buffer types on (llama.cpp's default): no AMX on this CPU"


def choose_threads(
    requested: int | None, cores: int | None = None, load: float | None = None, passive: bool = True
) -> tuple[int, str]:
    """llama.cpp threads of an engine computing alone, and why.

    In this order: ``requested`` (``llama_threads``); every core when waiting threads sleep
    (``passive``: ``OMP_WAIT_POLICY=PASSIVE``, the harness's default); otherwise the idle cores,
    ``cores - load`` rounded to the nearest whole core, at least 1 (``load``: the 1-minute load average).
    llama.cpp's threads meet at a barrier after every operation. With OpenMP's default policy the
    threads that reach it first spin, taking the cores from the one they wait for: on 2 shared cores
    2 threads generated 2.2-7.4 tokens/s against 18-21 for 1 thread at load 3.5 (issue 24), and did
    not generate 64 tokens within 240 s at load 25 (``bench/bench_engine_setup.py``). With PASSIVE they
    sleep, and 2 threads were the fastest measured: 23.4 tokens/s at load 3.5, 26.5 at load 25.
    """
    cores = cores or os.cpu_count() or 1
    if requested is not None:
        return requested, f"{requested} thread(s): llama_threads"
    if passive:
        return cores, f"{cores} thread(s): every core (waiting threads sleep: OMP_WAIT_POLICY=PASSIVE)"
    load = os.getloadavg()[0] if load is None else load
    threads = max(1, min(cores, round(cores - load)))
    return threads, (
        f"{threads} thread(s): {cores} core(s), load average {load:.1f} (idle cores, at least 1: waiting threads spin)"
    )


def prepare_openmp() -> str:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` unless the user set it; the policy in effect (empty: OpenMP's default).

    OpenMP reads the variable once, when llama.cpp's library is loaded, so this must run before
    ``llama_cpp`` is first imported (in a process that already imported it the policy stays as it was).
    With OpenMP's default, a thread that reaches a barrier spins for a while before it sleeps: on a
    loaded machine the spinning threads take the cores from the threads they wait for (issue 24).
    """
    if "OMP_WAIT_POLICY" not in os.environ and "llama_cpp" not in sys.modules:
        os.environ["OMP_WAIT_POLICY"] = WAIT_POLICY
    return os.environ.get("OMP_WAIT_POLICY", "")


def engine_setup(requested_threads: int | None = None) -> EngineSetup:
    """The set-up of this process's embedded engines (sets the wait policy: :func:`prepare_openmp`)."""
    user_policy = "OMP_WAIT_POLICY" in os.environ
    policy = prepare_openmp()
    threads, threads_why = choose_threads(requested_threads, passive=policy.upper() == WAIT_POLICY)
    extra, extra_why = extra_bufts_choice()
    if user_policy:
        policy_why = f"OMP_WAIT_POLICY={policy}: set by the user"
    elif policy:
        policy_why = f"OMP_WAIT_POLICY={policy}: waiting threads sleep instead of spinning on shared cores"
    else:
        policy_why = "OpenMP's default wait policy: llama_cpp was imported before the harness could set it"
    return EngineSetup(
        threads=threads,
        wait_policy=policy,
        extra_bufts=extra,
        cpu_features=cpu_features(),
        why=(threads_why, policy_why, extra_why),
    )


@contextlib.contextmanager
def buffer_types(extra_bufts: bool) -> Iterator[None]:
    """Models loaded by ``llama_cpp.Llama`` inside the block use (or not) llama.cpp's extra buffer types.

    ``Llama.__init__`` has no parameter for ``llama_model_params.use_extra_bufts`` (llama-cpp-python
    0.3.x), and builds its parameters from ``llama_cpp.llama_cpp.llama_model_default_params``, so that
    function is wrapped for the duration of the block (under a lock: one load at a time).
    """
    if extra_bufts:
        yield
        return
    import llama_cpp.llama_cpp as lib

    with _patch_lock:
        original = lib.llama_model_default_params

        def defaults() -> Any:
            params = original()
            params.use_extra_bufts = False
            return params

        lib.llama_model_default_params = defaults
        try:
            yield
        finally:
            lib.llama_model_default_params = original


def load_llama(model_path: str | Path, *, extra_bufts: bool, **kwargs: Any) -> Any:
    """``llama_cpp.Llama(model_path, **kwargs)`` with or without the extra buffer types (and glibc's
    allocator set for the engine's buffers: :func:`harness.providers.malloc_setup.bound_malloc`)."""
    prepare_openmp()
    bound_malloc()
    from llama_cpp import Llama

    with buffer_types(extra_bufts):
        return Llama(model_path=str(model_path), **kwargs)
