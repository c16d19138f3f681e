"""What a council mode (issue 29) recorded beside the plain council's transcript fields.

One record per mode, told apart by ``kind`` (:data:`ModeRecord`); each is stored on
:attr:`harness.records.transcript.Transcript.mode`. The rules that fill them are in
:mod:`harness.council.modes`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from harness.common.model import Frozen


class Position(Frozen):
    """One competing position the chairman laid out (``council:debate``).

    Args:
        position: the position in the chairman's words.
        held_by: the members holding it (mapped from the anonymous labels the chairman named).
        why: the chairman's account of why they hold it.
    """

    position: str
    held_by: tuple[str, ...] = ()
    why: str = ""


class DebateVerdict(Frozen):
    """``council:debate``: the positions, then the chairman's declared pick (the scored answer).

    Args:
        positions: the competing positions, as laid out.
        pick: the declared pick, as the chairman wrote it.
        pick_member: the member whose answer the pick names, when the pick is a response label
            ("Response B"): that answer is then the final answer.
        rationale: why the chairman picked it.
        parsed: whether the chairman's reply was a readable JSON verdict with a pick (else ``pick`` is
            its whole text and the top-ranked answer is the final answer).
    """

    kind: Literal["debate"] = "debate"
    positions: tuple[Position, ...] = ()
    pick: str
    pick_member: str | None = None
    rationale: str = ""
    parsed: bool = True


class MinorityView(Frozen):
    """One reviewer who ranked against the aggregate (``council+dissent``).

    Args:
        reviewer: the reviewing member; preferred: the member it ranked first (its own answer excluded);
        aggregate_winner: the aggregate's best member other than the reviewer; critique: what the reviewer said.
    """

    reviewer: str
    preferred: str
    aggregate_winner: str
    critique: str = ""


class DissentRecord(Frozen):
    """``council+dissent``: the minority views given to the chairman and shown beside the synthesis."""

    kind: Literal["dissent"] = "dissent"
    minority: tuple[MinorityView, ...] = ()
    section: str = ""


class JuryVote(Frozen):
    """One juror's binary verdict: ``value`` is one of the two options; ``confidence`` in [0, 1]."""

    member: str
    value: str | None
    confidence: float | None = None
    reason: str = ""
    error: str | None = None


class JuryRecord(Frozen):
    """``council:jury`` (ADR-025b): the votes, the majority verdict and its aggregated confidence.

    Args:
        options: the two values a juror may give (``yes``/``no``, or the case's two choice options).
        votes: every juror's vote.
        verdict: the majority value (``None``: no juror voted).
        counts: value -> jurors who gave it.
        confidence: the mean over voting jurors of P(verdict): a juror's confidence when it voted
            for the verdict, one minus it when against (a missing confidence counts as 0.5).
        tie_rule: how a tied count was decided ("" when the count was not tied).
    """

    kind: Literal["jury"] = "jury"
    options: tuple[str, str]
    votes: tuple[JuryVote, ...]
    verdict: str | None
    counts: dict[str, int] = {}
    confidence: float | None = None
    tie_rule: str = ""


class TieBreakRecord(Frozen):
    """``council:tie-breaker``: whether stage 2 was deadlocked, and the chairman's explicit decision.

    Args:
        css: the stage-2 Consensus Strength Score; band: the configured CSS below which the chairman decides.
        trigger: ``tie`` (the top aggregate Borda scores are equal), ``low_css`` (CSS below ``band``)
            or ``none`` (the plain council's synthesis was used).
        candidates: the members the chairman chose among.
        pick: the member chosen (its answer is the final answer); rationale: the chairman's reason.
    """

    kind: Literal["tie_break"] = "tie_break"
    css: float
    band: float
    trigger: Literal["tie", "low_css", "none"]
    candidates: tuple[str, ...] = ()
    pick: str | None = None
    rationale: str = ""


class RoundAnswer(Frozen):
    """One member's answer in one debate round; ``stated``: the answer it states, normalised
    (:func:`harness.metrics.stated.stated_value`; ``None`` when unreadable or the case has no ``expected:``)."""

    member: str
    text: str
    stated: str | None = None
    error: str | None = None


class DebateRound(Frozen):
    """One round of a multi-round debate: round 0 the first answers, then each revision."""

    round: int
    answers: tuple[RoundAnswer, ...]


class MultiRoundRecord(Frozen):
    """``debate:<rounds>`` (Du et al. 2023): the rounds and how the final answer was chosen.

    Args:
        rounds: the configured number of revision rounds.
        history: round 0 and every revision round.
        rule: ``majority`` of the last round's stated answers, or ``medoid`` (as
            :func:`harness.council.arms.select_answer`).
        votes: stated answer -> members giving it in the last round (``majority`` only).
        chosen: the member whose last answer is the final answer.
        changed: how many (member, round) revisions changed the stated answer of the round before.
    """

    kind: Literal["multi_round"] = "multi_round"
    rounds: int
    history: tuple[DebateRound, ...]
    rule: Literal["majority", "medoid"]
    votes: dict[str, int] = {}
    chosen: str
    changed: int = 0


class PackageVerdictRecord(Frozen):
    """``llm-council:jury`` / ``llm-council:tie-breaker``: llm-council-core's own ADR-025b verdict
    (``metadata["verdict"]`` of ``run_full_council``), and how the harness read it
    (:mod:`harness.council.modes.package_verdict`).

    Args:
        requested: the ``VerdictType`` asked for (``binary`` or ``tie_breaker``).
        effective: the one the package used (``binary`` escalates to ``tie_breaker`` on a deadlock:
            the top two Borda scores within 0.1).
        verdict: the verdict as the package gave it (``approved``/``rejected``; a tie-breaker may give
            another word); ``None`` when the package could not parse its chairman's reply.
        answer: the case's option it stands for (``approved`` -> ``yes``, ``rejected`` -> ``no``), else ``None``.
        confidence, rationale: the chairman's, as the package parsed them.
        deadlocked: the package's flag (a tie-breaker verdict, or a binary one escalated).
        borda_spread: the package's spread between its highest and lowest Borda scores.
    """

    kind: Literal["package_verdict"] = "package_verdict"
    requested: Literal["binary", "tie_breaker"]
    effective: str
    verdict: str | None = None
    answer: str | None = None
    confidence: float | None = None
    rationale: str = ""
    deadlocked: bool = False
    borda_spread: float | None = None


ModeRecord = Annotated[
    DebateVerdict | DissentRecord | JuryRecord | TieBreakRecord | MultiRoundRecord | PackageVerdictRecord,
    Field(discriminator="kind"),
]
