"""What changed between two runs: the gate's own comparison, laid out for people.

``council-harness diff RUN_A RUN_B`` treats run A as the baseline of run B, exactly as the
regression gate treats a stored baseline (:func:`harness.gate.baselines.compare` with the configured
tolerances), and adds what a person asks first:

* cases that flipped: newly failing (passed in A, failed or errored in B) and newly passing;
* every case the gate calls regressed or improved, with its reasons;
* the biggest score moves, ranked by the size of the move as a share of the score's scale
  (a rubric score moving 2 of 10 ranks with a 0-1 score moving 0.2);
* both final answers of every changed case, side by side.

Cases only in A are ``missing`` from B; cases only in B are ``new``. A case's kind is the gate's
status for it (:class:`harness.gate.baselines.CaseDelta`), refined by a flip: ``newly_failing`` is a
regressed case that passed in A and fails in B, ``newly_passing`` an improved case that failed in A
and passes in B; a case that now passes but lost score beyond its tolerance is ``regressed``, as the
gate says. "B regressed against A" is the gate's one definition,
:attr:`harness.gate.baselines.Comparison.regressed` (a case newly failing or regressed, or an
aggregate drop); a case that failed in both runs is no change. The exit code is the gate's: 1 when B
regressed, else 3 (incomplete) when cases of A are missing from B or B has unreadable result lines
(they may hide any case), else 0.
"""

from __future__ import annotations

from harness.common.model import Frozen
from harness.common.untrusted import printable_line
from harness.config import Settings
from harness.gate.baselines import EXIT_INCOMPLETE, FAILING, Comparison, baseline_from_results, compare
from harness.records.score_spec import score_scale, spec
from harness.run.result import CaseResult
from harness.run.runs import RESULTS, Run


class ScoreMove(Frozen):
    """One score of one (case, subject) that moved between the runs."""

    dataset: str
    case_id: str
    subject: str
    score: str
    before: float
    after: float
    change: float
    share_of_scale: float  # |change| / the score's scale


class CaseChange(Frozen):
    """One (case, subject) whose outcome changed: flipped, regressed, improved, missing or new."""

    dataset: str
    case_id: str
    subject: str
    kind: str  # newly_failing | newly_passing | regressed | improved | missing | new
    before_status: str | None
    after_status: str | None
    reasons: tuple[str, ...] = ()
    answer_before: str | None = None
    answer_after: str | None = None


class RunDiff(Frozen):
    """Run B against run A."""

    run_a: str
    run_b: str
    changes: tuple[CaseChange, ...]
    moves: tuple[ScoreMove, ...]
    unchanged: int
    aggregate_drops: tuple[str, ...] = ()  # scores whose aggregate paired test shows a drop
    regressed: bool = False  # Comparison.regressed of any dataset (module docstring)
    unreadable: tuple[str, ...] = ()  # B's unreadable result lines

    @property
    def exit_code(self) -> int:
        return 1 if self.regressed else (EXIT_INCOMPLETE if self.unreadable or self.of_kind("missing") else 0)

    def of_kind(self, kind: str) -> list[CaseChange]:
        return [c for c in self.changes if c.kind == kind]


_ORDER = {"newly_failing": 0, "regressed": 1, "missing": 2, "newly_passing": 3, "improved": 4, "new": 5}


def _answer(r: CaseResult | None) -> str | None:
    if r is None:
        return None
    return r.transcript.final_answer if r.transcript is not None else f"(no answer: {r.error or r.status})"


def _kind(status: str, before: str | None, after: str | None) -> str:
    """The gate's case status, refined by a flip that agrees with it (module docstring)."""
    if before is not None and after is not None:
        if status == "regressed" and after in FAILING and before not in FAILING:
            return "newly_failing"
        if status == "improved" and before in FAILING and after not in FAILING:
            return "newly_passing"
    return status


