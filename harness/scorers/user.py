"""User-defined scorers: code the configuration names, called in isolation from the run.

Where the code comes from (configuration, never data):

* the config's ``scorers:`` list names each scorer either as ``module:function`` (imported when the
  config loads; a name that does not import is a configuration error at its ``file:line``) or by
  the name of an entry point installed in the ``council_harness.scorers`` group (loaded then too;
  a broken entry point is a configuration error naming it). Each runs on every case.
* a dataset's ``scorers:`` list holds *names* only: an entry of the config's list as written, or
  the name of an installed entry point (which then runs on that dataset's cases). Nothing a dataset
  names is imported while it loads or validates: an unknown name (``os:system``) is a dataset error
  at its line listing the known names (:func:`known_scorer_names`,
  :func:`harness.scorers.names.scorer_name_errors`).
* an installed entry point runs only where it is named; installing a package turns nothing on.

The function is called with keyword arguments ``case`` (the :class:`~harness.data.cases.Case`) and
``transcript`` (the subject's :class:`~harness.records.transcript.Transcript`; ``transcript.final_answer`` is
the answer), sync or async, and returns one of:

* a number: one score named after the function (``def brevity(...) -> float`` scores ``brevity``);
* a mapping of score names to numbers;
* a :class:`~harness.scorers.outcome.ScoreOutcome` (scores, checks, a JSON detail, an error).

Each score must be a finite number within its declared scale, ``0 <= value <= spec(name).scale``
(0-1 unless the module registers another with :func:`harness.records.score_spec.register_score`). Its
scores join the built-in ones in ``CaseResult.scores``; its detail is kept under
``details[<module:function>]``.

How a call is isolated from the run (:meth:`UserScorer.__call__`):

* it gets deep copies of the case and the transcript, so it cannot change what the result is keyed
  by or what it records (``object.__setattr__(case, "id", ...)`` changes only its copy);
* it runs in a daemon thread of its own, off the event loop (an async scorer in a fresh event loop
  in that thread), and the run waits for it at most ``scorer_timeout`` seconds. A thread cannot be
  killed: a call that does not return is abandoned (a daemon thread ends with the process), and
  while it is still running that scorer is not called again (each later case gets a scoring error
  naming it), so a hung scorer costs one thread, not one per case. A subprocess could be killed,
  but would re-import the scorer's module on every call (or need a pool to restart), pickle every
  transcript, and lose the module state a scorer keeps (a loaded model); the scorers are the user's
  own configured code, so the thread bounds the run's time without that cost;
* anything it raises, ``BaseException`` included (``SystemExit``, ``KeyboardInterrupt``,
  ``asyncio.CancelledError``, ``GeneratorExit``), and anything wrong with what it returns (a type,
  a number ``float()`` cannot convert such as ``10**400`` or an object whose ``__float__`` raises,
  NaN or infinity, a value outside the scale, a built-in score's name, a score name with control
  characters or longer than :data:`MAX_SCORE_NAME`, a detail that is not JSON)
  is a per-case scoring error ``scorer <module:function>: ...``; the answer, the transcript, the
  other scorers' scores and the ledger are kept. The conversion runs in the same thread under the
  same time limit.

The isolation is against mistakes, not against malice: a scorer runs in the harness's process (it
could ``os._exit``); that is why only the configuration can choose one.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic_core import from_json, to_json

from harness.common.model import Frozen
from harness.common.scorer_refs import (
    ENTRY_POINT_GROUP,
    ScorerImportError,
    entry_point_reference,
    installed_entry_points,
    load_declared,
    resolve,
)
from harness.common.untrusted import clean_surrogates, printable_line
from harness.records.score_spec import SCORES, ScoreSpec
from harness.records.scoreset import CheckResult
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript

EXPECTED = "a float, a mapping of score names to floats, or a ScoreOutcome"
#: the longest piece of a scorer's own text (an exception message) kept in a scoring error
_MAX_TEXT = 300
#: the longest score name a user scorer may return (it becomes a column, a badge, a baseline key)
MAX_SCORE_NAME = 100


def _text(exc: BaseException) -> str:
    """``Type: message`` of a scorer's exception, one printable line of bounded length; a message
    that cannot be turned into text (its ``__str__`` raises) is shown as such."""
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - the user's __str__: whatever it raises, the error is still named
        message = "<its message cannot be shown: str() raised>"
    line = printable_line(clean_surrogates(f"{type(exc).__name__}: {message}" if message else type(exc).__name__))
    return line if len(line) <= _MAX_TEXT else line[:_MAX_TEXT] + "..."


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


def _settle(settled: asyncio.Future[ScoreOutcome], outcome: ScoreOutcome) -> None:
    if not settled.done():  # not timed out or cancelled meanwhile
        settled.set_result(outcome)


#: scorer name -> the thread of its call that did not return in time (while alive, it is not called again)
_STUCK: dict[str, threading.Thread] = {}


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
        name = getattr(self.fn, "__name__", None)
        return name if isinstance(name, str) and name else self.name.rpartition(":")[2].rpartition(".")[2]

    async def __call__(self, case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
        """Score deep copies of ``case`` and ``transcript`` in a thread of its own, waiting at most
        ``settings.scorer_timeout`` seconds (the rules are in the module docstring)."""
        timeout = settings.scorer_timeout
        stuck = _STUCK.get(self.name)
        if stuck is not None:
            if stuck.is_alive():
                return self._error(
                    f"not called: an earlier call did not return within scorer_timeout "
                    f"({timeout:g} s) and is still running"
                )
            del _STUCK[self.name]
        kwargs = {"case": case.model_copy(deep=True), "transcript": transcript.model_copy(deep=True)}
        loop = asyncio.get_running_loop()
        settled: asyncio.Future[ScoreOutcome] = loop.create_future()
        thread = threading.Thread(
            target=self._work, args=(kwargs, loop, settled), daemon=True, name=f"scorer {self.name}"
        )
        thread.start()
        try:
            return await asyncio.wait_for(settled, timeout)
        except TimeoutError:
            _STUCK[self.name] = thread
            return self._error(f"did not return within scorer_timeout ({timeout:g} s); the call is abandoned")

    def _work(
        self, kwargs: dict[str, Any], loop: asyncio.AbstractEventLoop, settled: asyncio.Future[ScoreOutcome]
    ) -> None:
        """The worker thread: call, await (in this thread's own loop), convert, hand the outcome back."""
        try:
            value = self.fn(**kwargs)
            if inspect.isawaitable(value):
                value = asyncio.run(_awaited(value))
        except BaseException as exc:  # noqa: BLE001 - the user's code: SystemExit, CancelledError, ... too
            out = self._error(f"raised {_text(exc)}")
        else:
            try:
                out = self.outcome(value)
            except BaseException as exc:  # noqa: BLE001 - a returned object's own methods (__float__, items, ...)
                out = self._error(f"returned a value that cannot be read ({_text(exc)}); expected {EXPECTED}")
        try:
            loop.call_soon_threadsafe(_settle, settled, out)
        except RuntimeError:  # the loop has closed: nobody waits for this call any more
            pass

    def outcome(self, value: object) -> ScoreOutcome:
        """``value`` as a fresh outcome of plain data, or an outcome whose ``error`` says what was wrong."""
        scores: Mapping[Any, object]
        if isinstance(value, ScoreOutcome):
            scores = dict(value.scores)
        elif _is_number(value):
            scores = {self.score_name: value}
        elif isinstance(value, Mapping):
            scores = dict(value.items())
        else:
            return self._error(f"expected {EXPECTED}, got {type(value).__name__}")
        clean: dict[str, float] = {}
        for k, v in scores.items():
            if type(k) is not str or not k:
                return self._error(f"expected score names as non-empty strings, got {type(k).__name__}")
            name = printable_line(clean_surrogates(k))[:_MAX_TEXT]
            if name != k or len(k) > MAX_SCORE_NAME:
                return self._error(
                    f"expected score names of printable characters, at most {MAX_SCORE_NAME}, got '{name}'"
                )
            if not _is_number(v):
                return self._error(f"score {name!r}: expected a float, got {type(v).__name__}")
            try:
                f = float(v)  # type: ignore[arg-type]
            except OverflowError:
                return self._error(f"score {name!r}: expected a finite float, got an integer too large for one")
            except BaseException as exc:  # noqa: BLE001 - a number type's own __float__
                return self._error(f"score {name!r}: float() of its {type(v).__name__} raised {_text(exc)}")
            if not math.isfinite(f):
                return self._error(f"score {name!r}: expected a finite float, got {f}")
            if k in SCORES.builtin:
                return self._error(f"score {name!r} is a built-in score; expected a name of its own")
            scale = SCORES.spec(k).scale
            if not 0.0 <= f <= scale:
                return self._error(
                    f"score {name!r}: {f:g} is outside its scale 0-{scale:g} (register_score declares another scale)"
                )
            clean[k] = f
        if not isinstance(value, ScoreOutcome):
            return ScoreOutcome(scores=clean)
        try:
            detail = to_json(value.detail)
        except BaseException:  # noqa: BLE001 - a detail pydantic cannot write (or whose own methods raise)
            return self._error(f"expected a JSON-serialisable detail, got {type(value.detail).__name__}")
        try:
            checks = tuple(CheckResult.model_validate_json(to_json(c)) for c in value.checks)
        except BaseException as exc:  # noqa: BLE001 - not CheckResult records
            return self._error(f"expected checks as CheckResult records ({_text(exc)})")
        error = value.error if type(value.error) is str and value.error else None
        if error is not None:
            error = printable_line(clean_surrogates(error.removeprefix(f"scorer {self.name}: ")))[:_MAX_TEXT]
            error = f"scorer {self.name}: {error}"
        # a new record of plain data: nothing the scorer's objects do later reaches the result
        return ScoreOutcome(scores=clean, checks=checks, detail=from_json(detail), error=error)

    def _error(self, what: str) -> ScoreOutcome:
        return ScoreOutcome(error=f"scorer {self.name}: {what}")


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _registered(scorer: UserScorer) -> UserScorer:
    """``scorer`` with its score name in :data:`harness.records.score_spec.SCORES` (0-1 unless registered)."""
    if scorer.score_name not in SCORES:
        SCORES.register(ScoreSpec(name=scorer.score_name, description=f"user-defined scorer {scorer.name}"))
    return scorer


def user_scorer(ref: str) -> UserScorer:
    """The scorer ``ref`` (``module:function``) names, its score name registered."""
    return _registered(UserScorer(ref, resolve(ref)))


def entry_point_scorer(name: str) -> UserScorer:
    """The scorer of the installed entry point ``name``, loaded (its module imported).

    Raises:
        ScorerImportError: no such entry point, or it does not name a loadable ``module:function``.
    """
    entry_point_reference(name)  # installed (else the error names the installed ones)
    return _registered(UserScorer(*load_declared(name)))


def declared_scorer(entry: str) -> UserScorer:
    """The scorer a config ``scorers:`` entry declares: ``module:function``, or an entry point's name.

    Raises:
        ScorerImportError: the entry does not load; the message says why.
    """
    return _registered(UserScorer(*load_declared(entry)))


def known_scorer_names(settings: Settings) -> tuple[str, ...]:
    """The names a dataset may list under ``scorers:``: the config's entries as written, then the
    installed entry points' names."""
    return tuple(dict.fromkeys([*settings.scorers, *installed_entry_points()]))


class UnavailableScorer(Frozen):
    """A scorer named for a case that cannot run on it (it does not load, or the dataset names one the
    configuration does not allow); called, it scores nothing and its one scoring error says why.

    Args:
        name: the entry as the config or the dataset wrote it.
        reason: the scoring error, naming the scorer (the loader's message).
    """

    name: str
    reason: str

    async def __call__(self, case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
        return ScoreOutcome(error=self.reason)


def configured_user_scorers(case: Case, settings: Settings) -> tuple[UserScorer | UnavailableScorer, ...]:
    """The config's scorers, then those the case's dataset names that the config does not, each once;
    one that cannot run on this case is an :class:`UnavailableScorer` (its scoring error)."""
    out: list[UserScorer | UnavailableScorer] = []
    seen: set[str] = set()
    config = set(settings.scorers)
    for entry in (*settings.scorers, *(n for n in case.scorers if n not in config)):
        try:
            if entry in config or entry in installed_entry_points():
                scorer = declared_scorer(entry)
            else:
                raise ScorerImportError(
                    f"scorer {entry!r} named by dataset {case.dataset!r} is neither an entry of "
                    f"the config's scorers: nor an installed {ENTRY_POINT_GROUP} entry point; "
                    "it is not imported"
                )
        except ScorerImportError as exc:
            out.append(UnavailableScorer(name=entry, reason=str(exc)))
            continue
        if scorer.name not in seen:
            seen.add(scorer.name)
            out.append(scorer)
    return tuple(out)
