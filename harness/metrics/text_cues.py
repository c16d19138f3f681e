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
   planet, with Jupiter second"), is ``ambiguous`` — unless that phrase is an appositive
   restating the clause's last noun phrase (:func:`appositive`): a place after "in / at / near /
   from <Place>" ("held in Rio de Janeiro, Brazil") or a symbol or formula after a lower-case noun
   ("sodium chloride, NaCl"); then the phrase is what is compared.
4. **attribution** — in a short answer (at most ``SHORT_ANSWER_WORDS`` words; a longer one is not
   matched as a phrase anyway), a value named only after a framing that reports what others think or say
   (:data:`ATTRIBUTED`: "often thought to be", "commonly believed", "many say", "people assume",
   "is said to be") does not commit the answerer: ``ambiguous`` ("It's often thought to be
   Canberra"). A contrast (rule 2) is read first, so "Many people think it's Sydney, but it is
   Canberra" reads Canberra; so is a leading concession whose main clause follows its comma
   ("Although many believe it's Sydney, it is Canberra").
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
ATTRIBUTED = re.compile(
    r"(?i)\b(?:(?:often|commonly|widely|generally|popularly|frequently|sometimes|usually|mistakenly|wrongly)\s+"
    r"(?:thought|believed|assumed|said|claimed|supposed|reported|mistaken|confused)\b"
    r"|(?:is|are|was|were|'s|’s)\s+(?:said|thought|believed|rumou?red|claimed|reputed|supposed|assumed)\s+to\b"
    r"|(?:many|most|some)\s+(?:people\s+|folks\s+)?(?:would\s+|often\s+|still\s+)?(?:say|think|believe|assume|claim|guess)\b"
    r"|people\s+(?:often\s+|usually\s+|commonly\s+|sometimes\s+)?(?:say|think|believe|assume|claim)\b"
    r"|(?:common|popular|widespread)\s+(?:belief|misconception|myth|assumption)\b|according\s+to\s+(?:legend|myth|popular)\b)"
)
_CONCEDING_START = re.compile(r"(?i)^\W*(?:although|though|even\s+though|while|whereas)\b")
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


def attribution(candidate: str) -> tuple[str, str] | None:
    """``(before, after)`` around the first framing that reports what others think or say
    (:data:`ATTRIBUTED`), else ``None``. After a leading concession ("Although many believe it's
    Sydney, it is Canberra") only the part up to its comma is framed; the main clause after it is
    returned as ``before``'s continuation, i.e. ``(before + main clause, framed part)``."""
    m = ATTRIBUTED.search(candidate)
    if m is None:
        return None
    if _CONCEDING_START.match(candidate):
        comma = candidate.find(",", m.end())
        if comma != -1 and candidate[comma + 1 :].strip():
            return candidate[: m.start()] + " " + candidate[comma + 1 :], candidate[m.end() : comma]
    return candidate[: m.start()], candidate[m.end() :]


_PLACE_TAIL = re.compile(
    r"\b(?:in|at|near|from)\s+((?:the\s+)?[A-Z][\w'.-]*(?:\s+(?:(?:de|da|do|del|la|le|of|upon|on)\s+)?[A-Z][\w'.-]*)*)\s*$"
)
_PLACE = re.compile(r"^[A-Z][\w'.-]*(?:\s+(?:(?:de|da|do|del|la|le|of)\s+)?[A-Z][\w'.-]*){0,2}$")
_SYMBOL = re.compile(r"^(?:[A-Z][a-z]?\d*){1,6}$")


def appositive(main: str, tail: str) -> str | None:
    """The trailing phrase of ``main, tail`` when it is an appositive restating the main clause's
    last noun phrase, else ``None``: a place of one to three capitalised words after a main clause
    ending "in / at / near / from <Place>" ("… held in Rio de Janeiro, Brazil"), or one symbol or
    formula (element-like parts: "NaCl", "H2O", "Au") after a main clause ending in a lower-case
    word ("Table salt is sodium chloride, NaCl")."""
    phrase = tail.strip().rstrip(".!?;").strip()
    if "," in phrase or not phrase:
        return None
    main = main.rstrip()
    if _PLACE_TAIL.search(main) and _PLACE.match(phrase):
        return phrase
    last = main.split()[-1] if main.split() else ""
    if _SYMBOL.match(phrase) and last.isalpha() and last.islower():
        return phrase
    return None
