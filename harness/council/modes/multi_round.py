"""``debate:<rounds>``: multi-round debate of the council members (Du et al. 2023, "Improving Factuality
and Reasoning in Language Models through Multiagent Debate").

1. **Round 0**: every member answers the question (stage ``stage1``, the council's own stage-1 prompt and
   cap, so the record/replay cache shares these calls with the plain council).
2. **Rounds 1..R**: every member sees its own last answer as its turn, then the other members' last
   answers (delimited as data), and gives an updated answer (stage ``debate``, the final-answer cap).
   A member whose revision fails keeps its last answer.
3. **Aggregation: the majority** of the last round's answers by
   :func:`harness.council.arms.select_answer` — the most frequent stated answer, read from each answer
   alone (never from the answer key); the medoid where nothing is stated (no ``expected:``, ``python``)
   — as self-consistency chooses, so the two differ only in how the candidates were produced. No
   chairman synthesis: Du et al. score the final round's majority.

The rounds, the stated answers, the votes and how many revisions changed a stated answer are in
:class:`~harness.records.mode_types.MultiRoundRecord`. Every call is in the transcript, so the usage
ledger and the quality-per-cost chart place the debate beside self-consistency.
"""

from __future__ import annotations

import asyncio
import time

from harness.common.errors import ConfigError
from harness.config import MemberSpec, Settings
from harness.council.arms import select_answer
from harness.council.modes.prompts import revision_messages
from harness.council.prompts import answer_messages
from harness.data.cases import Case
from harness.metrics.stated import stated_value
from harness.providers.calls import Caller, CallResult
from harness.records.mode_types import DebateRound, MultiRoundRecord, RoundAnswer
from harness.records.transcript import Answer, CallRecord, Transcript

MAX_ROUNDS = 10


def parse_rounds(text: str) -> int:
    """``debate:<rounds>``'s R: an integer from 1 to :data:`MAX_ROUNDS`, else :class:`ConfigError`."""
    if not text.isdigit() or not 1 <= int(text) <= MAX_ROUNDS:
        raise ConfigError(f"subject 'debate:{text}': expected a number of rounds from 1 to {MAX_ROUNDS}", "--subjects")
    return int(text)


class MultiRoundDebate:
    """R rounds of revise-after-reading-others, then the majority (module docstring).

    Args:
        members: the debaters (the council members); rounds: R; caller, settings: as the council's.
    """

    def __init__(self, members: list[MemberSpec], rounds: int, caller: Caller, settings: Settings) -> None:
        self.members = members
        self.rounds = rounds
        self.caller = caller
        self.settings = settings
        self.name = f"debate:{rounds}"

    async def answer(self, query: str) -> Transcript:
        return await self._answer(query, None)

    async def answer_case(self, case: Case) -> Transcript:
        return await self._answer(case.query, case)

    def _round(self, r: int, texts: dict[str, str], errors: dict[str, str], case: Case | None) -> DebateRound:
        return DebateRound(
            round=r,
            answers=tuple(
                RoundAnswer(
                    member=m.id,
                    text=texts.get(m.id, ""),
                    error=errors.get(m.id),
                    stated=stated_value(case.expected, texts[m.id], case.query)
                    if case is not None and case.expected is not None and m.id in texts
                    else None,
                )
                for m in self.members
            ),
        )

    async def _answer(self, query: str, case: Case | None) -> Transcript:
        started = time.perf_counter()
        calls: list[CallRecord] = []
        errors: list[str] = []
        first: list[CallResult] = await asyncio.gather(
            *(
                self.caller.call(
                    m, "stage1", answer_messages(query, m.system_prompt), max_tokens=self.settings.answer_max_tokens
                )
                for m in self.members
            )
        )
        texts: dict[str, str] = {}
        failed: dict[str, str] = {}
        for m, res in zip(self.members, first, strict=True):
            calls.append(res.record)
            if res.completion is not None and res.completion.text.strip():
                texts[m.id] = res.completion.text.strip()
            else:
                failed[m.id] = res.error or "empty answer"
                errors.append(f"stage1 {m.id}: {failed[m.id]}")
        history = [self._round(0, texts, failed, case)]
        for r in range(1, self.rounds + 1):
            debaters = [m for m in self.members if m.id in texts]
            if len(debaters) < 2:
                break
            revised: list[CallResult] = await asyncio.gather(
                *(
                    self.caller.call(
                        m,
                        "debate",
                        revision_messages(
                            query, m.system_prompt, texts[m.id], [texts[o.id] for o in debaters if o.id != m.id]
                        ),
                        max_tokens=self.settings.final_answer_max_tokens,
                    )
                    for m in debaters
                )
            )
            for m, res in zip(debaters, revised, strict=True):
                calls.append(res.record)
                if res.completion is not None and res.completion.text.strip():
                    texts[m.id] = res.completion.text.strip()
                else:
                    errors.append(f"debate round {r} {m.id}: {res.error or 'empty answer'}; its last answer is kept")
            history.append(self._round(r, texts, failed, case))
        answers = tuple(
            Answer(member=m.id, model=m.model, text=texts.get(m.id, ""), error=failed.get(m.id)) for m in self.members
        )
        ok = [a for a in answers if a.ok]
        if not ok:
            return Transcript(
                subject=self.name,
                query=query,
                answers=answers,
                final_answer="",
                calls=tuple(calls),
                errors=(*errors, "debate: no member produced an answer"),
                duration_s=time.perf_counter() - started,
            )
        chosen, rule, votes = select_answer([a.text for a in ok], case)
        changed = sum(
            1
            for prev, cur in zip(history, history[1:], strict=False)
            for a, b in zip(prev.answers, cur.answers, strict=True)
            if a.stated != b.stated
        )
        record = MultiRoundRecord(
            rounds=self.rounds,
            history=tuple(history),
            rule=rule,  # type: ignore[arg-type]
            votes=votes,
            chosen=ok[chosen].member,
            changed=changed,
        )
        return Transcript(
            subject=self.name,
            query=query,
            answers=answers,
            final_answer=ok[chosen].text,
            calls=tuple(calls),
            errors=tuple(errors),
            duration_s=time.perf_counter() - started,
            mode=record,
        )
