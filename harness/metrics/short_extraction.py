"""Reading a short answer for ``exact`` and ``any_of``: :func:`extract_answer` (the rules and their
precedence are defined in :mod:`harness.metrics.extraction`'s docstring, "Short answers")."""

from __future__ import annotations

import re

from harness.metrics.extraction_base import (
    CONCLUSION,
    MARKUP,
    SHORT_ANSWER_WORDS,
    Extraction,
    abbreviation_at,
    answer_cues,
    as_declared,
    bold_spans,
    cap_text,
    clean_latex,
    declared_clause,
    drop_negated,
    extracted,
    last_boxed,
    marked_item,
    marked_lines,
    quoted,
    split_sentences,
)
from harness.metrics.number_cues import TAKE_BACK
from harness.metrics.text_cues import CONTRAST, asked_field, ranked_sentence, ranks_context, states_asked


def _strip_list_marker(line: str) -> str:
    return re.sub(r"^\s*(?:[-*+•]|\d+[.)])\s+", "", line)


#: After a turn in a long first sentence: a conclusion or correction that overturns the opening
#: ("…, but Hilbert derived them first, so I'd name Hilbert"), not a mere contrast of facts ("Canberra
#: is the capital, but Sydney is the largest city").
_OVERTURNS = re.compile(
    r"(?i)\b(?:so|therefore|thus|hence|actually|in\s+fact|really|truly|real|true|correct|I'?d|I\s+would|I\s+say|"
    r"my\s+answer)\b"
)
_LEAD_CONCLUSION = re.compile(r"(?i)^\W*(?:so|therefore|thus|hence|in\s+conclusion|in\s+summary|overall)\b[,:]?\s*")


_FIRST_END = re.compile(r"[.!?](?=\s|$)|;(?!\s*(?:however|but|actually|in\s+fact|rather|instead|yet|though)\b)")


#: A middle initial in a name ("Neil A. Armstrong", "John F. Kennedy"): a capitalised name, one capital
#: and a full stop, then a capitalised name that does not open a sentence.
_INITIAL_BEFORE = re.compile(
    r"(?<![\w.])(?!(?:Option|Choice|Answer|Vitamin|Type|Plan|Group|Grade|Class|Part|Section|Step|Letter|Row|Column|"
    r"Hepatitis|Appendix|Figure|Table)\b)[A-Z][a-z]+\s+[A-Z]\.$"
)
_INITIAL_AFTER = re.compile(
    r"\s+(?!(?:It|Its|The|This|That|These|Those|There|Then|They|He|She|We|You|I|In|On|At|As|So|But|And|Or|If|"
    r"Because|Since|However|Also|A|An|My|Our|His|Her|Their|Yes|No|Not|Note|See|Both|Each|All)\b)[A-Z][a-z]+\b"
)


#: A numbering abbreviation before a number ("Sonata No. 14", "Op. 27", "Vol. 2").
_NUMBERED = re.compile(r"\b(?:No|Nos|Op|Vol|Fig|pp|Ch|Art|Sec|no|op|vol|fig|ch|art|sec)\.$")


def _first_end(line: str) -> re.Match[str] | None:
    """The end of ``line``'s first sentence (not the full stop of an abbreviation, "The first U.S.
    president", of a middle initial, "Neil A. Armstrong", nor of a numbering one, "Sonata No. 14")."""
    return next(
        (
            e
            for e in _FIRST_END.finditer(line)
            if not (
                e.group(0) == "."
                and (
                    abbreviation_at(line, e.end())
                    or (_INITIAL_BEFORE.search(line[: e.end()]) and _INITIAL_AFTER.match(line, e.end()))
                    or (_NUMBERED.search(line[: e.end()]) and re.match(r"\s*\d", line[e.end() :]))
                )
            )
        ),
        None,
    )


#: An answer that opens by thinking aloud ("Hmm, cargo.", "Let me think.", "Let's see —"): its first
#: sentence is not the answer.
_THINKING = re.compile(
    r"(?i)^[\W_]*(?:h?mm+|um+|uh+|let\s+me\s+(?:think|see|recall|check|work)|let'?s\s+see|"
    r"thinking\s+(?:about\s+it|it\s+through|aloud)|okay,?\s+so|ok,?\s+so)\b"
)


def _thought_through(text: str, capped: bool) -> Extraction | None:
    """For an answer that opens by thinking aloud: its last sentence when that is short (at most six
    words, not a question: "… So it is Rust. … Rust."), else the clause after the last conclusion
    cue ("So it is Rust"); ``None`` when the answer does not think aloud or gives neither."""
    sentences = split_sentences(text)
    if len(sentences) < 2 or not _THINKING.match(sentences[0]):
        return None
    last = sentences[-1].strip(MARKUP + ".!;")
    if last and len(last.split()) <= 6 and not last.endswith("?") and not _THINKING.match(last):
        value = drop_negated(last) or last
        return extracted(
            value, "conclusion", f"the short last sentence of an answer thinking aloud: {quoted(value)}", capped
        )
    for sentence in reversed(sentences[1:]):
        cue = CONCLUSION.search(sentence)
        if cue and sentence[cue.end() :].strip(MARKUP + ".!?;"):
            value = drop_negated(sentence[cue.end() :]).strip(MARKUP + ".!?;")
            return extracted(
                value,
                "conclusion",
                f"after {cue.group(0).strip()!r} in an answer thinking aloud: {quoted(value)}",
                capped,
            )
    return None


