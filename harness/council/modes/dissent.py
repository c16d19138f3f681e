"""``council+dissent`` (seed 000: "consider ``include_dissent=true``" at CSS 0.50-0.69): the plain
council plus the minority views of stage 2, which the chairman weighs in stage 3.

A reviewer **dissents** when the answer it ranked first, its own answer left out (as the aggregate
leaves self-votes out), is not the aggregate's best among the answers other than its own (so the
winner's own reviewer, which cannot vote for itself, dissents only when it prefers another than the
runner-up). This is the ranking form of llm-council-core's
``dissent.py`` (a reviewer whose score of a response lies below the median by 1.5 standard deviations):
the native council's ballots are rankings, and with three reviewers a standard-deviation rule would
never fire. Each minority view carries the reviewer's critique (its free text).

Stage 3 is the plain synthesis prompt with the minority-views section added before the ranked answers
(so the mode is a treatment the scores can tell apart, not only a display); with no dissent the prompt,
and so the reply, is exactly the plain council's. The final answer is the synthesis; the section is in
:class:`~harness.records.mode_types.DissentRecord` and the report.
"""

from __future__ import annotations

from harness.council.modes.prompts import dissent_section, dissent_synthesis_messages
from harness.council.prompts import synthesis_messages
from harness.council.stages import Council, Deliberation
from harness.records.mode_types import DissentRecord, MinorityView
from harness.records.transcript import Transcript


def minority_views(d: Deliberation) -> tuple[MinorityView, ...]:
    """The reviewers who ranked against the aggregate (module docstring), in review order."""
    out = []
    for review in d.reviews:
        if not review.ok or review.ballot.abstained:
            continue
        winner = next((r.member for r in d.aggregate if r.votes > 0 and r.member != review.reviewer), None)
        ranked = [d.label_to_member[lab] for lab in review.ballot.ranking if lab in d.label_to_member]
        first = next((m for m in ranked if m != review.reviewer), None)
        if winner is not None and first is not None and first != winner:
            out.append(
                MinorityView(
                    reviewer=review.reviewer,
                    preferred=first,
                    aggregate_winner=winner,
                    critique=(review.ballot.critique or review.raw_text).strip()[:600],
                )
            )
    return tuple(out)


class DissentCouncil(Council):
    """The council with a minority-views section (module docstring)."""

    name = "council+dissent"

    async def conclude(self, query: str, d: Deliberation, started: float) -> Transcript:
        views = minority_views(d)
        ranked = d.ranked
        rank_of = {m: i + 1 for i, (m, _) in enumerate(ranked)}
        section = dissent_section([(v.reviewer, str(rank_of.get(v.preferred, "?")), v.critique) for v in views])
        messages = dissent_synthesis_messages(query, ranked, section) if views else synthesis_messages(query, ranked)
        synthesis, records, errors = await self.synthesize(query, d, messages)
        return self.transcript(
            query,
            d,
            started,
            synthesis=synthesis,
            calls=records,
            errors=errors,
            mode=DissentRecord(minority=views, section=section if views else ""),
        )
