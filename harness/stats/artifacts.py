"""Measurement artifacts per arm: truncated final answers and failed answer extraction.

A team advantage can be manufactured by the measurement: a tighter token cap truncates one arm's
answers more than the other's, and an answer whose value cannot be extracted counts as wrong. So
beside the >15% verdict the harness reports, per subject (arm):

* the **truncation rate**: the share of final-answer calls (the baseline's answer, the chairman's
  synthesis; :data:`FINAL_STAGES`) whose finish reason is ``length``, over the calls whose finish
  reason is known (results written before finish reasons were recorded have none);
* the **extraction-failure rate**: the share of results with an objective check (``expected:``)
  where nothing could be extracted from the answer.

When the arms' rates differ by more than :data:`MAX_GAP` (5 percentage points) in either, the verdict
is marked: the difference may come from the measurement rather than from the answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.common.model import Frozen

if TYPE_CHECKING:
    from harness.run.result import CaseResult

#: Stages whose call produces a subject's final answer.
FINAL_STAGES: tuple[str, ...] = ("baseline", "stage3")

#: Largest gap between two arms' rates (as a share, 0.05 = 5 points) before the verdict is marked.
MAX_GAP = 0.05


class ArmArtifacts(Frozen):
    """One arm's truncation and extraction-failure counts.

    Args:
        subject: the arm.
        final_calls: final-answer calls with a known finish reason; truncated: of them, ``length``.
        unknown_finish: final-answer calls without a recorded finish reason.
        checked: results with an objective check; extraction_failed: of them, nothing extracted from the answer.
    """

    subject: str
    final_calls: int = 0
    truncated: int = 0
    unknown_finish: int = 0
    checked: int = 0
    extraction_failed: int = 0

    @property
    def truncation_rate(self) -> float | None:
        return self.truncated / self.final_calls if self.final_calls else None

    @property
    def extraction_failure_rate(self) -> float | None:
        return self.extraction_failed / self.checked if self.checked else None


def arm_artifacts(results: Sequence[CaseResult], subject: str) -> ArmArtifacts:
    """Count ``subject``'s truncated final answers and failed extractions over its results."""
    final = truncated = unknown = checked = failed = 0
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
            failed += r.correctness.extraction.value is None
    return ArmArtifacts(subject=subject, final_calls=final, truncated=truncated, unknown_finish=unknown,
                        checked=checked, extraction_failed=failed)


def artifact_warning(arms: Sequence[ArmArtifacts], max_gap: float = MAX_GAP) -> str:
    """A sentence when two arms' truncation or extraction-failure rates differ by more than ``max_gap``."""
    parts = []
    for label, rate in (("truncated final answers", "truncation_rate"),
                        ("failed answer extraction", "extraction_failure_rate")):
        known = [(a.subject, getattr(a, rate)) for a in arms if getattr(a, rate) is not None]
        if len(known) >= 2:
            (lo_s, lo), (hi_s, hi) = min(known, key=lambda x: x[1]), max(known, key=lambda x: x[1])
            if hi - lo > max_gap:
                parts.append(f"{label}: {hi_s} {hi:.0%} vs {lo_s} {lo:.0%}")
    if not parts:
        return ""
    return (f"the arms differ by more than {max_gap:.0%} points in {'; '.join(parts)}: "
            "the verdict may reflect the measurement, not the answers")
