"""Whether a regex match is what an answer states, or a value it rejects or hedges (used by
:func:`harness.metrics.correctness.check_expected` for ``regex`` cases).

A match is *rejected* when the text around it turns it down: "not 1969", "1970 (not 1969)",
"1970, not 1969", "rather than 1969", "FF? No, FE.", "O(n^2) is only a myth / is wrong". It is
*hedged* when it is offered as one of alternatives: "either 1969 or 1970", "1969 or 1970", "1969,
I think — or was it 1970?". It is *conceded* when it sits in a concessive clause, after "although",
"though", "even though" or "whereas" with no clause boundary between ("the answer is 08/02/1776,
though it was adopted on 07/04/1776"; "Though 1969 is often given, …"). A regex case passes only on
a match that is stated; when every match is rejected the answer is wrong, when one is hedged or
conceded it is ambiguous.

:func:`committed_lead`: an answer that opens with a short answer of its own (a first sentence of at
most :data:`LEAD_WORDS` words without a match) and closes on it (the clause after the last
conclusion cue of its last sentence — or that sentence — holds the lead's words and no match: "The
coulomb. The ampere is only derived from it, so the coulomb is the base unit.") commits to that
lead; the matches between are discussion, and the answer is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from harness.metrics.extraction_base import CONCLUSION, MARKUP, split_sentences

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
_CONCEDED_BEFORE = re.compile(r"(?i)\b(?:although|though|even\s+though|whereas)\b[^,;.!?\n]{0,120}$")
_HEDGE_BEFORE = re.compile(r"(?i)\b(?:either|or|maybe|perhaps|possibly)\s+[\"'“‘(]?$")
_HEDGE_AFTER = re.compile(r"(?i)^[^.!?\n]{0,20}?(?:\bor\b|\?)")

Context = Literal["stated", "rejected", "hedged", "conceded"]


def match_context(text: str, start: int, end: int) -> Context:
    """How the answer ``text`` treats the match at ``start``-``end`` (see the module docstring)."""
    before, after = text[max(0, start - 160) : start], text[end : end + 80]
    if _NEG_BEFORE.search(before) or _REJECTED_AFTER.match(after):
        return "rejected"
    if _HEDGE_BEFORE.search(before) or _HEDGE_AFTER.match(after):
        return "hedged"
    if _CONCEDED_BEFORE.search(before):
        return "conceded"
    return "stated"


#: The most words of an opening sentence that :func:`committed_lead` takes for the answer's own short answer.
LEAD_WORDS = 5
_FILLER = frozenset("the a an it its is are was this that answer my short final".split())


def committed_lead(text: str, matches: Callable[[str], bool]) -> str | None:
    """The answer's opening short answer when it closes on it too (see the module docstring), else
    ``None``; ``matches`` says whether a piece of text holds a match of the pattern."""
    sentences = split_sentences(text)
    if len(sentences) < 2:
        return None
    lead = sentences[0].strip(MARKUP + ".!?;:")
    words = re.findall(r"\w+", lead.lower())
    content = [w for w in words if w not in _FILLER]
    if not content or len(words) > LEAD_WORDS or matches(lead):
        return None
    last = sentences[-1]
    cues = list(CONCLUSION.finditer(last))
    closing = last[cues[-1].end() :] if cues else last
    if matches(closing) or not set(content) <= set(re.findall(r"\w+", closing.lower())):
        return None
    return lead
