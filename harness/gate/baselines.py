"""Baselines (``reports/baselines/<dataset>.json``) and the comparison of a run against one: the CI gate.

A baseline stores, per case and subject, the gated scores and the pass/fail status of a run, plus
that run's manifest (and, for a run with ``repeats: k``, each score's spread over the k repeats).
:func:`compare` classifies every case as ``regressed``, ``improved``, ``unchanged``, ``new`` (not
in the baseline) or ``missing`` (in the baseline, not in the run).

Tolerances are **absolute** changes on each score's own scale (0.05 on a 0-1 score is five points;
give 0-10 or 0-100 scores their own value). A score moves in its bad direction
(:func:`harness.records.score_spec.higher_is_better`; ``hallucination_risk`` is lower-is-better) by
``worse_by``; a move of exactly the tolerance is within it.

The gate rule. Everything is per case and per subject, never pooled across subjects, and every
item below is a regression on its own (one is enough; nothing excuses another):

1. ``score_drop``: a gated score of a case is worse than the baseline by strictly more than its
   tolerance, whatever the number of cases (means over the repeats when there are repeats). In
   the strict (deterministic) mode the rule is monotone: adding a case never makes a failing gate
   pass.
2. ``score_missing``: a gated score the baseline has is absent from the case's result.
3. ``newly_failing``: a case that passed in the baseline failed or errored; ``failing``: a case
   fails or errors in this run (``awaiting_review`` is not failing: a person decides).
4. ``missing``: a baselined case has no result in the run (a subset run is compared as such:
   compare it with a baseline of the same subset).
5. ``unreadable``: a result line of the run cannot be read (it may hide any case).
6. ``aggregate``: the extra signal for small drops spread over many cases: per subject and score,
   the one-sided paired Wilcoxon test of :func:`harness.stats.paired_regression_test` over the
   cases with both values shows a drop beyond the tolerance at ``alpha``. It can add a
   regression; it never excuses one.
7. ``empty_baseline``: the baseline holds no entries, so nothing could be compared (an
   incomplete verdict: such a comparison never passes).

**Noise-aware mode** (``noise_aware``; on whenever the run or the baseline carries repeats, and
for subjects sampled at temperature > 0, :func:`harness.gate.regression.compare_run`): rules 1 and 3
become the tests of :mod:`harness.gate.noise`, with the comparison's ``alpha`` as the false-alarm
budget of the whole run (:data:`harness.gate.noise.CASE_SHARE` to the per-case tests, the rest to the
run-level ones, each part shared by Tarone's Bonferroni rule). A score regresses when its drop of
means exceeds the tolerance plus the pooled noise band; a pass/fail outcome (the case's status, or
a binary score such as ``correct``) regresses when its failure rate over the repeats is higher by a one-sided Fisher
exact test; a case failing in both runs is no reason; a case that *errored* (no answer: an
endpoint or engine error, not a sampled outcome) keeps the strict rule 3; rule 6 becomes, per subject,
a sign test on the failure rates and per score a paired test of the mean change with no tolerance
(:func:`harness.gate.noise.run_level_test`: the sign-flip test, the sign test for a binary score),
which catches a broad small drop no case shows. Changes beyond the tolerance that the noise
explains are kept as ``within_noise`` on the case (and said so), not as reasons.

The verdict (:func:`verdict_of`, precedence top-down): ``fail`` (exit 1) when any reason is a
regression or a failing case (1-3 and 6); else ``incomplete`` (exit :data:`EXIT_INCOMPLETE`, 3)
when any reason says results are absent, unknown or not fully scored (4, 5, ``scoring_error``: a
result a scorer could not fully score, :mod:`harness.gate.scoring_errors`, and the run-level kinds
of :mod:`harness.gate.completeness`: ``unfinished``, ``stopped``, ``not_run``; ``empty_baseline``: a
baseline with no entries); else ``pass`` (exit 0). An incomplete run never passes, with or without a baseline.

What the user lets pass (``gate.fail_on: regressions``: known failures; ``gate.min_pass_rate``: a
pass-rate threshold, which adds a ``pass_rate`` reason, a failing kind, when a subject is below it)
is applied to the run's reasons afterwards by :mod:`harness.gate.fail_rule`; it only ever sets
``failing`` reasons aside.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, Field, ValidationError, model_validator
from pydantic_core import PydanticSerializationError

from harness.common.errors import ConfigError, StoreError
from harness.common.fsutil import atomic_write_text, read_bounded_text
from harness.common.model import Frozen
from harness.gate.noise import (
    BINARY_SCORES,
    CASE_SHARE,
    CaseNoise,
    ScoreNoise,
    case_noise,
    fisher_min_p,
    fisher_worse_p,
    run_level_min_p,
    run_level_test,
    sign_test_worse_p,
    tarone_level,
)
from harness.gate.repeats import ScoreSpread, spread_of
from harness.records.expert_review_types import ReviewVerdict
from harness.records.score_spec import higher_is_better, score_scale
from harness.run.result import CaseResult, Status
from harness.stats import DECIMALS, RegressionTest, paired_regression_test

SCHEMA_VERSION: Literal[2] = 2
#: Versions :func:`load_baseline` reads: 1 (no spreads) and 2 (optional per-score spreads).
READABLE_VERSIONS = (1, 2)
BASELINE_DIR = Path("reports/baselines")
#: Allowed drop for a score with no tolerance of its own (absolute, on the score's scale).
DEFAULT_TOLERANCE = 0.05
FAILING: frozenset[str] = frozenset({"failed", "error"})
#: the largest baseline file read (about 100 bytes per gated score and case)
MAX_BASELINE_BYTES = 256 * 2**20

DeltaStatus = Literal["regressed", "improved", "unchanged", "new", "missing"]


class BaselineEntry(Frozen):
    """One case through one subject, as stored in a baseline.

    Args:
        case_id, subject, category: identity (the dataset is the baseline's).
        evaluation_mode: ``automatic`` or ``expert_review``.
        status: the run's status for the case.
        scores: the gated scores (finite values only).
        review: a reviewer's verdict, for ``expert_review`` cases (``None`` until one is merged).
        spread: per score, the spread over the run's repeats (only for runs with ``repeats`` > 1;
            ``scores`` then holds the means).
        runs: how many repeats the case ran (1 without repeats); failures: how many of them failed
            or errored (``None``: the status alone, as in files written before repeats were counted).
    """

    case_id: str
    subject: str
    category: str | None = None
    evaluation_mode: Literal["automatic", "expert_review"] = "automatic"
    status: Status
    scores: dict[str, float] = {}
    review: ReviewVerdict | None = None
    spread: dict[str, ScoreSpread] = {}
    runs: int = Field(default=1, ge=1)
    failures: int | None = Field(default=None, ge=0)

    @property
    def key(self) -> tuple[str, str]:
        return (self.case_id, self.subject)

    def failure_count(self) -> tuple[int, int]:
        """``(failed or errored repeats, repeats)`` of the case in the baseline run."""
        if self.failures is None:
            return int(self.status in FAILING), 1
        return min(self.failures, self.runs), self.runs


class Baseline(Frozen):
    """A stored run summary for one dataset.

    Args:
        schema_version: the file format's version (2; files of version 1 still load).
        dataset: the dataset name; the file is ``reports/baselines/<dataset>.json``.
        created_at: when the baseline was written (timezone-aware).
        manifest: the manifest of the run the baseline was taken from.
        entries: one per (case, subject), unique.
    """

    schema_version: Literal[1, 2] = SCHEMA_VERSION
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
        text = read_bounded_text(path, MAX_BASELINE_BYTES)
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
    if version not in READABLE_VERSIONS:
        readable = " or ".join(map(str, READABLE_VERSIONS))
        raise StoreError(f"schema_version is {version!r}, this harness reads {readable}", str(path))
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
    repeats: Sequence[CaseResult] = (),
) -> Baseline:
    """Summarize a run's results of ``dataset`` as a baseline.

    Args:
        dataset: the dataset the baseline is for; results of other datasets are ignored.
        results: the run's case results.
        manifest: the run's manifest (a mapping or a pydantic model, stored as JSON-ready data).
        gated: score names to keep; ``None`` keeps every score a result carries. Non-finite values
            are never stored.
        created_at: the timestamp to record (default: now, UTC).
        repeats: the results of the run's extra repeats (:func:`harness.run.repeats.load_repeats`).
            Cases that have them get a ``spread`` per score, and their ``scores`` are the means over
            all repeats (the status stays that of repeat 0).
    """
    extra = _by_key(repeats, dataset)
    entries: list[BaselineEntry] = []
    for key, r in _current_results(results, dataset).items():
        scores = _finite(r.scores, gated)
        again = extra.get(key, [])
        spread = _spreads(r, again, scores)
        entries.append(
            BaselineEntry(
                case_id=r.case_id,
                subject=r.subject,
                category=r.category,
                evaluation_mode=r.evaluation_mode,
                status=r.status,
                scores={s: spread[s].mean for s in spread} if spread else scores,
                review=r.review,
                spread=spread,
                runs=1 + len(again),
                failures=sum(x.status in FAILING for x in (r, *again)) if again else None,
            )
        )
    data = manifest.model_dump(mode="json") if isinstance(manifest, BaseModel) else dict(manifest)
    return Baseline(dataset=dataset, created_at=created_at or datetime.now(UTC), manifest=data, entries=tuple(entries))


def _by_key(results: Sequence[CaseResult], dataset: str) -> dict[tuple[str, str], list[CaseResult]]:
    out: dict[tuple[str, str], list[CaseResult]] = {}
    for r in results:
        if r.dataset == dataset:
            out.setdefault((r.case_id, r.subject), []).append(r)
    return out


def _spreads(first: CaseResult, extra: Sequence[CaseResult], names: Iterable[str]) -> dict[str, ScoreSpread]:
    """Per score, the spread over ``first`` and its repeats; empty when there are no repeats."""
    if not extra:
        return {}
    out = {}
    for s in names:
        spread = spread_of([v for v in (_value(r.scores, s) for r in (first, *extra)) if v is not None])
        if spread is not None:
            out[s] = spread
    return out


class ScoreDelta(Frozen):
    """One gated score of one case, baseline vs current.

    Args:
        score: the score name.
        baseline, current: the two values (``None`` when absent; means in noise-aware mode).
        change: ``current - baseline`` on the score's scale (``None`` unless both exist).
        worse_by: the change in the bad direction (positive = worse), so it compares with the tolerance.
        tolerance: the configured allowed ``worse_by``.
        allowed: the allowed ``worse_by`` actually used: the tolerance, plus the noise band in
            noise-aware mode.
        higher_is_better: the score's direction.
        status: ``regressed`` (worse by more than ``allowed``), ``improved`` (better by more than
            it), ``unchanged``, ``missing`` (in the baseline, not in the run) or ``new``.
        baseline_spread, current_spread: the repeats' spreads (noise-aware mode only).
        p_value, level: noise-aware mode, binary scores: the one-sided Fisher exact p of a higher
            bad rate and the per-test level it is held to (:mod:`harness.gate.noise`).
        within_noise: noise-aware mode: worse by more than the tolerance, but within the noise.
    """

    score: str
    baseline: float | None
    current: float | None
    change: float | None = None
    worse_by: float | None = None
    tolerance: float
    allowed: float | None = None
    higher_is_better: bool
    status: DeltaStatus
    baseline_spread: ScoreSpread | None = None
    current_spread: ScoreSpread | None = None
    p_value: float | None = None
    level: float | None = None
    within_noise: bool = False


class CaseDelta(Frozen):
    """One case through one subject compared with its baseline entry.

    Args:
        case_id, subject, category: identity.
        status: ``regressed`` (a score regressed or went missing, or the case newly fails, or the
            case is missing from the run), ``improved`` (no regression and a score improved or the
            case newly passes), ``unchanged``, ``new`` (no baseline entry) or ``missing``.
        baseline_status, current_status: the two statuses (``None`` when absent).
        failing: whether the current result fails or errors (``awaiting_review`` does not).
        scores: the gated score comparisons.
        reasons: why the status is what it is, for people.
        within_noise: noise-aware mode: the case changed for the worse (a score beyond its tolerance,
            or it newly fails) but within the noise, so it is no regression.
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
    within_noise: bool = False


