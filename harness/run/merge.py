"""Combine the run folders of shards (CI jobs that each ran part of the datasets) into one run.

Rules, checked before anything is written:

1. Every folder is a run folder (``manifest.json``), and at least two are given.
2. The shards ran the same configuration: their manifests' ``config`` agree on every field except
   where each shard writes (``reports_dir``, ``cache_path``, ``bias_store``); otherwise comparing
   the merged run with a baseline would mix two experiments.
3. Each (dataset, case, subject) comes from one shard only; a pair found in two shards is an error
   naming both (shard by dataset, or by ``pytest -n``, so that shards never overlap).

The merged run gets a new id; its ``results.jsonl`` holds every valid result of the shards (with
any reviewers' verdicts merged into a shard), in shard order (readers order by dataset, case,
subject); its manifest has the union of datasets and subjects (first-seen order), the earliest
start, the latest finish (``None`` when a shard never finished), summed cache counts, the first
shard's packages and git state, ``shards`` listing the merged run ids, the planned pairs summed
(``None`` when a shard did not record them), the pairs pytest skipped concatenated, and
``partial``/``stopped`` when any shard was stopped by a limit. A shard's corrupt lines are skipped,
as when a run is read, and each one is named in :func:`shard_warnings`, as is every shard that
never finished, was stopped early or lacks planned results; the merged run's gate then says
``incomplete`` (:mod:`harness.gate.completeness`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.common.errors import ConfigError
from harness.run.runs import RESULTS, Manifest, Run, RunWriter, load_run, new_run_id

#: Config fields that legitimately differ between shards (where each one wrote).
PER_SHARD_FIELDS = frozenset({"reports_dir", "cache_path", "bias_store"})


def _unique(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def merged_manifest(run_id: str, manifests: Sequence[Manifest]) -> Manifest:
    """The manifest of the merged run (see the module docstring)."""
    first = manifests[0]
    finished = [m.finished_at for m in manifests]
    return first.model_copy(
        update={
            "run_id": run_id,
            "started_at": min(m.started_at for m in manifests),
            "finished_at": None if None in finished else max(f for f in finished if f is not None),
            "datasets": _unique([d for m in manifests for d in m.datasets]),
            "subjects": _unique([s for m in manifests for s in m.subjects]),
            "cache_hits": sum(m.cache_hits for m in manifests),
            "cache_misses": sum(m.cache_misses for m in manifests),
            "shards": tuple(m.run_id for m in manifests),
            "planned": None if any(m.planned is None for m in manifests) else sum(m.planned or 0 for m in manifests),
            "skipped": tuple(p for m in manifests for p in m.skipped),
            "partial": any(m.partial for m in manifests),
            "stopped": "; ".join(f"shard {m.run_id}: {m.stopped}" for m in manifests if m.partial) or None,
            "warnings": tuple(w for m in manifests for w in m.warnings),
        }
    )


def shard_warnings(runs: Sequence[Run]) -> list[str]:
    """One line per line a shard's results lose (unreadable) and per shard that is not complete."""
    out = []
    for run in runs:
        out += [
            f"shard {run.run_id}: {RESULTS}:{n} is not a valid result record; dropped from the merge"
            for n in run.corrupt_lines
        ]
        m = run.manifest
        if m.finished_at is None:
            out.append(f"shard {run.run_id} never finished (killed or still running); the merged run is incomplete")
        if m.partial:
            out.append(f"shard {run.run_id} was stopped early ({m.stopped}); the merged run is incomplete")
        if m.planned is not None and len(run.results) < m.planned:
            out.append(f"shard {run.run_id} holds {len(run.results)} of {m.planned} planned result(s)")
    return out


def _check_configs(runs: Sequence[Run]) -> None:
    base = runs[0]
    for other in runs[1:]:
        keys = (set(base.manifest.config) | set(other.manifest.config)) - PER_SHARD_FIELDS
        differ = sorted(k for k in keys if base.manifest.config.get(k) != other.manifest.config.get(k))
        if differ:
            raise ConfigError(
                f"shard {other.run_id} ran with a different configuration from {base.run_id} "
                f"(config fields {', '.join(differ)}); merge only shards of one experiment",
                str(other.run_dir / "manifest.json"),
            )


def merge_runs(run_dirs: Sequence[Path | str], out_dir: Path, warnings: list[str] | None = None) -> Run:
    """Merge the shard run folders ``run_dirs`` into the new run folder ``out_dir`` and return it.

    Each warning of :func:`shard_warnings` is appended to ``warnings`` when given, and kept in the
    merged manifest's ``warnings``.
    Raises :class:`~harness.common.errors.ConfigError` (exit 2) on a broken rule, before writing anything.
    """
    if len(run_dirs) < 2:
        raise ConfigError("expected at least two run folders to merge", "merge")
    if out_dir.exists() and any(out_dir.iterdir()):
        raise ConfigError("the output folder exists and is not empty; choose a new one", str(out_dir))
    runs = [load_run(d) for d in run_dirs]
    _check_configs(runs)
    found = shard_warnings(runs)
    if warnings is not None:
        warnings += found
    owner: dict[tuple[str, str, str], str] = {}
    for run in runs:
        for key in (r.key for r in run.results):
            if key in owner:
                raise ConfigError(
                    f"{'::'.join(key[:2])} [{key[2]}] is in both shard {owner[key]} and shard {run.run_id}; "
                    "shards must not overlap",
                    str(run.run_dir / RESULTS),
                )
            owner[key] = run.run_id
    writer = RunWriter(out_dir)
    for run in runs:
        writer.add(run.results)  # verdicts already applied to a shard's results are kept
    manifest = merged_manifest(out_dir.name, [r.manifest for r in runs])
    writer.write_manifest(manifest.model_copy(update={"warnings": (*manifest.warnings, *found)}))
    return load_run(out_dir)


def default_out_dir(runs_dir: Path) -> Path:
    """``<runs_dir>/<new run id>``."""
    return runs_dir / new_run_id()
