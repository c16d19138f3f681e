"""The single-model baseline: the same stage-1 prompt, one model, no review or synthesis."""

from __future__ import annotations

import time

from harness.config import MemberSpec, Settings
from harness.council.prompts import answer_messages
from harness.providers.calls import Caller
from harness.records.transcript import Answer, Transcript


class Baseline:
    """One model answers alone.

    Args:
        spec: the baseline model.
        caller: routes the call.
        settings: the final-answer token limit (``final_answer_max_tokens``, the same as the council's synthesis).
    """

    name = "baseline"

    def __init__(self, spec: MemberSpec, caller: Caller, settings: Settings) -> None:
        self.spec = spec
        self.caller = caller
        self.settings = settings

    async def answer(self, query: str) -> Transcript:
        started = time.perf_counter()
        res = await self.caller.call(
            self.spec,
            "baseline",
            answer_messages(query, self.spec.system_prompt),
            max_tokens=self.settings.final_answer_max_tokens,
        )
        text = res.completion.text.strip() if res.completion else ""
        answer = Answer(member=self.spec.id, model=self.spec.model, text=text, error=res.error)
        return Transcript(
            subject=self.name,
            query=query,
            answers=(answer,),
            final_answer=text,
            calls=(res.record,),
            errors=(f"baseline {self.spec.id}: {res.error}",) if res.error else (),
            duration_s=time.perf_counter() - started,
        )