def diff_runs(run_a: Run, run_b: Run, settings: Settings, top: int = 20) -> RunDiff:
    """Compare run B with run A through the gate's comparison (see the module docstring)."""
    from harness.gate.regression import tolerances_for

    a_by_key = {r.key: r for r in run_a.results}
    b_by_key = {r.key: r for r in run_b.results}
    comparisons: list[Comparison] = []
    for dataset in sorted({r.dataset for r in run_a.results} | {r.dataset for r in run_b.results}):
        base = baseline_from_results(dataset, run_a.results, run_a.manifest, settings.gated_scores)
        gated = (
            settings.gated_scores
            if settings.gated_scores is not None
            else sorted({s for e in base.entries for s in e.scores if spec(s).gated})
        )
        comparisons.append(compare(run_b.results, base, tolerances_for(settings, gated), gated))
    unreadable = tuple(f"{RESULTS}:{n}" for n in run_b.corrupt_lines)
    changes: list[CaseChange] = []
    moves: list[ScoreMove] = []
    unchanged = 0
    for comp in comparisons:
        for d in comp.cases:
            key = (comp.dataset, d.case_id, d.subject)
            before, after = a_by_key.get(key), b_by_key.get(key)
            for s in d.scores:
                if s.change is not None and s.baseline is not None and s.current is not None and s.change != 0:
                    moves.append(
                        ScoreMove(
                            dataset=comp.dataset,
                            case_id=d.case_id,
                            subject=d.subject,
                            score=s.score,
                            before=s.baseline,
                            after=s.current,
                            change=s.change,
                            share_of_scale=abs(s.change) / score_scale(s.score),
                        )
                    )
            kind = _kind(d.status, before.status if before else None, after.status if after else None)
            if kind == "unchanged":
                unchanged += 1
                continue
            changes.append(
                CaseChange(
                    dataset=comp.dataset,
                    case_id=d.case_id,
                    subject=d.subject,
                    kind=kind,
                    before_status=before.status if before else None,
                    after_status=after.status if after else None,
                    reasons=d.reasons,
                    answer_before=_answer(before),
                    answer_after=_answer(after),
                )
            )
    changes.sort(key=lambda c: (_ORDER.get(c.kind, 9), c.dataset, c.case_id, c.subject))
    moves.sort(key=lambda m: (-m.share_of_scale, m.dataset, m.case_id, m.subject, m.score))
    drops = tuple(
        f"{c.dataset}: {s}" for c in comparisons for s, t in sorted(c.aggregates.items()) if t.significant_drop
    )
    return RunDiff(
        run_a=run_a.run_id,
        run_b=run_b.run_id,
        changes=tuple(changes),
        moves=tuple(moves[:top]),
        unchanged=unchanged,
        aggregate_drops=drops,
        regressed=any(c.regressed for c in comparisons),
        unreadable=unreadable,
    )


def _clip(text: str | None, n: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[:n] + " …"


def diff_lines(diff: RunDiff, answers: bool = True) -> list[str]:
    """The diff for a terminal: counts first, then each change with its reasons and both answers."""
    counts = {k: len(diff.of_kind(k)) for k in _ORDER}
    lines = [
        f"{diff.run_b} against {diff.run_a}: {counts['newly_failing']} newly failing, "
        f"{counts['newly_passing']} newly passing, {counts['regressed']} regressed, {counts['improved']} improved, "
        f"{counts['missing']} missing, {counts['new']} new, {diff.unchanged} unchanged",
        f"regressed against {diff.run_a}: {'yes' if diff.regressed else 'no'}",
    ]
    lines += [f"unreadable result line {where} of {diff.run_b}: it may hide any case" for where in diff.unreadable]
    lines += [f"aggregate drop: {d} (paired test over the cases)" for d in diff.aggregate_drops]
    for c in diff.changes:
        lines.append(
            f"{c.kind.replace('_', ' ')}: {c.dataset}::{c.case_id} [{c.subject}] "
            f"({c.before_status or '-'} -> {c.after_status or '-'})"
        )
        lines += [f"    {r}" for r in c.reasons]
        if answers and c.kind != "new" and c.kind != "missing":
            lines.append(f"    A: {_clip(c.answer_before)}")
            lines.append(f"    B: {_clip(c.answer_after)}")
    if diff.moves:
        lines.append("biggest score moves:")
        lines += [
            f"    {m.dataset}::{m.case_id} [{m.subject}] {m.score}: {m.before:g} -> {m.after:g} ({m.change:+g})"
            for m in diff.moves
        ]
    return [printable_line(line) for line in lines]  # case ids, reasons and answers come from data and models