ReasonKind = Literal[
    "score_drop",
    "score_missing",
    "newly_failing",
    "failing",
    "missing",
    "unreadable",
    "aggregate",
    "scoring_error",
    "unfinished",
    "stopped",
    "not_run",
    "empty_baseline",
    "pass_rate",
    "known_failure",
    "tolerated_failure",
]
#: What the user's gate rule excuses (:mod:`harness.gate.fail_rule`): reported, never counted by :func:`verdict_of`.
EXCUSED_KINDS: tuple[ReasonKind, ...] = ("known_failure", "tolerated_failure")
#: Every reason kind the gate counts (all of :data:`ReasonKind` but the excused ones), in their order.
REASON_KINDS: tuple[ReasonKind, ...] = tuple(k for k in get_args(ReasonKind) if k not in EXCUSED_KINDS)
#: Reasons that say a case got worse than the baseline: the one definition of "regressed" (the
#: gate, ``diff`` and the report's "what changed" all use :attr:`Comparison.regressed`). ``failing``
#: (a case that fails now, whatever it did before) fails the gate but is a state, not a change; a
#: ``missing`` case is not known to be worse: it makes the verdict ``incomplete``.
REGRESSION_KINDS: frozenset[str] = frozenset({"score_drop", "score_missing", "newly_failing", "aggregate"})
#: Reasons that say results are absent, unknown or not fully scored: the verdict is ``incomplete``
#: unless a failing reason fails it.
INCOMPLETE_KINDS: frozenset[str] = frozenset(
    {"missing", "unreadable", "scoring_error", "unfinished", "stopped", "not_run", "empty_baseline"}
)
Verdict = Literal["pass", "fail", "incomplete"]
#: The exit code of an ``incomplete`` verdict (``fail`` is 1, a usage or input error 2).
EXIT_INCOMPLETE = 3
EXIT_CODES: dict[str, int] = {"pass": 0, "fail": 1, "incomplete": EXIT_INCOMPLETE}


