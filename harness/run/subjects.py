"""The registry of subjects a case can be run through.

Plain names (``council``, ``baseline``, ``voting``, ``llm-council``, ``vote``, ``chairman``) and
parameterised arms ``<kind>:<model>`` (see :mod:`harness.council.arms`):

* ``solo:<model>`` and ``self-consistency:<model>`` take any configured model (:func:`arm_spec`): a
  council member (by id, then by model name, as :meth:`Settings.find_member`), else the chairman or
  the baseline model (by its configured name or model, or the words ``chairman`` / ``baseline``),
  with that role's spec (:meth:`Settings.role_spec`) — so self-consistency of a single-model
  baseline outside the council is an arm (issue 28);
* ``council-without:<member>`` takes a council member only (the council minus that member).
"""

from __future__ import annotations

from typing import Literal, Protocol

from harness.common.errors import ConfigError
from harness.config import MemberSpec, Settings
from harness.council.arms import SelfConsistency, StageOneVote, TokenBoard, council_without
from harness.council.modes import MODES, build_mode, is_mode
from harness.council.single_model import Baseline
from harness.council.stages import Council
from harness.providers.calls import Caller
from harness.records.transcript import Transcript


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


def _vote(settings: Settings, caller: Caller) -> Subject:
    return StageOneVote(list(settings.models), caller, settings)


def _chairman(settings: Settings, caller: Caller) -> Subject:
    baseline = Baseline(settings.role_spec("chairman"), caller, settings)
    baseline.name = "chairman"
    return baseline


def _solo(settings: Settings, caller: Caller, member: MemberSpec, board: TokenBoard) -> Subject:
    baseline = Baseline(member, caller, settings)
    baseline.name = f"solo:{member.id}"
    return baseline


def _self_consistency(settings: Settings, caller: Caller, member: MemberSpec, board: TokenBoard) -> Subject:
    return SelfConsistency(member, caller, settings, board)


def _without(settings: Settings, caller: Caller, member: MemberSpec, board: TokenBoard) -> Subject:
    if len(settings.models) < 2:
        raise ConfigError(f"council-without:{member.id} needs a council of at least 2 members", "--subjects")
    return council_without(settings, caller, member.id)


BUILDERS = {
    "council": _council,
    "baseline": _baseline,
    "voting": _voting,
    "llm-council": _llm_council,
    "vote": _vote,
    "chairman": _chairman,
}
#: ``<kind>:<member>`` arms
MEMBER_ARMS = {
    "solo": _solo,
    "self-consistency": _self_consistency,
    "council-without": _without,
}


#: arms that take any configured model (the others take a council member only)
ANY_MODEL_ARMS = frozenset({"solo", "self-consistency"})
_ROLES: tuple[Literal["chairman", "baseline"], ...] = ("chairman", "baseline")


def _choices() -> str:
    return ", ".join(
        [*sorted(BUILDERS), *(f"{k}:<{'model' if k in ANY_MODEL_ARMS else 'member'}>" for k in MEMBER_ARMS), *MODES]
    )


def arm_spec(settings: Settings, name: str) -> MemberSpec | None:
    """The configured model ``name`` names for ``solo:`` / ``self-consistency:`` (module docstring)."""
    found = settings.find_member(name)
    if found is not None:
        return found
    for role in _ROLES:
        spec = settings.role_spec(role)
        if name in (role, spec.id, spec.model):
            return spec
    return None


def _configured(settings: Settings) -> str:
    names = [m.id for m in settings.models]
    for role in _ROLES:
        spec = settings.role_spec(role)
        if settings.find_member(spec.id) is None and spec.id not in names:
            names.append(spec.id)
    return ", ".join(names)


def _member_arm(name: str, settings: Settings | None) -> tuple[str, MemberSpec | None]:
    """``(kind, spec)`` of ``<kind>:<model>``; the spec is ``None`` without settings."""
    kind, _, member = name.partition(":")
    if kind not in MEMBER_ARMS or not member:
        raise ConfigError(f"unknown subject '{name}'; expected one of {_choices()}", "--subjects")
    if settings is None:
        return kind, None
    if kind in ANY_MODEL_ARMS:
        spec = arm_spec(settings, member)
        if spec is None:
            raise ConfigError(
                f"subject '{name}': '{member}' is no configured model; expected a member, the "
                f"chairman or the baseline model: one of {_configured(settings)}",
                "--subjects",
            )
        return kind, spec
    spec = next((m for m in settings.models if m.id == member), None)
    if spec is None:
        raise ConfigError(
            f"subject '{name}': '{member}' is not a council member; expected one of "
            f"{', '.join(m.id for m in settings.models)}",
            "--subjects",
        )
    return kind, spec


def validate_subject(name: str, settings: Settings | None = None) -> None:
    """Raise :class:`ConfigError` for a name that is no subject (or names no model ``settings`` configures)."""
    if name not in BUILDERS and not is_mode(name):
        _member_arm(name, settings)


def build_subject(name: str, settings: Settings, caller: Caller, board: TokenBoard | None = None) -> Subject:
    """Build a subject by name; an unknown name is a :class:`ConfigError` listing the valid ones.

    ``board`` carries the council's tokens per case to ``self-consistency:<member>`` (no board: the
    configured ``self_consistency_samples``).
    """
    if name in BUILDERS:
        return BUILDERS[name](settings, caller)
    mode = build_mode(name, settings, caller)  # council modes (issue 29): harness.council.modes
    if mode is not None:
        return mode
    kind, spec = _member_arm(name, settings)
    assert spec is not None
    subject = MEMBER_ARMS[kind](settings, caller, spec, board or TokenBoard(council_runs=False))
    subject.name = name  # as asked (``solo:m-a`` stays so even though it names member ``a``)
    return subject


def parse_subjects(value: str | None) -> list[str]:
    """``"council,baseline"`` -> ``["council", "baseline"]``, validated."""
    names = [n.strip() for n in (value or "council,baseline").split(",") if n.strip()]
    if not names:
        raise ConfigError("expected a comma-separated list of subjects", "--subjects")
    for n in names:
        validate_subject(n)
    return list(dict.fromkeys(names))
