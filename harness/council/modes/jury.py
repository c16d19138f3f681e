"""``council:jury`` (ADR-025b, jury mode; llm-council-core's ``VerdictType.BINARY``): each member gives
a binary verdict with a confidence; the verdict is the majority, with an aggregated confidence.

**Valid cases**: ``expected: {type: boolean}`` (the options are ``yes`` / ``no``) and ``choice`` cases
with exactly two options (their letters, or their texts when the options are a list). Any other case
is refused with a per-case error naming the case and its expected type (:class:`JuryRefused`); the
run goes on with the other cases.

**Votes**: every member answers once (stage ``jury``, the stage-1 cap, in parallel) to a JSON schema
whose ``verdict`` is one of the two options and ``confidence`` a number in [0, 1]. A reply without
readable JSON counts when it names exactly one option as a word; a confidence above 1 and at most 100
is read as a percentage. A member whose vote cannot be read does not vote (an error is noted).

**Verdict**: the option with more votes. A tied count goes to the option with the larger summed
confidence, then to the chairman's vote when the chairman voted, then to the first option in the
case's order (``tie_rule`` says which decided). **Confidence**: the mean over the voters of P(verdict),
that is a voter's confidence when it voted for the verdict and one minus it when against (0.5 when a
voter gave none). The final answer is ``Answer: <verdict>`` with the count and confidence after it.
"""

from __future__ import annotations

import asyncio
import re
import time

from harness.common.errors import HarnessError
from harness.common.jsonscan import first_json_object
from harness.config import MemberSpec, Settings
from harness.council.modes.prompts import jury_messages, jury_schema
from harness.data.cases import Case
from harness.data.expected import ExpectBoolean, ExpectChoice
from harness.providers.calls import Caller, CallResult
from harness.records.mode_types import JuryRecord, JuryVote
from harness.records.transcript import Answer, Transcript

BOOLEAN_OPTIONS = ("yes", "no")


class JuryRefused(HarnessError):
    """A case the jury cannot give a binary verdict on."""


def jury_options(case: Case) -> tuple[str, str]:
    """The two options of ``case``, or :class:`JuryRefused` (module docstring)."""
    exp = case.expected
    if isinstance(exp, ExpectBoolean):
        return BOOLEAN_OPTIONS
    if isinstance(exp, ExpectChoice) and len(exp.option_map) == 2:
        a, b = exp.option_map
        return a, b
    if isinstance(exp, ExpectChoice):
        got = f"a choice of {len(exp.option_map)} options"
    else:
        got = f"'{exp.type}'" if exp is not None else "no expected answer"
    raise JuryRefused(
        f"council:jury gives binary verdicts: this case has {got}; expected a boolean case or a "
        "choice case with two options (run it through another subject)",
        f"case {case.id}",
    )