def verdict_of(kinds: Iterable[str]) -> Verdict:
    """The verdict of a set of reason kinds (module docstring): ``fail`` > ``incomplete`` > ``pass``."""
    kinds = set(kinds) - set(EXCUSED_KINDS)
    if kinds - INCOMPLETE_KINDS:
        return "fail"
    return "incomplete" if kinds else "pass"


class GateReason(Frozen):
    """One reason the gate fails, as a record (``summary.json``) and as a line (:attr:`message`).

    Args:
        kind: which rule of the module docstring fired (``unfinished``, ``stopped``, ``not_run``: of
            :mod:`harness.gate.completeness`).
        dataset: the dataset compared.
        case_id, subject: the case (``None`` for ``unreadable`` and ``aggregate``; ``aggregate`` has
            a subject).
        score: the gated score (``score_drop``, ``score_missing``, ``aggregate``).
        baseline, current: the two values (means in noise-aware mode).
        tolerance: the configured tolerance; allowed: the drop allowed (tolerance + noise band).
        line: for ``unreadable``: where (``results.jsonl:3`` or ``repeats/r1.jsonl:2``).
        p_value, n: for ``aggregate``: the paired test's p-value and number of pairs; ``n`` for
            ``scoring_error``: the result's scoring errors, for ``not_run``: the pairs without a result.
        detail: the rest, in words.
    """

    kind: ReasonKind
    dataset: str
    case_id: str | None = None
    subject: str | None = None
    score: str | None = None
    baseline: float | None = None
    current: float | None = None
    tolerance: float | None = None
    allowed: float | None = None
    line: str | None = None
    p_value: float | None = None
    n: int | None = None
    detail: str = ""

    @property
    def message(self) -> str:
        """One line for people (the CLI, the pytest summary and the report banner)."""
        where = (
            f"case {self.case_id} [{self.subject}]"
            if self.case_id is not None
            else (f"[{self.subject}] " if self.subject else "")
        )
        if self.kind == "score_drop":
            return f"{where}: {self.score} {self.baseline:.3f} -> {self.current:.3f}, {self.detail}"
        if self.kind == "unreadable":
            return f"unreadable result line {self.line}: {self.detail}"
        if self.kind == "aggregate":
            return f"{where}{self.score}: {self.detail}"
        if self.kind == "pass_rate":
            return f"{where}{self.detail}"
        return f"{where}: {self.detail}"


