"""Reading a yes/no answer: :func:`extract_boolean` (the rules and their precedence are defined in
:mod:`harness.metrics.extraction`'s docstring, "Booleans")."""

from __future__ import annotations

import re

from harness.metrics.boolean_cues import (
    BARE_VERDICT,
    DEPENDS,
    HEDGE,
    HOLDS,
    LEADING_NOT,
    MYTH,
    OPEN_ENDED,
    PARTIAL,
    SO_VERDICT,
    TURNED_BARE,
    TURNED_QUALIFIED,
    leading_predicate,
    predicate_polarity,
    said_verdict,
    short_aux,
)
from harness.metrics.compare_cues import comparison_polarity
from harness.metrics.extraction_base import (
    CLAUSE_CHARS,
    CONCLUSION,
    Extraction,
    answer_cues,
    as_declared,
    bold_spans,
    cap_text,
    clean_latex,
    declared_clause,
    extracted,
    last_boxed,
    marked_item,
    normalize_answer,
    quoted,
    split_sentences,
    truncated,
)
from harness.metrics.number_cues import TAKE_BACK
from harness.metrics.text_cues import unframed

_POLARITY = {
    "yes": True,
    "true": True,
    "correct": True,
    "valid": True,
    "no": False,
    "false": False,
    "incorrect": False,
    "wrong": False,
    "invalid": False,
}
#: "no" before a noun is a determiner ("with no remainder", "there are no touchdowns"), not a verdict.
_DETERMINER_NO = (
    r"(?!(?<=no)\s+(?!(?:because|since|as|but|and|so|it|it's|they|he|she|this|that|there|we|you|i|way|not|indeed|"
    r"sorry|wait|actually|definitely|certainly|absolutely|never|one)\b)[a-z])"
)
_POLARITY_RE = re.compile(
    r"(?i)(?P<neg>\b(?:not|n't|never)\s+(?:\w+\s+)?)?\b(?P<w>" + "|".join(_POLARITY) + r")\b" + _DETERMINER_NO
)
#: An opening viewpoint adverb before a leading yes/no ("Botanically, yes", "Technically, no:",
#: "Sadly, no"); not one that hedges or limits the verdict ("Probably, yes", "Mostly, no").
_QUALIFIER = (
    r"(?:(?!(?:possibly|probably|likely|arguably|usually|generally|mostly|partly|partially|occasionally|"
    r"typically|theoretically|apparently|presumably|supposedly|roughly|nominally|ostensibly|seemingly|"
    r"hopefully|normally|sometimes|only|early|rarely|hardly|barely|scarcely|frequently|commonly|"
    r"traditionally|historically|initially|originally|formerly)\b)[a-z]{3,}ly\s*,\s*)?"
)
#: After a hedge, a turn to a verdict that settles it ("It depends …, but yes — …").
_BUT_VERDICT = re.compile(r"(?i)\b(?:but|though|still)\s*,?\s*(?:the\s+answer\s+is\s+)?(?P<w>yes|no)\b")
#: An arrow to a verdict ("… → yes, leap year"), read like a conclusion cue.
_ARROW = re.compile(r"(?:→|⇒|=>)(?=\s*(?:yes|no|true|false)\b)", re.IGNORECASE)
_LEADING_WORD = re.compile(
    r"(?i)^[\W_]*"
    + _QUALIFIER
    + r"(?:(?P<w>yes|no|true|false|correct|incorrect)\b(?!\s+(?:doubt|problem|question|wonder|one|matter|need)\b)"
    r"(?!\s+(?:and|or|xor|is|==?|equals)\b|\s*[=)])"
    r"|(?P<neg>(?:absolutely|definitely|certainly|of\s+course|surely)\s+not|not\s+at\s+all|nope"
    r"|(?:that'?s|that\s+is|you'?re|you\s+are)\s+not\s+right)\b"
    r"|(?P<pos>absolutely|definitely|certainly|of\s+course|indeed|yep|yeah|yup|sí|aye"
    r"|(?:that'?s|that\s+is|you'?re|you\s+are|quite|exactly)\s+right)\b(?=\s*(?:[.,!;:—–-]|$)))"
)
_STATEMENT = re.compile(
    r"(?i)\b(?:is|are|was|were|be|'s|holds?|evaluates?\s+to|comes?\s+out\s+(?:as|to)|"
    r"results?\s+in)\s+(?:(?:not|n't)\s+)?(?:\w+\s+)?"
    r"(?:true|false|correct|incorrect|valid|invalid)\b"
)


def _polarity(clause: str) -> tuple[bool | None, str] | None:
    values: set[bool] = set()
    for m in _POLARITY_RE.finditer(clause[:CLAUSE_CHARS]):
        value = _POLARITY[m["w"].lower()]
        values.add(not value if m["neg"] else value)
    if not values:
        return None
    if len(values) > 1:
        return None, f"the clause {quoted(clause)} says both true and false"
    partial = PARTIAL.search(clause[:CLAUSE_CHARS])
    if partial:
        return None, f"the clause {quoted(clause)} says only {partial.group(0)!r}"
    value = values.pop()
    return value, f"{quoted(clause)} reads as {str(value).lower()}"


