"""Resuming a run: only with the configuration it started with, and never twice at once.

Rules:

1. ``--resume`` completes a run with the configuration recorded in its manifest. Every config
   field must be equal except :data:`RESUME_FREE_FIELDS`: where this invocation writes
   (``reports_dir``, ``cache_path``, ``bias_store``), its budget (``token_limit``, ``cost_limit``:
   they count per invocation) and ``cache_mode``. Subjects and datasets given on the command line
   must be the recorded ones. Any other difference is a :class:`~harness.common.errors.ConfigError`
   naming each differing field with both values (a resumed run mixing two configurations would
   compare two experiments as one).
2. A resume selects the same cases as the run it completes: the first ``limit`` cases of its
   datasets when the run was started with ``--limit`` (recorded as ``manifest.limit``), every case
   otherwise, whether or not ``--limit`` is given again. A ``--limit`` equal to the recorded one is
   accepted; a different one is refused like a different configuration (a resume completes a run,
   it does not grow or shrink it; start a new run for other cases). A manifest written before the
   limit was recorded (no ``limit`` key) selected ``planned / len(subjects)`` cases, so that is its
   limit (:func:`recorded_limit`).
3. A process that writes results into a run folder holds ``<run>/.run.lock`` (an OS file lock,
   released when the process ends, even by SIGKILL) from before it reads the results already there
   until the manifest is finished, so a second ``--resume`` of the same run is refused instead of
   running (and paying for) the same missing pairs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from harness.common.errors import ConfigError
from harness.run.merge import PER_SHARD_FIELDS
from harness.run.runs import Manifest

#: Config fields a ``--resume`` may change (see the module docstring).
RESUME_FREE_FIELDS = PER_SHARD_FIELDS | {"token_limit", "cost_limit", "cache_mode"}
LOCK = ".run.lock"


def _shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def config_differences(recorded: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """``field: recorded -> current`` for each config field that differs (free fields left out)."""
    keys = sorted((set(recorded) | set(current)) - RESUME_FREE_FIELDS)
    return [
        f"{k}: {_shown(recorded.get(k))} -> {_shown(current.get(k))}" for k in keys if recorded.get(k) != current.get(k)
    ]


def recorded_limit(manifest: Manifest) -> int | None:
    """The case limit of ``manifest``'s run, which its resume applies (rule 2): ``manifest.limit`` when
    the manifest has the key; else ``planned // len(subjects)`` when it recorded its planned pairs (a
    run of every case gives every case); else ``None`` (every case)."""
    if "limit" in manifest.model_fields_set or not manifest.planned or not manifest.subjects:
        return manifest.limit
    return manifest.planned // len(manifest.subjects)


def limit_difference(manifest: Manifest, limit: int | None) -> str | None:
    """``limit: recorded -> given`` when a ``--limit`` is given and differs from the run's (rule 2), else ``None``."""
    recorded = recorded_limit(manifest)
    if limit is None or limit == recorded:
        return None
    return f"limit: {recorded if recorded is not None else 'none (every case)'} -> {limit}"


def check_resumable(
    manifest: Manifest,
    config: Mapping[str, Any],
    *,
    subjects: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    limit: int | None = None,
    where: str | None = None,
) -> None:
    """Refuse to resume ``manifest``'s run with a different configuration (rules 1 and 2).

    Args:
        manifest: the run's recorded manifest.
        config: this invocation's :meth:`harness.config.Settings.public_dict`.
        subjects, datasets, limit: those given on the command line (``None``: not given, the recorded
            ones are used).
        where: the manifest's path, named in the error.
    """
    differ = config_differences(manifest.config, config)
    if (other := limit_difference(manifest, limit)) is not None:
        differ.append(other)
    if subjects is not None and list(subjects) != list(manifest.subjects):
        differ.append(f"subjects: {','.join(manifest.subjects)} -> {','.join(subjects)}")
    if datasets is not None and sorted(datasets) != sorted(manifest.datasets):
        differ.append(f"datasets: {','.join(manifest.datasets)} -> {','.join(datasets)}")
    if differ:
        raise ConfigError(
            f"cannot resume run {manifest.run_id} with a different configuration ({'; '.join(differ)}); "
            "resume with the configuration it started with, or start a new run",
            where,
        )


@contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold ``<run_dir>/.run.lock`` (rule 3); a run folder another process is writing is a ConfigError."""
    lock = FileLock(str(Path(run_dir) / LOCK), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise ConfigError(
            "another council-harness process is writing this run (a run or --resume still going); "
            "wait for it to end, then resume",
            str(run_dir),
        ) from None
    try:
        yield
    finally:
        lock.release()
