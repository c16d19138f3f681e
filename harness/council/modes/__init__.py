"""Council modes (issue 29): the native council's members, seeds, cache and ledger, with one stage changed.

Each mode is a subject (the names below); the rules of each are in its module's docstring:

* ``council:debate`` (:mod:`~harness.council.modes.debate`) — stage 3 lays out the competing positions
  and declares a pick (seed 000 / ADR-036: ``verdict_type="debate"``);
* ``council+dissent`` (:mod:`~harness.council.modes.dissent`) — the minority views of stage 2 given to
  the chairman and recorded (``include_dissent=true``);
* ``council:jury`` (:mod:`~harness.council.modes.jury`) — binary verdicts with confidence (ADR-025b);
* ``council:tie-breaker`` (:mod:`~harness.council.modes.tie_breaker`) — the chairman decides a deadlock;
* ``debate:<rounds>`` (:mod:`~harness.council.modes.multi_round`) — multi-round debate (Du et al. 2023);
* ``llm-council:debate`` and ``llm-council+dissent`` — the same two seed modes run by llm-council-core
  itself (its ``synthesis_mode: debate``, and ``run_full_council(include_dissent=True)``, whose dissent
  text is recorded as a :class:`~harness.records.mode_types.DissentRecord`);
* ``llm-council:jury`` and ``llm-council:tie-breaker`` (:mod:`~harness.council.modes.package_verdict`) —
  the package's own ``VerdictType.BINARY`` and ``TIE_BREAKER``, on boolean cases.

:func:`build_mode` builds one by name (``None`` for a name that is no mode); :func:`is_mode` says
whether a name is one (a malformed ``debate:<rounds>`` is a :class:`~harness.common.errors.ConfigError`,
and so is an ``llm-council`` mode the package does not offer, naming the ones it does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from harness.common.errors import ConfigError
from harness.config import Settings
from harness.council.modes.debate import DebateCouncil
from harness.council.modes.dissent import DissentCouncil, minority_views
from harness.council.modes.jury import JuryCouncil, JuryRefused, jury_options, tally
from harness.council.modes.multi_round import MultiRoundDebate, parse_rounds
from harness.council.modes.package_verdict import PACKAGE_VERDICTS, PackageVerdictRefused, PackageVerdictSubject
from harness.council.modes.tie_breaker import TieBreakerCouncil, deadlock
from harness.council.stages import Council
from harness.providers.calls import Caller

if TYPE_CHECKING:
    from harness.council.external import LLMCouncilSubject

__all__ = [
    "EXTERNAL",
    "MODES",
    "DebateCouncil",
    "DissentCouncil",
    "JuryCouncil",
    "JuryRefused",
    "MultiRoundDebate",
    "PackageVerdictRefused",
    "PackageVerdictSubject",
    "TieBreakerCouncil",
    "build_mode",
    "deadlock",
    "is_mode",
    "jury_options",
    "minority_views",
    "tally",
]

_COUNCILS: dict[str, Callable[..., Council | JuryCouncil]] = {
    "council:debate": DebateCouncil,
    "council+dissent": DissentCouncil,
    "council:jury": JuryCouncil,
    "council:tie-breaker": TieBreakerCouncil,
}
#: the modes llm-council-core itself offers (0.53), run through the ``llm-council`` subject
EXTERNAL = ("llm-council:debate", "llm-council+dissent", *PACKAGE_VERDICTS)
#: the mode names, ``debate:<rounds>`` last
MODES: tuple[str, ...] = (*_COUNCILS, *EXTERNAL, "debate:<rounds>")


def is_mode(name: str) -> bool:
    """Whether ``name`` is a council mode; ``debate:<R>`` with a bad R, or an ``llm-council`` mode the
    package does not offer, raises :class:`ConfigError`."""
    if name in _COUNCILS or name in EXTERNAL:
        return True
    if name.startswith(("llm-council:", "llm-council+")):
        raise ConfigError(
            f"subject '{name}': llm-council-core does not offer this mode; it offers synthesis_mode debate "
            "(llm-council:debate), include_dissent (llm-council+dissent) and the verdict types binary "
            "(llm-council:jury) and tie_breaker (llm-council:tie-breaker), and no multi-round debate: run "
            "the native council's modes (council:debate, council+dissent, council:jury, council:tie-breaker, "
            "debate:<rounds>) for the others",
            "--subjects",
        )
    kind, sep, rounds = name.partition(":")
    if kind == "debate" and sep:
        parse_rounds(rounds)
        return True
    return False


def _external(name: str, settings: Settings) -> LLMCouncilSubject | PackageVerdictSubject:
    from harness.council.external import LLMCouncilConfig, LLMCouncilSubject, require_package

    require_package()
    config = LLMCouncilConfig.from_settings(settings)
    if name == "llm-council:debate":
        config = config.model_copy(update={"synthesis_mode": "debate"})
    if name in PACKAGE_VERDICTS:
        config = config.model_copy(update={"verdict_type": PACKAGE_VERDICTS[name]})
        return PackageVerdictSubject(LLMCouncilSubject(config), name)
    subject = LLMCouncilSubject(config, include_dissent=name == "llm-council+dissent")
    subject.name = name
    return subject


def build_mode(
    name: str,
    settings: Settings,
    caller: Caller,
) -> Council | JuryCouncil | MultiRoundDebate | LLMCouncilSubject | PackageVerdictSubject | None:
    """The mode subject ``name`` on the configured members and chairman, or ``None`` (no mode)."""
    if not is_mode(name):
        return None
    if name in EXTERNAL:
        return _external(name, settings)
    members = list(settings.models)
    if name in _COUNCILS:
        return _COUNCILS[name](members, settings.role_spec("chairman"), caller, settings)
    return MultiRoundDebate(members, parse_rounds(name.partition(":")[2]), caller, settings)
