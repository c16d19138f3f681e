"""The registry of subjects a case can be run through."""

from __future__ import annotations

from typing import Protocol

from harness.config import Settings
from harness.council.baseline import Baseline
from harness.council.calls import Caller
from harness.council.stages import Council
from harness.errors import ConfigError
from harness.transcript import Transcript


class Subject(Protocol):
    """Anything that answers a query with a :class:`Transcript`."""

    name: str

    async def answer(self, query: str) -> Transcript: ...


def _council(settings: Settings, caller: Caller) -> Subject:
    return Council(list(settings.models), settings.role_spec("chairman"), caller, settings)


def _baseline(settings: Settings, caller: Caller) -> Subject:
    return Baseline(settings.role_spec("baseline"), caller, settings)


def _voting(settings: Settings, caller: Caller) -> Subject:
    from harness.council.voting import VotingCouncil

    return VotingCouncil(list(settings.models), caller, settings)


def _llm_council(settings: Settings, caller: Caller) -> Subject:
    from harness.council.external import LLMCouncilConfig, LLMCouncilSubject, require_package

    require_package()
    return LLMCouncilSubject(LLMCouncilConfig.from_settings(settings))


BUILDERS = {
    "council": _council,
    "baseline": _baseline,
    "voting": _voting,
    "llm-council": _llm_council,
}


def build_subject(name: str, settings: Settings, caller: Caller) -> Subject:
    """Build a subject by name; an unknown name is a :class:`ConfigError` listing the valid ones."""
    if name not in BUILDERS:
        raise ConfigError(f"unknown subject '{name}'; expected one of {sorted(BUILDERS)}", "--subjects")
    return BUILDERS[name](settings, caller)


def parse_subjects(value: str | None) -> list[str]:
    """``"council,baseline"`` -> ``["council", "baseline"]``, validated."""
    names = [n.strip() for n in (value or "council,baseline").split(",") if n.strip()]
    if not names:
        raise ConfigError("expected a comma-separated list of subjects", "--subjects")
    for n in names:
        if n not in BUILDERS:
            raise ConfigError(f"unknown subject '{n}'; expected one of {sorted(BUILDERS)}", "--subjects")
    return list(dict.fromkeys(names))