def _bool_result(got: tuple[bool | None, str], method: str, why: str, capped: bool) -> Extraction:
    value, how = got
    if value is None:
        return extracted(None, "ambiguous", f"{how} ({why})", capped)
    return extracted(str(value).lower(), method, f"{why}: {how}", capped)


def extract_boolean(text: str, query: str | None = None) -> Extraction:
    """``true`` or ``false`` as the answer commits to it (see the module docstring).

    Args:
        text: the answer.
        query: the question, when known: its predicate lets "51 is not prime" answer "Is 51 prime?".
    """
    text, capped = cap_text(text)
    text = clean_latex(text)
    line = declared_clause(text)
    if line is not None:
        got = _polarity(line)
        if got:
            return _bool_taken_back(text, line, as_declared(_bool_result(got, "declared", quoted(line), capped)))
    boxed = last_boxed(text)
    if boxed:
        got = _polarity(boxed)
        if got:
            return _bool_result(got, "boxed", "inside \\boxed{...}", capped)
    for cue, clause in reversed(answer_cues(text)):
        got = _polarity(clause)
        if got:
            return _bool_taken_back(text, clause, _bool_result(got, "answer_cue", f"after the cue {cue!r}", capped))
    sentences = split_sentences(text)
    both = {m["w"].lower() for m in SO_VERDICT.finditer(text)}
    if len(both) > 1:
        return extracted(None, "ambiguous", "the answer concludes both ways ('so yes' and 'so no')", capped)
    if sentences and (HEDGE.match(sentences[-1]) or OPEN_ENDED.search(sentences[-1])) and _POLARITY_RE.search(text):
        settled = _BUT_VERDICT.search(sentences[-1])  # "It depends on the definition, but yes — …" commits
        if settled is None or OPEN_ENDED.search(sentences[-1], settled.start()):
            return extracted(None, "ambiguous", f"the answer ends by leaving it open: {quoted(sentences[-1])}", capped)
        if not re.match(r"\s*(?:or|and|nor)\b", sentences[-1][settled.end() :]):
            value = settled["w"].lower() == "yes"
            return extracted(
                str(value).lower(), "conclusion", f"a hedge settled by a turn: {quoted(settled.group(0))}", capped
            )
    lead = _LEADING_WORD.match(text.lstrip())
    lead_value = (_POLARITY[lead["w"].lower()] if lead["w"] else not lead["neg"]) if lead else None
    conclusion: tuple[bool | None, str] | None = None
    for stated in reversed(sentences[1:] if lead else sentences):
        sentence = unframed(stated, query)  # "It's often said to be true, but it's a myth": not the verdict
        concluding = CONCLUSION.search(sentence) or _ARROW.search(sentence)  # "… not a century year → yes"
        if (
            _STATEMENT.search(sentence)
            or (concluding and _POLARITY_RE.search(sentence[concluding.end() :]))
            or BARE_VERDICT.match(sentence)
        ):
            part = (
                sentence[concluding.end() :]
                if concluding and _POLARITY_RE.search(sentence[concluding.end() :])
                else sentence
            )
            conclusion = _polarity(part)
            break
    if lead is not None and lead_value is not None:
        said = lead.group(0).strip(" \t*_>#")
        if conclusion and conclusion[0] is not None and conclusion[0] != lead_value:
            return extracted(
                None,
                "ambiguous",
                f"the answer starts with {said!r} but concludes {str(conclusion[0]).lower()} ({conclusion[1]})",
                capped,
            )
        after_lead = text.lstrip()[lead.end() :]
        flip = re.match(
            r"(?i)[\s,.…—–:;!-]{0,8}(?P<w>yes|yeah|yep|yup|no|nope|nah)\b(?=\s*(?:[,.!;:—–…-]|$|wait\b))", after_lead
        )
        if flip and (flip["w"].lower() in ("yes", "yeah", "yep", "yup")) != lead_value:
            return extracted(
                None, "ambiguous", f"the answer starts with {said!r} and at once says {flip['w']!r}", capped
            )  # "Yeah, no.", "yep — no wait, …", "Sí... no, I was wrong"
        turned = [
            m
            for cue in (TURNED_BARE, TURNED_QUALIFIED)
            for m in cue.finditer(after_lead)
            if (m["w"].lower() in ("yes", "true")) != lead_value
        ]
        depends = DEPENDS.search(after_lead)
        if depends and not turned:
            return extracted(
                None, "ambiguous", f"the answer starts with {said!r} but then says {quoted(depends.group(0))}", capped
            )
        if turned:
            return extracted(
                None,
                "ambiguous",
                f"the answer starts with {said!r} but later turns to {quoted(turned[0].group(0))}",
                capped,
            )
        return _bool_taken_back(
            text,
            said,
            extracted(str(lead_value).lower(), "leading", f"the answer starts with {said!r}", capped),
            end=len(text) - len(text.lstrip()) + lead.end(),
        )
    if conclusion and truncated(text) and conclusion[1] and sentences and sentences[-1] in conclusion[1]:
        return extracted(None, "none", "the answer stops mid-sentence (truncated?) in its concluding sentence", capped)
    if conclusion:
        return _bool_result(conclusion, "conclusion", "the last sentence that states a truth value", capped)
    for inner in reversed(bold_spans(text)):
        got = _polarity(inner)
        if got and got[0] is not None:
            return _bool_result(got, "bold", f"the last bold span **{inner}**", capped)
    said_yes = said_verdict(text)
    if said_yes is not None:
        return extracted(
            str(said_yes[0]).lower(),
            "conclusion",
            f"{quoted(said_yes[1])} (the yes/no the answer says is given)",
            capped,
        )
    return _boolean_without_words(text, sentences, query, capped)


