"""The regression gate: a run against its stored baselines, its outcome, and explicit baseline updates.

The rule itself (per case and per subject; score drops, newly failing, missing and unreadable
results; the aggregate paired test as an extra signal; the noise-aware mode for repeats) is
defined in :mod:`harness.gate.baselines`. This module applies it to a run folder and turns it into a
:class:`GateOutcome`: what the CLI prints, what the report's banner shows and what
``summary.json`` records under ``"gate"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.common.model import Frozen
from harness.config import GateSettings, Settings
from harness.gate.baselines import (
    EXCUSED_KINDS,
    EXIT_CODES,
    FAILING,
    REASON_KINDS,
    Comparison,
    GateReason,
    Verdict,
    baseline_from_results,
    baseline_path,
    compare,
    load_baseline,
    verdict_of,
    write_baseline,
)
from harness.gate.completeness import Completeness, completeness, completeness_reasons
from harness.gate.fail_rule import RuleOutcome, apply_rule
from harness.gate.scoring_errors import ScoringErrors, scoring_error_reasons, scoring_errors
from harness.records.score_spec import default_tolerance, spec
from harness.run.repeats import load_repeats
from harness.run.runs import RESULTS, Run
from harness.run.summary import update_summary, update_summary_file

SECTION = "gate"
#: Cases changed within noise listed on the console (all of them are in ``summary.json``).
WITHIN_NOISE_LINES = 10


def tolerances_for(settings: Settings, scores: Sequence[str]) -> dict[str, float]:
    """Configured tolerance per score, else 5% of the score's scale."""
    return {s: settings.tolerances.get(s, default_tolerance(s)) for s in scores}


def baseline_dir(settings: Settings) -> Path:
    return Path(settings.reports_dir) / "baselines"


def run_datasets(run: Run) -> list[str]:
    """The datasets a run was asked to run (its manifest) and those its results hold."""
    return sorted(set(run.manifest.datasets) | {r.dataset for r in run.results})


def sampled(run: Run, settings: Settings) -> bool:
    """Whether the run's answers or scores are sampled (the gate is then noise-aware).

    True when a council member or the judge runs at temperature > 0, unless the run was replayed:
    ``cache_mode: replay``, or every model call of the run was a cache hit (its manifest counts
    hits and no misses). A replayed or temperature-0 run is deterministic and keeps the strict rule.
    """
    if settings.cache_mode == "replay" or (run.manifest.cache_hits > 0 and run.manifest.cache_misses == 0):
        return False
    return any(m.temperature > 0 for m in (*settings.models, settings.role_spec("judge")))


def compare_run(run: Run, settings: Settings, baseline_file: Path | None = None) -> list[Comparison]:
    """Compare ``run`` with the baseline of each of its datasets that has one (or with ``baseline_file``).

    The datasets come from the manifest as well as the results, so a run whose results are all
    missing or unreadable is still compared (and fails). Unreadable lines of ``results.jsonl`` and
    of the repeats' files go to every comparison: such a line may hide a case of any dataset. The
    comparison is noise-aware when the run is :func:`sampled` or carries repeats.
    """
    if baseline_file is not None:
        files = [Path(baseline_file)]
    else:
        files = [p for p in (baseline_path(d, baseline_dir(settings)) for d in run_datasets(run)) if p.exists()]
    repeats, bad_repeat_lines = load_repeats(run.run_dir)
    unreadable = [f"{RESULTS}:{n}" for n in run.corrupt_lines] + bad_repeat_lines
    out = []
    for f in files:
        baseline = load_baseline(f)
        gated = (
            settings.gated_scores
            if settings.gated_scores is not None
            else sorted({s for e in baseline.entries for s in e.scores if spec(s).gated})
        )
        noisy = True if sampled(run, settings) else None  # None: noise-aware when there are repeats
        out.append(
            compare(
                run.results,
                baseline,
                tolerances_for(settings, gated),
                gated,
                unreadable=unreadable,
                repeats=repeats,
                noise_aware=noisy,
            )
        )
    return out


def update_baselines(run: Run, settings: Settings) -> list[Path]:
    """Write ``reports/baselines/<dataset>.json`` for every dataset of the run (atomically)."""
    written = []
    repeats, _ = load_repeats(run.run_dir)
    for dataset in sorted({r.dataset for r in run.results}):
        baseline = baseline_from_results(dataset, run.results, run.manifest, settings.gated_scores, repeats=repeats)
        path = baseline_path(dataset, baseline_dir(settings))
        write_baseline(path, baseline)
        written.append(path)
    return written


