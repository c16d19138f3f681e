"""Whether a regex match is what an answer states, or a value it rejects or hedges (used by
:func:`harness.metrics.correctness.check_expected` for ``regex`` cases).

A match is a *fragment* when it is only part of a number the answer states: its digits follow a
minus sign ("2" of "x = −2, x = −3" for a pattern written for 2 and 3) or go on after a decimal
point ("2" of "2.5"); a fragment is not stated. A match is *rejected* when the text around it turns
it down: "not 1969", "1970 (not 1969)", "1970, not 1969", "rather than 1969", "FF? No, FE.", "O(n^2)
is only a myth / is wrong". It is *hedged* when it is offered as one of alternatives: "either 1969
or 1970", "1969 or 1970", "1969, I think — or was it 1970?". It is *conceded* when it sits in a
concessive clause, after "although", "though", "even though" or "whereas" with no clause boundary
between ("the answer is 08/02/1776, though it was adopted on 07/04/1776"; "Though 1969 is often
given, …"). A regex case passes only on a match that is stated; when every match is rejected the
answer is wrong, when one is hedged or conceded it is ambiguous. It is *reported* when it sits in a
clause framed as what others think or say ("Most people say 07/04/1776.", "Many say ampere; I say
coulomb": :func:`harness.metrics.text_cues.framed_spans`; also what a council participant gave,
"Member A said 404", "Response B: 410", unless the answer endorses it right after: "That's correct.";
ambiguous), and an *aside* when it sits in
a parenthesis of at least two other words after a different value ("07/02/1776 (the famous
07/04/1776 was just the printing)"; wrong) — a bare restatement "(07/04/1776)" is stated. The
parenthesis is found as written, whatever sentence marks it holds ("Answer: .pyc (compiled bytecode;
you'll also see .py for scripts)"), and it may open a sentence of its own right after a short lead
on the same line that has the match's shape — digits for digits, letters for letters ("1969-07-21.
(… after the 1969-07-20 touchdown …)"; not "The landing. (It was 1969-07-20.)").

:func:`committed_lead`: an answer that opens with a short answer of its own (a first sentence of at
most :data:`LEAD_WORDS` words without a match) and closes on it (the clause after the last
conclusion cue of its last sentence — or that sentence — holds the lead's words and no match: "The
coulomb. The ampere is only derived from it, so the coulomb is the base unit.") commits to that
lead; the matches between are discussion, and the answer is wrong. So does an opening of at most
:data:`SHORT_LEAD_WORDS` words standing alone before a full stop, dash, colon or semicolon ("Coulomb.
Ampere is derived.", "It's the coulomb — the ampere is just …"), unless it is a filler ("Sure.",
"Good question —", "e.g."), only repeats words of the question ("Electric current. Its unit is the
ampere."), or is restated before the match ("July 4th. In MM/DD/YYYY: 07/04/1776", "…, i.e. …").

:func:`alternative_notations`: matches offered as alternatives only of one another ("`#FF0000` (or
the shorthand `#F00`)", "0xFF, or just FF") all satisfy the pattern, so the answer is not
ambiguous: between consecutive matches stand only connecting words (:data:`NOTATION_WORDS`),
marks and markup, the matches' sentence holds no hedge ("maybe", "either", "not sure", …), and no
"or" follows the last match.

:func:`reaffirmed`: a turn after a match ("but", "however", …) whose clause only points back to it
as the standard or correct one and closes the answer ("127.0.0.1 (any 127.x address works, but
that's the standard one)."; "…, but it is the default address.") is not a turn away from it.

:func:`radix_unprefixed`: a ``0b`` before binary digits or a ``0x`` before hex digits, only where the
whole token is clean ("0b11111111", "0xFF"; not "0b12", "0xFG"), blanked so that a pattern written
for the bare digits (``\\b11111111\\b``) can match; used only when the pattern finds nothing as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from harness.metrics.extraction_base import CONCLUSION, MARKUP, split_sentences
from harness.metrics.text_cues import framed_spans

_NEG_BEFORE = re.compile(
    r"(?i)(?:\bnot|\bnever|n't|\brather\s+than|\binstead\s+of)\s+(?:\w+\s+)?[\"'“‘(]?$"
    r"|\(\s*(?:not|rather\s+than|instead\s+of)\b[^()]{0,120}$"
    r"|(?:[,;]|\s[-–—])\s*(?:but\s+)?(?:not|rather\s+than|instead\s+of)\b[^,;.()\n]{0,120}$"
)
_REJECTED_AFTER = re.compile(
    r"(?i)^[\"'”’)]?\s*\?\s*(?:no|nope|not)\b"
    r"|^[^.!?\n]{0,40}?\b(?:is|are|was|were)\s+(?:only\s+|just\s+|simply\s+)?(?:a\s+(?:common\s+)?myth|wrong|incorrect|"
    r"false|a\s+(?:common\s+)?misconception|not\s+(?:right|correct|true))\b"
    r"|^\s*(?:is|are|was|were)\s+not\s*(?:[.;!]|$)"
)
_CONCEDED_BEFORE = re.compile(r"(?i)\b(?:although|though|even\s+though|whereas)\b[^,;.!?\n]{0,120}$")
_HEDGE_BEFORE = re.compile(r"(?i)\b(?:either|or|maybe|perhaps|possibly)\s+[\"'“‘(]?$")
_HEDGE_AFTER = re.compile(r"(?i)^[^.!?\n]{0,20}?(?:\bor\b|\?)")

Context = Literal["stated", "rejected", "hedged", "conceded", "reported", "aside", "fragment"]
#: A match that is only part of a number: its digits follow a minus sign ("2" of "x = −2") or go on
#: after a decimal point ("2" of "2.5"); the number the answer states is another one.
_SIGN_BEFORE = re.compile(r"(?:^|[^\w.,])[-−–]$")
_DECIMALS_AFTER = re.compile(r"\.\d")
_SENTENCE_START = re.compile(r"[.!?;\n]\s*")


#: A council participant's report right before the match ("Member A said 404", "two jurors answered
#: 12", "Response B: 26.67 g"): what a member gave, not what the answer states (the chairman, the
#: council or the majority decide, and are not listed).
_MEMBER_REPORT = re.compile(
    r"(?i)\b(?:members?|models?|jurors?|responses?|reviewers?|panelists?|experts?|agents?|assistants?|"
    r"participants?|debaters?)(?:\s+(?:[A-Z0-9]{1,3}|#\d{1,2}|one|two|three|four|five))?\s*"
    r"(?:(?:said|says|answered|gave|chose|picked|proposed|voted\s+for|argued(?:\s+for)?|suggested|went\s+with|"
    r"reported|claimed|put|wrote|got)\b[^.;\n]{0,40}?|[:—–]\s*)$"
)


#: A report endorsed right after it ("Member A said 404. That's correct.", "…, which is right", "; I agree").
_ENDORSED = re.compile(
    r"(?i)[^.;!?\n]{0,40}[.;,!]?\s*(?:and\s+)?(?:that'?s|that\s+is|which\s+is|this\s+is|it\s+is|it'?s|they\s+are|"
    r"(?:member|response|juror|model)\s+\w{1,3}\s+is|I\s+agree|agreed|rightly)(?!\s+not\b|n't\b)"
    r"(?:\s+(?:correct|right|the\s+right\s+answer|the\s+answer))?(?=\s*(?:[.!;,]|$))"
)


def match_context(text: str, start: int, end: int, query: str | None = None) -> Context:
    """How the answer ``text`` treats the match at ``start``-``end`` (see the module docstring)."""
    before, after = text[max(0, start - 160) : start], text[end : end + 80]
    matched = text[start:end]
    if (matched[:1].isdigit() and _SIGN_BEFORE.search(before)) or (
        matched[-1:].isdigit() and _DECIMALS_AFTER.match(after)
    ):
        return "fragment"
    if _NEG_BEFORE.search(before) or _REJECTED_AFTER.match(after):
        return "rejected"
    if _HEDGE_BEFORE.search(before) or _HEDGE_AFTER.match(after):
        return "hedged"
    if _CONCEDED_BEFORE.search(before):
        return "conceded"
    heads = [m.end() for m in _SENTENCE_START.finditer(text, max(0, start - 400), start)]
    head = heads[-1] if heads else max(0, start - 400)
    tail = _SENTENCE_START.search(text, end)
    sentence = text[head : tail.start() if tail else min(len(text), end + 400)]
    if any(a <= start - head and end - head <= b for a, b in framed_spans(sentence, query)):
        return "reported"
    if _MEMBER_REPORT.search(text[head:start]) and not _ENDORSED.match(text, end):
        return "reported"  # "Member A said 404 and member B said 410; …": what a participant gave
    if _in_aside(text, start, end):
        return "aside"  # "07/02/1776 (the famous 07/04/1776 was just the printing)": a comment on another value
    return "stated"


def _in_aside(text: str, start: int, end: int) -> bool:
    """Whether the match at ``start``-``end`` sits in a commenting parenthesis (see the module
    docstring): a parenthesis of at least two other words that opens after other words of its
    sentence, or that opens a sentence right after a short lead of the same line ("1969-07-21.
    (… after the 1969-07-20 touchdown …)"). The parenthesis is found as written, whatever sentence
    marks it holds ("(compiled bytecode; you'll also see .py for scripts)")."""
    opened = text.rfind("(", max(0, start - 300), start)
    closed = text.find(")", end, end + 300)
    if opened == -1 or ")" in text[opened:start] or closed == -1 or "(" in text[end:closed]:
        return False
    if len(re.findall(r"\w+", text[opened:start] + text[end:closed])) < 2:
        return False  # a bare restatement "(07/04/1776)" is stated
    heads = [m.end() for m in _SENTENCE_START.finditer(text, max(0, opened - 400), opened)]
    head = heads[-1] if heads else max(0, opened - 400)
    if re.search(r"\w", text[head:opened]):
        return True
    line = text.rfind("\n", 0, opened) + 1
    lead = re.findall(r"\w+", text[line:opened])
    return (
        0 < len(lead) <= LEAD_WORDS
        and not {w.lower() for w in lead} <= _NOT_A_LEAD | _FILLER
        and _shape(text[line:opened]) == _shape(text[start:end])
    )


def _shape(value: str) -> tuple[bool, bool]:
    """Whether ``value`` holds a digit and a letter: a lead and a match of one shape are values of one
    kind ("1969-07-21" and "1969-07-20"; "Ampere" and "coulomb"), a lead of words before a date is not."""
    return any(c.isdigit() for c in value), any(c.isalpha() for c in value)


#: The most words of an opening sentence that :func:`committed_lead` takes for the answer's own short answer.
LEAD_WORDS = 5
#: The most words of an opening that commits by itself, with no restatement at the close.
SHORT_LEAD_WORDS = 3
_FILLER = frozenset("the a an it its is are was this that answer my short final".split())


#: Openings that are not an answer of their own ("Sure.", "Good question —", "Simple:").
_NOT_A_LEAD = frozenset(
    "sure yes no ok okay well hmm right great certainly absolutely indeed correct true false good question "
    "simple easy quick short final answer summary note so basically essentially alright thanks hello hi "
    "e g i eg ie example instance".split()
)
_LEAD_HEAD = re.compile(r"[—–:;]|\s-\s")
_LEAD_PREFIX = re.compile(r"(?i)^(?:it'?s|it\s+is|that'?s|that\s+is|this\s+is|the\s+answer\s+is|answer\s*:)\s+")


def _stem(word: str) -> str:
    return re.sub(r"(?:es|s)$", "", word) if len(word) > 3 else word


#: Words that restate a value in another form before the match ("July 4th. In MM/DD/YYYY: 07/04/1776").
_RESTATED = re.compile(
    r"(?i)\b(?:i\.?e\.?|that\s+is|in\s+other\s+words|written|format\w*|requested|aka|also\s+known|also\s+called|"
    r"symbol|abbreviat\w*|numerically|in\s+digits|or|spelled|officially|formally)\b|[=:→(]|\b[A-Z]{2,}/"
)


def committed_lead(text: str, find: Callable[[str], int | None], query: str | None = None) -> str | None:
    """The answer's opening short answer when it commits to it (see the module docstring), else
    ``None``; ``find`` gives where a piece of text first matches the pattern (``None``: nowhere). A lead of at
    most :data:`SHORT_LEAD_WORDS` words standing alone before the rest of the answer ("Coulomb.
    Ampere is derived.", "It's the coulomb — the ampere is …") commits by itself, unless it is a
    filler ("Sure.") or only repeats the question's words ("Electric current. …")."""

    def matches(piece: str) -> bool:
        return find(piece) is not None

    sentences = split_sentences(text)
    if len(sentences) < 2 and not (sentences and _LEAD_HEAD.search(sentences[0])):
        return None
    head = _LEAD_HEAD.split(sentences[0], maxsplit=1)[0] if sentences else ""
    short = _LEAD_PREFIX.sub("", head.strip(MARKUP + ".!?;:")).strip(MARKUP)
    short_words = re.findall(r"\w+", short.lower())
    asked = {_stem(w) for w in re.findall(r"\w+", (query or "").lower())}
    if (
        short_words
        and len(short_words) <= SHORT_LEAD_WORDS
        and not set(short_words) <= _NOT_A_LEAD | _FILLER
        and not {_stem(w) for w in short_words} - _FILLER <= asked
        and short[:1].isalpha()
        and not matches(short)
        and (at := find(text[len(head) :])) is not None
        and not _RESTATED.search(text[len(head) : len(head) + at])
    ):
        return short
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


#: Words that may join two notations of one value ("#FF0000 (or the shorthand #F00)").
NOTATION_WORDS = frozenset(
    "or the a shorthand short long longer full form also equivalently written as ie abbreviated "
    "notation simply just same in".split()
)
_NOTATION_HEDGE = re.compile(
    r"(?i)\b(?:maybe|perhaps|possibly|probably|either|might|could|not\s+sure|unsure|guess|or\s+was\s+it)\b"
)
_OR_AFTER = re.compile(r"(?i)^[\s)`*_\]]*,?\s*or\b")


def alternative_notations(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether two or more matches (``spans``, in order) are offered only as alternatives of one
    another (see the module docstring)."""
    if len(spans) < 2:
        return False
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        words = re.findall(r"[^\W_]+", text[end:start].replace(".", "").casefold())
        if any(w not in NOTATION_WORDS for w in words) or re.search(r"[.;!?\n]", text[end:start].replace("i.e.", "")):
            return False
    if _OR_AFTER.match(text[spans[-1][1] :]):
        return False
    begin = max(text.rfind(c, 0, spans[0][0]) for c in ".!?\n") + 1
    stop = min((i for i in (text.find(c, spans[-1][1]) for c in ".!?\n") if i >= 0), default=len(text))
    return not _NOTATION_HEDGE.search(text[begin:stop])


_RADIX_PREFIX = re.compile(r"(?<![\w.])0(?:b(?=[01]+(?!\w|\.\d))|x(?=[0-9a-fA-F]+(?!\w|\.\d)))")


def radix_unprefixed(text: str) -> str:
    """``text`` with each clean ``0b``/``0x`` prefix replaced by spaces (offsets kept; see the module docstring)."""
    return _RADIX_PREFIX.sub(lambda m: " " * len(m.group(0)), text)


#: A turned clause that only points back to the stated value as the standard or correct one ("…, but
#: that's the standard one).", "…, but it is the default address.", "…, but this is the one").
_REAFFIRMED = re.compile(
    r"(?i)\s*(?:that|this|it)(?:'s|’s|\s+is|\s+remains)\s+(?:still\s+)?(?:the\s+)?"
    r"(?:(?:standard|default|canonical|conventional|official|correct|right|proper|recommended|preferred)"
    r"(?:\s+(?:one|answer|choice|form|formula|value|address|notation|name|symbol|term|unit|port))?|one)\b"
    r"(?:\s+[\w'’-]+){0,3}?[\s.!)*_`]*$"
)


def reaffirmed(text: str, at: int) -> bool:
    """Whether the clause after a turn ending at ``at`` only reaffirms the value stated before it, as
    the standard or correct one, and closes the answer (:data:`_REAFFIRMED`): "localhost, i.e.
    127.0.0.1 (any 127.x address works, but that's the standard one)." turns back to its value, not
    away from it."""
    return _REAFFIRMED.match(text, at) is not None
