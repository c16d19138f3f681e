"""A yes/no question that compares two numbers, answered by a stated comparison (used by
:func:`harness.metrics.extraction.extract_boolean`).

The question "Is 2^10 greater than 1000?" (also "more / larger / bigger / higher / less / smaller /
fewer / lower than", "Does 3^7 exceed 2000?") names a direction and a bound, the number after
"than" (or "exceed"). An answer that gives no yes/no word but states a comparison with that bound —
"2^10 = 1024, which is greater than 1000", "1024 > 1000", "that is less than 1000", "it does not
exceed 2000", "1000 < 1024" — answers it: yes when its direction is the question's, no when it is
the other one or negated ("not greater than", "no more than", "isn't above").

Only strict comparisons count (">", "<", words, not "≥"/"≤"). When the question's subject is a
number ("2^10", read as 1024), a comparison whose own subject — the last number before it in its
sentence — is another number is passed over ("2^9 = 512, which is less than 1000" does not answer
about 2^10). Comparisons that disagree give nothing: the rule abstains.
"""

from __future__ import annotations

import re

from harness.metrics.numbers import find_numbers
from harness.metrics.numerals import plain_numerals

_UP = "greater|more|larger|bigger|higher|longer|heavier|taller|older"
_DOWN = "less|smaller|fewer|lower|shorter|lighter|younger"
_QUESTION = re.compile(
    r"(?i)\b(?:is|are|was|were|will|would)\s+(?P<a>[^?\n]{1,80}?)\s+(?:(?P<up>" + _UP + r")|(?P<down>" + _DOWN + r"))"
    r"\s+than\s+(?P<b>[^?\n]{1,40}?)\s*\?"
    r"|\b(?:does|do|did|will|would)\s+(?P<a2>[^?\n]{1,80}?)\s+exceed\s+(?P<b2>[^?\n]{1,40}?)\s*\?"
)
_NUM = r"[-−]?\d[\d,]*(?:\.\d+)?"
_WORDS = re.compile(
    r"(?i)(?P<neg>\b(?:not|never|no)\s+|n't\s+)?(?:(?P<up>" + _UP + r")\s+than|(?P<up2>above|over|exceeds?|exceeding)"
    r"|(?P<down>" + _DOWN + r")\s+than|(?P<down2>below|under|short\s+of))\s+(?P<n>" + _NUM + r")"
)
_SYMBOLS = re.compile(r"(?P<x>" + _NUM + r")\s*(?P<op>[<>])(?!=)\s*(?P<y>" + _NUM + r")")
_SENTENCE_START = re.compile(r"[.!?;:\n](?=\s|$)")


def _value(text: str) -> float | None:
    nums = find_numbers(plain_numerals(text))
    if len(nums) != 1:
        return None
    return nums[0][1].value


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _subject(text: str, start: int) -> float | None:
    """The last number before ``start`` in its sentence."""
    begin = max((m.end() for m in _SENTENCE_START.finditer(text, 0, start)), default=0)
    nums = find_numbers(text[begin:start])
    return nums[-1][1].value if nums else None


def comparison_polarity(query: str | None, text: str) -> tuple[bool, str] | None:
    """``(value, phrase)`` when ``text`` states a comparison with the bound of a comparing question
    (see the module docstring), else ``None``."""
    if not query:
        return None
    q = None
    for m in _QUESTION.finditer(query[-2000:]):
        q = m
    if q is None:
        return None
    up = not q["down"]
    bound = _value(q["b"] or q["b2"])
    if bound is None:
        return None
    subject = _value(q["a"] or q["a2"])
    text = plain_numerals(text[:3000])
    said: list[tuple[bool, str]] = []
    for m in _WORDS.finditer(text):
        n = _value(m["n"])
        if n is None or not _same(n, bound):
            continue
        before = _subject(text, m.start())
        if subject is not None and before is not None and not _same(before, bound) and not _same(before, subject):
            continue
        direction = bool(m["up"] or m["up2"])
        said.append(((direction == up) != bool(m["neg"]), m.group(0)))
    for m in _SYMBOLS.finditer(text):
        x, y = _value(m["x"]), _value(m["y"])
        if x is None or y is None:
            continue
        direction = m["op"] == ">"
        if _same(x, bound) and not _same(y, bound):
            x, y, direction = y, x, not direction
        if not _same(y, bound) or (subject is not None and not _same(x, subject)):
            continue
        said.append((direction == up, m.group(0)))
    values = {v for v, _ in said}
    if len(values) != 1:
        return None
    return said[-1]
