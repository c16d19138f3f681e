"""Baseline arms beside the council (issue 15): self-consistency at matched compute and the stage-1 vote.

Selection among candidate answers (:func:`select_answer`), in this order:

1. **majority** — for a case with ``expected:`` (any type but ``python``), each candidate's answer is
   read from the candidate alone by :func:`harness.metrics.stated.stated_value` (the declared answer
   line, an answer cue, ... normalised; the expected value, pattern or reference is never consulted,
   so replacing the answer key by another leaves the choice unchanged — issue 28);
   the most frequent stated value wins; among tied values the one first given wins; the chosen
   candidate is the first that gave it. Candidates that state nothing readable do not vote.
2. **medoid** — otherwise (no ``expected:``, ``python`` cases, or nothing extracted at all): the
   candidate with the highest mean token-Jaccard (:func:`harness.common.text.jaccard`) to the others,
   the first on ties; a single candidate is chosen as it is.

Self-consistency's n (:class:`SelfConsistency`): when the council runs on the same case in the same
run, its budget B on that case is the target, measured in ``arms.match_on``'s unit
(:mod:`harness.council.matching`: total tokens, completion tokens, or dollars). n is adapted as
samples arrive: one sample is drawn; then, with s the spend so far over k samples and m = s / k their
mean, while ``B - s >= m`` a wave of ``ceil(3/4 * floor((B - s) / m))`` samples is drawn together
(three quarters of what is expected to fit, so a wave of long samples cannot overshoot by much).
Once less than one mean sample is left (``0 < B - s < m``), one more sample is drawn with
probability ``(B - s) / m`` (unbiased rounding: the expected spend is B), the uniform variate being
:func:`dither` of the case and the arm — a hash, so a replayed run draws the same n. Each case ends
within about one sample of B, and since the rounding is unbiased and independent across cases the
run's total lands close to the council's (a fixed rule such as "round to the nearest" errs the same
way on every case when samples are about equally long). Never more than :data:`MAX_SAMPLES`.
Without the council (or when its case failed, or its budget is 0) n is ``self_consistency_samples``.
Sample i uses seed offset i, so seeds differ.
Samples are recorded with stage ``baseline`` (a single model's final-answer call, same cap), so the
truncation rate of :mod:`harness.stats.artifacts` covers them.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections import Counter
from collections.abc import Sequence

from harness.common.text import jaccard
from harness.config import MemberSpec, Settings
from harness.council.matching import MatchOn, check_priced, spend
from harness.council.prompts import answer_messages
from harness.council.stages import Council
from harness.data.cases import Case
from harness.metrics.stated import stated_value
from harness.providers.calls import Caller, CallResult
from harness.records.arm_types import ArmRecord
from harness.records.transcript import Answer, CallRecord, Transcript

MAX_SAMPLES = 64
#: temperature used by self-consistency when the member's own is 0 (samples must differ)
SAMPLING_TEMPERATURE = 0.7


class TokenBoard:
    """The council's calls per case, published when its case finishes, awaited by self-consistency.

    Args:
        council_runs: whether the council runs on the same cases (else nobody publishes and
            :meth:`wait` returns ``None`` at once).
        waits: whether :meth:`wait` blocks until the council's case is published; ``False`` where
            cases run in an order the harness does not control (the pytest plugin): then the
            council's calls are used only when its case already finished, else ``None``.
    """

    def __init__(self, council_runs: bool, waits: bool = True) -> None:
        self.council_runs = council_runs
        self.waits = waits
        self._events: dict[str, asyncio.Event] = {}
        self._calls: dict[str, tuple[CallRecord, ...] | None] = {}

    def _event(self, key: str) -> asyncio.Event:
        return self._events.setdefault(key, asyncio.Event())

    def publish(self, key: str, calls: Sequence[CallRecord] | None) -> None:
        """Record the council's calls on case ``key`` (``None``: the council's case failed)."""
        self._calls[key] = tuple(calls) if calls is not None else None
        self._event(key).set()

    async def wait(self, key: str) -> tuple[CallRecord, ...] | None:
        """The council's calls on case ``key``, once published; ``None`` when the council does not run."""
        if not self.council_runs or (not self.waits and not self._event(key).is_set()):
            return None
        await self._event(key).wait()
        return self._calls.get(key)


