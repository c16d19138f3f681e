"""The old import path of the external council's self-reported records.

They live in :mod:`harness.external_council_types`, beside :mod:`harness.transcript`.
"""

from harness.external_council_types import (
    ExternalCouncilRecord,
    PackageBallot,
    PackageRank,
    SelfReportedAttribution,
    SelfReportedMetrics,
)

__all__ = ["ExternalCouncilRecord", "PackageBallot", "PackageRank", "SelfReportedAttribution", "SelfReportedMetrics"]
