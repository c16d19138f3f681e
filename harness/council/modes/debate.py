"""``council:debate`` (seed 000: "use ``verdict_type="debate"``" below CSS 0.50): stages 1 and 2 as the
plain council; in stage 3 the chairman lays out the competing positions — what each claims, which
anonymous responses hold it, and why — then declares a pick.

The chairman replies to a JSON schema (:func:`~harness.council.modes.prompts.debate_schema`) with a
cap of ``synthesis_cap + review_max_tokens`` (the positions come before the pick, so the synthesis cap
alone truncated the embedded chairman's verdicts); the labels it names are mapped back to members.

**The final answer scored**, in this order: the answer of the response the pick names, when the pick
is a response label ("Response B"); else the declared pick as written; else, when the reply holds no
readable verdict with a pick, the top-ranked answer of stage 2 (as the plain council falls back when
its synthesis fails), with an error noted and ``parsed=False``. The positions, the pick and the
rationale are in :class:`~harness.records.mode_types.DebateVerdict`.
"""

from __future__ import annotations

from harness.common.jsonscan import first_json_object
from harness.council.modes.prompts import debate_messages, debate_schema
from harness.council.stages import Council, Deliberation
from harness.records.mode_types import DebateVerdict, Position
from harness.records.transcript import Transcript


def read_verdict(text: str, label_to_member: dict[str, str]) -> DebateVerdict:
    """The :class:`DebateVerdict` in the chairman's reply (see the module docstring)."""
    found = first_json_object(text)
    obj = found[2] if found else {}
    pick = obj.get("pick")
    if not isinstance(pick, str) or not pick.strip():
        return DebateVerdict(pick=text.strip(), parsed=False)
    positions = []
    for p in obj.get("positions") or []:
        if not isinstance(p, dict) or not isinstance(p.get("position"), str):
            continue
        held = [label_to_member[h] for h in p.get("held_by") or [] if isinstance(h, str) and h in label_to_member]
        why = p.get("why")
        positions.append(
            Position(
                position=p["position"].strip(),
                held_by=tuple(dict.fromkeys(held)),
                why=why.strip() if isinstance(why, str) else "",
            )
        )
    rationale = obj.get("rationale")
    label = next((lab for lab in label_to_member if lab.lower() == pick.strip().rstrip(".").lower()), None)
    return DebateVerdict(
        positions=tuple(positions),
        pick=pick.strip(),
        pick_member=label_to_member[label] if label is not None else None,
        rationale=rationale.strip() if isinstance(rationale, str) else "",
    )


class DebateCouncil(Council):
    """The council whose chairman gives a debate verdict (module docstring)."""

    name = "council:debate"

    async def conclude(self, query: str, d: Deliberation, started: float) -> Transcript:
        labels = sorted(d.label_to_member)
        texts = {lab: next(a.text for a in d.ok if a.member == m) for lab, m in d.label_to_member.items()}
        reply, records, errors = await self.synthesize(
            query,
            d,
            debate_messages(query, labels, texts),
            json_schema=debate_schema(labels),
            max_tokens=self.settings.synthesis_cap + self.settings.review_max_tokens,
        )
        if reply is None:
            return self.transcript(query, d, started, synthesis=None, calls=records, errors=errors)
        verdict = read_verdict(reply, d.label_to_member)
        final: str | None = verdict.pick
        if verdict.pick_member is not None:
            final = next(a.text for a in d.ok if a.member == verdict.pick_member)
        elif not verdict.parsed:
            final = d.ranked[0][1] if d.ranked else ""
            errors.append(f"stage3 {self.chairman.id}: no readable debate verdict; the top-ranked answer is kept")
        return self.transcript(
            query, d, started, synthesis=reply, calls=records, errors=errors, final=final, mode=verdict
        )