class DatasetOutcome(Frozen):
    """One dataset's comparison in ``summary.json``: outcome, counts, every reason, and (noise-aware
    mode) every case that changed for the worse within the noise."""

    dataset: str
    outcome: Verdict
    noise_aware: bool
    within_noise: tuple[str, ...] = ()
    gated_scores: tuple[str, ...]
    tolerances: dict[str, float]
    counts: dict[str, int]
    reasons: tuple[GateReason, ...]


class GateOutcome(Frozen):
    """The gate's outcome for a run: the ``"gate"`` section of ``summary.json``.

    Args:
        outcome: the verdict over every reason (:func:`harness.gate.baselines.verdict_of`): ``fail``
            on a failing reason, else ``incomplete`` when results are absent, unknown or not fully
            scored (a killed or limit-stopped run, missing or unreadable results, scoring errors),
            else ``pass``; with or without a baseline.
        compared: whether any baseline was compared (``False``: only failing results and an
            incomplete run can fail it).
        counts: reasons by kind (``score_drop``, ``missing``, ``unreadable``, ``unfinished``, ...),
            ``reasons`` (all), and ``results`` / ``unreadable_lines`` / ``scoring_errors`` (every
            error, not results) of the run.
        reasons: every reason as a record: the run-level completeness reasons, the comparisons'
            reasons, then failing results of datasets without a baseline (an unreadable line counts
            once, not once per dataset), then scoring errors.
        comparisons: one per compared dataset.
        scoring: the run's scoring errors, counted per scorer (:mod:`harness.gate.scoring_errors`).
        completeness: how complete the run is (:mod:`harness.gate.completeness`).
        rule: the rule that decided (``gate.fail_on``, ``gate.min_pass_rate``: :mod:`harness.gate.fail_rule`),
            ``words`` saying it in one line.
        excused: the failing reasons the rule set aside (``known_failure``, ``tolerated_failure``):
            reported, not counted.
        pass_rates: subject -> pass rate (with ``gate.min_pass_rate`` only).
    """

    outcome: Verdict
    compared: bool
    counts: dict[str, int]
    reasons: tuple[GateReason, ...]
    comparisons: tuple[DatasetOutcome, ...] = ()
    scoring: ScoringErrors = ScoringErrors()
    completeness: Completeness | None = None
    rule: GateSettings = GateSettings()
    words: str = "rule: fail_on=failures"
    excused: tuple[GateReason, ...] = ()
    pass_rates: dict[str, float] = {}

    @property
    def exit_code(self) -> int:
        """0 pass, 1 fail, 3 incomplete (:data:`harness.gate.baselines.EXIT_INCOMPLETE`)."""
        return EXIT_CODES[self.outcome]

    def line(self) -> str:
        """The console's gate line: ``gate: incomplete (2 reason(s)); incomplete: 1 of 24 planned ...``."""
        state = f"; {self.completeness.words()}" if self.completeness is not None else ""
        return f"gate: {self.outcome} ({self.counts['reasons']} reason(s)){state}"