class Comparison(Frozen):
    """A run compared with a baseline.

    Args:
        dataset: the baseline's dataset.
        gated_scores: the scores compared.
        tolerances: score -> the tolerance used for it.
        alpha: significance level of the aggregate paired tests (and of the noise band).
        cases: one delta per (case, subject) in the run or the baseline.
        aggregates: ``"<subject>:<score>"`` -> the aggregate paired regression test over that
            subject's cases with both values.
        reasons: why the gate fails, one record each (empty = pass).
        unreadable: where the run's unreadable result lines are.
        noise_aware: whether the noise-aware rule of :mod:`harness.gate.noise` was applied.
        case_level, run_level: noise-aware mode: the per-test levels of the per-case and the
            run-level tests (Tarone's share of ``alpha``).
    """

    dataset: str
    gated_scores: tuple[str, ...]
    tolerances: dict[str, float]
    alpha: float
    cases: tuple[CaseDelta, ...]
    aggregates: dict[str, RegressionTest]
    reasons: tuple[GateReason, ...] = ()
    unreadable: tuple[str, ...] = ()
    noise_aware: bool = False
    case_level: float | None = None
    run_level: float | None = None

    @property
    def failures(self) -> tuple[str, ...]:
        """The reasons as lines for people."""
        return tuple(r.message for r in self.reasons)

    @property
    def regressed(self) -> bool:
        """Whether the run got worse than the baseline (a reason of :data:`REGRESSION_KINDS`)."""
        return any(r.kind in REGRESSION_KINDS for r in self.reasons)

    @property
    def verdict(self) -> Verdict:
        """``fail``, ``incomplete`` or ``pass`` (:func:`verdict_of` over the reasons)."""
        return verdict_of(r.kind for r in self.reasons)

    @property
    def exit_code(self) -> int:
        """0 pass, 1 regression or failed case, 3 (:data:`EXIT_INCOMPLETE`) missing or unreadable results."""
        return EXIT_CODES[self.verdict]

    def by_status(self, status: DeltaStatus) -> list[CaseDelta]:
        return [c for c in self.cases if c.status == status]

    def counts(self) -> dict[str, int]:
        """Cases by status and reasons by kind (``missing`` and ``unreadable`` included)."""
        statuses: tuple[DeltaStatus, ...] = ("regressed", "improved", "unchanged", "new", "missing")
        out = {f"cases_{st}": len(self.by_status(st)) for st in statuses}
        out["cases_within_noise"] = sum(c.within_noise for c in self.cases)
        out |= {k: sum(r.kind == k for r in self.reasons) for k in REASON_KINDS}
        out["reasons"] = len(self.reasons)
        return out


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


def _score_delta(
    score: str,
    base: float | None,
    cur: float | None,
    tol: float,
    band: float = 0.0,
    spreads: tuple[ScoreSpread | None, ScoreSpread | None] = (None, None),
) -> ScoreDelta:
    hib = higher_is_better(score)
    delta = partial(
        ScoreDelta,
        score=score,
        baseline=base,
        current=cur,
        tolerance=tol,
        higher_is_better=hib,
        baseline_spread=spreads[0],
        current_spread=spreads[1],
    )
    if base is None:
        return delta(status="new")
    if cur is None:
        return delta(status="missing")
    change = cur - base
    worse_by = -change if hib else change
    allowed = tol + band
    margin = round(abs(worse_by) - allowed, DECIMALS)
    status: DeltaStatus = "unchanged" if margin <= 0 else ("regressed" if worse_by > 0 else "improved")
    return delta(change=change, worse_by=worse_by, allowed=allowed, status=status)


def _allowed_words(d: ScoreDelta) -> str:
    if d.p_value is not None and d.level is not None and d.allowed == d.tolerance:
        return f"tolerance {d.tolerance:g}; bad rate Fisher p={d.p_value:.3g} vs level {d.level:.3g}"
    if d.allowed is not None and round(d.allowed - d.tolerance, DECIMALS) > 0:
        return f"tolerance {d.tolerance:g} + noise band {d.allowed - d.tolerance:.3f}"
    return f"tolerance {d.tolerance:g}"


