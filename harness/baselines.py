"""Baselines (``reports/baselines/<dataset>.json``) and the comparison of a run against one: the CI gate.

A baseline stores, per case and subject, the gated scores and the pass/fail status of a run, plus
that run's manifest. :func:`compare` then classifies every case as ``regressed``, ``improved``,
``unchanged``, ``new`` (not in the baseline) or ``missing`` (in the baseline, not in the run).

Tolerances are **absolute** changes on each score's own scale (0.05 on a 0-1 score is five points;
give 0-10 or 0-100 scores their own value). A score *regresses* on a case when it moves in its bad
direction (:func:`harness.scores.higher_is_better`; ``hallucination_risk`` is lower-is-better) by
strictly more than its tolerance; a move of exactly the tolerance is within it.

The exit code (:attr:`Comparison.exit_code`) is 1 when

* any case of the run failed or errored (``awaiting_review`` is not failing: a person decides), or
* a gated score is missing from a case that has it in the baseline, or
* a gated score regressed on some case **and** the aggregate paired test for that score
  (:func:`harness.stats.paired_regression_test`, one-sided Wilcoxon over all paired cases) shows a
  significant drop beyond the tolerance, or cannot reach ``alpha`` at all with so few cases (then
  each per-case drop counts on its own). So one noisy case out of many does not fail CI, a
  consistent drop does, and a five-case dataset is still gated strictly.

Otherwise it is 0. Cases missing from the run are reported, not failed (``-k`` selects subsets).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError, model_validator
from pydantic_core import PydanticSerializationError

from harness.errors import ConfigError, StoreError
from harness.fsutil import atomic_write_text
from harness.model import Frozen
from harness.result import CaseResult, Status
from harness.review_types import ReviewVerdict
from harness.scores import higher_is_better
from harness.stats import DECIMALS, RegressionTest, paired_regression_test

SCHEMA_VERSION = 1
BASELINE_DIR = Path("reports/baselines")
#: Allowed drop for a score with no tolerance of its own (absolute, on the score's scale).
DEFAULT_TOLERANCE = 0.05
FAILING: frozenset[str] = frozenset({"failed", "error"})

DeltaStatus = Literal["regressed", "improved", "unchanged", "new", "missing"]


class BaselineEntry(Frozen):
    """One case through one subject, as stored in a baseline.

    Args:
        case_id, subject, category: identity (the dataset is the baseline's).
        evaluation_mode: ``automatic`` or ``expert_review``.
        status: the run's status for the case.
        scores: the gated scores (finite values only).
        review: a reviewer's verdict, for ``expert_review`` cases (``None`` until one is merged).
    """

    case_id: str
    subject: str
    category: str | None = None
    evaluation_mode: Literal["automatic", "expert_review"] = "automatic"
    status: Status
    scores: dict[str, float] = {}
    review: ReviewVerdict | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.case_id, self.subject)


class Baseline(Frozen):
    """A stored run summary for one dataset.

    Args:
        schema_version: the file format's version (currently 1).
        dataset: the dataset name; the file is ``reports/baselines/<dataset>.json``.
        created_at: when the baseline was written (timezone-aware).
        manifest: the manifest of the run the baseline was taken from.
        entries: one per (case, subject), unique.
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    dataset: str
    created_at: datetime
    manifest: dict[str, Any] = {}
    entries: tuple[BaselineEntry, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> Baseline:
        seen: set[tuple[str, str]] = set()
        for e in self.entries:
            if e.key in seen:
                raise ValueError(f"duplicate entry for case {e.case_id!r}, subject {e.subject!r}")
            seen.add(e.key)
        return self

    def entry_map(self) -> dict[tuple[str, str], BaselineEntry]:
        return {e.key: e for e in self.entries}


def baseline_path(dataset: str, root: Path | str = BASELINE_DIR) -> Path:
    """``<root>/<dataset>.json``; a dataset name that is not a plain file name is a ConfigError."""
    if not dataset or dataset in {".", ".."} or "/" in dataset or "\\" in dataset or "\0" in dataset:
        raise ConfigError(f"dataset name {dataset!r} cannot be used as a baseline file name", "dataset")
    return Path(root) / f"{dataset}.json"


def load_baseline(path: Path | str) -> Baseline:
    """Read a baseline file; any problem is a StoreError naming the file (and line or field)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StoreError("no baseline file here (create one with --update-baseline)", str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read the baseline: {exc}", str(path)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(f"not valid JSON ({exc.msg}, column {exc.colno})", f"{path}:{exc.lineno}") from None
    except RecursionError:
        raise StoreError("not a baseline: JSON nested too deeply", str(path)) from None
    if not isinstance(data, dict):
        raise StoreError(f"expected a JSON object with a baseline, got {type(data).__name__}", str(path))
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise StoreError(f"schema_version is {version!r}, this harness reads {SCHEMA_VERSION}", str(path))
    try:
        return Baseline.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}" for err in exc.errors()[:5]
        )
        raise StoreError(f"not a valid baseline: {problems}", str(path)) from None


def write_baseline(path: Path | str, baseline: Baseline) -> None:
    """Write ``baseline`` atomically (temp file in the same folder, fsync, ``os.replace``).

    The JSON is produced in full before any file is touched, so an unserializable manifest leaves
    the old baseline as it was and raises a StoreError naming the file.
    """
    path = Path(path)
    try:
        text = baseline.model_dump_json(indent=2) + "\n"
    except PydanticSerializationError as exc:
        raise StoreError(f"cannot serialize the baseline: {exc}", str(path)) from None
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise StoreError(f"cannot write the baseline: {exc}", str(path)) from None


def _finite(scores: Mapping[str, float], names: Sequence[str] | None) -> dict[str, float]:
    keep = scores.keys() if names is None else [n for n in names if n in scores]
    return {n: float(scores[n]) for n in keep if math.isfinite(scores[n])}


def baseline_from_results(
    dataset: str,
    results: Sequence[CaseResult],
    manifest: Mapping[str, Any] | BaseModel,
    gated: Sequence[str] | None = None,
    created_at: datetime | None = None,
) -> Baseline:
    """Summarize a run's results of ``dataset`` as a baseline.

    Args:
        dataset: the dataset the baseline is for; results of other datasets are ignored.
        results: the run's case results.
        manifest: the run's manifest (a mapping or a pydantic model, stored as JSON-ready data).
        gated: score names to keep; ``None`` keeps every score a result carries. Non-finite values
            are never stored.
        created_at: the timestamp to record (default: now, UTC).
    """
    entries: dict[tuple[str, str], BaselineEntry] = {}
    for r in results:
        if r.dataset != dataset:
            continue
        if (r.case_id, r.subject) in entries:
            raise StoreError(f"two results for case {r.case_id!r}, subject {r.subject!r}", f"dataset {dataset}")
        entries[(r.case_id, r.subject)] = BaselineEntry(
            case_id=r.case_id, subject=r.subject, category=r.category, evaluation_mode=r.evaluation_mode,
            status=r.status, scores=_finite(r.scores, gated), review=r.review,
        )
    data = manifest.model_dump(mode="json") if isinstance(manifest, BaseModel) else dict(manifest)
    return Baseline(
        dataset=dataset, created_at=created_at or datetime.now(UTC), manifest=data, entries=tuple(entries.values())
    )


class ScoreDelta(Frozen):
    """One gated score of one case, baseline vs current.

    Args:
        score: the score name.
        baseline, current: the two values (``None`` when absent).
        change: ``current - baseline`` on the score's scale (``None`` unless both exist).
        worse_by: the change in the bad direction (positive = worse), so it compares with the tolerance.
        tolerance: the allowed ``worse_by``.
        higher_is_better: the score's direction.
        status: ``regressed`` (worse by more than the tolerance), ``improved`` (better by more than
            it), ``unchanged``, ``missing`` (in the baseline, not in the run) or ``new``.
    """

    score: str
    baseline: float | None
    current: float | None
    change: float | None = None
    worse_by: float | None = None
    tolerance: float
    higher_is_better: bool
    status: DeltaStatus


class CaseDelta(Frozen):
    """One case through one subject compared with its baseline entry.

    Args:
        case_id, subject, category: identity.
        status: ``regressed`` (a score regressed or went missing, or the case newly fails),
            ``improved`` (no regression and a score improved or the case newly passes),
            ``unchanged``, ``new`` (no baseline entry) or ``missing`` (no result in the run).
        baseline_status, current_status: the two statuses (``None`` when absent).
        failing: whether the current result fails or errors (``awaiting_review`` does not).
        scores: the gated score comparisons.
        reasons: why the status is what it is, for people.
    """

    case_id: str
    subject: str
    category: str | None = None
    status: DeltaStatus
    baseline_status: Status | None = None
    current_status: Status | None = None
    failing: bool = False
    scores: tuple[ScoreDelta, ...] = ()
    reasons: tuple[str, ...] = ()


class Comparison(Frozen):
    """A run compared with a baseline.

    Args:
        dataset: the baseline's dataset.
        gated_scores: the scores compared.
        tolerances: score -> the tolerance used for it.
        alpha: significance level of the aggregate paired tests.
        cases: one delta per (case, subject) in the run or the baseline.
        aggregates: score -> the aggregate paired regression test over the cases with both values.
        failures: why the gate fails, one line each (empty = pass).
    """

    dataset: str
    gated_scores: tuple[str, ...]
    tolerances: dict[str, float]
    alpha: float
    cases: tuple[CaseDelta, ...]
    aggregates: dict[str, RegressionTest]
    failures: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 pass, 1 regression or failed case."""
        return 1 if self.failures else 0

    def by_status(self, status: DeltaStatus) -> list[CaseDelta]:
        return [c for c in self.cases if c.status == status]


def resolve_tolerances(
    scores: Sequence[str], tolerances: Mapping[str, float] | float, default_tolerance: float = DEFAULT_TOLERANCE
) -> dict[str, float]:
    """score -> tolerance: a float applies to every score; a mapping to its names, the default to the rest."""
    out = {}
    for s in scores:
        tol = tolerances if isinstance(tolerances, int | float) else tolerances.get(s, default_tolerance)
        if not isinstance(tol, int | float) or not math.isfinite(tol) or tol < 0:
            raise ConfigError(f"expected a finite number >= 0, got {tol!r}", f"tolerance for {s}")
        out[s] = float(tol)
    return out


def _score_delta(score: str, base: float | None, cur: float | None, tol: float) -> ScoreDelta:
    hib = higher_is_better(score)
    common = dict(score=score, baseline=base, current=cur, tolerance=tol, higher_is_better=hib)
    if base is None:
        return ScoreDelta(**common, status="new")
    if cur is None:
        return ScoreDelta(**common, status="missing")
    change = cur - base
    worse_by = -change if hib else change
    margin = round(abs(worse_by) - tol, DECIMALS)
    status: DeltaStatus = "unchanged" if margin <= 0 else ("regressed" if worse_by > 0 else "improved")
    return ScoreDelta(**common, change=change, worse_by=worse_by, status=status)


def _score_reason(d: ScoreDelta) -> str | None:
    if d.status == "missing":
        return f"{d.score} missing from the run (baseline {d.baseline:.3f})"
    if d.status not in ("regressed", "improved") or d.change is None:
        return None
    verb = "rose" if d.change > 0 else "dropped"
    direction = "" if d.higher_is_better else " (lower is better)"
    if d.status == "regressed":
        return f"{d.score} {verb} {abs(d.change):.3f} > tolerance {d.tolerance:g}{direction}"
    return f"{d.score} {verb} {abs(d.change):.3f} (improved){direction}"


def _value(scores: Mapping[str, float], name: str) -> float | None:
    v = scores.get(name)
    return None if v is None or not math.isfinite(v) else float(v)


def compare(
    results: Sequence[CaseResult],
    baseline: Baseline,
    tolerances: Mapping[str, float] | float = DEFAULT_TOLERANCE,
    gated_scores: Sequence[str] | None = None,
    *,
    default_tolerance: float = DEFAULT_TOLERANCE,
    alpha: float = 0.05,
) -> Comparison:
    """Compare a run's results with a baseline, per case and in aggregate (see the module docstring).

    Args:
        results: the run's case results; only those of ``baseline.dataset`` are compared.
        baseline: the stored baseline.
        tolerances: allowed absolute drop per score name (a mapping), or one number for every score.
        gated_scores: the scores to compare; ``None`` = every score stored in the baseline.
        default_tolerance: the tolerance of scores a ``tolerances`` mapping does not name.
        alpha: significance level of the aggregate paired tests.
    """
    current: dict[tuple[str, str], CaseResult] = {}
    for r in results:
        if r.dataset != baseline.dataset:
            continue
        if (r.case_id, r.subject) in current:
            raise StoreError(f"two results for case {r.case_id!r}, subject {r.subject!r}", f"dataset {r.dataset}")
        current[(r.case_id, r.subject)] = r
    stored = baseline.entry_map()
    gated = tuple(gated_scores) if gated_scores is not None else tuple(
        sorted({s for e in baseline.entries for s in e.scores})
    )
    tols = resolve_tolerances(gated, tolerances, default_tolerance)

    cases: list[CaseDelta] = []
    failures: list[str] = []
    pairs: dict[str, tuple[list[float], list[float]]] = {s: ([], []) for s in gated}
    for key in [*stored, *(k for k in current if k not in stored)]:
        entry, result = stored.get(key), current.get(key)
        label = f"case {key[0]} [{key[1]}]"
        if result is None:
            assert entry is not None
            cases.append(CaseDelta(case_id=entry.case_id, subject=entry.subject, category=entry.category,
                                   status="missing", baseline_status=entry.status, reasons=("not in this run",)))
            continue
        failing = result.status in FAILING
        if failing:
            why = f": {result.error}" if result.status == "error" and result.error else ""
            failures.append(f"{label} {'errored' if result.status == 'error' else 'failed'}{why}")
        base_scores = entry.scores if entry is not None else {}
        deltas = []
        for s in gated:
            b, c = _value(base_scores, s), _value(result.scores, s)
            if b is None and c is None:
                continue
            d = _score_delta(s, b, c, tols[s])
            deltas.append(d)
            if b is not None and c is not None:
                pairs[s][0].append(c)
                pairs[s][1].append(b)
            elif d.status == "missing" and not failing:
                failures.append(f"{label}: {s} missing from the run (baseline {b:.3f})")
        reasons = [r for r in map(_score_reason, deltas) if r]
        common = dict(case_id=result.case_id, subject=result.subject, category=result.category,
                      current_status=result.status, failing=failing, scores=tuple(deltas))
        if entry is None:
            cases.append(CaseDelta(**common, status="new", reasons=("not in the baseline", *reasons)))
            continue
        was_failing = entry.status in FAILING
        if failing and not was_failing:
            reasons.insert(0, f"newly failing (baseline {entry.status}, now {result.status})")
        elif was_failing and not failing:
            reasons.insert(0, f"newly passing (baseline {entry.status}, now {result.status})")
        if (failing and not was_failing) or any(d.status in ("regressed", "missing") for d in deltas):
            status: DeltaStatus = "regressed"
        elif (was_failing and not failing) or any(d.status == "improved" for d in deltas):
            status = "improved"
        else:
            status = "unchanged"
        cases.append(CaseDelta(**common, status=status, baseline_status=entry.status, reasons=tuple(reasons)))

    aggregates: dict[str, RegressionTest] = {}
    for s in gated:
        cur, base = pairs[s]
        test = paired_regression_test(cur, base, tols[s], alpha=alpha, higher_is_better=higher_is_better(s))
        aggregates[s] = test
        dropped = sum(1 for c in cases for d in c.scores if d.score == s and d.status == "regressed")
        where = f"{s}: {dropped} of {test.n} case(s) worse by more than tolerance {tols[s]:g}"
        if test.significant_drop:
            failures.append(f"{where}; paired test p={test.p_value:.3g} < alpha {alpha:g}")
        elif dropped and not test.powered:
            failures.append(f"{where}; too few cases for the paired test, each drop counts")
    return Comparison(
        dataset=baseline.dataset, gated_scores=gated, tolerances=tols, alpha=alpha, cases=tuple(cases),
        aggregates=aggregates, failures=tuple(failures),
    )
