"""An external council's self-reported quality metrics beside the harness's own, from the same transcript.

llm-council-core reports CSS, DDI and SAS about its own runs. The harness computes the same Tier 1
metrics (:func:`~harness.metrics.quality_metrics.core_quality_metrics`) from the transcript's real
texts and its own aggregate. :func:`compare_self_reported` puts them side by side: per metric the
two values, their absolute difference and whether they agree within a tolerance (0.05), plus flags
that say in words where the package's figures cannot be right (for example "package says ungrounded
while the synthesis is copied from an answer").
"""

from __future__ import annotations

from harness.common.model import Frozen
from harness.common.text import tokens
from harness.metrics.quality_metrics import QualityMetrics, core_quality_metrics
from harness.records.external_council_types import ExternalCouncilRecord, SelfReportedMetrics
from harness.records.transcript import Transcript

TOLERANCE = 0.05
POSITION_TOLERANCE = 0.006  # the package rounds average positions to 2 places
_DDI_MATCH = 0.0015  # DDI recomputed from 3-place components is within this of the unrounded figure
HEADERS = ("metric", "self-reported", "harness", "|diff|", "agree")


class MetricAgreement(Frozen):
    """One metric, as the package reported it and as the harness computed it.

    Args:
        metric: ``consensus_strength``, ``deliberation_depth``, ``winner_alignment``,
            ``max_source_alignment``, ``hallucination_risk`` or ``grounded``.
        self_reported: the package's value (``grounded`` as 1.0/0.0); ``None`` when it reported none.
        harness: the harness's value.
        abs_diff: ``|self_reported - harness|`` rounded to 3 places; ``None`` without a reported value.
        agree: within the tolerance (``grounded``: equal); ``False`` without a reported value.
    """

    metric: str
    self_reported: float | None
    harness: float
    abs_diff: float | None
    agree: bool


class SelfReportFlag(Frozen):
    """A finding about the package's self-report.

    Args:
        code: a stable name (``ungrounded_but_sourced``, ``grounded_but_unsourced``,
            ``empty_synthesis_scored``, ``richness_not_counted``, ``aggregate_differs``,
            ``warnings_differ``, ``not_reported``).
        message: the finding in words, with the numbers behind it.
    """

    code: str
    message: str


class SelfReportComparison(Frozen):
    """The package's self-reported Tier 1 metrics against the harness's own.

    Args:
        package: the package's name and version (``llm-council-core 0.53.0``).
        reported: whether the package reported quality metrics at all.
        tolerance: the agreement tolerance on each metric.
        metrics: one row per metric.
        flags: findings, most important first.
        self_warnings: the package's warnings.
        harness_warnings: the harness's warnings.
    """

    package: str
    reported: bool
    tolerance: float = TOLERANCE
    metrics: tuple[MetricAgreement, ...]
    flags: tuple[SelfReportFlag, ...] = ()
    self_warnings: tuple[str, ...] = ()
    harness_warnings: tuple[str, ...] = ()

    @property
    def agrees(self) -> bool:
        """The package reported metrics and every one agrees with the harness."""
        return self.reported and all(m.agree for m in self.metrics)

    def metric(self, name: str) -> MetricAgreement:
        """The row for ``name`` (a ``KeyError`` names the known metrics)."""
        for m in self.metrics:
            if m.metric == name:
                return m
        raise KeyError(f"{name!r}; known: {[m.metric for m in self.metrics]}")

    def rows(self) -> list[tuple[str, str, str, str, str]]:
        """Display rows ``(metric, self-reported, harness, |diff|, agree)`` (header: :data:`HEADERS`)."""
        out = []
        for m in self.metrics:
            if m.metric == "grounded":
                mine = "—" if m.self_reported is None else ("yes" if m.self_reported else "no")
                theirs = "yes" if m.harness else "no"
            else:
                mine = "—" if m.self_reported is None else f"{m.self_reported:.3f}"
                theirs = f"{m.harness:.3f}"
            diff = "—" if m.abs_diff is None else f"{m.abs_diff:.3f}"
            out.append((m.metric, mine, theirs, diff, "yes" if m.agree else "no"))
        return out


