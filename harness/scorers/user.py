"""User-defined scorers: an importable ``module:function`` named under ``scorers:`` in the config or
in a dataset, or registered in the ``council_harness.scorers`` entry-point group.

The function is called with keyword arguments ``case`` (the :class:`~harness.data.cases.Case`) and
``transcript`` (the subject's :class:`~harness.records.transcript.Transcript`; ``transcript.final_answer`` is
the answer), sync or async, and returns one of:

* a number: one score named after the function (``def brevity(...) -> float`` scores ``brevity``);
* a mapping of score names to numbers;
* a :class:`~harness.scorers.outcome.ScoreOutcome` (scores, checks, a detail, an error).

Its scores join the built-in ones in ``CaseResult.scores`` (so ``minimum_scores``, ``export``,
baselines, the gate and the report see them); its detail is kept under ``details[<module:function>]``.
Anything else it does is a per-case scoring error naming the scorer and what was expected, never a
crash: an exception, another return type, a non-finite number, a score name a built-in scorer owns.
A name that does not import is a configuration error (:func:`resolve`).
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from pydantic_core import PydanticSerializationError, to_json

from harness.records.score_spec import BUILTIN_NAMES, SCORES, ScoreSpec
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript

#: The entry-point group a package registers its scorers in (``name = "module:function"``).
ENTRY_POINT_GROUP = "council_harness.scorers"
_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
EXPECTED = "a float, a mapping of score names to floats, or a ScoreOutcome"


class ScorerImportError(ValueError):
    """A ``module:function`` that does not name an importable callable."""


def resolve(ref: str) -> Callable[..., Any]:
    """The callable ``ref`` (``package.module:function``) names.

    Raises:
        ScorerImportError: ``ref`` is not ``module:function``, the module does not import, or the
            attribute is missing or not callable; the message says which.
    """
    if not isinstance(ref, str) or not _REF.match(ref):
        raise ScorerImportError(f"expected 'module:function' (an importable module and a function in it), got {ref!r}")
    module_name, _, attr = ref.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any import-time error is theirs to see
        raise ScorerImportError(f"scorer {ref!r}: cannot import module {module_name!r} "
                                f"({type(exc).__name__}: {exc})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ScorerImportError(f"scorer {ref!r}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ScorerImportError(f"scorer {ref!r}: {attr!r} is a {type(obj).__name__}, expected a function")
    return obj


@dataclass(frozen=True)
class UserScorer:
    """A user's function behind the :class:`~harness.scorers.protocol.Scorer` protocol.

    ``name`` is its ``module:function`` reference (the key of its detail, the name in its errors);
    ``score_name`` is what a plain number is called (the function's name).
    """

    name: str
    fn: Callable[..., Any]

    @property
    def score_name(self) -> str:
        return getattr(self.fn, "__name__", self.name.rpartition(":")[2].rpartition(".")[2])

    async def __call__(self, case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
        try:
            value = self.fn(case=case, transcript=transcript)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:  # the user's code: a failure is this case's scoring error
            return ScoreOutcome(error=f"scorer {self.name}: raised {type(exc).__name__}: {exc}")
        return self.outcome(value)

    def outcome(self, value: object) -> ScoreOutcome:
        """``value`` as an outcome, or an outcome whose ``error`` says what was wrong with it."""
        scores: Mapping[Any, object]
        if isinstance(value, ScoreOutcome):
            scores = dict(value.scores)
        elif _is_number(value):
            scores = {self.score_name: value}
        elif isinstance(value, Mapping):
            scores = value
        else:
            return self._error(f"expected {EXPECTED}, got {type(value).__name__}")
        clean: dict[str, float] = {}
        for k, v in scores.items():
            if not isinstance(k, str) or not k:
                return self._error(f"expected score names as non-empty strings, got {k!r}")
            if not _is_number(v):
                return self._error(f"score {k!r}: expected a float, got {type(v).__name__}")
            f = float(v)  # type: ignore[arg-type]
            if not math.isfinite(f):
                return self._error(f"score {k!r}: expected a finite float, got {f}")
            if k in BUILTIN_NAMES:
                return self._error(f"score {k!r} is a built-in score; expected a name of its own")
            clean[k] = f
        if isinstance(value, ScoreOutcome):
            try:
                to_json(value.detail)
            except PydanticSerializationError:
                return self._error(f"expected a JSON-serialisable detail, got {type(value.detail).__name__}")
            return value.model_copy(update={"scores": clean})
        return ScoreOutcome(scores=clean)

    def _error(self, what: str) -> ScoreOutcome:
        return ScoreOutcome(error=f"scorer {self.name}: {what}")


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def user_scorer(ref: str) -> UserScorer:
    """The scorer ``ref`` names, its score name registered (:data:`harness.records.score_spec.SCORES`)."""
    scorer = UserScorer(ref, resolve(ref))
    if scorer.score_name not in SCORES:
        SCORES.register(ScoreSpec(name=scorer.score_name, description=f"user-defined scorer {ref}"))
    _LOADED.add(ref)
    return scorer


_LOADED: set[str] = set()
_ENTRY_POINTS: dict[tuple[str, ...], tuple[UserScorer | str, ...]] = {}


def entry_point_scorers() -> tuple[UserScorer | str, ...]:
    """The scorers of the ``council_harness.scorers`` entry-point group (for this ``sys.path``), each
    a :class:`UserScorer` or, when it does not load, the error naming it (a scoring error per case)."""
    key = tuple(sys.path)
    if key not in _ENTRY_POINTS:
        found: list[UserScorer | str] = []
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            try:
                found.append(user_scorer(ep.value))
            except ScorerImportError as exc:
                found.append(f"entry point {ENTRY_POINT_GROUP} {ep.name!r}: {exc}")
        _ENTRY_POINTS[key] = tuple(found)
    return _ENTRY_POINTS[key]


def user_scorers_loaded() -> bool:
    """Whether any user scorer (config, dataset or entry point) is known in this process: a
    ``minimum_scores`` name no built-in scorer produces may then be one of theirs."""
    return bool(_LOADED) or bool(entry_point_scorers())


def configured_user_scorers(case: Case, settings: Settings) -> tuple[UserScorer | str, ...]:
    """The config's ``scorers:``, then the case's dataset's, then the entry points', each once."""
    out: list[UserScorer | str] = []
    seen: set[str] = set()
    for ref in (*settings.scorers, *case.scorers):
        if ref not in seen:
            seen.add(ref)
            try:
                out.append(user_scorer(ref))
            except ScorerImportError as exc:
                out.append(str(exc))
    for s in entry_point_scorers():
        name = s.name if isinstance(s, UserScorer) else s
        if name not in seen:
            seen.add(name)
            out.append(s)
    return tuple(out)