def _confidence(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    x = float(value)
    if 1 < x <= 100:
        x /= 100
    return x if 0 <= x <= 1 else None


def read_vote(member: str, text: str, options: tuple[str, str]) -> JuryVote:
    """A juror's :class:`JuryVote` from its reply (module docstring)."""
    found = first_json_object(text)
    obj = found[2] if found else {}
    lowered = {o.lower(): o for o in options}
    verdict = obj.get("verdict")
    raw_reason = obj.get("reason")
    reason = raw_reason if isinstance(raw_reason, str) else ""
    if isinstance(verdict, str) and verdict.strip().lower() in lowered:
        return JuryVote(
            member=member,
            value=lowered[verdict.strip().lower()],
            confidence=_confidence(obj.get("confidence")),
            reason=reason.strip(),
        )
    named = [o for o in options if re.search(rf"\b{re.escape(o)}\b", text, re.IGNORECASE)]
    if len(named) == 1:
        m = re.search(r"confidence\D{0,12}(\d+(?:\.\d+)?)", text, re.IGNORECASE)
        return JuryVote(
            member=member,
            value=named[0],
            confidence=_confidence(float(m.group(1))) if m else None,
            reason=text.strip()[:300],
        )
    return JuryVote(member=member, value=None, error="no readable verdict", reason=text.strip()[:300])


def tally(votes: tuple[JuryVote, ...], options: tuple[str, str], chairman: str | None) -> JuryRecord:
    """The majority verdict and its aggregated confidence (module docstring)."""
    voters = [v for v in votes if v.value is not None]
    counts = {o: sum(v.value == o for v in voters) for o in options}
    if not voters:
        return JuryRecord(options=options, votes=votes, verdict=None, counts=counts)
    conf = {o: sum(v.confidence if v.confidence is not None else 0.5 for v in voters if v.value == o) for o in options}
    a, b = options
    tie_rule = ""
    if counts[a] != counts[b]:
        verdict = a if counts[a] > counts[b] else b
    elif conf[a] != conf[b]:
        verdict, tie_rule = (a if conf[a] > conf[b] else b), "summed confidence"
    elif (chair := next((v.value for v in voters if v.member == chairman), None)) is not None:
        verdict, tie_rule = chair, "the chairman's vote"
    else:
        verdict, tie_rule = a, "first option"
    p = [(v.confidence if v.confidence is not None else 0.5) for v in voters]
    agree = [pi if v.value == verdict else 1 - pi for v, pi in zip(voters, p, strict=True)]
    return JuryRecord(
        options=options,
        votes=votes,
        verdict=verdict,
        counts=counts,
        confidence=round(sum(agree) / len(agree), 4),
        tie_rule=tie_rule,
    )


class JuryCouncil:
    """Binary verdicts of the council members (module docstring).

    Args:
        members: the jurors (the council members); chairman: its vote settles an exact tie.
        caller: routes the calls; settings: the stage-1 cap.
    """

    name = "council:jury"

    def __init__(self, members: list[MemberSpec], chairman: MemberSpec, caller: Caller, settings: Settings) -> None:
        self.members = members
        self.chairman = chairman
        self.caller = caller
        self.settings = settings

    async def answer(self, query: str) -> Transcript:
        raise JuryRefused("council:jury needs the case's expected answer (a boolean or two-option choice case)")

    async def answer_case(self, case: Case) -> Transcript:
        options = jury_options(case)
        started = time.perf_counter()
        results: list[CallResult] = await asyncio.gather(
            *(
                self.caller.call(
                    m,
                    "jury",
                    jury_messages(case.query, options, m.system_prompt),
                    max_tokens=self.settings.answer_max_tokens,
                    json_schema=jury_schema(options),
                    temperature=min(m.temperature, 0.3),
                )
                for m in self.members
            )
        )
        votes, answers, errors = [], [], []
        for m, r in zip(self.members, results, strict=True):
            text = r.completion.text.strip() if r.completion else ""
            vote = read_vote(m.id, text, options) if r.completion else JuryVote(member=m.id, value=None, error=r.error)
            votes.append(vote)
            answers.append(
                Answer(
                    member=m.id,
                    model=m.model,
                    text=text,
                    error=r.error if r.completion is None else None,
                    confidence=vote.confidence,
                )
            )
            if vote.error:
                errors.append(f"jury {m.id}: {vote.error}")
        record = tally(tuple(votes), options, self.chairman.id)
        if record.verdict is None:
            final = ""
            errors.append("jury: no juror gave a readable verdict")
        else:
            conf = f", confidence {record.confidence:.2f}" if record.confidence is not None else ""
            final = (
                f"Answer: {record.verdict}\n(jury verdict: {record.counts[record.verdict]} of "
                f"{sum(record.counts.values())} jurors{conf})"
            )
        return Transcript(
            subject=self.name,
            query=case.query,
            answers=tuple(answers),
            final_answer=final,
            chairman=self.chairman.id,
            calls=tuple(r.record for r in results),
            errors=tuple(errors),
            duration_s=time.perf_counter() - started,
            mode=record,
        )
