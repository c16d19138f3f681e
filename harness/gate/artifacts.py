"""Counting each arm's measurement artifacts from a run's results, and saying them in words
(:func:`arm_words`; the record and the rule that marks a verdict: :mod:`harness.stats.artifacts`)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.metrics.declared import follows_format
from harness.run.result import CaseResult
from harness.stats.artifacts import ArmArtifacts

#: Stages whose call produces a subject's final answer.
FINAL_STAGES: tuple[str, ...] = ("baseline", "stage3")


def arm_artifacts(results: Sequence[CaseResult], subject: str) -> ArmArtifacts:
    """Count ``subject``'s truncated final answers, failed and ambiguous extractions and format
    compliance over its results."""
    final = truncated = unknown = checked = failed = ambiguous = followed = members = members_ok = 0
    for r in results:
        if r.subject != subject:
            continue
        calls = r.transcript.calls if r.transcript is not None else ()
        last = next((c for c in reversed(calls) if c.stage in FINAL_STAGES and c.error is None), None)
        if last is not None:
            if last.finish_reason is None:
                unknown += 1
            else:
                final += 1
                truncated += last.finish_reason == "length"
        if r.correctness is not None:
            checked += 1
            outcome = r.correctness.outcome
            failed += outcome == "unanswered"
            ambiguous += outcome == "ambiguous"
            kind = r.expected.type if r.expected is not None else ""
            if r.transcript is not None:
                followed += follows_format(kind, r.transcript.final_answer)
                if len(r.transcript.answers) > 1:
                    ok = r.transcript.ok_answers
                    members += len(ok)
                    members_ok += sum(follows_format(kind, a.text) for a in ok)
    return ArmArtifacts(
        subject=subject,
        final_calls=final,
        truncated=truncated,
        unknown_finish=unknown,
        checked=checked,
        extraction_failed=failed,
        ambiguous=ambiguous,
        followed_format=followed,
        member_answers=members,
        member_followed=members_ok,
    )


def _rate(count: int, total: int) -> str:
    return f"{count}/{total} ({count / total:.0%})" if total else "n/a"


def arm_words(arm: ArmArtifacts) -> str:
    """``council: truncated final answers 2/55 (4%), extraction failed 0/55 (0%), ambiguous 1/55 (2%),
    answer line 50/55 (91%) (members 150/165 (91%))``."""
    unknown = f" (+{arm.unknown_finish} without a finish reason)" if arm.unknown_finish else ""
    members = f" (members {_rate(arm.member_followed, arm.member_answers)})" if arm.member_answers else ""
    return (
        f"{arm.subject}: truncated final answers {_rate(arm.truncated, arm.final_calls)}{unknown}, "
        f"extraction failed {_rate(arm.extraction_failed, arm.checked)}, "
        f"ambiguous {_rate(arm.ambiguous, arm.checked)}, "
        f"answer line {_rate(arm.followed_format, arm.checked)}{members}"
    )
