"""Running a case's repeats for the noise-aware gate (:mod:`harness.gate.repeats` has the rules).

With ``repeats: k`` (config) or ``--repeats K`` (``council-harness run``), a run makes k passes over
its cases. Pass 0 is the ordinary run (``results.jsonl``, the configured ``seed``); pass
r = 1 .. k-1 runs with ``seed + r * REPEAT_SEED_STRIDE`` (every member's, judge's and shuffle's
seed moves with it, and so do the cache keys, so a repeat is never a cache hit of another) and is
its own run folder ``repeats/r<r>/`` inside the run folder (manifest + ``results.jsonl``;
``--resume`` completes it). Reports and the >15% verdict read pass 0 only; the gate reads every
pass (:func:`load_repeats`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.run.result import CaseResult

if TYPE_CHECKING:
    from rich.console import Console

    from harness.config import Settings
    from harness.data.cases import Dataset

REPEAT_SEED_STRIDE = 1009  # a prime, so repeat seeds never coincide with members' own seed offsets
REPEATS_DIR = "repeats"


def repeat_dir(run_dir: Path, repeat: int) -> Path:
    return Path(run_dir) / REPEATS_DIR / f"r{repeat}"


def repeat_settings(settings: Settings, repeat: int) -> Settings:
    """The settings of pass ``repeat``: the global seed moved by ``repeat * REPEAT_SEED_STRIDE``."""
    return settings.model_copy(update={"seed": settings.seed + repeat * REPEAT_SEED_STRIDE})


def run_repeats(
    settings: Settings,
    datasets: Sequence[Dataset],
    subjects: Sequence[str],
    run_dir: Path,
    *,
    limit: int | None = None,
    resume: bool = False,
    console: Console | None = None,
) -> int:
    """Run passes 1 .. ``settings.repeats - 1`` into ``<run_dir>/repeats/r<r>/``; return how many passes ran."""
    from harness.run.orchestrate import run_cases

    for r in range(1, settings.repeats):
        folder = repeat_dir(run_dir, r)
        again = resume and (folder / "manifest.json").exists()
        run_cases(
            repeat_settings(settings, r), datasets, subjects, limit=limit, run_dir=folder, resume=again, console=console
        )
    return max(settings.repeats - 1, 0)


def load_repeats(run_dir: Path) -> tuple[list[CaseResult], list[str]]:
    """Every result of ``repeats/r*/results.jsonl`` (passes 1 .. k-1), and where unreadable lines are."""
    from harness.run.runs import RESULTS, read_results

    folder = Path(run_dir) / REPEATS_DIR
    if not folder.is_dir():
        return [], []
    results: list[CaseResult] = []
    bad: list[str] = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and p.name.startswith("r")):
        rs, corrupt = read_results(sub / RESULTS)
        results += rs
        bad += [f"{REPEATS_DIR}/{sub.name}/{RESULTS}:{n}" for n in corrupt]
    return results, bad
