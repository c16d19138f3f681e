"""The old import path of the consensus-voting records.

They live in :mod:`harness.consensus_types`, beside :mod:`harness.transcript`.
"""

from harness.consensus_types import (
    AgreementLevel,
    ConsensusResult,
    ModelResponse,
)

__all__ = ["AgreementLevel", "ConsensusResult", "ModelResponse"]
