"""The embedded engine's set-up and start-up guard (issue 24): buffer types, threads, and a child process
that tries the engine before a run loads a model.

The crash is simulated by a check command that kills itself with SIGILL (``COUNCIL_HARNESS_ENGINE_CHECK``);
the working check runs the real engine (:mod:`harness.providers.engine_check` on SmolLM2).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from harness.common.errors import ConfigError
from harness.config import Settings
from harness.providers import engine_guard
from harness.providers.embedded import model_path
from harness.providers.engine_guard import CHECK_ENV, EngineCrash, check_engine, crash_message
from harness.providers.engine_setup import REPACK_ENV, choose_threads, extra_bufts_choice, load_llama
from harness.run.engine import embedded_setup
from tests.cli_env import CLI, harness_env

ROOT = Path(__file__).resolve().parents[2]
SIGILL_CHECK = f"{shlex.quote(sys.executable)} -c 'import os, signal; os.kill(os.getpid(), signal.SIGILL)'"


def test_amx_turns_the_extra_buffer_types_off_unless_the_environment_says_otherwise() -> None:
    amx = frozenset({"avx2", "avx512f", "amx_tile", "amx_int8"})
    assert extra_bufts_choice(amx, "")[0] is False
    assert "amx_tile amx_int8" in extra_bufts_choice(amx, "")[1]
    assert extra_bufts_choice(frozenset({"avx2", "avx512f"}), "auto")[0] is True
    assert extra_bufts_choice(amx, "on")[0] is True and extra_bufts_choice(frozenset(), "OFF")[0] is False
    with pytest.raises(ConfigError, match=f"{REPACK_ENV}: expected on, off or auto, got 'maybe'"):
        extra_bufts_choice(amx, "maybe")


def test_threads_are_every_core_when_waiting_threads_sleep_else_the_idle_cores() -> None:
    assert choose_threads(None, cores=2, load=3.4, passive=True)[0] == 2
    assert choose_threads(None, cores=2, load=0.1, passive=False)[0] == 2
    assert choose_threads(None, cores=2, load=1.2, passive=False)[0] == 1
    assert choose_threads(None, cores=2, load=3.4, passive=False)[0] == 1  # never fewer than one
    assert choose_threads(None, cores=8, load=2.6, passive=False)[0] == 5
    assert choose_threads(4, cores=2, load=3.0) == (4, "4 thread(s): llama_threads")


def test_a_check_child_killed_by_sigill_stops_the_cli_run_with_exit_2_and_the_fix(tmp_path: Path) -> None:
    """The real CLI on the README's main command: the run stops before any case (no run folder) with
    one paragraph naming the signal, the CPU features and the build, and the command that fixes it."""
    proc = subprocess.run(
        [*CLI, "run", "--suite", "reasoning-100", "--limit", "1", "--cache-mode", "off"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=harness_env(
            **{
                CHECK_ENV: SIGILL_CHECK,
                "LLM_COUNCIL_REPORTS_DIR": str(tmp_path / "reports"),
                "LLM_COUNCIL_CACHE_PATH": str(tmp_path / "cache.sqlite"),
                REPACK_ENV: "on",
            }
        ),
    )
    assert proc.returncode == 2, proc.stderr
    [line] = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert "died with SIGILL while it evaluated a prompt batch" in line
    assert "the run stopped before any case" in line and "CPU features: " in line
    assert "llama.cpp: llama-cpp-python " in line and "extra buffer types on" in line
    assert f"Fix: export {REPACK_ENV}=off" in line
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "reports" / "runs").exists() or not any((tmp_path / "reports" / "runs").iterdir())


def test_with_the_extra_buffer_types_already_off_the_fix_is_a_portable_rebuild(tmp_path: Path) -> None:
    with pytest.raises(EngineCrash) as caught:
        check_engine([model_path("smollm2-135m")], False, command=shlex.split(SIGILL_CHECK), folder=tmp_path)
    message = str(caught.value)
    assert "died with SIGILL" in message and "extra buffer types off" in message
    assert "-DGGML_NATIVE=OFF" in message and "-DGGML_AMX_INT8=OFF" in message and "--no-cache-dir" in message
    assert not list(tmp_path.glob("*.ok"))  # a failure is never remembered


def test_a_check_that_fails_without_a_signal_quotes_its_last_output() -> None:
    message = crash_message(1, "build: AVX2 = 1\nmodel: /m/x.gguf\nllama_model_load: error loading model", True)
    assert "check process failed on x.gguf (exit 1: " in message and "error loading model" in message


def test_a_replay_never_starts_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CHECK_ENV, SIGILL_CHECK)
    setup = embedded_setup(Settings(cache_mode="replay"))
    assert setup is not None and len(setup.why) == 3
    with pytest.raises(EngineCrash, match="SIGILL"):
        embedded_setup(Settings(cache_mode="readwrite"))


@pytest.mark.slow
def test_a_working_engine_is_checked_once_then_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real check on SmolLM2, through a wrapper that counts the children started: the second check
    (a new process: this one's memory cleared) reads the marker and starts none; another buffer-type
    choice is another key and is checked again."""
    counter = tmp_path / "started.txt"
    command = [
        "sh",
        "-c",
        'echo x >> "$0"; exec "$@"',
        str(counter),
        sys.executable,
        "-m",
        "harness.providers.engine_check",
    ]
    smol = model_path("smollm2-135m")
    folder = tmp_path / "checks"
    assert check_engine([smol], True, command=command, folder=folder) == 1
    assert counter.read_text().count("x") == 1
    [marker] = folder.glob("*.ok")
    assert f"ok: {smol}" in marker.read_text()
    monkeypatch.setattr(engine_guard, "_checked", set())
    assert check_engine([smol], True, command=command, folder=folder) == 0
    assert check_engine([smol, smol], True, command=command, folder=folder) == 0
    assert counter.read_text().count("x") == 1
    assert check_engine([smol], False, command=command, folder=folder) == 1
    assert counter.read_text().count("x") == 2


