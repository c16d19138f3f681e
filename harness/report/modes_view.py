"""The report's council-modes panel (issue 29): the seeds' remediation table and one line per mode.

The band table is :func:`harness.gate.remediation.remediation_table` (exploratory, Bonferroni over the
bands); each mode's line counts what its typed record (:mod:`harness.records.mode_types`) says over the
run's cases. Strings only (the template escapes them).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.common.model import Frozen
from harness.gate.run_verdicts import RunVerdicts
from harness.records.mode_types import (
    DebateVerdict,
    DissentRecord,
    JuryRecord,
    MultiRoundRecord,
    PackageVerdictRecord,
    TieBreakRecord,
)
from harness.run.result import CaseResult


class BandRow(Frozen):
    band: str
    mode: str
    cases: int
    n: int
    difference: str
    interval: str
    sentence: str


class ModeRow(Frozen):
    subject: str
    summary: str


class ModesView(Frozen):
    """The panel; ``None`` from :func:`modes_view` when the run has no mode and no band comparison."""

    primary: str
    bands: tuple[BandRow, ...]
    modes: tuple[ModeRow, ...]


def _fmt(x: float) -> str:
    return f"{x:+.2f}" if x == x else "—"


def mode_summary(subject: str, results: Sequence[CaseResult]) -> str:
    """What the mode records of ``subject``'s results add up to, in words."""
    rs = [r for r in results if r.subject == subject]
    records = [r.transcript.mode for r in rs if r.transcript is not None and r.transcript.mode is not None]
    errors = sum(r.status == "error" for r in rs)
    tail = f"; {errors} case(s) ended in an error" if errors else ""
    debates = [m for m in records if isinstance(m, DebateVerdict)]
    dissents = [m for m in records if isinstance(m, DissentRecord)]
    juries = [m for m in records if isinstance(m, JuryRecord)]
    ties = [m for m in records if isinstance(m, TieBreakRecord)]
    rounds = [m for m in records if isinstance(m, MultiRoundRecord)]
    verdicts = [m for m in records if isinstance(m, PackageVerdictRecord)]
    if debates:
        k = sum(len(m.positions) for m in debates) / len(debates)
        return (
            f"{len(debates)} debate verdicts, {k:.1f} positions on average, "
            f"{sum(m.parsed for m in debates)} read as JSON{tail}"
        )
    if dissents:
        with_views = sum(bool(m.minority) for m in dissents)
        return (
            f"minority views on {with_views} of {len(dissents)} cases "
            f"({sum(len(m.minority) for m in dissents)} dissenting reviews){tail}"
        )
    if juries:
        confs = [m.confidence for m in juries if m.confidence is not None]
        mean = f", mean confidence {sum(confs) / len(confs):.2f}" if confs else ""
        return f"{sum(m.verdict is not None for m in juries)} verdicts{mean}{tail}"
    if ties:
        tie = sum(m.trigger == "tie" for m in ties)
        low = sum(m.trigger == "low_css" for m in ties)
        return (
            f"chairman decided {tie + low} of {len(ties)} cases ({tie} tied, {low} below CSS "
            f"{ties[0].band:.2f}); plain synthesis on {len(ties) - tie - low}{tail}"
        )
    if rounds:
        return (
            f"{rounds[0].rounds} round(s) on {len(rounds)} cases; {sum(m.changed for m in rounds)} revisions "
            f"changed a stated answer; majority on {sum(m.rule == 'majority' for m in rounds)}{tail}"
        )
    if verdicts:
        confs = [m.confidence for m in verdicts if m.confidence is not None]
        mean = f", mean confidence {sum(confs) / len(confs):.2f}" if confs else ""
        return (
            f"llm-council-core {verdicts[0].requested} verdicts: {sum(m.answer is not None for m in verdicts)} of "
            f"{len(verdicts)} read as yes/no ({sum(m.answer == 'yes' for m in verdicts)} approved), "
            f"{sum(m.deadlocked for m in verdicts)} deadlocked{mean}{tail}"
        )
    return f"no mode record{tail}"


def modes_view(results: Sequence[CaseResult], verdicts: RunVerdicts) -> ModesView | None:
    """The panel for ``results`` (``verdicts``: the run's verdicts as finishing composed them: their plan's primary
    endpoint, their remediation table)."""
    subjects = list(dict.fromkeys(r.subject for r in results))
    moded = [
        s
        for s in subjects
        if any(r.subject == s and r.transcript is not None and r.transcript.mode is not None for r in results)
        or s.startswith(("council:", "council+"))
        or (s.startswith("debate:"))
    ]
    primary = verdicts.plan.primary
    table = list(verdicts.remediation)
    if not moded and not table:
        return None
    return ModesView(
        primary=primary,
        bands=tuple(
            BandRow(
                band=b.band,
                mode=b.mode,
                cases=b.cases,
                n=b.n,
                difference=_fmt(b.difference),
                interval=f"{_fmt(b.ci_low)} to {_fmt(b.ci_high)} ({b.confidence:.4g})",
                sentence=b.sentence,
            )
            for b in table
        ),
        modes=tuple(ModeRow(subject=s, summary=mode_summary(s, results)) for s in moded),
    )
