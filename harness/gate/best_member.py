"""The best single member (issue 15): chosen on a declared selection split, reported on the other cases.

Picking the member that scored best on the very cases it is then compared on flatters the single
model (a winner's-curse bias), so the choice is never made on the evaluated cases:

* **Declared split**: the cases whose ``tags`` include ``selection_tag`` (config key, default
  ``selection``; a dataset declares its split by tagging cases). The **evaluation cases** are all the others.
* **Candidates**: the run's ``solo:<member>`` subjects.
* **Rule** (:func:`best_member`): per candidate, the mean primary-endpoint score over the selection
  cases it was scored on; the highest mean wins, ties go to the member first in alphabetical order;
  a candidate with no scored selection case is not eligible.
* **The ``best-solo`` arm** (:func:`best_solo_results`): the winner's results on the evaluation cases
  only, relabelled ``best-solo``; its verdict against the council is then computed like every other
  arm's (:mod:`harness.gate.arm_verdicts`), so it pairs with the council on the evaluation cases only.
* **No split** (no case carries the tag, or no evaluation case is left): no member is chosen and there
  is no ``best-solo`` arm; every member is reported on its own (its ``solo:<member>`` row, and its
  mean over all cases here).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.common.model import Frozen
from harness.run.result import CaseResult

BEST = "best-solo"


class MemberScore(Frozen):
    """One candidate's mean primary score on a set of cases (``None`` when it has none scored)."""

    member: str
    mean: float | None
    n: int


class BestMember(Frozen):
    """How the best single member was chosen, or why none was.

    Args:
        tag: the selection tag; family: the primary endpoint.
        selection_cases, evaluation_cases: how many cases are in the split and outside it.
        chosen: the winning member (``None``: no split declared, or no eligible candidate).
        selection: per candidate, its mean on the selection cases (chosen by this).
        evaluation: per candidate, its mean on the evaluation cases (without a split: on every case).
        sentence: the choice in words.
    """

    tag: str | None
    family: str
    selection_cases: int
    evaluation_cases: int
    chosen: str | None
    selection: tuple[MemberScore, ...]
    evaluation: tuple[MemberScore, ...]
    sentence: str


def _key(r: CaseResult) -> str:
    return f"{r.dataset}::{r.case_id}"


def _score(results: Sequence[CaseResult], subject: str, family: str, keys: set[str]) -> MemberScore:
    xs = [
        r.scores[family]
        for r in results
        if r.subject == subject and _key(r) in keys and family in r.scores and math.isfinite(r.scores[family])
    ]
    return MemberScore(member=subject.partition(":")[2], mean=sum(xs) / len(xs) if xs else None, n=len(xs))


def best_member(results: Sequence[CaseResult], family: str, tag: str | None) -> BestMember | None:
    """The choice (see the module docstring); ``None`` when the run has no ``solo:<member>`` subject."""
    solos = sorted({r.subject for r in results if r.subject.startswith("solo:")})
    if not solos:
        return None
    keys = {_key(r) for r in results}
    chosen_on = {_key(r) for r in results if tag is not None and tag in r.tags}
    held_out = keys - chosen_on
    if not chosen_on or not held_out:
        per = tuple(_score(results, s, family, keys) for s in solos)
        why = (
            f"no case is tagged '{tag}'"
            if tag and not chosen_on
            else f"every case is tagged '{tag}', none is left to evaluate on"
            if tag
            else "no selection tag is set"
        )
        return BestMember(
            tag=tag,
            family=family,
            selection_cases=len(chosen_on),
            evaluation_cases=len(held_out),
            chosen=None,
            selection=(),
            evaluation=per,
            sentence=f"best single member: not chosen ({why}); each member is reported on its own",
        )
    selection = tuple(_score(results, s, family, chosen_on) for s in solos)
    evaluation = tuple(_score(results, s, family, held_out) for s in solos)
    eligible = [m for m in selection if m.mean is not None]
    if not eligible:
        return BestMember(
            tag=tag,
            family=family,
            selection_cases=len(chosen_on),
            evaluation_cases=len(held_out),
            chosen=None,
            selection=selection,
            evaluation=evaluation,
            sentence=f"best single member: not chosen (no member was scored on {family} "
            f"on the {len(chosen_on)} case(s) tagged '{tag}')",
        )
    top = max(m.mean for m in eligible if m.mean is not None)
    win = next(m for m in eligible if m.mean == top)  # solos are sorted: ties go to the first alphabetically
    ev = next(m for m in evaluation if m.member == win.member)
    ev_words = f"{ev.mean:.3f} (n={ev.n})" if ev.mean is not None else "not scored"
    return BestMember(
        tag=tag,
        family=family,
        selection_cases=len(chosen_on),
        evaluation_cases=len(held_out),
        chosen=win.member,
        selection=selection,
        evaluation=evaluation,
        sentence=(
            f"best single member: {win.member}, chosen on the {len(chosen_on)} case(s) tagged '{tag}' "
            f"(mean {family} {top:.3f}); reported as {BEST} on the other {len(held_out)} case(s): {ev_words}"
        ),
    )


def best_solo_results(results: Sequence[CaseResult], choice: BestMember | None) -> list[CaseResult]:
    """The chosen member's results on the evaluation cases, relabelled ``best-solo`` (empty without a choice)."""
    if choice is None or choice.chosen is None or choice.tag is None:
        return []
    return [
        r.model_copy(update={"subject": BEST})
        for r in results
        if r.subject == f"solo:{choice.chosen}" and choice.tag not in r.tags
    ]


def best_member_summary(choice: BestMember | None) -> dict[str, object] | None:
    """The ``"best_member"`` entry of summary.json's ``"arms"`` section."""
    return None if choice is None else dict(choice.model_dump(mode="json"))
