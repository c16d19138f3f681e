"""The per-session bias audit of the stage-2 reviews (ADR-015; no scores: an input to the bias report)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.bias.audit import SessionBiasAudit
from harness.scorers.builtin.declared import builtin_scorer
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript


def _summary(audit: SessionBiasAudit) -> str:
    factors = ", ".join(audit.risk_factors) or "none"
    return f"risk {audit.risk} (flags: {factors}) over {len(audit.scores)} reviewer scores"


@builtin_scorer("bias", order=90, detail=SessionBiasAudit, summary=_summary)
async def bias(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """The session's bias audit, for subjects with stage-2 reviews."""
    from harness.bias.audit import audit_session

    return ScoreOutcome(detail=audit_session(transcript, settings.weights) if transcript.reviews else None)
