"""Measurement artifacts per arm: truncated final answers, failed and ambiguous extraction, format compliance.

A team advantage can be manufactured by the measurement: a tighter token cap truncates one arm's
answers more than the other's, and an answer whose value cannot be extracted counts as wrong. So
beside the >15% verdict the harness reports, per subject (arm):

* the **truncation rate**: the share of final-answer calls (the baseline's answer, the chairman's
  synthesis; :data:`harness.gate.artifacts.FINAL_STAGES`) whose finish reason is ``length``, over the calls whose finish
  reason is known (results written before finish reasons were recorded have none);
* the **extraction-failure rate**: the share of results with an objective check (``expected:``)
  where nothing could be extracted from the answer (verdict ``unanswered``);
* the **ambiguity rate**: the share of those results whose answer committed to two values, named a
  value and then contradicted it, or never committed (verdict ``ambiguous``; counted apart from
  wrong and from failed);
* **format compliance**: the share of those results whose final answer followed the answer-format
  protocol (ends with its declared ``Answer: ...`` line, for ``python`` a fenced python block;
  :func:`harness.metrics.declared.follows_format`), and for a subject with members (the council)
  the share of the members' stage-1 answers that did.

When the arms' rates differ by more than :data:`MAX_GAP` (5 percentage points) in any of them, the verdict
is marked: the difference may come from the measurement rather than from the answers.

This module holds the record and the rule; the counting from a run's results is
:func:`harness.gate.artifacts.arm_artifacts` (it reads results and the extractor's answer-line rule).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.common.model import Frozen

#: Largest gap between two arms' rates (as a share, 0.05 = 5 points) before the verdict is marked.
MAX_GAP = 0.05


class ArmArtifacts(Frozen):
    """One arm's truncation and extraction-failure counts.

    Args:
        subject: the arm.
        final_calls: final-answer calls with a known finish reason; truncated: of them, ``length``.
        unknown_finish: final-answer calls without a recorded finish reason.
        checked: results with an objective check; extraction_failed: of them, nothing extracted from the answer;
            ambiguous: of them, the verdict ``ambiguous``; followed_format: of them, the final answer
            followed the answer format.
        member_answers: the members' stage-1 answers to checked cases; member_followed: of them,
            those that followed the answer format.
    """

    subject: str
    final_calls: int = 0
    truncated: int = 0
    unknown_finish: int = 0
    checked: int = 0
    extraction_failed: int = 0
    ambiguous: int = 0
    followed_format: int = 0
    member_answers: int = 0
    member_followed: int = 0

    @property
    def truncation_rate(self) -> float | None:
        return self.truncated / self.final_calls if self.final_calls else None

    @property
    def extraction_failure_rate(self) -> float | None:
        return self.extraction_failed / self.checked if self.checked else None

    @property
    def ambiguity_rate(self) -> float | None:
        return self.ambiguous / self.checked if self.checked else None

    @property
    def format_rate(self) -> float | None:
        return self.followed_format / self.checked if self.checked else None


def artifact_warning(arms: Sequence[ArmArtifacts], max_gap: float = MAX_GAP) -> str:
    """A sentence when two arms' truncation or extraction-failure rates differ by more than ``max_gap``."""
    parts = []
    for label, rate in (
        ("truncated final answers", "truncation_rate"),
        ("failed answer extraction", "extraction_failure_rate"),
        ("ambiguous answers", "ambiguity_rate"),
        ("answers following the answer format", "format_rate"),
    ):
        known = [(a.subject, getattr(a, rate)) for a in arms if getattr(a, rate) is not None]
        if len(known) >= 2:
            (lo_s, lo), (hi_s, hi) = min(known, key=lambda x: x[1]), max(known, key=lambda x: x[1])
            if hi - lo > max_gap:
                parts.append(f"{label}: {hi_s} {hi:.0%} vs {lo_s} {lo:.0%}")
    if not parts:
        return ""
    return (
        f"the arms differ by more than {max_gap:.0%} points in {'; '.join(parts)}: "
        "the verdict may reflect the measurement, not the answers"
    )
