"""How a built-in scorer is declared: :func:`builtin_scorer`, the decorator each module of
:mod:`harness.scorers.builtin` puts on its scoring coroutine.

A declaration holds everything the harness knows of a built-in scorer, in one place:

* ``name``: the key of its detail in ``CaseResult.details`` and the name in its scoring errors;
* the coroutine itself (``(case, transcript, caller, settings) -> ScoreOutcome``);
* ``scores``: the :class:`~harness.records.score_spec.ScoreSpec` of every score it can give, declared
  into the registry :data:`~harness.records.score_spec.SCORES` when the module is imported;
* ``detail``: the type its detail record is read back as from ``results.jsonl`` (``None``: it keeps none);
* ``summary``: the one-line gist of its detail in the report's drill-down (``""`` when not given);
* ``settle``: what its detail becomes once every scorer of the case has run, given all their details
  (Tier 1's ``tier`` depends on which other scorers scored); the detail as it is when not given.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.records.score_spec import SCORES, ScoreRegistry, ScoreSpec
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript

ScoreFn = Callable[["Case", "Transcript", "Caller", "Settings"], Awaitable[ScoreOutcome]]
Summary = Callable[[Any], str]
Settle = Callable[[Any, Mapping[str, object]], Any]


@dataclass(frozen=True)
class BuiltinScorer:
    """A built-in scorer as declared (the fields are described in the module docstring); it follows
    the :class:`~harness.scorers.protocol.Scorer` protocol."""

    name: str
    fn: ScoreFn
    scores: tuple[ScoreSpec, ...] = ()
    detail: Any = None
    summary: Summary | None = None
    settle: Settle | None = None

    async def __call__(self, case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
        return await self.fn(case, transcript, caller, settings)

    def summarise(self, detail: Any) -> str:
        """The drill-down's one-line gist of ``detail``."""
        return self.summary(detail) if self.summary is not None else ""

    def settled(self, detail: Any, details: Mapping[str, object]) -> Any:
        """``detail`` once every scorer has run (``details``: every scorer's detail of the case)."""
        return self.settle(detail, details) if self.settle is not None else detail


def builtin_scorer(
    name: str,
    *,
    scores: tuple[ScoreSpec, ...] = (),
    detail: Any = None,
    summary: Summary | None = None,
    settle: Settle | None = None,
    registry: ScoreRegistry = SCORES,
) -> Callable[[ScoreFn], BuiltinScorer]:
    """Declare the decorated coroutine as the built-in scorer ``name``, its ``scores`` declared into
    ``registry`` (:data:`~harness.records.score_spec.SCORES`; another only in tests).

    Raises:
        ValueError: a score of ``scores`` is already declared.
    """

    def declare(fn: ScoreFn) -> BuiltinScorer:
        for s in scores:
            registry.declare(s)
        return BuiltinScorer(name=name, fn=fn, scores=scores, detail=detail, summary=summary, settle=settle)

    return declare
