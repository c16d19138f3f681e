"""How a built-in scorer is declared: :func:`builtin_scorer`, the decorator each module of
:mod:`harness.scorers.builtin` puts on its scoring coroutine, and how the package finds them
(:func:`discover`).

A declaration holds everything the harness knows of a built-in scorer, in one place:

* ``name``: the key of its detail in ``CaseResult.details`` and the name in its scoring errors;
* ``order``: its place among the built-in scorers: they score (and their scores are merged into
  ``CaseResult.scores``, and declared into the registry) in ascending ``order``; each value is used once
  (the scorers shipped use multiples of 10, so a new one fits between two without renumbering);
* the coroutine itself (``(case, transcript, caller, settings) -> ScoreOutcome``);
* ``scores``: the :class:`~harness.records.score_spec.ScoreSpec` of every score it can give, declared
  into the registry :data:`~harness.records.score_spec.SCORES` by :func:`declare_scores` (the package
  root does it on the registry's first read), in the scorers' order;
* ``detail``: the type its detail record is read back as from ``results.jsonl`` (``None``: it keeps none);
* ``summary``: the one-line gist of its detail in the report's drill-down (``""`` when not given);
* ``settle``: what its detail becomes once every scorer of the case has run, given all their details
  (Tier 1's ``tier`` depends on which other scorers scored); the detail as it is when not given.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.records.score_spec import ScoreRegistry, ScoreSpec
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
    order: int
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
    order: int,
    scores: tuple[ScoreSpec, ...] = (),
    detail: Any = None,
    summary: Summary | None = None,
    settle: Settle | None = None,
) -> Callable[[ScoreFn], BuiltinScorer]:
    """Declare the decorated coroutine as the built-in scorer ``name`` at place ``order`` (module docstring)."""

    def declare(fn: ScoreFn) -> BuiltinScorer:
        return BuiltinScorer(
            name=name, order=order, fn=fn, scores=scores, detail=detail, summary=summary, settle=settle
        )

    return declare


def discover(package: str, path: Iterable[str]) -> tuple[BuiltinScorer, ...]:
    """Every built-in scorer declared in the modules of ``package`` (its ``__path__``), in ``order``.

    Each module of the package (``pkgutil.iter_modules``; not this one, nor names starting with ``_``) is
    imported, and every :class:`BuiltinScorer` defined in it (not one it imports from another) is collected.

    Raises:
        ValueError: two scorers share a name or an ``order`` (naming both modules).
    """
    found: list[tuple[BuiltinScorer, str]] = []
    for info in sorted(pkgutil.iter_modules(list(path)), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == __name__.rpartition(".")[2]:
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        found += [
            (v, module.__name__)
            for v in vars(module).values()
            if isinstance(v, BuiltinScorer) and v.fn.__module__ == module.__name__
        ]
    for attr in ("name", "order"):
        seen: dict[object, str] = {}
        for scorer, where in found:
            key = getattr(scorer, attr)
            if key in seen:
                raise ValueError(f"built-in scorers in {seen[key]} and {where} share the {attr} {key!r}")
            seen[key] = where
    return tuple(s for s, _ in sorted(found, key=lambda f: f[0].order))


def declare_scores(scorers: Iterable[BuiltinScorer], registry: ScoreRegistry) -> None:
    """Declare the scores of ``scorers`` into ``registry``, in their order.

    Raises:
        ValueError: a score is already declared.
    """
    for scorer in scorers:
        for s in scorer.scores:
            registry.declare(s)