def _score_reason(d: ScoreDelta) -> str | None:
    if d.status == "missing":
        return f"{d.score} missing from the run (baseline {d.baseline:.3f})"
    if d.within_noise and d.change is not None:
        verb = "rose" if d.change > 0 else "dropped"
        return f"{d.score} {verb} {abs(d.change):.3f}, within noise ({_allowed_words(d)})"
    if d.status not in ("regressed", "improved") or d.change is None:
        return None
    verb = "rose" if d.change > 0 else "dropped"
    direction = "" if d.higher_is_better else " (lower is better)"
    if d.status == "regressed":
        return f"{d.score} {verb} {abs(d.change):.3f} > {_allowed_words(d)}{direction}"
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
    unreadable: Sequence[str] = (),
    repeats: Sequence[CaseResult] = (),
    noise_aware: bool | None = None,
) -> Comparison:
    """Compare a run's results with a baseline by the gate rule of the module docstring.

    The steps, each a function below: match the run's results to the baseline's entries
    (:func:`_current_results`); the reasons about the files themselves (:func:`_file_reasons`: rules 5
    and 7); per case and subject, in the baseline's order and then the run's new cases, its
    :class:`CaseDelta` and reasons (:func:`_compare_case`: a missing case, rule 4, or its status,
    rule 3, and its scores, rules 1-2); then the run-level tests over the pairs collected on the way
    (:func:`_aggregate_reasons`: rule 6).

    Args:
        results: the run's case results; only those of ``baseline.dataset`` are compared.
        baseline: the stored baseline.
        tolerances: allowed absolute drop per score name (a mapping), or one number for every score.
        gated_scores: the scores to compare; ``None`` = every score stored in the baseline.
        default_tolerance: the tolerance of scores a ``tolerances`` mapping does not name.
        alpha: significance level of the aggregate paired tests; in noise-aware mode the
            false-alarm budget of the whole comparison.
        unreadable: where the run's unreadable result lines are (each one is a regression).
        repeats: the run's extra repeats (compared by their means against the baseline's spreads).
        noise_aware: apply :mod:`harness.gate.noise` (``None``: whenever the run or the baseline
            carries repeats; ``True`` for subjects sampled at temperature > 0).
    """
    current = _current_results(results, baseline.dataset)
    extra = _by_key(repeats, baseline.dataset)
    stored = baseline.entry_map()
    gated = (
        tuple(gated_scores)
        if gated_scores is not None
        else tuple(sorted({s for e in baseline.entries for s in e.scores}))
    )
    tols = resolve_tolerances(gated, tolerances, default_tolerance)
    noisy = noise_aware if noise_aware is not None else bool(extra) or any(e.runs > 1 for e in baseline.entries)
    model = _noise_model(stored, current, extra, gated, alpha) if noisy else None
    how = _Rule(dataset=baseline.dataset, gated=gated, tolerances=tols, model=model, extra=extra)
    reasons = _file_reasons(baseline, unreadable)
    cases: list[CaseDelta] = []
    pairs: _Pairs = {}
    for key in [*stored, *(k for k in current if k not in stored)]:
        case, why = _compare_case(how, key, stored.get(key), current.get(key), pairs)
        cases.append(case)
        reasons += why
    aggregates, why = _aggregate_reasons(how, pairs, alpha)
    return Comparison(
        dataset=baseline.dataset,
        gated_scores=gated,
        tolerances=tols,
        alpha=alpha,
        cases=tuple(cases),
        aggregates=aggregates,
        reasons=(*reasons, *why),
        unreadable=tuple(unreadable),
        noise_aware=noisy,
        case_level=model.case_level if model is not None else None,
        run_level=model.run_level if model is not None else None,
    )


#: per (subject, score): the paired (current, baseline) values of the cases that have both
_Pairs = dict[tuple[str, str], tuple[list[float], list[float]]]


@dataclass(frozen=True)
class _Rule:
    """What every step of :func:`compare` reads: the dataset, the gated scores and their tolerances, the
    noise-aware tests (``None``: the strict rule) and the run's extra repeats per (case, subject)."""

    dataset: str
    gated: tuple[str, ...]
    tolerances: dict[str, float]
    model: _NoiseModel | None
    extra: Mapping[tuple[str, str], Sequence[CaseResult]]


def _current_results(results: Sequence[CaseResult], dataset: str) -> dict[tuple[str, str], CaseResult]:
    """The results of ``dataset`` by (case, subject), in their order; two results for one pair is a store error."""
    current: dict[tuple[str, str], CaseResult] = {}
    for r in results:
        if r.dataset != dataset:
            continue
        if (r.case_id, r.subject) in current:
            raise StoreError(f"two results for case {r.case_id!r}, subject {r.subject!r}", f"dataset {r.dataset}")
        current[(r.case_id, r.subject)] = r
    return current


def _file_reasons(baseline: Baseline, unreadable: Sequence[str]) -> list[GateReason]:
    """Rules 5 and 7: each unreadable result line, and a baseline without entries."""
    ds = baseline.dataset
    reasons = [
        GateReason(kind="unreadable", dataset=ds, line=where, detail="not a valid result record; it may hide any case")
        for where in unreadable
    ]
    if not baseline.entries:
        reasons.append(
            GateReason(
                kind="empty_baseline",
                dataset=ds,
                detail=(
                    f"the baseline of {ds} holds no entries: nothing was compared "
                    "(write it again with --update-baseline "
                    "from a run with results)"
                ),
            )
        )
    return reasons


