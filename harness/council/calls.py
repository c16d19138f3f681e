"""The old import path of Caller and CallResult.

They live in :mod:`harness.providers.calls`, beside :mod:`harness.records.transcript`.
"""

from harness.providers.calls import (
    Caller,
    CallResult,
)

__all__ = ["CallResult", "Caller"]
