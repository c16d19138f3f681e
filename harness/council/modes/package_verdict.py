"""``llm-council:jury`` and ``llm-council:tie-breaker``: llm-council-core's own ADR-025b verdict types
(``VerdictType.BINARY`` and ``VerdictType.TIE_BREAKER``) run through the ``llm-council`` subject.

What the package offers (0.53): with ``run_full_council(verdict_type=BINARY)`` its stages 1 and 2 run as
usual and its chairman, instead of a synthesis, returns JSON ``verdict`` ``approved`` / ``rejected``,
``confidence`` and ``rationale`` on "the proposed action/answer"; when the top two Borda scores of
stage 2 are within 0.1 the package escalates to TIE_BREAKER itself (``deadlocked``). With
``verdict_type=TIE_BREAKER`` the chairman always gets the package's deadlock prompt ("cast the
DECIDING VOTE", the top three candidates with their Borda scores) and again answers approved /
rejected with a rationale (the package accepts another word there too).

**Valid cases**: ``expected: {type: boolean}`` only. The package's verdict is approved or rejected,
which names no option of a ``choice`` case, so a two-option choice case is refused as every other
type is: a per-case ``error`` naming the case and its type, before any call
(:class:`PackageVerdictRefused`). **The question** is the case's query followed by one sentence saying
that APPROVED means the answer is yes and REJECTED means no
(:func:`~harness.council.modes.prompts.package_verdict_question`), so the go/no-go verdict has a
defined reading. **Reading**: ``approved`` -> ``yes``, ``rejected`` -> ``no``; the final answer is
``Answer: <yes|no>`` with the package's verdict, confidence and rationale after it. A verdict the
package could not parse (no ``metadata["verdict"]``) or another word leaves ``answer`` ``None`` and the
final answer the chairman's reply as the package returned it (the harness substitutes nothing), with
an error noted. Everything else (answers, reviews, the harness's own aggregate, the ledger's calls) is
the ``llm-council`` subject's mapping (:mod:`harness.council.external`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from harness.common.errors import HarnessError
from harness.council.modes.prompts import package_verdict_question
from harness.data.cases import Case
from harness.data.expected import ExpectBoolean
from harness.records.mode_types import PackageVerdictRecord
from harness.records.transcript import Transcript

if TYPE_CHECKING:
    from harness.council.external import LLMCouncilSubject, PackageOutput

#: subject name -> the package's ``VerdictType`` value
PACKAGE_VERDICTS: dict[str, Literal["binary", "tie_breaker"]] = {
    "llm-council:jury": "binary",
    "llm-council:tie-breaker": "tie_breaker",
}
READING = {"approved": "yes", "rejected": "no"}


class PackageVerdictRefused(HarnessError):
    """A case llm-council-core's approved/rejected verdict cannot answer."""


def check_case(name: str, case: Case) -> None:
    """Refuse every case but a boolean one (module docstring)."""
    exp = case.expected
    if isinstance(exp, ExpectBoolean):
        return
    got = f"'{exp.type}'" if exp is not None else "no expected answer"
    raise PackageVerdictRefused(
        f"{name} runs llm-council-core's {PACKAGE_VERDICTS[name].upper()} verdict, which is approved or "
        f"rejected: this case has {got}; expected a boolean case (approved reads as yes, rejected as no)",
        f"case {case.id}",
    )


def verdict_record(requested: Literal["binary", "tie_breaker"], output: PackageOutput) -> PackageVerdictRecord:
    """The package's verdict as the harness reads it (module docstring)."""
    v = output.verdict
    effective = output.effective_verdict_type or requested
    if v is None:
        return PackageVerdictRecord(requested=requested, effective=effective)
    return PackageVerdictRecord(
        requested=requested,
        effective=v.effective or effective,
        verdict=v.verdict,
        answer=READING.get(v.verdict.strip().lower()),
        confidence=v.confidence,
        rationale=v.rationale,
        deadlocked=v.deadlocked,
        borda_spread=v.borda_spread,
    )


def verdict_transcript(name: str, case: Case, transcript: Transcript, record: PackageVerdictRecord) -> Transcript:
    """``transcript`` under ``name``, on the case's own query, with ``record`` and its final answer."""
    errors = list(transcript.errors)
    final = transcript.final_answer
    if record.answer is not None:
        conf = f", confidence {record.confidence:.2f}" if record.confidence is not None else ""
        why = f"\n{record.rationale}" if record.rationale else ""
        final = f"Answer: {record.answer}\n(llm-council-core {record.effective} verdict: {record.verdict}{conf}){why}"
    elif record.verdict is None:
        errors.append(f"{name}: llm-council-core parsed no {record.effective} verdict from its chairman's reply")
    else:
        errors.append(f"{name}: the verdict '{record.verdict}' is neither approved nor rejected")
    return transcript.model_copy(
        update={"subject": name, "query": case.query, "final_answer": final, "errors": tuple(errors), "mode": record}
    )


class PackageVerdictSubject:
    """llm-council-core's council with one of its verdict types, on boolean cases (module docstring).

    Args:
        subject: the ``llm-council`` subject, configured with the verdict type.
        name: ``llm-council:jury`` or ``llm-council:tie-breaker``.
    """

    def __init__(self, subject: LLMCouncilSubject, name: str) -> None:
        self.subject = subject
        self.name = name
        self.requested = PACKAGE_VERDICTS[name]

    async def answer(self, query: str) -> Transcript:
        raise PackageVerdictRefused(f"{self.name} needs the case's expected answer (a boolean case)")

    async def answer_case(self, case: Case) -> Transcript:
        check_case(self.name, case)
        transcript, output = await self.subject.run(package_verdict_question(case.query))
        return verdict_transcript(self.name, case, transcript, verdict_record(self.requested, output))
