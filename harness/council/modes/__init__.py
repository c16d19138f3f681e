"""Council modes (issue 29): the native council's members, seeds, cache and ledger, with one stage changed.

Each mode is a subject (the names below); the rules of each are in its module's docstring:

* ``council:debate`` (:mod:`~harness.council.modes.debate`) — stage 3 lays out the competing positions
  and declares a pick (seed 000 / ADR-036: ``verdict_type="debate"``);
* ``council+dissent`` (:mod:`~harness.council.modes.dissent`) — the minority views of stage 2 given to
  the chairman and recorded (``include_dissent=true``);
* ``council:jury`` (:mod:`~harness.council.modes.jury`) — binary verdicts with confidence (ADR-025b);
* ``council:tie-breaker`` (:mod:`~harness.council.modes.tie_breaker`) — the chairman decides a deadlock;
* ``debate:<rounds>`` (:mod:`~harness.council.modes.multi_round`) — multi-round debate (Du et al. 2023).

:func:`build_mode` builds one by name (``None`` for a name that is no mode); :func:`is_mode` says
whether a name is one (a malformed ``debate:<rounds>`` is a :class:`~harness.common.errors.ConfigError`).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.config import Settings
from harness.council.modes.debate import DebateCouncil
from harness.council.modes.dissent import DissentCouncil, minority_views
from harness.council.modes.jury import JuryCouncil, JuryRefused, jury_options, tally
from harness.council.modes.multi_round import MultiRoundDebate, parse_rounds
from harness.council.modes.tie_breaker import TieBreakerCouncil, deadlock
from harness.council.stages import Council
from harness.providers.calls import Caller

__all__ = [
    "MODES", "DebateCouncil", "DissentCouncil", "JuryCouncil", "JuryRefused", "MultiRoundDebate",
    "TieBreakerCouncil", "build_mode", "deadlock", "is_mode", "jury_options", "minority_views", "tally",
]

_COUNCILS: dict[str, Callable[..., Council | JuryCouncil]] = {
    "council:debate": DebateCouncil,
    "council+dissent": DissentCouncil,
    "council:jury": JuryCouncil,
    "council:tie-breaker": TieBreakerCouncil,
}
#: the mode names, ``debate:<rounds>`` last
MODES: tuple[str, ...] = (*_COUNCILS, "debate:<rounds>")


def is_mode(name: str) -> bool:
    """Whether ``name`` is a council mode; ``debate:<R>`` with a bad R raises :class:`ConfigError`."""
    if name in _COUNCILS:
        return True
    kind, sep, rounds = name.partition(":")
    if kind == "debate" and sep:
        parse_rounds(rounds)
        return True
    return False


def build_mode(name: str, settings: Settings, caller: Caller) -> Council | JuryCouncil | MultiRoundDebate | None:
    """The mode subject ``name`` on the configured members and chairman, or ``None`` (no mode)."""
    if not is_mode(name):
        return None
    members = list(settings.models)
    if name in _COUNCILS:
        return _COUNCILS[name](members, settings.role_spec("chairman"), caller, settings)
    return MultiRoundDebate(members, parse_rounds(name.partition(":")[2]), caller, settings)
