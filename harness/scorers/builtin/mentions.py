"""Required mentions and forbidden claims of the final answer (checks, and the share of mentions found)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.records.score_spec import ScoreSpec
from harness.scorers.builtin.declared import builtin_scorer
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript


@builtin_scorer(
    "mentions",
    order=20,
    scores=(
        ScoreSpec(
            name="required_mentions",
            description="share of required mentions found, 0-1",
            label="mentions",
            key_rank=3,
            chart=True,
        ),
    ),
)
async def mentions(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """``required_mentions`` and ``forbidden_claims`` of the final answer."""
    from harness.metrics.checks import mention_checks

    found = mention_checks(case, transcript.final_answer)
    return ScoreOutcome(scores=found.scores, checks=found.checks)
