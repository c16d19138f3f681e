"""Whether a regex match is what an answer states, or a value it rejects or hedges (used by
:func:`harness.metrics.correctness.check_expected` for ``regex`` cases).

A match is *rejected* when the text around it turns it down: "not 1969", "1970 (not 1969)",
"1970, not 1969", "rather than 1969", "FF? No, FE.", "O(n^2) is only a myth / is wrong". It is
*hedged* when it is offered as one of alternatives: "either 1969 or 1970", "1969 or 1970", "1969,
I think — or was it 1970?". A regex case passes only on a match that is neither; when every match
is rejected the answer is wrong, when one is hedged it is ambiguous.
"""

from __future__ import annotations

import re
from typing import Literal

_NEG_BEFORE = re.compile(
    r"(?i)(?:\bnot|\bnever|n't|\brather\s+than|\binstead\s+of)\s+(?:\w+\s+)?[\"'“‘(]?$"
    r"|\(\s*(?:not|rather\s+than|instead\s+of)\b[^()]{0,120}$"
    r"|(?:[,;]|\s[-–—])\s*(?:but\s+)?(?:not|rather\s+than|instead\s+of)\b[^,;.()\n]{0,120}$"
)
_REJECTED_AFTER = re.compile(
    r"(?i)^[\"'”’)]?\s*\?\s*(?:no|nope|not)\b"
    r"|^[^.!?\n]{0,40}?\b(?:is|are|was|were)\s+(?:only\s+|just\s+|simply\s+)?(?:a\s+(?:common\s+)?myth|wrong|incorrect|"
    r"false|a\s+(?:common\s+)?misconception|not\s+(?:right|correct|true))\b"
)
_HEDGE_BEFORE = re.compile(r"(?i)\b(?:either|or|maybe|perhaps|possibly)\s+[\"'“‘(]?$")
_HEDGE_AFTER = re.compile(r"(?i)^[^.!?\n]{0,20}?(?:\bor\b|\?)")

Context = Literal["stated", "rejected", "hedged"]


def match_context(text: str, start: int, end: int) -> Context:
    """How the answer ``text`` treats the match at ``start``-``end`` (see the module docstring)."""
    before, after = text[max(0, start - 160) : start], text[end : end + 80]
    if _NEG_BEFORE.search(before) or _REJECTED_AFTER.match(after):
        return "rejected"
    if _HEDGE_BEFORE.search(before) or _HEDGE_AFTER.match(after):
        return "hedged"
    return "stated"