@pytest.mark.slow
def test_the_buffer_type_choice_reaches_llama_cpp() -> None:
    import llama_cpp.llama_cpp as lib
    import numpy as np

    original = lib.llama_model_default_params
    off = load_llama(model_path("smollm2-135m"), extra_bufts=False, n_ctx=64, verbose=False)
    on = load_llama(model_path("smollm2-135m"), extra_bufts=True, n_ctx=64, verbose=False)
    try:
        assert off.model_params.use_extra_bufts is False and on.model_params.use_extra_bufts is True
        assert lib.llama_model_default_params is original  # the wrapper is gone after the load
        tokens = off.tokenize(b"The capital of France is", add_bos=True)
        top = []
        for llm in (off, on):
            llm.eval(tokens)
            top.append(int(np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).argmax()))
        assert top[0] == top[1] == off.tokenize(b" Paris", add_bos=False)[0]
    finally:
        off.close()
        on.close()


def test_the_run_manifest_records_threads_wait_policy_and_buffer_types(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.run.runs import Manifest, new_manifest

    monkeypatch.delenv(REPACK_ENV, raising=False)
    setup = embedded_setup(Settings(cache_mode="replay", llama_threads=1))
    assert setup is not None
    manifest = Manifest.model_validate_json(
        new_manifest(Settings(cache_mode="replay"), "r1", ["d"], ["council"], engine=setup).model_dump_json()
    )
    assert manifest.engine == setup and setup.threads == 1
    threads_why, policy_why, buffers_why = setup.why
    assert threads_why == "1 thread(s): llama_threads"
    assert policy_why.startswith(f"OMP_WAIT_POLICY={setup.wait_policy}") and setup.wait_policy
    assert setup.extra_bufts is extra_bufts_choice()[0] and buffers_why == extra_bufts_choice()[1]
