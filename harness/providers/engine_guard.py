"""The start-up guard: the embedded engine is tried in a child process before a run loads a model.

A llama.cpp build that cannot run on this CPU dies with a signal (SIGILL on the AMX path of issue 24)
and takes the whole process with it: a bare exit 132, no message, an empty run folder. So before a
run (or a test) loads an embedded model, :func:`check_engine` runs :mod:`harness.providers.engine_check`
in a child process: it loads each model file with the run's buffer-type choice, evaluates a prompt
batch and generates a token. Its success is remembered under ``<cache_dir>/engine-check/`` per model
file and per *key*: the machine (CPU model and flags), the llama.cpp build (llama-cpp-python's version
and the size and time of each of its shared libraries), the buffer-type choice and the check command;
the next run on the same key does not start a child. A child that dies by a signal raises
:class:`EngineCrash` (exit 2) with one paragraph: the signal, the CPU features, the build and the
command that fixes it. A child that fails otherwise (a file llama.cpp cannot load) raises it too, with
the child's last output; neither is remembered. A model joined in memory
(:mod:`harness.providers.joined_parts`) is passed to the child as its descriptor (the same
``/proc/self/fd/<fd>`` there) and remembered by its name, size and SHA-256, not its per-process path.

``COUNCIL_HARNESS_ENGINE_CHECK`` replaces the check command (split like a shell line; the
arguments of :mod:`harness.providers.engine_check` are appended): the tests simulate a crashing
engine with it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import shlex
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from filelock import FileLock

from harness.common.errors import ConfigError
from harness.common.fsutil import atomic_write_text
from harness.providers.embedded import cache_dir
from harness.providers.engine_setup import REPACK_ENV, cpu_features, cpu_flags
from harness.providers.joined_parts import in_memory

CHECK_ENV = "COUNCIL_HARNESS_ENGINE_CHECK"
#: the child's time limit: loading two small models and evaluating a few tokens takes seconds
CHECK_TIMEOUT_S = 300.0
#: a wheel that cannot reach ggml's AMX or native-only kernels (``-DGGML_NATIVE=OFF``, AVX2 level)
PORTABLE_CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
    "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)

_checked: set[tuple[str, str]] = set()  # (key, model file) checked by this process


class EngineCrash(ConfigError):
    """The embedded engine cannot run on this machine (its check child died or failed); exit 2."""


def default_command() -> list[str]:
    """The check command (``COUNCIL_HARNESS_ENGINE_CHECK`` or ``python -m harness.providers.engine_check``)."""
    given = os.environ.get(CHECK_ENV, "").strip()
    return shlex.split(given) if given else [sys.executable, "-m", "harness.providers.engine_check"]


def llama_build() -> str:
    """llama-cpp-python's version and its shared libraries (name, size, modification time), without
    importing it (an import would load the library before the OpenMP wait policy is set)."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return "llama-cpp-python not installed"
    pkg = Path(next(iter(spec.submodule_search_locations)))
    try:
        from importlib.metadata import version

        ver = version("llama_cpp_python")
    except Exception:  # noqa: BLE001 - an unusual install still gets a key
        ver = "unknown"
    libs = sorted(p for p in (pkg / "lib").glob("*.so*")) if (pkg / "lib").is_dir() else []
    parts = [f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in libs]
    return f"llama-cpp-python {ver} " + " ".join(parts)


def _machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    return f"{platform.machine()} {model} {' '.join(sorted(cpu_flags()))}"


def check_key(extra_bufts: bool, command: Sequence[str]) -> str:
    """The key a successful check is remembered under (see the module docstring)."""
    text = "\n".join([_machine(), llama_build(), f"extra_bufts={extra_bufts}", shlex.join(command)])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _marker(folder: Path, key: str, model: Path) -> Path:
    joined = in_memory(model)  # per-process path: its name, size and SHA-256 instead
    if joined is not None:
        stamp = f"{joined.name}:{joined.size}:{joined.sha256}"
    else:
        st = model.stat()
        stamp = f"{model.resolve()}:{st.st_size}:{st.st_mtime_ns}"
    name = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    return folder / f"{key}-{name}.ok"


