"""``council:tie-breaker`` (llm-council-core's ``VerdictType.TIE_BREAKER``): the plain council, except
when stage 2 is deadlocked; then the chairman breaks the tie with an explicit rationale.

**Deadlock**, in this order: ``tie`` — two or more members share the highest aggregate Borda score
(those members are the candidates); else ``low_css`` — the stage-2 Consensus Strength Score
(:func:`harness.metrics.tier1.consensus_strength_score`) is below ``settings.tie_break_css`` (default
0.50, seed 000's "significant disagreement"; the candidates are the top two). Otherwise (``none``) the
plain synthesis is the answer.

On a deadlock the chairman sees the candidates' answers under their labels and replies to a JSON schema
with a ``rationale`` and a ``pick`` among the candidates' labels; **the picked answer is the final
answer** (no synthesis: one stage-3 call either way). An unreadable pick falls back to the first
candidate, with an error noted. The trigger, CSS, candidates, pick and rationale are in
:class:`~harness.records.mode_types.TieBreakRecord`.
"""

from __future__ import annotations

from harness.common.jsonscan import first_json_object
from harness.council.modes.prompts import tie_break_messages, tie_break_schema
from harness.council.prompts import synthesis_messages
from harness.council.stages import Council, Deliberation
from harness.metrics.tier1 import consensus_strength_score
from harness.records.mode_types import TieBreakRecord
from harness.records.transcript import Transcript

#: two Borda means closer than this are tied
TIE_EPSILON = 1e-9


def deadlock(d: Deliberation, band: float) -> tuple[str, float, tuple[str, ...]]:
    """``(trigger, css, candidates)`` of stage 2 (module docstring)."""
    voted = [r for r in d.aggregate if r.votes > 0]
    css = consensus_strength_score((r.member, r.average_position) for r in d.aggregate)
    if len(voted) < 2:
        return "none", css, ()
    top = [r.member for r in voted if abs(r.borda - voted[0].borda) <= TIE_EPSILON]
    if len(top) >= 2:
        return "tie", css, tuple(top)
    if css < band:
        return "low_css", css, (voted[0].member, voted[1].member)
    return "none", css, ()


class TieBreakerCouncil(Council):
    """The council whose chairman breaks stage-2 deadlocks (module docstring)."""

    name = "council:tie-breaker"

    async def conclude(self, query: str, d: Deliberation, started: float) -> Transcript:
        band = self.settings.tie_break_css
        trigger, css, candidates = deadlock(d, band)
        if trigger == "none":
            synthesis, records, errors = await self.synthesize(query, d, synthesis_messages(query, d.ranked))
            return self.transcript(
                query,
                d,
                started,
                synthesis=synthesis,
                calls=records,
                errors=errors,
                mode=TieBreakRecord(css=css, band=band, trigger="none"),
            )
        member_label = {m: lab for lab, m in d.label_to_member.items()}
        labels = [member_label[m] for m in candidates]
        texts = {member_label[a.member]: a.text for a in d.ok if a.member in candidates}
        why = (
            "the top answers have equal peer scores"
            if trigger == "tie"
            else f"consensus strength {css:.2f} is below {band:.2f}"
        )
        reply, records, errors = await self.synthesize(
            query, d, tie_break_messages(query, labels, texts, why), json_schema=tie_break_schema(labels)
        )
        found = first_json_object(reply or "")
        obj = found[2] if found else {}
        pick_label = obj.get("pick") if obj.get("pick") in labels else None
        raw = obj.get("rationale")
        rationale = raw if isinstance(raw, str) else ""
        if pick_label is None:
            errors.append(f"stage3 {self.chairman.id}: no readable tie-break pick; the first candidate is kept")
            pick_label = labels[0]
        pick = d.label_to_member[pick_label]
        record = TieBreakRecord(
            css=css,
            band=band,
            trigger=trigger,  # type: ignore[arg-type]
            candidates=candidates,
            pick=pick,
            rationale=rationale.strip(),
        )
        return self.transcript(
            query, d, started, synthesis=None, calls=records, errors=errors, final=texts[pick_label], mode=record
        )