def _row(name: str, mine: float | None, theirs: float, tolerance: float, exact: bool = False) -> MetricAgreement:
    if mine is None:
        return MetricAgreement(metric=name, self_reported=None, harness=theirs, abs_diff=None, agree=False)
    diff = round(abs(mine - theirs), 3)
    agree = diff == 0 if exact else diff <= tolerance + 1e-9
    return MetricAgreement(metric=name, self_reported=mine, harness=theirs, abs_diff=diff, agree=agree)


def _values(q: SelfReportedMetrics | None, h: QualityMetrics) -> list[tuple[str, float | None, float, bool]]:
    hs = h.core.synthesis_attribution
    ms = q.synthesis_attribution if q is not None else None
    return [
        ("consensus_strength", q.consensus_strength if q else None, h.core.consensus_strength, False),
        ("deliberation_depth", q.deliberation_depth if q else None, h.core.deliberation_depth, False),
        ("winner_alignment", ms.winner_alignment if ms else None, hs.winner_alignment, False),
        ("max_source_alignment", ms.max_source_alignment if ms else None, hs.max_source_alignment, False),
        ("hallucination_risk", ms.hallucination_risk if ms else None, hs.hallucination_risk, False),
        ("grounded", (1.0 if ms.grounded else 0.0) if ms else None, 1.0 if hs.grounded else 0.0, True),
    ]


def _sas_flags(
    q: SelfReportedMetrics, h: QualityMetrics, transcript: Transcript, threshold: float
) -> list[SelfReportFlag]:
    flags: list[SelfReportFlag] = []
    ms, hs = q.synthesis_attribution, h.core.synthesis_attribution
    if not ms.grounded and hs.grounded:
        how = "is copied from an answer" if hs.max_source_alignment == 1.0 else "closely matches an answer"
        flags.append(
            SelfReportFlag(
                code="ungrounded_but_sourced",
                message=f"package says ungrounded while the synthesis {how} "
                f"(harness max_source_alignment {hs.max_source_alignment} >= threshold {threshold:g})",
            )
        )
    if ms.grounded and not hs.grounded:
        flags.append(
            SelfReportFlag(
                code="grounded_but_unsourced",
                message=f"package says grounded while no answer supports the synthesis "
                f"(harness max_source_alignment {hs.max_source_alignment} < threshold {threshold:g})",
            )
        )
    synthesis = transcript.synthesis or ""
    empty_result = (ms.winner_alignment, ms.max_source_alignment, ms.hallucination_risk, ms.grounded)
    if empty_result == (0.0, 0.0, 1.0, False) and tokens(synthesis):
        flags.append(
            SelfReportFlag(
                code="empty_synthesis_scored",
                message="package's SAS is the result for an empty synthesis (0, 0, 1, not grounded) although the "
                f"synthesis has {len(synthesis.split())} words: it did not read the synthesis text",
            )
        )
    return flags


def _ddi_flag(q: SelfReportedMetrics, h: QualityMetrics) -> SelfReportFlag | None:
    c = h.core.deliberation_components
    if c.get("richness", 0.0) <= 0.0 or abs(q.deliberation_depth - h.core.deliberation_depth) <= TOLERANCE:
        return None
    without_richness = 0.35 * c.get("diversity", 0.0) + 0.35 * c.get("coverage", 0.0)
    if abs(q.deliberation_depth - without_richness) > _DDI_MATCH:
        return None
    return SelfReportFlag(
        code="richness_not_counted",
        message=f"package DDI {q.deliberation_depth:g} equals the harness DDI with critique richness 0 "
        f"({without_richness:.3f}); the reviews' justifications give richness {c['richness']:g}",
    )


