"""The old import path of Caller and CallResult.

They live in :mod:`harness.calls`, beside :mod:`harness.transcript`.
"""

from harness.calls import (
    Caller,
    CallResult,
)

__all__ = ["CallResult", "Caller"]