def gate_outcome(run: Run, comparisons: Sequence[Comparison], rule: GateSettings | None = None) -> GateOutcome:
    """Combine the run's completeness, the comparisons and the failing results of datasets that have no
    baseline into one verdict (see :class:`GateOutcome`), under the user's ``rule`` (``gate:`` in the
    config; default: every failure counts), applied by :func:`harness.gate.fail_rule.apply_rule`."""
    compared = {c.dataset for c in comparisons}
    state = completeness(run)
    reasons: list[GateReason] = completeness_reasons(run, state, ", ".join(run_datasets(run)))
    seen_lines: set[str] = set()
    for c in comparisons:
        for reason in c.reasons:
            if reason.kind == "unreadable":
                if reason.line in seen_lines:
                    continue
                seen_lines.add(reason.line or "")
            reasons.append(reason)
    for r in sorted(run.results, key=lambda r: r.key):
        if r.dataset not in compared and r.status in FAILING:
            verb = "errored" if r.status == "error" else "failed"
            reasons.append(
                GateReason(
                    kind="failing",
                    dataset=r.dataset,
                    case_id=r.case_id,
                    subject=r.subject,
                    detail=verb + (f": {r.error}" if r.status == "error" and r.error else ""),
                )
            )
    if not comparisons:  # no baseline: unreadable lines still mean results may be lost
        reasons += [
            GateReason(
                kind="unreadable",
                dataset=", ".join(run_datasets(run)),
                line=f"{RESULTS}:{n}",
                detail="not a valid result record; it may hide any case",
            )
            for n in run.corrupt_lines
        ]
    reasons += scoring_error_reasons(run.results)
    rule = rule or GateSettings()
    decided: RuleOutcome = apply_rule(reasons, run.results, comparisons, rule)
    reasons = list(decided.reasons)
    scoring = scoring_errors(run.results)
    counts: dict[str, int] = {k: sum(r.kind == k for r in reasons) for k in REASON_KINDS}
    counts |= {
        "reasons": len(reasons),
        "results": len(run.results),
        "unreadable_lines": len(run.corrupt_lines),
        "scoring_errors": scoring.errors,
    }
    counts |= {k: sum(r.kind == k for r in decided.excused) for k in EXCUSED_KINDS}
    set_aside = {(r.dataset, r.case_id, r.subject) for r in decided.excused}

    def counted(c: Comparison) -> tuple[GateReason, ...]:
        return tuple(
            r for r in c.reasons if not (r.kind == "failing" and (r.dataset, r.case_id, r.subject) in set_aside)
        )

    per_dataset = tuple(
        DatasetOutcome(
            dataset=c.dataset,
            outcome=verdict_of(r.kind for r in counted(c)),
            noise_aware=c.noise_aware,
            within_noise=tuple(
                f"case {d.case_id} [{d.subject}]: {'; '.join(d.reasons)}" for d in c.cases if d.within_noise
            ),
            gated_scores=c.gated_scores,
            tolerances=c.tolerances,
            counts=c.counts(),
            reasons=counted(c),
        )
        for c in comparisons
    )
    return GateOutcome(
        outcome=verdict_of(r.kind for r in reasons),
        compared=bool(comparisons),
        counts=counts,
        reasons=tuple(reasons),
        comparisons=per_dataset,
        scoring=scoring,
        completeness=state,
        rule=rule,
        words=decided.words(),
        excused=decided.excused,
        pass_rates=decided.pass_rates,
    )


def write_gate_summary(outcome: GateOutcome, run: Run, path: Path | None = None) -> Path:
    """Write the ``"gate"`` section of ``<run>/summary.json`` (or of the summary file at ``path``)."""
    if path is not None:
        return update_summary_file(path, SECTION, outcome)
    return update_summary(run.run_dir, SECTION, outcome)


def comparison_lines(comparisons: Sequence[Comparison], gate: GateOutcome | None = None) -> list[str]:
    """A short human summary per compared dataset, then every reason on its own line.

    With the run's ``gate`` outcome, a dataset's verdict and reasons are those left after the user's rule
    (:mod:`harness.gate.fail_rule`), and the failures it set aside are counted on the summary line."""
    outcomes = {d.dataset: d for d in gate.comparisons} if gate is not None else {}
    lines = []
    for c in comparisons:
        counts = c.counts()
        kept = outcomes[c.dataset].reasons if c.dataset in outcomes else c.reasons
        verdict = {"fail": "FAIL", "incomplete": "INCOMPLETE", "pass": "pass"}[verdict_of(r.kind for r in kept)]
        if c.noise_aware:
            parts = [
                f"{counts['cases_regressed']} regressed beyond noise",
                f"{counts['cases_within_noise']} changed within noise",
            ]
        else:
            parts = [f"{counts['cases_regressed']} regressed"]
        parts.append(f"{counts['cases_improved']} improved")
        parts += [f"{counts[k]} {k}" for k in ("missing", "unreadable", "empty_baseline") if counts[k]]
        excused = [r for r in gate.excused if r.dataset == c.dataset] if gate is not None else []
        for kind, word in (("known_failure", "known failure(s)"), ("tolerated_failure", "tolerated failure(s)")):
            n = sum(r.kind == kind for r in excused)
            if n:
                parts.append(f"{n} {word}")
        mode = (
            f", noise-aware: per-case level {c.case_level:.3g}, run-level {c.run_level:.3g}"
            if c.noise_aware and c.case_level is not None and c.run_level is not None
            else ""
        )
        lines.append(f"baseline {c.dataset}: {verdict} ({', '.join(parts)}{mode})")
        lines += [f"  - {r.message}" for r in kept]
        within = [d for d in c.cases if d.within_noise]
        lines += [
            f"  ~ within noise: case {d.case_id} [{d.subject}]: {'; '.join(d.reasons)}"
            for d in within[:WITHIN_NOISE_LINES]
        ]
        if len(within) > WITHIN_NOISE_LINES:
            lines.append(f"  ~ ... and {len(within) - WITHIN_NOISE_LINES} more within noise (summary.json)")
    return lines
