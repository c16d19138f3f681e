"""What an external council package said about its own run (kept free of other harness imports).

:mod:`harness.records.transcript` carries an :class:`ExternalCouncilRecord` for the ``llm-council`` subject,
so this module imports only :mod:`harness.common.model`. The adapter that fills it is
:mod:`harness.council.external`; the comparison with the harness's own metrics is
:mod:`harness.metrics.self_reported`.
"""

from __future__ import annotations

from harness.common.model import Frozen


class SelfReportedAttribution(Frozen):
    """The package's Synthesis Attribution Score, as it reported it.

    Args:
        winner_alignment: its Jaccard of the synthesis with its top-2 answers.
        max_source_alignment: its best Jaccard of the synthesis with any answer.
        hallucination_risk: ``1 - max_source_alignment``.
        grounded: whether it judged the synthesis grounded in the answers.
    """

    winner_alignment: float
    max_source_alignment: float
    hallucination_risk: float
    grounded: bool


class SelfReportedMetrics(Frozen):
    """The package's own Tier 1 quality block (``metadata["quality_metrics"]`` of llm-council-core).

    Args:
        tier: the tier the package computed (``core``, ``standard``, ``enterprise``).
        consensus_strength: its CSS.
        deliberation_depth: its DDI (the package does not report the DDI components).
        synthesis_attribution: its SAS.
        warnings: its ``quality_alerts`` (the seed's warning names).
    """

    tier: str
    consensus_strength: float
    deliberation_depth: float
    synthesis_attribution: SelfReportedAttribution
    warnings: tuple[str, ...] = ()


class PackageRank(Frozen):
    """One entry of the package's own aggregate ranking.

    Args:
        member: the harness member id of the ranked model.
        model: the model name the package used.
        borda: its mean normalized Borda score (``None`` with no votes).
        average_position: its mean 1-based position, rounded to 2 places by the package.
        votes: how many ballots it counted for this model.
        rank: its 1-based rank.
    """

    member: str
    model: str
    borda: float | None
    average_position: float | None
    votes: int
    rank: int | None = None


class PackageBallot(Frozen):
    """How the package itself parsed one stage-2 review.

    Args:
        reviewer: the harness member id of the reviewer.
        ranking: the labels in the order the package read them (before its own clean-up).
        abstained: the package counted the review as an abstention.
        reason: why it abstained, as the package said.
        score_rank_mismatch: the package saw scores that contradict the ranking.
    """

    reviewer: str
    ranking: tuple[str, ...] = ()
    abstained: bool = False
    reason: str | None = None
    score_rank_mismatch: bool = False


class ExternalCouncilRecord(Frozen):
    """The external package's view of a run, beside the harness's mapping of it.

    Args:
        package: the distribution name (``llm-council-core``).
        version: its installed version.
        self_reported: its quality block, ``None`` when it reported none (see ``notes``).
        aggregate: its own aggregate ranking, best first.
        ballots: its own parse of each review.
        degraded_mode: what it said when fewer than three members answered.
        sampling_pinned: whether the harness's loopback relay pinned temperature, seed and
            max_tokens on every call (the package itself sends none of them).
        notes: facts about the run the reader needs (why a block is missing, what was not measured).
    """

    package: str
    version: str
    self_reported: SelfReportedMetrics | None = None
    aggregate: tuple[PackageRank, ...] = ()
    ballots: tuple[PackageBallot, ...] = ()
    degraded_mode: str | None = None
    sampling_pinned: bool = False
    notes: tuple[str, ...] = ()
