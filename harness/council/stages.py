"""The native three-stage council: answer, anonymized peer review, chairman synthesis."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Sequence
from typing import Any

from harness.common.model import Frozen
from harness.config import MemberSpec, Settings
from harness.council.ballots import probability_review
from harness.council.prompts import (
    answer_messages,
    ballot_schema,
    review_messages,
    synthesis_messages,
)
from harness.council.ranking import (
    aggregate_rankings,
    label_assignment,
    labels_for,
    parse_ballot,
    presentation_order,
    relabel_ballot,
)
from harness.providers.calls import Caller, CallResult
from harness.records.mode_types import ModeRecord
from harness.records.transcript import AggregateRank, Answer, Ballot, CallRecord, Message, Review, Transcript


def review_seed(base_seed: int, query: str, reviewer: str) -> int:
    """The recorded shuffle seed of one reviewer for one query (stable across runs)."""
    digest = hashlib.sha256(f"{base_seed}|{query}|{reviewer}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


class Deliberation(Frozen):
    """Stages 1 and 2 of one query, before the chairman (what every council mode shares).

    Args:
        answers: stage-1 answers (failed members included, with ``error``).
        label_to_member: anonymized label -> member, over the members with an answer.
        reviews: stage-2 reviews; aggregate: the aggregate rankings, best first.
        calls, errors: the records and the non-fatal errors of stages 1 and 2.
    """

    answers: tuple[Answer, ...]
    label_to_member: dict[str, str]
    reviews: tuple[Review, ...]
    aggregate: tuple[AggregateRank, ...]
    calls: tuple[CallRecord, ...]
    errors: tuple[str, ...]

    @property
    def ok(self) -> list[Answer]:
        return [a for a in self.answers if a.ok]

    @property
    def ranked(self) -> list[tuple[str, str]]:
        """``(member, answer text)`` in aggregate order."""
        return [(r.member, next(a.text for a in self.ok if a.member == r.member)) for r in self.aggregate]


class Council:
    """The three-stage council subject.

    Args:
        members: the council members (stage 1 and stage 2).
        chairman: the model that writes the stage-3 synthesis.
        caller: routes calls to providers.
        settings: token limits, seeds, rubric switch.
    """

    name = "council"

    def __init__(self, members: list[MemberSpec], chairman: MemberSpec, caller: Caller, settings: Settings) -> None:
        self.members = members
        self.chairman = chairman
        self.caller = caller
        self.settings = settings

    async def answer(self, query: str) -> Transcript:
        started = time.perf_counter()
        return await self.conclude(query, await self.deliberate(query), started)

    async def deliberate(self, query: str) -> Deliberation:
        """Stages 1 and 2: the members' answers, their anonymized peer reviews and the aggregate."""
        records: list[CallRecord] = []
        errors: list[str] = []

        # Stage 1: every member answers (in parallel; a failed member is recorded and left out).
        results = await asyncio.gather(
            *(
                self.caller.call(
                    m, "stage1", answer_messages(query, m.system_prompt), max_tokens=self.settings.answer_max_tokens
                )
                for m in self.members
            )
        )
        answers = []
        for member, res in zip(self.members, results, strict=True):
            records.append(res.record)
            if res.completion is None:
                errors.append(f"stage1 {member.id}: {res.error}")
            elif not res.completion.text.strip():
                errors.append(f"stage1 {member.id}: empty answer")
                answers.append(Answer(member=member.id, model=member.model, text="", error="empty answer"))
                continue
            answers.append(
                Answer(
                    member=member.id,
                    model=member.model,
                    text=res.completion.text.strip() if res.completion else "",
                    error=None if res.completion else res.error,
                )
            )
        ok = [a for a in answers if a.ok]
        labels = labels_for(len(ok))
        label_to_member = dict(zip(labels, (a.member for a in ok), strict=True))
        texts = dict(zip(labels, (a.text for a in ok), strict=True))

        # Stage 2: each member with an answer reviews all answers, anonymized under its own labels
        # and shuffled; embedded reviewers give probability ballots (both orders), others JSON.
        reviews: list[Review] = []
        if len(ok) >= 2:
            reviewers = [m for m in self.members if any(a.member == m.id for a in ok)]
            seeds = [review_seed(self.settings.seed, query, m.id) for m in reviewers]
            done = await asyncio.gather(
                *(
                    self._review_one(m, query, presentation_order(labels, s), texts, label_assignment(labels, s), s)
                    for m, s in zip(reviewers, seeds, strict=True)
                )
            )
            for m, (review, calls) in zip(reviewers, done, strict=True):
                records.extend(calls)
                reviews.append(review)
                if review.error:
                    errors.append(f"stage2 {m.id}: {review.error}")
                elif review.ballot.abstained:
                    errors.append(f"stage2 {m.id}: no usable ranking (abstained)")
        aggregate = aggregate_rankings(reviews, label_to_member, [a.member for a in ok])
        return Deliberation(
            answers=tuple(answers),
            label_to_member=label_to_member,
            reviews=tuple(reviews),
            aggregate=tuple(aggregate),
            calls=tuple(records),
            errors=tuple(errors),
        )

    async def conclude(self, query: str, d: Deliberation, started: float) -> Transcript:
        """Stage 3: the chairman synthesizes from the ranked answers (a mode overrides this)."""
        synthesis, records, errors = await self.synthesize(query, d, synthesis_messages(query, d.ranked))
        return self.transcript(query, d, started, synthesis=synthesis, calls=records, errors=errors)

    async def synthesize(
        self,
        query: str,
        d: Deliberation,
        messages: list[Message],
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> tuple[str | None, list[CallRecord], list[str]]:
        """One stage-3 call of the chairman (cap: ``max_tokens``, else the synthesis cap):
        ``(text or None, its records, errors)``."""
        if not d.ok:
            return None, [], ["stage1: no member produced an answer"]
        res = await self.caller.call(
            self.chairman,
            "stage3",
            messages,
            max_tokens=max_tokens or self.settings.synthesis_cap,
            temperature=min(self.chairman.temperature, 0.3),
            json_schema=json_schema,
        )
        if res.completion is not None and res.completion.text.strip():
            return res.completion.text.strip(), [res.record], []
        return None, [res.record], [f"stage3 {self.chairman.id}: {res.error or 'empty synthesis'}"]

    def transcript(
        self,
        query: str,
        d: Deliberation,
        started: float,
        *,
        synthesis: str | None,
        calls: Sequence[CallRecord] = (),
        errors: Sequence[str] = (),
        final: str | None = None,
        mode: ModeRecord | None = None,
    ) -> Transcript:
        """The transcript of stages 1-3; ``final`` defaults to the synthesis, else the top-ranked answer."""
        ranked = d.ranked
        if final is None:
            final = synthesis if synthesis is not None else (ranked[0][1] if ranked else "")
        return Transcript(
            subject=self.name,
            query=query,
            answers=d.answers,
            label_to_member=d.label_to_member,
            reviews=d.reviews,
            aggregate=d.aggregate,
            synthesis=synthesis,
            final_answer=final,
            chairman=self.chairman.id,
            calls=(*d.calls, *calls),
            errors=(*d.errors, *errors),
            duration_s=time.perf_counter() - started,
            mode=mode,
        )

    async def _review_one(
        self,
        m: MemberSpec,
        query: str,
        order: tuple[str, ...],
        texts: dict[str, str],
        shown: dict[str, str],
        seed: int,
    ) -> tuple[Review, list[CallRecord]]:
        """One reviewer's review: a probability ballot when its probabilities can be read (and no
        peer rubric is asked for), else a JSON-schema-constrained ballot in its own labels."""
        if self.caller.can_probe(m) and not self.settings.peer_rubric:
            return await probability_review(
                self.caller, m, query, order, texts, shown, seed, self.settings.critique_max_tokens
            )
        shown_labels = sorted(shown.values())
        res = await self.caller.call(
            m,
            "stage2",
            review_messages(
                query,
                [shown[lab] for lab in order],
                {shown[lab]: t for lab, t in texts.items()},
                self.settings.peer_rubric,
            ),
            max_tokens=self.settings.review_max_tokens,
            json_schema=ballot_schema(shown_labels, self.settings.peer_rubric),
            temperature=min(m.temperature, 0.3),
        )
        return self._review(m, order, seed, res, shown), [res.record]

    @staticmethod
    def _review(m: MemberSpec, order: tuple[str, ...], seed: int, res: CallResult, shown: dict[str, str]) -> Review:
        if res.completion is None:
            return Review(
                reviewer=m.id,
                model=m.model,
                raw_text="",
                ballot=Ballot(abstained=True),
                presentation_order=order,
                shuffle_seed=seed,
                error=res.error,
                shown_labels=shown,
            )
        text = res.completion.text
        ballot = relabel_ballot(parse_ballot(text, sorted(shown.values())), shown)
        return Review(
            reviewer=m.id,
            model=m.model,
            raw_text=text,
            ballot=ballot,
            presentation_order=order,
            shuffle_seed=seed,
            shown_labels=shown,
        )
