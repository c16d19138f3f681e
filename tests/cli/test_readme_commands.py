"""The README's commands work as printed: every ``council-harness`` command in README.md and in the
reference pages it links (``docs/*.md``) parses with the real command line, every extra it installs
exists, and the ones that are safe offline (``validate``, ``--collect-only``, ``--help``) are run in
this repository and succeed."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.cli import build_parser
from tests.paths import REPO

ROOT = REPO
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
BIN = Path(sys.executable).parent


def _fenced_commands() -> list[str]:
    out = []
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", README, re.S):
        text = body.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.strip().removeprefix("$ ")
            if lang == "bash" or line.startswith((".venv/bin/", "council-harness run ")):
                out += [part.strip() for part in line.split("&&")]
    return [c for c in out if c and not c.startswith("#")]


def _inline_commands() -> list[str]:
    """``council-harness …`` spans in running text (table cells show syntax with [...] and are skipped)."""
    spans = re.findall(r"`((?:\.venv/bin/)?council-harness [^`]+)`", README)
    commands = [s for s in spans if not re.search(r"[\[\]|…]|\.\.\.|<|RUN\b|RUN_", s)]
    return [c for c in commands if len(c.split()) >= 3]  # `council-harness import` alone names a command


COMMANDS = sorted(set(_fenced_commands() + _inline_commands()))
HARNESS = [c for c in COMMANDS if shlex.split(c, comments=True)[0].endswith("council-harness")]


def test_the_readme_has_commands_to_check() -> None:
    assert len(HARNESS) >= 8
    assert any(c.endswith("council-harness run --suite reasoning-100") for c in HARNESS)


@pytest.mark.parametrize("command", HARNESS)
def test_every_council_harness_command_parses(command: str) -> None:
    argv = shlex.split(command, comments=True)
    if "--help" in argv:  # argparse prints the help and exits 0; anything else is a usage error
        with pytest.raises(SystemExit) as done:
            build_parser().parse_args(argv[1:])
        assert done.value.code == 0
        return
    build_parser().parse_args(argv[1:])  # an unknown command or option is SystemExit: a failed test


@pytest.mark.parametrize("command", [c for c in COMMANDS if "pip install" in c])
def test_every_installed_extra_exists(command: str) -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    for spec in re.findall(r"\.\[([^\]]+)\]", command):
        for extra in spec.split(","):
            assert extra in extras, f"{command}: no extra {extra!r}"


SAFE = [c for c in HARNESS if " validate" in c or c.endswith("--help")] + [
    c for c in COMMANDS if "pytest" in c and "--collect-only" in c
]


@pytest.mark.parametrize("command", SAFE)
def test_safe_commands_run_offline(command: str) -> None:
    argv = shlex.split(command, comments=True)
    exe = argv[0].removeprefix(".venv/bin/")
    argv = [str(BIN / exe), *argv[1:]] if exe in ("council-harness", "pytest") else argv
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{command}: {proc.stdout[-1500:]}{proc.stderr[-1500:]}"


def test_collect_only_output_matches_the_readme() -> None:
    proc = subprocess.run(
        [str(BIN / "pytest"), "-m", "golden", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    ids = [ln for ln in proc.stdout.splitlines() if ln.startswith("golden/")]
    shown = re.search(r"\$ \.venv/bin/pytest -m golden --collect-only -q\n(.*?)```", README, re.S)
    assert shown is not None
    for line in shown.group(1).splitlines():
        if line.startswith("golden/"):
            assert line in ids, line
    counted = re.search(r"(\d+)/\d+ tests collected", shown.group(1))
    assert counted is not None and int(counted.group(1)) == len(ids)


def test_the_readme_is_a_front_door_that_links_every_reference_page() -> None:
    """Issue 30: README.md stays short (what it is, the two commands, the first hour, where to go next)
    and every page under docs/ is reachable from it."""
    front = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(front.splitlines()) <= 250
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name})" in front, f"README.md does not link docs/{page.name}"