def extract_answer(text: str, query: str | None = None) -> Extraction:
    """The short answer in ``text``: boxed, after an answer cue, the last short bold span, a final
    conclusion, else the first sentence (see the module docstring); ``query``, when known, tells
    whether a value ranked second is context (:func:`~harness.metrics.text_cues.ranks_context`)."""
    text, capped = cap_text(text)
    text = clean_latex(text)
    line = declared_clause(text)
    if line is not None:
        value = drop_negated(line) or line
        return as_declared(extracted(value, "declared", quoted(value), capped))
    boxed = last_boxed(text)
    if boxed:
        value = drop_negated(boxed)
        return extracted(value, "boxed", f"inside \\boxed{{...}}: {quoted(value)}", capped)
    cues = answer_cues(text)
    if cues:
        cue, clause = cues[-1]
        value = drop_negated(clause) or clause
        return extracted(value, "answer_cue", f"after the cue {cue!r} (last of {len(cues)}): {quoted(value)}", capped)
    for inner in reversed(bold_spans(text)):
        if inner and not inner.endswith(":") and len(inner.split()) <= 8:
            return extracted(inner, "bold", f"the last short bold span: {quoted(inner)}", capped)
    field = asked_field(text, query)
    if field is not None:
        return extracted(
            field[1], "answer_cue", f"the field {field[0]!r} the question asks for: {quoted(field[1])}", capped
        )
    item = marked_item(text)
    if item is not None:
        value = drop_negated(item) or item
        return extracted(value, "marked", f"the one list or table item marked as picked: {quoted(value)}", capped)
    if len(marked_lines(text)) > 1:
        return extracted(None, "ambiguous", "several list or table items are marked as picked", capped)
    lines = [ln for ln in text.split("\n") if ln.strip(MARKUP)]
    if not lines:
        return extracted(None, "none", "the answer is empty", capped)
    if len(lines) > 1 or len(split_sentences(lines[0])) > 1:
        final = split_sentences(lines[-1])[-1] if split_sentences(lines[-1]) else ""
        lead = _LEAD_CONCLUSION.match(final)
        if lead and final[lead.end() :].strip():
            value = drop_negated(final[lead.end() :]).strip(MARKUP + ".!?;")
            return extracted(
                value, "conclusion", f"the final sentence after {lead.group(0).strip()!r}: {quoted(value)}", capped
            )
    thinking = _thought_through(text, capped)
    if thinking is not None:
        return thinking
    first = _strip_list_marker(lines[0]).strip()
    m = _first_end(first)
    while m and ranks_context(query) and ranked_sentence(first[: m.start()]) and first[m.end() :].strip(MARKUP):
        first = first[m.end() :].strip()  # "Saturn is second; the largest is Jupiter": a ranked value is context
        m = _first_end(first)
    if m and m.group(0) == "?" and first[m.end() :].strip():  # "Shakespeare? No, Marlowe.": a question, not the answer
        rest = re.sub(r"(?i)^(?:no|nope|yes|well)\b[,.!—–-]*\s*", "", first[m.end() :].strip()) or first[m.end() :]
        return extracted(
            drop_negated(rest) or rest,
            "first_sentence",
            f"the sentence after the opening question: {quoted(rest)}",
            capped,
        )
    sentence = re.sub(r"\*\*|__|`", "", first[: m.start()] if m else first).strip(MARKUP)
    turn = re.search(r"[;—–,]|\s-\s", first) if re.match(r"(?i)^\W*not\b", sentence) else None
    if turn and first[turn.end() :].strip(MARKUP + ".!?;"):
        rest = first[turn.end() :].strip()  # "Not Raphael; Leonardo da Vinci.": the first part only rejects
        return extracted(
            drop_negated(rest).strip(MARKUP + ".!?;") or rest,
            "first_sentence",
            f"the part after the opening rejection {quoted(sentence)}: {quoted(rest)}",
            capped,
        )
    fixes = list(TAKE_BACK.finditer(sentence))
    fix = fixes[-1] if fixes else None
    if fix is not None and sentence[fix.end() :].strip(MARKUP + ".!?;,—–- "):
        # "Michelangelo — no wait, Leonardo da Vinci": the part after the take-back is the answer
        sentence = sentence[fix.end() :].strip(MARKUP + ".!?;,—–- ")
    whole = sentence == text.strip().strip(MARKUP + ".!?;")
    sentence = drop_negated(sentence) or sentence
    if len(sentence.split()) > SHORT_ANSWER_WORDS and "," in sentence:
        head, _, rest = sentence.partition(",")
        turn = next((c for c in CONTRAST.finditer(rest) if not c["concede"]), None)
        if turn is None or not (_OVERTURNS.search(rest, turn.end()) or states_asked(rest[turn.end() :], query)):
            # a long sentence is cut at its first comma, unless the rest turns and concludes ("…, but
            # Hilbert … so I'd name Hilbert") or turns to state what the question asks ("…, but the
            # capital is Ottawa"): then the whole sentence is kept for the contrast rule
            sentence = head.strip()
    if whole:
        return extracted(sentence, "whole", f"the whole answer: {quoted(sentence)}", capped)
    return extracted(
        sentence, "first_sentence", f"the first sentence (no answer cue found): {quoted(sentence)}", capped
    )