def _aggregate_flag(record: ExternalCouncilRecord, transcript: Transcript) -> SelfReportFlag | None:
    mine = {r.member: (r.average_position, r.votes) for r in record.aggregate}
    theirs = {r.member: (r.average_position, r.votes) for r in transcript.aggregate}

    def differs(a: tuple[float | None, int], b: tuple[float | None, int]) -> bool:
        if a[1] != b[1] or (a[0] is None) != (b[0] is None):
            return True
        return a[0] is not None and b[0] is not None and abs(a[0] - b[0]) > POSITION_TOLERANCE

    members = sorted(set(mine) | set(theirs))
    if not any(differs(mine.get(m, (None, 0)), theirs.get(m, (None, 0))) for m in members):
        return None

    def show(table: dict[str, tuple[float | None, int]]) -> str:
        return ", ".join(
            f"{m} {'—' if table.get(m, (None, 0))[0] is None else format(table[m][0], 'g')}"
            f" ({table.get(m, (None, 0))[1]} votes)"
            for m in members
        )

    ballots = {b.reviewer: b.ranking for b in record.ballots}
    same_ballots = all(ballots.get(r.reviewer) == r.ballot.ranking for r in transcript.reviews if r.ok)
    why = (
        "; the ballots are the same, so the aggregation differs (the package keeps a ballot's positions after "
        "dropping the self-vote, the harness re-indexes the ballot)"
        if same_ballots
        else "; the package and the harness parsed some reviews differently"
    )
    return SelfReportFlag(
        code="aggregate_differs",
        message=f"average positions differ: package {show(mine)}; harness {show(theirs)}{why}",
    )


def compare_self_reported(
    transcript: Transcript,
    harness: QualityMetrics | None = None,
    *,
    grounding_threshold: float = 0.6,
    tolerance: float = TOLERANCE,
) -> SelfReportComparison | None:
    """Compare an external council's self-reported Tier 1 metrics with the harness's own.

    Args:
        transcript: a transcript of an external council (``transcript.external`` set).
        harness: the harness's metrics for it; computed with
            :func:`~harness.metrics.quality_metrics.core_quality_metrics` when not given.
        grounding_threshold: the harness's SAS grounding threshold (when ``harness`` is computed here).
        tolerance: the largest absolute difference that still agrees.

    Returns:
        the comparison, or ``None`` for a transcript that carries no external record.
    """
    record = transcript.external
    if record is None:
        return None
    h = harness or core_quality_metrics(transcript, grounding_threshold)
    q = record.self_reported
    rows = tuple(_row(name, mine, theirs, tolerance, exact) for name, mine, theirs, exact in _values(q, h))
    flags: list[SelfReportFlag] = []
    if q is None:
        default = f"{record.package} reported no quality metrics"
        reason = next((n for n in record.notes if "quality metrics" in n), default)
        flags.append(SelfReportFlag(code="not_reported", message=reason))
    else:
        flags.extend(_sas_flags(q, h, transcript, grounding_threshold))
        ddi = _ddi_flag(q, h)
        if ddi is not None:
            flags.append(ddi)
        if set(q.warnings) != set(h.warnings):
            only_self = sorted(set(q.warnings) - set(h.warnings))
            only_harness = sorted(set(h.warnings) - set(q.warnings))
            flags.append(
                SelfReportFlag(
                    code="warnings_differ",
                    message=f"warnings only the package raised: {only_self or 'none'}; "
                    f"only the harness: {only_harness or 'none'}",
                )
            )
    aggregate = _aggregate_flag(record, transcript)
    if aggregate is not None:
        flags.append(aggregate)
    return SelfReportComparison(
        package=f"{record.package} {record.version}",
        reported=q is not None,
        tolerance=tolerance,
        metrics=rows,
        flags=tuple(flags),
        self_warnings=q.warnings if q else (),
        harness_warnings=h.warnings,
    )
