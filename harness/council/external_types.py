"""The old import path of the external council's self-reported records.

They live in :mod:`harness.records.external_council_types`, beside :mod:`harness.records.transcript`.
"""

from harness.records.external_council_types import (
    ExternalCouncilRecord,
    PackageBallot,
    PackageRank,
    SelfReportedAttribution,
    SelfReportedMetrics,
)

__all__ = ["ExternalCouncilRecord", "PackageBallot", "PackageRank", "SelfReportedAttribution", "SelfReportedMetrics"]
