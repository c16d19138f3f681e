"""Rule tables for short answers (``exact``, ``any_of``; used by :mod:`harness.metrics.correctness`).

An extracted short answer is narrowed before it is compared, in this order:

1. **asides** — parentheses whose text is not part of any expected value are dropped when
   something remains ("Raphael (a pupil of Leonardo)" is read as "Raphael").
2. **contrast and correction** — the candidate is cut at its last contrast word (:data:`CONTRAST`).
   After a correcting word ("but", "however", "yet", "actually", "in fact", "rather", "instead")
   the claim is the part after it; after a conceding word ("although", "though", "whereas",
   "while") the part before it. When the expected value is named in the claim, the claim is what
   is compared; when it is named only in the other part (the value is named and then corrected —
   "Most people say Lyon, but it is Marseille" — or only conceded — "Venus, although Mercury is
   closer"), the answer is ``ambiguous``, never correct.
   A claim that names the expected value is not enough when the other part offers another
   candidate as a possibility ("Probably Paris, though it might be Lyon": :data:`OTHER_POSSIBILITY`,
   a "might / could / may be" or "possibly / perhaps / maybe" before a name or number): ``ambiguous``.
3. **coordinated clauses** — for answers read without a cue (the first sentence or the whole
   answer), a value named only in a second clause joined by "and" after a first clause of three or
   more words that names something else ("They take in oxygen and give off carbon dioxide"), or
   only in a trailing phrase after the comma of a copular main clause ("Saturn is the largest
   planet, with Jupiter second"), is ``ambiguous``.
"""

from __future__ import annotations

import re

CONTRAST = re.compile(
    r"(?i)(?:[,;:—–-]\s*|\s)(?:(?P<concede>although|though|even\s+though|whereas|while)|but|however|yet|actually|"
    r"in\s+fact|rather|instead|on\s+the\s+contrary|contrary\s+to)\b"
)
OTHER_POSSIBILITY = re.compile(
    r"\b(?:(?i:might|could|may)\s+(?:(?i:also|well|just)\s+)?(?i:be)|(?i:possibly|perhaps|maybe))\s+(?:(?i:the|a|an)\s+)?[A-Z0-9]"
)
_PAREN = re.compile(r"\([^()]{0,200}\)")
_AND_CLAUSE = re.compile(r"(?i)(?:,\s*|\s)and\s+(?!the\b|a\b|an\b|\d)(?=[a-z])")


def without_asides(candidate: str, expected: list[str]) -> str:
    """``candidate`` without parentheses that hold none of the expected values' own parentheses."""
    if not any("(" in v for v in expected):
        bare = " ".join(_PAREN.sub(" ", candidate).split())
        if bare.strip(" .,;:!?"):
            return bare
    return candidate


def contrast_cut(candidate: str) -> tuple[str, str] | None:
    """``(claim, other)`` at the last contrast word of ``candidate``, else ``None``: after a
    correcting word ("but", "however", "actually") the claim is the part after it; after a conceding
    word ("although", "whereas", "while") the claim is the part before it."""
    cuts = list(CONTRAST.finditer(candidate))
    if not cuts:
        return None
    last = cuts[-1]
    before, after = candidate[: last.start()], candidate[last.end() :].strip(" ,;:")
    if not after or not before.strip():
        return None
    return (before, after) if last["concede"] else (after, before)


_COPULA = re.compile(r"(?i)\b(?:is|are|was|were|has|had)\b")


def trailing_phrase(candidate: str) -> tuple[str, str] | None:
    """``(main, trailing)`` when a candidate's main clause (before its first comma, at least three
    words, with a copula) is followed by a trailing phrase ("Saturn is the largest planet, with
    Jupiter second")."""
    head, sep, tail = candidate.partition(",")
    if not sep or len(head.split()) < 3 or not _COPULA.search(head) or not tail.strip():
        return None
    return head, tail


def second_clause(candidate: str) -> tuple[str, str] | None:
    """``(first, second)`` for a candidate that joins two clauses with "and" (see the module docstring)."""
    m = _AND_CLAUSE.search(candidate)
    if not m or len(candidate[: m.start()].split()) < 3:
        return None
    return candidate[: m.start()], candidate[m.end() :]