def dither(key: str) -> float:
    """A uniform variate in [0, 1) fixed by ``key``: the first 8 bytes of its SHA-256 over 2**64."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64


def call_tokens(calls: Sequence[CallRecord]) -> int:
    """Prompt plus completion tokens over ``calls``."""
    return sum(c.tokens_in + c.tokens_out for c in calls)


def _vote_key(case: Case | None, text: str) -> str | None:
    if case is None or case.expected is None:
        return None
    return stated_value(case.expected, text, case.query)


def select_answer(texts: Sequence[str], case: Case | None) -> tuple[int, str, dict[str, int]]:
    """``(chosen index, rule, votes)`` among ``texts`` (see the module docstring); ``texts`` is not empty."""
    keys = [_vote_key(case, t) for t in texts]
    votes = Counter(k for k in keys if k is not None)
    if votes:
        top = max(votes.values())
        winner = next(k for k in keys if k is not None and votes[k] == top)
        return keys.index(winner), "majority", dict(votes)
    if len(texts) == 1:
        return 0, "medoid", {}
    means = [sum(jaccard(t, o) for j, o in enumerate(texts) if j != i) / (len(texts) - 1) for i, t in enumerate(texts)]
    return means.index(max(means)), "medoid", {}


class SelfConsistency:
    """n samples of one model at temperature > 0, one answer chosen by :func:`select_answer`.

    Args:
        spec: the sampled model.
        caller: routes the calls.
        settings: the final-answer cap and ``self_consistency_samples``.
        board: where the council's tokens on the same case are published.
    """

    def __init__(self, spec: MemberSpec, caller: Caller, settings: Settings, board: TokenBoard) -> None:
        self.spec = spec
        self.caller = caller
        self.settings = settings
        self.board = board
        self.name = f"self-consistency:{spec.id}"
        if board.council_runs:
            council = [*settings.models, settings.role_spec("chairman")]
            check_priced(settings, [spec.model, *(m.model for m in council)], self.name)

    async def answer(self, query: str) -> Transcript:
        return await self._answer(query, None, query)

    async def answer_case(self, case: Case) -> Transcript:
        return await self._answer(case.query, case, case.nodeid_part)

    async def _sample(self, query: str, i: int) -> CallResult:
        return await self.caller.call(
            self.spec,
            "baseline",
            answer_messages(query, self.spec.system_prompt),
            max_tokens=self.settings.final_answer_max_tokens,
            temperature=self.spec.temperature or SAMPLING_TEMPERATURE,
            seed_offset=i,
        )

    async def _wave(self, query: str, first: int, count: int) -> list[CallResult]:
        return list(await asyncio.gather(*(self._sample(query, i) for i in range(first, first + count))))

    async def _answer(self, query: str, case: Case | None, key: str) -> Transcript:
        council = await self.board.wait(key)
        match_on, pricing = self.settings.arms.match_on, self.settings.pricing
        target = spend(council, match_on, pricing) if council else None
        started = time.perf_counter()
        results = [await self._sample(query, 0)]
        spent = spend([results[0].record], match_on, pricing)
        matched = bool(target and spent)
        if not matched:
            results += await self._wave(query, 1, self.settings.self_consistency_samples - 1)
        while matched and target and len(results) < MAX_SAMPLES:
            mean = spent / len(results)
            fit = math.floor((target - spent) / mean) if mean > 0 else 0
            if fit >= 1:
                count = math.ceil(0.75 * fit)
            elif spent < target and dither(f"{key}|{self.name}") < (target - spent) / mean:
                count = 1
            else:
                break
            results += await self._wave(query, len(results), min(count, MAX_SAMPLES - len(results)))
            spent = spend([r.record for r in results], match_on, pricing)
        return _chosen(
            self.name,
            query,
            case,
            self.spec,
            results,
            "self-consistency",
            call_tokens(council) if matched and council else None,
            len(results) if matched else None,
            started,
            match=(match_on, target, spent) if matched else None,
        )


def _chosen(
    name: str,
    query: str,
    case: Case | None,
    spec: MemberSpec | None,
    results: Sequence[CallResult],
    kind: str,
    target: int | None,
    matched: int | None,
    started: float,
    answers: Sequence[Answer] | None = None,
    match: tuple[MatchOn, float | None, float] | None = None,
) -> Transcript:
    records = tuple(r.record for r in results)
    if answers is None:
        assert spec is not None
        answers = [
            Answer(
                member=spec.id, model=spec.model, text=r.completion.text.strip() if r.completion else "", error=r.error
            )
            for r in results
        ]
    ok = [a for a in answers if a.ok and a.text]
    errors = tuple(f"{kind} {a.member}: {a.error}" for a in answers if a.error)
    if not ok:
        return Transcript(
            subject=name,
            query=query,
            answers=tuple(answers),
            final_answer="",
            calls=records,
            errors=errors or (f"{kind}: no answer",),
            duration_s=time.perf_counter() - started,
        )
    chosen, rule, votes = select_answer([a.text for a in ok], case)
    match_on, budget, spent = match if match else (None, None, None)
    arm = ArmRecord(
        kind=kind,  # type: ignore[arg-type]
        rule=rule,  # type: ignore[arg-type]
        samples=len(results),
        chosen=chosen,
        votes=votes,
        target_tokens=target,
        matched_samples=matched,
        tokens=call_tokens(records),
        match_on=match_on,
        target=budget,
        spent=spent,
    )
    return Transcript(
        subject=name,
        query=query,
        answers=tuple(answers),
        final_answer=ok[chosen].text,
        calls=records,
        errors=errors,
        duration_s=time.perf_counter() - started,
        arm=arm,
    )


class StageOneVote:
    """The members' stage-1 answers, one chosen by :func:`select_answer`: no review, no synthesis.

    Args:
        members: the council members.
        caller: routes the calls.
        settings: the stage-1 token cap (the council's own).
    """

    name = "vote"

    def __init__(self, members: list[MemberSpec], caller: Caller, settings: Settings) -> None:
        self.members = members
        self.caller = caller
        self.settings = settings

    async def answer(self, query: str) -> Transcript:
        return await self._answer(query, None)

    async def answer_case(self, case: Case) -> Transcript:
        return await self._answer(case.query, case)

    async def _answer(self, query: str, case: Case | None) -> Transcript:
        started = time.perf_counter()
        results = await asyncio.gather(
            *(
                self.caller.call(
                    m, "stage1", answer_messages(query, m.system_prompt), max_tokens=self.settings.answer_max_tokens
                )
                for m in self.members
            )
        )
        answers = [
            Answer(member=m.id, model=m.model, text=r.completion.text.strip() if r.completion else "", error=r.error)
            for m, r in zip(self.members, results, strict=True)
        ]
        return _chosen(self.name, query, case, None, results, "vote", None, None, started, answers)


def council_without(settings: Settings, caller: Caller, member: str) -> Council:
    """The council minus ``member`` in stages 1 and 2; the chairman still synthesizes (a role, not a vote)."""
    council = Council([m for m in settings.models if m.id != member], settings.role_spec("chairman"), caller, settings)
    council.name = f"council-without:{member}"
    return council