def _bool_taken_back(text: str, clause: str, found: Extraction, end: int | None = None) -> Extraction:
    """``found``, unless the text after ``clause`` (or after position ``end``) gives the other value:
    a later answer cue, or after a take-back word (:data:`harness.metrics.number_cues.TAKE_BACK`) a
    sentence with a yes/no word ("Answer: no. However, I should correct myself: … so the answer is
    yes", "Yes. Hmm, actually no, …")."""
    at = text.rfind(clause) + len(clause) if end is None else end
    if found.value is None or at < len(clause):
        return found
    tail = text[at:]
    later = [got for _, c in answer_cues(tail) if (got := _polarity(c))]
    if not later and (fix := TAKE_BACK.search(tail)):
        rest = tail[fix.end() :]
        if re.search(r"(?i)\bnot?$", fix.group(0)):  # "actually, no", "hmm, no": the take-back says no itself
            rest = "No. " + rest
        later = [got for s in split_sentences(rest) if (got := _polarity(s))]
    if not later or later[-1][0] == (found.value == "true"):
        return found
    return extracted(None, "ambiguous", f"{found.value!r} is taken back later: {later[-1][1]}", found.capped)


def _boolean_without_words(text: str, sentences: list[str], query: str | None, capped: bool) -> Extraction:
    """The rules for answers without a yes/no word (:mod:`harness.metrics.boolean_cues`)."""
    if truncated(text):
        return extracted(None, "none", "the answer stops mid-sentence (truncated?) and gives no yes/no word", capped)
    first = sentences[0] if sentences else ""
    checked = _checked_predicate(text, query)  # a list's checked item, before its first line's word
    if checked is not None:
        return extracted(str(checked[0]).lower(), "marked", checked[1], capped)
    adjective = leading_predicate(query, first)
    if adjective is not None:
        return extracted(
            str(adjective[0]).lower(),
            "leading",
            f"the answer opens with {adjective[1]!r}, the question's predicate"
            + ("" if adjective[0] else " turned to its opposite"),
            capped,
        )
    lead_not = LEADING_NOT.match(first)
    short = short_aux(first)
    if lead_not or short is not None:
        value = False if lead_not else short
        later = predicate_polarity(query, " ".join(sentences[1:])) if len(sentences) > 1 else None
        if later is not None and later[0] != value:
            return extracted(
                None, "ambiguous", f"the answer opens with {quoted(first)} but later says {quoted(later[1])}", capped
            )
        return extracted(str(value).lower(), "leading", f"the answer opens with {quoted(first)}", capped)
    holds = [m for m in HOLDS.finditer(text)]
    if holds:
        m = holds[-1]
        value = not (m["neg"] or m["neg2"])
        return extracted(
            str(value).lower(), "conclusion", f"{quoted(m.group(0))} (the last verdict on the statement)", capped
        )
    myths = list(MYTH.finditer(text[:2000]))
    if myths:
        value = bool(myths[0]["neg"])
        return extracted(
            str(value).lower(),
            "conclusion",
            f"{quoted(myths[0].group(0))}: the claim is {'not ' if not value else ''}a myth",
            capped,
        )
    compared = comparison_polarity(query, text)
    if compared is not None:
        return extracted(
            str(compared[0]).lower(), "predicate", f"{quoted(compared[1])} answers the question's comparison", capped
        )
    said = predicate_polarity(query, text)
    if said is not None:
        return extracted(
            str(said[0]).lower(), "predicate", f"{quoted(said[1])} answers the question's predicate", capped
        )
    return extracted(None, "none", "no yes/no or true/false found in the answer", capped)


def _checked_predicate(text: str, query: str | None) -> tuple[bool, str] | None:
    """A list whose one checked item is what the question asks ("- fruit ✅ …" for "Is a tomato a
    fruit?": true), or one that checks another item while listing the asked one unchecked (false)."""
    item = marked_item(text)
    question = f" {normalize_answer((query or '').split(chr(10))[0])} "
    if item is None or not question.strip():
        return None
    head = normalize_answer(re.split(r"[(:—–,]", item)[0])
    if not head:
        return None
    if f" {head} " in question:
        return True, f"the one checked item of the list, {quoted(item)}, is what the question asks"
    listed = [normalize_answer(re.split(r"[(:—–,]", ln.lstrip(" -*+•|\t"))[0]) for ln in text.split("\n")]
    if any(f" {other} " in question for other in listed if other and other != head):
        return False, f"the list checks {quoted(item)}, not the item the question asks about"
    return None
