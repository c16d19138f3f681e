"""The :class:`Scorer` protocol every scorer (built-in or user-defined) is called through."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript
    from harness.scorers.outcome import ScoreOutcome


@runtime_checkable
class Scorer(Protocol):
    """Scores one subject's transcript against its case.

    ``name`` keys the scorer's detail record in ``CaseResult.details`` and names it in scoring errors.
    Called with the case, the subject's transcript, the caller (for judge calls) and the settings; it
    returns one :class:`~harness.scorers.outcome.ScoreOutcome`.
    """

    @property
    def name(self) -> str: ...

    async def __call__(
        self, case: Case, transcript: Transcript, caller: Caller, settings: Settings
    ) -> ScoreOutcome: ...
