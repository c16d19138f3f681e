"""The seeds' remediation table as a testable claim (issue 29): does the recommended mode help where
the plain council's consensus is weak?

Seed 000 ("Interpreting CSS") and ADR-036 (seed 001, section 1.1) recommend, by the plain council's
Consensus Strength Score on a case: 0.50-0.69 (weak) "consider ``include_dissent=true``", below 0.50
(significant disagreement) "use ``verdict_type="debate"``". Here those are the subjects
``council+dissent`` and ``council:debate`` (:data:`REMEDIES`).

**Bands.** A case's band is that of the CSS of the plain ``council``'s own stage 2 on it
(:func:`harness.metrics.tier1.consensus_strength_score` over the transcript's aggregate; cases whose
aggregate has fewer than two ranked members have no CSS and no band). Bands are half-open:
``[0.50, 0.70)`` and ``[0, 0.50)``.

**Comparison.** For each band whose recommended mode is in the run: the paired differences
``d_i = mode_i - council_i`` on the primary endpoint over the band's cases scored for both
(the run's :meth:`~harness.gate.verdict_plan.VerdictPlan.pair`, then
:func:`harness.gate.paired_difference.sample_difference`: their mean and sign-flip interval).

**Multiplicity.** Exploratory, with the rule of the verdict section's secondary verdicts
(:mod:`harness.stats.verdicts`): with ``m`` band comparisons, each interval is at the Bonferroni level
``1 - (1 - confidence) / m``. Nothing here enters the gate or the >15% verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from harness.common.model import Frozen
from harness.gate.paired_difference import sample_difference
from harness.gate.verdict_plan import VerdictPlan
from harness.metrics.tier1 import consensus_strength_score
from harness.run.result import CaseResult

#: ``(low, high, band words, recommended subject)``: the seed's bands that name a mode
REMEDIES: tuple[tuple[float, float, str, str], ...] = (
    (0.50, 0.70, "CSS 0.50-0.69", "council+dissent"),
    (0.0, 0.50, "below CSS 0.50", "council:debate"),
)


def council_css(results: Sequence[CaseResult]) -> dict[str, float]:
    """``dataset::case id`` -> the plain council's CSS on that case (module docstring)."""
    out = {}
    for r in results:
        if r.subject != "council" or r.transcript is None:
            continue
        ranked = [a for a in r.transcript.aggregate if a.votes > 0]
        if len(ranked) >= 2:
            out[f"{r.dataset}::{r.case_id}"] = consensus_strength_score(
                (a.member, a.average_position) for a in r.transcript.aggregate
            )
    return out


class BandComparison(Frozen):
    """One band's comparison: ``mode - council`` on ``family`` over the band's ``n`` paired cases.

    Args:
        band: the band in words; low, high: its CSS bounds (half-open); mode: the recommended subject.
        cases: the band's cases with a plain-council CSS; n: of them, paired with the mode and scored.
        difference: mean(mode - council); ci_low, ci_high: its interval at ``confidence`` (NaN when n = 0).
    """

    band: str
    low: float
    high: float
    mode: str
    family: str
    cases: int
    n: int
    difference: float
    ci_low: float
    ci_high: float
    confidence: float

    @property
    def sentence(self) -> str:
        if not self.n:
            return f"{self.band} (n=0): no case of this band was scored for both council and {self.mode}"
        return (
            f"{self.band} (n={self.n}): {self.mode} − council (synthesis) on {self.family} = "
            f"{self.difference:+.2f} ({self.ci_low:+.2f} to {self.ci_high:+.2f}; "
            f"{self.confidence:.4g} interval, exploratory)"
        )


def remediation_table(
    plan: VerdictPlan, results: Sequence[CaseResult], confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0
) -> list[BandComparison]:
    """One :class:`BandComparison` per band of :data:`REMEDIES` whose mode ran beside the council
    (``plan``: the run's primary endpoint and pairs; ``results``: the council's transcripts, for the CSS)."""
    subjects = set(plan.subjects)
    remedies = [x for x in REMEDIES if x[3] in subjects] if "council" in subjects else []
    if not remedies:
        return []
    primary = plan.primary
    css = council_css(results)
    level = 1.0 - (1.0 - confidence) / len(remedies)
    out = []
    for low, high, band, mode in remedies:
        keys = {k for k, v in css.items() if low <= v < high}
        diff = sample_difference(plan.pair(mode, "council"), keys, level, n_resamples, seed)
        out.append(
            BandComparison(
                band=band,
                low=low,
                high=high,
                mode=mode,
                family=primary,
                cases=len(keys),
                n=diff.n,
                difference=diff.mean,
                ci_low=diff.low,
                ci_high=diff.high,
                confidence=level,
            )
        )
    return out


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def remediation_summary(table: Sequence[BandComparison]) -> dict[str, object]:
    """summary.json's ``"remediation"`` section."""
    return {
        "label": "exploratory",
        "rule": "per CSS band of the plain council (seed 000 / ADR-036), the recommended mode minus the council "
        "on the primary endpoint; sign-flip interval at the Bonferroni level over the bands compared",
        "bands": [
            dict(
                b.model_dump(mode="json"),
                difference=_finite(b.difference),
                ci_low=_finite(b.ci_low),
                ci_high=_finite(b.ci_high),
                sentence=b.sentence,
            )
            for b in table
        ],
    }