def _compare_case(
    how: _Rule,
    key: tuple[str, str],
    entry: BaselineEntry | None,
    result: CaseResult | None,
    pairs: _Pairs,
) -> tuple[CaseDelta, list[GateReason]]:
    """One case and subject: its :class:`CaseDelta` and its reasons (its status's, then its scores'); its
    scores with both values are added to ``pairs``."""
    case_id, subject = key
    if result is None:
        assert entry is not None
        return _missing_case(how.dataset, key, entry)
    reasons, within_noise = _status_reasons(how, key, entry, result)
    deltas, score_reasons = _score_deltas(how, key, entry, result, pairs)
    case_delta = partial(
        CaseDelta,
        case_id=case_id,
        subject=subject,
        category=result.category,
        current_status=result.status,
        failing=result.status in FAILING,
        scores=tuple(deltas),
    )
    case_reasons = [r for r in map(_score_reason, deltas) if r]
    if entry is None:
        return case_delta(status="new", reasons=("not in the baseline", *case_reasons)), reasons + score_reasons
    status = _case_status(how, key, entry, result, deltas, within_noise, case_reasons)
    within = status != "regressed" and (within_noise or any(d.within_noise for d in deltas))
    case = case_delta(status=status, baseline_status=entry.status, reasons=tuple(case_reasons), within_noise=within)
    return case, reasons + score_reasons


def _missing_case(ds: str, key: tuple[str, str], entry: BaselineEntry) -> tuple[CaseDelta, list[GateReason]]:
    """Rule 4: a baselined case without a result in the run."""
    case_id, subject = key
    case = CaseDelta(
        case_id=case_id,
        subject=subject,
        category=entry.category,
        status="missing",
        baseline_status=entry.status,
        reasons=("not in this run",),
    )
    reason = GateReason(
        kind="missing",
        dataset=ds,
        case_id=case_id,
        subject=subject,
        detail=f"baselined case has no result in this run (baseline {entry.status})",
    )
    return case, [reason]


def _status_reasons(
    how: _Rule, key: tuple[str, str], entry: BaselineEntry | None, result: CaseResult
) -> tuple[list[GateReason], bool]:
    """Rule 3 for one case: its ``newly_failing`` or ``failing`` reason (noise-aware: the Fisher test of its
    failure rates, except for an errored case), and whether a worse outcome stayed within noise."""
    case_id, subject = key
    failing = result.status in FAILING
    was_failing = entry is not None and entry.status in FAILING
    if how.model is not None and entry is not None and result.status != "error":
        # an errored case produced no answer: that is not sampling noise, so it falls to the strict rule
        test = how.model.status[key]
        newly = test.p <= how.model.case_level
        within_noise = not newly and (failing and not was_failing or test.worse)
        if not newly:
            return [], within_noise
        reason = GateReason(
            kind="newly_failing",
            dataset=how.dataset,
            case_id=case_id,
            subject=subject,
            p_value=test.p,
            detail=f"{test.words()} (noise-aware)",
        )
        return [reason], within_noise
    if not failing:
        return [], False
    why = f": {result.error}" if result.status == "error" and result.error else ""
    verb = "errored" if result.status == "error" else "failed"
    if entry is not None and not was_failing:
        detail = f"newly {verb} (baseline {entry.status}){why}"
        return [
            GateReason(kind="newly_failing", dataset=how.dataset, case_id=case_id, subject=subject, detail=detail)
        ], False
    return [
        GateReason(kind="failing", dataset=how.dataset, case_id=case_id, subject=subject, detail=f"{verb}{why}")
    ], False


def _score_deltas(
    how: _Rule, key: tuple[str, str], entry: BaselineEntry | None, result: CaseResult, pairs: _Pairs
) -> tuple[list[ScoreDelta], list[GateReason]]:
    """Rules 1 and 2 for one case: a :class:`ScoreDelta` per gated score either side has (means over the
    repeats; noise-aware when the model tests it), its ``score_drop``/``score_missing`` reasons, and the
    pairs the aggregate tests read."""
    case_id, subject = key
    base_scores = entry.scores if entry is not None else {}
    cur_spreads = _spreads(result, how.extra.get(key, []), how.gated)
    deltas: list[ScoreDelta] = []
    reasons: list[GateReason] = []
    for s in how.gated:
        b, c = _value(base_scores, s), _value(result.scores, s)
        if b is None and c is None:
            continue
        tol = how.tolerances[s]
        b_spread = entry.spread.get(s) if entry is not None else None
        c_spread = cur_spreads.get(s)
        if c is not None and c_spread is not None:
            c = c_spread.mean
        if how.model is not None and b is not None and c is not None and (key, s) in how.model.scores:
            d = how.model.scores[(key, s)].delta(s, b, c, tol, (b_spread, c_spread))
        else:
            d = _score_delta(s, b, c, tol, 0.0, (b_spread, c_spread))
        deltas.append(d)
        if b is not None and c is not None:
            cur_list, base_list = pairs.setdefault((subject, s), ([], []))
            cur_list.append(c)
            base_list.append(b)
        if d.status == "regressed":
            reasons.append(
                GateReason(
                    kind="score_drop",
                    dataset=how.dataset,
                    case_id=case_id,
                    subject=subject,
                    score=s,
                    baseline=b,
                    current=c,
                    tolerance=tol,
                    allowed=d.allowed,
                    p_value=d.p_value,
                    detail=f"worse by {d.worse_by:.3f} > {_allowed_words(d)}",
                )
            )
        elif d.status == "missing" and result.status not in FAILING:
            reasons.append(
                GateReason(
                    kind="score_missing",
                    dataset=how.dataset,
                    case_id=case_id,
                    subject=subject,
                    score=s,
                    baseline=b,
                    tolerance=tol,
                    detail=f"{s} missing from the run (baseline {b:.3f})",
                )
            )
    return deltas, reasons


