"""The report's diagnostics panel: model time per stage, position consistency, judge validity.

View model only (strings ready to print); the template shows it with autoescape.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.common.model import Frozen
from harness.gate.judge_validity import Validity, judge_validity, position_consistency, reviewer_validity
from harness.run.result import CaseResult
from harness.run.runs import Run
from harness.run.usage import stage_shares, stage_usage


class StageRow(Frozen):
    """One stage's model time."""

    stage: str
    calls: int
    cached: int
    tokens_in: int
    tokens_out: int
    seconds: str
    share: str
    bar: float  # 0..100, the share as a bar width


class ConsistencyRow(Frozen):
    """One reviewer's position-consistency rate."""

    reviewer: str
    consistent: int
    ballots: int
    rate: str


class ValidityRow(Frozen):
    """One scorer's judge-validity figures and its plain-words line."""

    kind: str
    scorer: str
    n: str
    auc: str
    ci: str
    means: str
    verdict: str
    line: str


class DiagnosticsView(Frozen):
    """The diagnostics panel."""

    stages: tuple[StageRow, ...]
    total_seconds: str
    consistency: tuple[ConsistencyRow, ...]
    validity: tuple[ValidityRow, ...]
    warnings: tuple[str, ...]


def _validity_row(v: Validity) -> ValidityRow:
    defined = v.auc is not None
    return ValidityRow(
        kind=v.kind,
        scorer=v.scorer,
        n=f"{v.n_correct} right / {v.n_incorrect} wrong",
        auc=f"{v.auc:.3f}" if defined else "—",
        ci=f"{v.ci_low:.2f}–{v.ci_high:.2f}" if defined else "—",
        means=f"{v.mean_correct:.2f} vs {v.mean_incorrect:.2f}" if defined else "—",
        verdict=v.verdict,
        line=v.line(),
    )


def diagnostics(run: Run, results: Sequence[CaseResult] | None = None) -> DiagnosticsView | None:
    """The panel for ``run`` (``None`` when there is nothing to show)."""
    results = list(run.results if results is None else results)
    usage = run.manifest.stage_usage or stage_usage(results)
    shares = stage_shares(usage)
    total = sum(t.seconds for t in usage.values())
    stages = tuple(
        StageRow(
            stage=s.replace("_", " "),
            calls=t.calls,
            cached=t.cached_calls,
            tokens_in=t.tokens_in,
            tokens_out=t.tokens_out,
            seconds=f"{t.seconds:.1f} s",
            share=f"{shares[s]:.0%}" if shares[s] is not None else "—",
            bar=round(100 * (shares[s] or 0.0), 1),
        )
        for s, t in usage.items()
    )
    consistency = tuple(
        ConsistencyRow(reviewer=r, consistent=c, ballots=n, rate=f"{c / n:.0%}")
        for r, (c, n) in position_consistency(results).items()
    )
    validity = tuple(_validity_row(v) for v in [*judge_validity(results), *reviewer_validity(results)])
    warnings = tuple(row.line for row in validity if row.verdict in ("uninformative", "inverted"))
    if not (stages or consistency or validity):
        return None
    return DiagnosticsView(
        stages=stages,
        total_seconds=f"{total:.1f} s",
        consistency=consistency,
        validity=validity,
        warnings=warnings,
    )
