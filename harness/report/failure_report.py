"""The readable failure report of one case through one subject (pytest items and JUnit XML share it)."""

from __future__ import annotations

from harness.data.cases import Case
from harness.run.result import CaseResult

__all__ = ["format_failure"]


def _clip(text: str, n: int = 600) -> str:
    text = text.strip()
    return text if len(text) <= n else text[:n] + f" … ({len(text) - n} more characters)"


def format_failure(result: CaseResult, case: Case) -> str:
    """A readable failure report: what was expected, what came back, the answer and the metrics."""
    lines = [f"{case.dataset}::{case.id} through '{result.subject}': {result.status.upper()}  ({case.source})"]
    lines.append(f"query: {_clip(case.query, 300)}")
    if result.error:
        lines.append(f"error: {result.error}")
    failed = [c for c in result.checks if not c.passed]
    if failed:
        lines.append("failed checks:")
        lines += [f"  - {c.kind} '{c.target}': {c.detail}" for c in failed]
    if case.ground_truth:
        lines.append(f"expected (ground truth): {_clip(case.ground_truth, 300)}")
    if result.transcript is not None:
        lines.append(f"got: {_clip(result.transcript.final_answer)}")
        if result.transcript.errors:
            lines.append("subject errors: " + "; ".join(result.transcript.errors))
    if result.quality_metrics is not None:
        q = result.quality_metrics
        sas = q.core.synthesis_attribution
        lines.append(
            f"quality: CSS {q.core.consensus_strength} · DDI {q.core.deliberation_depth} · "
            f"winner alignment {sas.winner_alignment} · hallucination risk {sas.hallucination_risk} · "
            f"grounded {sas.grounded}" + (f" · warnings {', '.join(q.warnings)}" if q.warnings else "")
        )
    other = {k: v for k, v in result.scores.items()}
    if other:
        lines.append("scores: " + ", ".join(f"{k}={v:g}" for k, v in sorted(other.items())))
    return "\n".join(lines)
