"""The old import path of the consensus-voting records.

They live in :mod:`harness.records.consensus_types`, beside :mod:`harness.records.transcript`.
"""

from harness.records.consensus_types import (
    AgreementLevel,
    ConsensusResult,
    ModelResponse,
)

__all__ = ["AgreementLevel", "ConsensusResult", "ModelResponse"]