def _case_status(
    how: _Rule,
    key: tuple[str, str],
    entry: BaselineEntry,
    result: CaseResult,
    deltas: Sequence[ScoreDelta],
    within_noise: bool,
    case_reasons: list[str],
) -> DeltaStatus:
    """A baselined case's status (``regressed`` over ``improved`` over ``unchanged``); the words of a change
    of its outcome are put first in ``case_reasons``."""
    failing = result.status in FAILING
    was_failing = entry.status in FAILING
    newly_regressed = failing and not was_failing
    if how.model is not None:
        flips = how.model.status[key]
        newly_regressed = flips.p <= how.model.case_level
        if newly_regressed or within_noise:
            case_reasons.insert(0, flips.words() + (" (within noise)" if within_noise else ""))
    elif failing and not was_failing:
        case_reasons.insert(0, f"newly failing (baseline {entry.status}, now {result.status})")
    if how.model is None and was_failing and not failing:
        case_reasons.insert(0, f"newly passing (baseline {entry.status}, now {result.status})")
    if newly_regressed or any(d.status in ("regressed", "missing") for d in deltas):
        return "regressed"
    if (was_failing and not failing) or any(d.status == "improved" for d in deltas):
        return "improved"
    return "unchanged"


def _aggregate_reasons(how: _Rule, pairs: _Pairs, alpha: float) -> tuple[dict[str, RegressionTest], list[GateReason]]:
    """Rule 6: per subject and score, the paired test over the cases with both values (noise-aware: of the
    mean change, :func:`harness.gate.noise.run_level_test`); noise-aware, also per subject the sign test
    on the cases whose failure rate changed."""
    aggregates: dict[str, RegressionTest] = {}
    reasons: list[GateReason] = []
    run_alpha = how.model.run_level if how.model is not None else alpha
    for (subject, s), (cur, base) in sorted(pairs.items()):
        tol = how.tolerances[s]
        if how.model is not None:
            binary = how.model.run_binary.get((subject, s), False)
            agg = run_level_test(cur, base, run_alpha, higher_is_better(s), binary)
        else:
            agg = paired_regression_test(cur, base, tol, alpha=run_alpha, higher_is_better=higher_is_better(s))
        aggregates[f"{subject}:{s}"] = agg
        if agg.significant_drop:
            reasons.append(
                GateReason(
                    kind="aggregate",
                    dataset=how.dataset,
                    subject=subject,
                    score=s,
                    tolerance=tol,
                    p_value=agg.p_value,
                    n=agg.n,
                    detail=(
                        f"paired test over {agg.n} case(s): a drop beyond tolerance {tol:g} "
                        f"(mean change {agg.mean_change:+.3f}, p={agg.p_value:.3g} < alpha "
                        f"{run_alpha:.3g})"
                        if how.model is None
                        else f"{agg.method} over {agg.n} case(s): the mean got worse beyond the noise "
                        f"(mean change {agg.mean_change:+.3f}, p={agg.p_value:.3g} <= {run_alpha:.3g})"
                    ),
                )
            )
    if how.model is None:
        return aggregates, reasons
    for subject, (worse, better) in sorted(how.model.pass_fail.items()):
        p = sign_test_worse_p(worse, better)
        if p <= how.model.run_level:
            reasons.append(
                GateReason(
                    kind="aggregate",
                    dataset=how.dataset,
                    subject=subject,
                    score="pass/fail",
                    p_value=p,
                    n=worse + better,
                    detail=(
                        f"sign test over the cases whose failure rate changed: {worse} fail more often, "
                        f"{better} less often (p={p:.3g} <= {how.model.run_level:.3g})"
                    ),
                )
            )
    return aggregates, reasons


@dataclass(frozen=True)
class _StatusTest:
    """One case's pass/fail over the repeats of both runs, and the Fisher p of a higher failure rate."""

    bad_base: int
    k_base: int
    bad_current: int
    k_current: int
    p: float
    min_p: float

    @property
    def worse(self) -> bool:
        return self.bad_current / self.k_current > self.bad_base / self.k_base

    def words(self) -> str:
        return (
            f"failed {self.bad_current}/{self.k_current} run(s) (baseline {self.bad_base}/{self.k_base}), "
            f"Fisher p={self.p:.3g}"
        )


def _status_test(bad_base: int, k_base: int, bad_current: int, k_current: int) -> _StatusTest:
    return _StatusTest(
        bad_base=bad_base,
        k_base=k_base,
        bad_current=bad_current,
        k_current=k_current,
        p=fisher_worse_p(bad_base, k_base, bad_current, k_current),
        min_p=fisher_min_p(bad_base, k_base, bad_current, k_current),
    )