def _file_name(path: str) -> str:
    """The model file's name (a file joined in memory: its own, not the descriptor's number)."""
    joined = in_memory(path)
    return joined.name if joined is not None else Path(path).name


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def fix_command(extra_bufts: bool) -> str:
    """The command that gets a working engine after a crash with this buffer-type choice."""
    if extra_bufts:
        return (
            f"export {REPACK_ENV}=off (keeps the weights out of llama.cpp's AMX and repacked buffers), then run again"
        )
    pip = f"{Path(sys.executable).parent / 'pip'}"
    return (
        f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" {pip} install --force-reinstall --no-cache-dir --no-deps '
        f'"llama-cpp-python=={llama_build().split()[1]}" (a portable build; --no-cache-dir, since pip '
        "reuses a cached wheel whatever CMAKE_ARGS say)"
    )


def crash_message(returncode: int, output: str, extra_bufts: bool) -> str:
    """The one paragraph :class:`EngineCrash` shows for a check child that ended with ``returncode``."""
    lines = output.strip().splitlines()
    build = next((ln.partition(":")[2].strip() for ln in lines if ln.startswith("build:")), "")
    model = next((ln.partition(":")[2].strip() for ln in reversed(lines) if ln.startswith("model:")), "")
    features = " ".join(cpu_features()) or "none listed"
    where = f" on {_file_name(model)}" if model else ""
    built = f"{llama_build().split(' lib')[0]}" + (f" ({build})" if build else "")
    buffers = "on" if extra_bufts else "off"
    if returncode < 0:
        what = (
            f"the embedded llama.cpp engine died with {_signal_name(-returncode)} while it evaluated a "
            f"prompt batch{where} in a check process"
        )
    else:
        tail = " | ".join(lines[-3:]) if lines else "no output"
        what = f"the embedded llama.cpp engine's check process failed{where} (exit {returncode}: {tail})"
    return (
        f"{what}; the run stopped before any case. CPU features: {features}; llama.cpp: {built}; "
        f"extra buffer types {buffers}. Fix: {fix_command(extra_bufts)}."
    )


def check_engine(
    models: Sequence[Path], extra_bufts: bool, *, command: Sequence[str] | None = None, folder: Path | None = None
) -> int:
    """Check that the engine runs ``models`` (see the module docstring); the number of children started (0 or 1).

    Raises:
        EngineCrash: the check child died by a signal or failed.
    """
    command = list(default_command() if command is None else command)
    key = check_key(extra_bufts, command)
    todo = [m for m in dict.fromkeys(Path(p) for p in models) if (key, str(m)) not in _checked]
    if not todo:
        return 0
    folder = folder or cache_dir() / "engine-check"
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / f"{key}.lock"), timeout=CHECK_TIMEOUT_S * 2):
        missing = [m for m in todo if not _marker(folder, key, m).exists()]
        started = 0
        if missing:
            args = [*command, *(["--no-extra-bufts"] if not extra_bufts else []), *map(str, missing)]
            started = 1
            try:
                proc = subprocess.run(
                    args,
                    capture_output=True,
                    text=True,
                    errors="replace",
                    timeout=CHECK_TIMEOUT_S,
                    stdin=subprocess.DEVNULL,
                    check=False,
                    pass_fds=[j.fd for j in map(in_memory, missing) if j is not None],  # /proc/self/fd/N there too
                )
            except subprocess.TimeoutExpired:
                raise EngineCrash(
                    f"the embedded llama.cpp engine's check process did not finish within {CHECK_TIMEOUT_S:g} s",
                    shlex.join(args),
                ) from None
            except OSError as exc:
                raise EngineCrash(
                    f"cannot start the engine check ({exc.strerror or exc})", shlex.join(command)
                ) from None
            if proc.returncode != 0:
                raise EngineCrash(crash_message(proc.returncode, proc.stdout + proc.stderr, extra_bufts))
            for m in missing:
                atomic_write_text(_marker(folder, key, m), proc.stdout[-2000:])
    _checked.update((key, str(m)) for m in todo)
    return started
