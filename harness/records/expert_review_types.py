"""A person's verdict on an ``expert_review`` case."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from harness.common.model import Frozen


class ReviewVerdict(Frozen):
    """A person's verdict on an ``expert_review`` case.

    Args:
        verdict: ``pass`` or ``fail``.
        note: the reviewer's reason.
        who: the reviewer.
        when: when the verdict was given (timezone-aware).
        answer_sha256: hash of the answer that was reviewed; a later run reuses the verdict only for
            the same answer.
    """

    verdict: Literal["pass", "fail"]
    note: str = ""
    who: str
    when: datetime
    answer_sha256: str | None = None