@dataclass(frozen=True)
class _ScoreTest:
    """One case's score in noise-aware mode: a binary count test, or the pooled noise band."""

    level: float
    binary: _StatusTest | None = None
    case: CaseNoise | None = None
    noise: ScoreNoise | None = None

    def delta(
        self,
        score: str,
        base: float,
        current: float,
        tol: float,
        spreads: tuple[ScoreSpread | None, ScoreSpread | None],
    ) -> ScoreDelta:
        if self.binary is not None:
            raw = _score_delta(score, base, current, tol, 0.0, spreads)
            beyond = self.binary.p <= self.level
            if raw.status == "regressed" and not beyond:
                return raw.model_copy(
                    update={"status": "unchanged", "within_noise": True, "p_value": self.binary.p, "level": self.level}
                )
            return raw.model_copy(update={"p_value": self.binary.p, "level": self.level})
        assert self.case is not None and self.noise is not None
        band = self.noise.band(self.case, self.level)
        d = _score_delta(score, base, current, tol, band, spreads)
        within = d.status == "unchanged" and d.worse_by is not None and round(d.worse_by - tol, DECIMALS) > 0
        return d.model_copy(update={"within_noise": within, "level": self.level})


@dataclass(frozen=True)
class _NoiseModel:
    """The noise-aware tests of a comparison, decided before the cases are walked."""

    case_level: float
    run_level: float
    status: dict[tuple[str, str], _StatusTest]
    scores: dict[tuple[tuple[str, str], str], _ScoreTest]
    pass_fail: dict[str, tuple[int, int]]
    run_binary: dict[tuple[str, str], bool]


def _is_binary(score: str, values: Iterable[float]) -> bool:
    return score in BINARY_SCORES and all(v in (0.0, 1.0) for v in values)


def _noise_model(
    stored: Mapping[tuple[str, str], BaselineEntry],
    current: Mapping[tuple[str, str], CaseResult],
    extra: Mapping[tuple[str, str], Sequence[CaseResult]],
    gated: Sequence[str],
    alpha: float,
) -> _NoiseModel:
    """Every per-case and run-level test of noise-aware mode (:mod:`harness.gate.noise`) and their levels."""
    status: dict[tuple[str, str], _StatusTest] = {}
    pass_fail: dict[str, list[int]] = {}
    binary: dict[tuple[tuple[str, str], str], _StatusTest] = {}
    groups: dict[tuple[str, str], dict[tuple[str, str], CaseNoise]] = {}
    for key, entry in stored.items():
        result = current.get(key)
        if result is None:
            continue
        runs = [result, *extra.get(key, [])]
        bad_b, k_b = entry.failure_count()
        test = _status_test(bad_b, k_b, sum(r.status in FAILING for r in runs), len(runs))
        status[key] = test
        change = test.bad_current / test.k_current - bad_b / k_b
        counts = pass_fail.setdefault(key[1], [0, 0])
        counts[0] += change > 0
        counts[1] += change < 0
        for s in gated:
            b = _value(entry.scores, s)
            values = [v for v in (_value(r.scores, s) for r in runs) if v is not None]
            if b is None or not values:
                continue
            spread = entry.spread.get(s)
            k_base = spread.k if spread is not None else 1
            if _is_binary(s, [*values, b]) and (spread is None or spread.low in (0.0, 1.0)):
                good = 1.0 if higher_is_better(s) else 0.0
                bad_base = round(k_base * abs(good - b))
                binary[(key, s)] = _status_test(bad_base, k_base, sum(v != good for v in values), len(values))
                continue
            groups.setdefault((key[1], s), {})[key] = case_noise(
                [b], values, None if spread is None else (spread.k, spread.sd)
            )
    noises = {g: ScoreNoise.of(list(cs.values()), score_scale(g[1])) for g, cs in groups.items()}
    case_min_p = [t.min_p for t in status.values()] + [t.min_p for t in binary.values()]
    case_min_p += [0.0] * sum(len(cs) for cs in groups.values())
    case_level = tarone_level(case_min_p, alpha * CASE_SHARE)
    changes: dict[tuple[str, str], list[float]] = {}
    for (subject, s), cs in groups.items():
        changes[(subject, s)] = [c.mean_current - c.mean_base for c in cs.values()]
    for (key, s), t in binary.items():
        changes.setdefault((key[1], s), []).append(t.bad_current / t.k_current - t.bad_base / t.k_base)
    run_binary = {(key[1], s): True for key, s in binary}
    run_min_p = [0.5 ** sum(c) for c in pass_fail.values()]
    run_min_p += [run_level_min_p(ch, run_binary.get(g, False)) for g, ch in changes.items()]
    run_level = tarone_level(run_min_p, alpha * (1.0 - CASE_SHARE))
    scores = {ks: _ScoreTest(binary=t, level=case_level) for ks, t in binary.items()}
    for (subject, s), cs in groups.items():
        for key, cn in cs.items():
            scores[(key, s)] = _ScoreTest(case=cn, noise=noises[(subject, s)], level=case_level)
    return _NoiseModel(
        case_level=case_level,
        run_level=run_level,
        status=status,
        scores=scores,
        pass_fail={k: (v[0], v[1]) for k, v in pass_fail.items()},
        run_binary=run_binary,
    )
