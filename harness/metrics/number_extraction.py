"""Reading the final number of an answer: :func:`extract_number` (the rules and their precedence are
defined in :mod:`harness.metrics.extraction`'s docstring, "Numbers")."""

from __future__ import annotations

import re
from collections.abc import Iterable

from harness.metrics.extraction_base import (
    CONCLUSION,
    CORRECTION,
    LEADING_WORDS,
    MARKUP,
    Extraction,
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
    quoted,
    split_sentences,
    truncated,
)
from harness.metrics.number_cues import (
    APPOSITIVE_COPULA,
    CIRCUMSTANCE_BEFORE,
    COMPARISON_AFTER,
    CONDITION_CLAUSE,
    CONDITION_EQ,
    HEDGED_NUMBER,
    OVERRIDE,
    RESULT_CUE,
    TAKE_BACK,
    UNIT_BEFORE,
    anchored_clause,
    context_after,
    dating_year,
    expression_after,
    head_clause,
    only_hypothetical,
    question_subject,
    scenario_pair,
    without_check_clause,
    without_hypothetical,
    without_reason,
)
from harness.metrics.numbers import ParsedNumber, find_numbers, parse_number
from harness.metrics.numerals import dotted_thousands, fraction_values, plain_numerals

_EQUALS = re.compile(r"(?<![<>!=])[=≈](?!=)")
_RANGE = re.compile(r"(?i)\b(?:from|between)\s+(?P<a>\S{1,24})\s+(?:to|and|through|-|–)\s+(?P<b>\S{1,24})")
_BETWEEN_ALTERNATIVES = re.compile(r"(?i)^[^.;:=]{0,24}?\b(?:or|nor)\b[^.;:=]{0,24}$")
_COPULA = re.compile(
    r"(?i)\b(?:is|are|was|were|be|equals?|makes?|gives?|yields?|sums?\s+to|adds?\s+up\s+to|"
    r"comes?\s+to|totals?|handles?|remain|left)\b"
)


#: What follows "left" / "remain" when they state a result ("left with 26", "remain: 26"), not
#: when they close a phrase ("26 left over after giving 10 away").
_RESULT_AFTER = re.compile(r"(?i)(?:\s+(?:with|is|are|at|over\s+is))?\s*[:=]?\s*[-−$€£]?\d")


def _alternatives(text: str, nums: list[tuple[int, ParsedNumber]]) -> str | None:
    """The numbers offered as alternatives ("8 or 9", "either 2 million or 1,000,000"), if any."""
    for (p1, a), (p2, b) in zip(nums, nums[1:], strict=False):
        if not _same_number(a, b) and _BETWEEN_ALTERNATIVES.match(text[p1 + len(a.text) : p2]):
            return f"{a.text}, {b.text}"
    return None


def _answer_equals(text: str) -> list[re.Match[str]]:
    """``=`` signs that state a result, not a condition ("for n = 10")."""
    return [m for m in _EQUALS.finditer(text) if not CONDITION_EQ.search(text[max(0, m.start() - 24) : m.start()])]


def _corrected_later(
    text: str, clause: str, picked: _Picked, zeros: bool, found: Extraction, capped: bool
) -> Extraction:
    """``found``, unless the text after ``clause`` takes it back: a take-back word ("wait", "mistake",
    ...) after which the last number differs ("Answer: 12. Wait, 3 × 5 = 15")."""
    num = picked[0]
    at = text.rfind(clause)
    if num is None or at < 0:
        return found
    tail = text[at + len(clause) :]
    fix = TAKE_BACK.search(tail)
    if fix is None:
        return found
    later = [n for _, n in _nums(_without_negated_numbers(tail[fix.end() :]), zeros)]
    if not later or later[-1].value == num.value:  # nothing after it, or it ends by confirming the answer
        return found
    return extracted(
        None,
        "ambiguous",
        f"{num.text!r} is taken back later: {quoted(tail[fix.start() :])} gives {later[-1].text!r}",
        capped,
    )


def _exact_before_approx(text: str, eqs: list[re.Match[str]], zeros: bool) -> ParsedNumber | None:
    """The exact value right before a last "≈" that only rounds it: a fraction ("1/3 ≈ 0.333" gives
    1/3), or a value with more decimals that the approximation rounds ("2√2 ≈ 2.83", read after
    the root is written out, gives 2.828427125)."""
    if not eqs or eqs[-1].group(0) != "≈":
        return None
    start = eqs[-2].end() if len(eqs) > 1 else 0
    before = _nums(text[start : eqs[-1].start()], zeros)
    after = _nums(text[eqs[-1].end() :], zeros)
    if before and after:
        exact, approx = before[-1][1], after[0][1]
        if exact.value == approx.value:
            return None
        if "fraction" in exact.kind and abs(exact.value - approx.value) <= 0.01 * max(1.0, abs(approx.value)):
            return exact
        places = re.search(r"\.(\d+)", approx.text)
        digits = len(places.group(1)) if places else 0
        exact_places = re.search(r"\.(\d+)", exact.text)
        if exact_places and len(exact_places.group(1)) > digits and round(exact.value, digits) == approx.value:
            return exact  # "2√2 ≈ 2.83": the approximation only rounds the exact value before it
    return None


def _stated(
    text: str, nums: list[tuple[int, ParsedNumber]], query: str | None = None
) -> list[tuple[int, ParsedNumber]]:
    """``nums`` without those that compare ("2 times as many", "25% more than") or name a unit ("in
    one day", "per 1 hour"), then without those in a circumstantial phrase ("from 4 boxes", "in 2
    hours") or, with the question known, years that date a figure ("by the 2020 survey"), each only
    when others remain."""
    kept = [
        (p, n)
        for p, n in nums
        if not COMPARISON_AFTER.match(text[p + len(n.text) : p + len(n.text) + 24])
        and not (n.value == 1 and UNIT_BEFORE.search(text[max(0, p - 12) : p]))
    ]
    kept = kept or nums
    main = [
        (p, n)
        for p, n in kept
        if not CIRCUMSTANCE_BEFORE.search(text[max(0, p - 12) : p])
        and not (query is not None and dating_year(text[max(0, p - 24) : p], n.value, query))
    ]
    return main or kept


#: The reason :func:`_pick_in_clause` gives when the clause states an expression, not a number.
_EXPRESSION_WHY = "the answer after '=' is an expression in a variable"

_Picked = tuple[ParsedNumber, str] | tuple[None, str]


def _nums(segment: str, zeros: bool) -> list[tuple[int, ParsedNumber]]:
    return find_numbers(segment, words=True, zeros=zeros)


_NOT_NUMBER = re.compile(
    r"(?i)\b(?:not|isn't|never|rather\s+than|instead\s+of)\s+(?:equal\s+to\s+|exactly\s+|just\s+)?"
    r"[-−+$€£]?(?:\d[\d,.]*(?:\s*/\s*\d+)?%?|zero|none)"
)


def _without_negated_numbers(text: str) -> str:
    return _NOT_NUMBER.sub(" ", drop_negated(text))


_PAREN = re.compile(r"\([^()]{0,200}\)")
_LIST_MARKERS = re.compile(r"(?m)^[ \t]*(?:\d{1,3}[.)]|[-*+•])[ \t]+")
_NUMBER_MARKERS = re.compile(r"(?m)^[ \t]*\d{1,3}[.)][ \t]+")
_BULLETS = re.compile(r"(?m)^[ \t]*[-*+•][ \t]+")


def _without_list_markers(text: str) -> str:
    """``text`` without its bullets, and without its numbered-list markers when at least two lines
    carry one: a single "206. A newborn has …" opens with the answer, not with a list item."""
    if len(_NUMBER_MARKERS.findall(text)) >= 2:
        return _LIST_MARKERS.sub("", text)
    return _BULLETS.sub("", text)


_CHECK = re.compile(
    r"(?i)^\W*(?:check(?:ing)?|verif(?:y|ication|ied)|sanity\s+check|proof|note|"
    r"for\s+comparison|by\s+comparison|let'?s\s+(?:check|verify)|let\s+me\s+(?:check|verify)|"
    r"to\s+(?:check|verify)|double[- ]check(?:ing)?|I\s+(?:double[- ]|re-?)?(?:checked|verified)|"
    r"(?:as\s+a\s+)?(?:quick\s+)?check(?:ing)?\s+(?:it|this|that))\b"
)
#: A check announced as a sentence's heading, after at most three words ("Quick check:", "A quick
#: sanity check —", "Euler's formula checks out:"): whatever it computes, cues included, checks.
_CHECK_HEAD = re.compile(
    r"(?i)^\W*(?:[\w'’]+\s+){0,3}?(?:(?:quick|sanity|final|cross|double)[- ])?"
    r"(?:check(?:ing|s\s+out)?|verif(?:y|ying|ied|ication)|proof)\s*[:—–]"
)


#: A check phrase inside a sentence, before its numbers ("Quick check: 36/240 = 0.15", "Euler's formula
#: checks out: 6 − 12 + 8 = 2", "As a sanity check, 4 × 9 = 36").
_CHECK_PHRASE = re.compile(
    r"(?i)\b(?:(?:quick|sanity|final|cross|double)[- ]check(?:ing)?|checks?\s+out|(?:as\s+a|one|a)\s+check|"
    r"to\s+(?:check|verify|confirm)|check(?:ing)?\s*:|verif(?:y|ying|ied|ication))\b"
)


def _is_check(sentence: str) -> bool:
    """Whether ``sentence`` checks a result rather than states one: it opens with a check word
    (:data:`_CHECK`) or a check heading (:data:`_CHECK_HEAD`), or a check phrase comes before its
    first digit and no conclusion cue follows it."""
    if _CHECK.match(sentence) or _CHECK_HEAD.match(sentence):
        return True
    m = _CHECK_PHRASE.search(sentence)
    digit = re.search(r"\d", sentence)
    return (
        m is not None
        and digit is not None
        and m.start() < digit.start()
        and not CONCLUSION.search(sentence, m.end())
        and not RESULT_CUE.search(sentence, m.end())
    )


def _without_asides(sentence: str) -> str:
    """``sentence`` without parentheses when numbers remain outside them ("2 (1 is not prime)")."""
    bare = _PAREN.sub(" ", sentence)
    return bare if bare.strip(MARKUP + ".!?;") and find_numbers(bare, words=True) else sentence


def _range_answer(text: str, nums: list[tuple[int, ParsedNumber]], with_from: bool) -> str | None:
    """A range that ends the numbers of ``text`` ("between 12 and 14", and in an answer's own clause
    also "from 3 to 5"): an answer that gives a range commits to no single number."""
    for r in _RANGE.finditer(text):
        if not with_from and not r.group(0).lower().startswith("between"):
            continue
        inside = [n for pos, n in nums if r.start() <= pos < r.end()]
        if len(inside) == 2 and inside[0].value != inside[1].value and not any(pos >= r.end() for pos, _ in nums):
            return f"{inside[0].text}-{inside[1].text}"
    return None


def _same_number(a: ParsedNumber, b: ParsedNumber) -> bool:
    """Equal values, a percentage and its fraction counting as one ("50%" and "0.5")."""
    return a.value == b.value or (
        a.percent != b.percent
        and (a.value / 100 if a.percent else b.value / 100) == (b.value if a.percent else a.value)
    )


def _hedged_or_listed(clause: str, zeros: bool) -> str | None:
    """Another number the clause offers beside its first: after "or" / "maybe" / "possibly" (also
    inside a parenthesis: "12 (or 13 if …)"), or listed with it ("4 and 5", "4, 5")."""
    nums = _nums(clause, zeros)
    if len(nums) < 2:
        return None
    first = nums[0][1]
    for m in HEDGED_NUMBER.finditer(clause):
        later = [n for pos, n in nums if pos >= m.end()]
        if later and not _same_number(later[0], first) and m.start() >= nums[0][0]:
            return f"{first.text}, {later[0].text}"
    (p1, a), (p2, b) = nums[0], nums[1]
    if re.fullmatch(r"\s*(?:,|and|&)\s*", clause[p1 + len(a.text) : p2]) and not _same_number(a, b):
        if not re.search(r"[=≈]|\b(?:is|are|was|were|equals?|gives?|makes?)\b", clause):
            return f"{a.text}, {b.text}"
    return None


_GROUPED_FRACTION = re.compile(r"\)\s*/|/\s*\(")
_EITHER_OR = re.compile(r"(?i)\beither\b[^.;:]{1,80}?\bor\b")
#: "i.e." / "that is" / "in other words" right before a number: the result restated in the asked form
#: ("1 of 2 liters remains — half of it, i.e. 0.5").
_RESTATED_AS = re.compile(r"(?i)(?:\bi\.\s?e\.|\bthat\s+is|\bin\s+other\s+words|\bequivalently)[,:]?[ \t*_$]*")


def _turned_number(clause: str, zeros: bool) -> str | None:
    """A different number after a turn ("but", "however", "yet", "though", "instead") that follows the
    clause's first number ("5, but with interest she needs 4")."""
    nums = _nums(clause, zeros)
    if len(nums) < 2:
        return None
    turn = _CONTRAST.search(clause, nums[0][0])
    if turn is None:
        return None
    later = [
        n
        for pos, n in nums
        if pos >= turn.end() and not _same_number(n, nums[0][1]) and n.text.lower() != "one"  # "skips one"
    ]
    return f"{nums[0][1].text}, {turn.group(0)} {later[0].text}" if later else None


def _pick_in_clause(clause: str, zeros: bool) -> _Picked | None:
    """The number a clause gives: ``(number, why)``, ``(None, why)`` when ambiguous, ``None`` if none."""
    clause = _without_negated_numbers(without_hypothetical(without_reason(clause)))
    either = _EITHER_OR.search(clause)
    if either:
        return None, f"the clause {quoted(clause)} offers alternatives ({either.group(0).strip()!r})"
    bare = re.sub(r"\\[A-Za-z]+", " ", clause)
    if ("\\" in clause or _GROUPED_FRACTION.search(clause)) and not re.search(r"[A-Za-z]{2,}", bare):
        whole = parse_number(clause)  # "\\frac{1+\\sqrt{3}}{2}", "(3-2)/2": one expression, read whole
        if whole is not None:
            return whole, "the whole clause as one expression"
    hedged = _hedged_or_listed(clause, zeros)
    turned = _turned_number(clause, zeros)
    if turned:
        return None, f"the clause {quoted(clause)} turns to another number ({turned})"
    if hedged:
        return None, f"the clause {quoted(clause)} offers several numbers ({hedged})"
    clause = _without_asides(clause)
    nums = _nums(clause, zeros)
    if not nums:
        return None
    offered = _alternatives(clause, nums)
    if offered:
        return None, f"the clause {quoted(clause)} offers several numbers ({offered}) as alternatives"
    spread = _range_answer(clause, nums, with_from=True)
    if spread:
        return None, f"the clause {quoted(clause)} gives a range ({spread}), not one number"
    eqs = _answer_equals(clause)
    if eqs:
        if expression_after(clause[eqs[-1].end() :]):
            return None, _EXPRESSION_WHY
        after = _nums(clause[eqs[-1].end() :], zeros)
        if after:
            return after[0][1], f"after the last '{eqs[-1].group(0)}'"
    elif expression_after(clause) and not parse_number(clause):
        return None, _EXPRESSION_WHY
    restated = list(_RESTATED_AS.finditer(clause))
    if restated:
        after = _nums(clause[restated[-1].end() :], zeros)
        if after and after[0][0] == 0:
            return after[0][1], f"restated after {restated[-1].group(0).strip()!r}"
    colon = clause.rfind(": ")
    if colon >= 0:
        tail = clause[colon + 1 :]
        after = _nums(tail, zeros)
        if after and len(tail[: after[0][0]].strip(MARKUP + "(")) == 0 and len({n.value for _, n in after}) == 1:
            return after[0][1], "after the last ':'"
    for r in _RANGE.finditer(clause):
        rest = [n for pos, n in nums if pos >= r.end()]
        if rest:
            return rest[0], "the first number after the range"
    nums = _stated(clause, nums)
    if len({n.value for _, n in nums}) > 1:
        cops = [
            m
            for m in _COPULA.finditer(clause)
            if any(pos >= m.end() for pos, _ in nums)
            and not (m.group(0).lower() in ("left", "remain") and not _RESULT_AFTER.match(clause, m.end()))
            and not APPOSITIVE_COPULA.search(clause[max(0, m.start() - 8) : m.start()])
        ]
        if cops and cops[0].start() > nums[0][0]:
            following = [n for pos, n in nums if pos >= cops[-1].end()]
            return following[0], f"the first number after {cops[-1].group(0)!r}"
    return nums[0][1], "first number in the clause"


def _number_extraction(num: ParsedNumber, method: str, why: str, capped: bool) -> Extraction:
    quoted = f"{num.value:.15g}" + ("%" if num.percent else "")
    how = "" if num.kind == "plain" else f" ({num.kind})"
    return extracted(num.text, method, f"{num.text!r}{how} = {quoted}, {why}", capped)


def _picked(picked: _Picked, method: str, why: str, capped: bool) -> Extraction:
    num, how = picked
    if num is None:
        return extracted(None, "none" if how == _EXPRESSION_WHY else "ambiguous", f"{how} ({why})", capped)
    return _number_extraction(num, method, f"{why} ({how})" if how else why, capped)


def extract_number(
    text: str, zeros: bool = False, givens: Iterable[float] | None = None, query: str | None = None
) -> Extraction:
    """The final numeric answer in ``text`` (see the module docstring for the rules).

    Args:
        text: the answer.
        zeros: read zero words ("no brothers", "none") as 0 (the expected value is 0).
        givens: the numbers the question states, when the question is known; the fallback rules
            pass over them, and the ``leading`` rule runs only when they are known.
        query: the question, when known: its subject lets an opening clause state the answer
            ("Tom has 12 apples — …").
    """
    given = list(givens) if givens is not None else None
    found = _extract_number(text, zeros, given, query)
    if found.value is None:
        return found
    read = fraction_values(plain_numerals(dotted_thousands(clean_latex(cap_text(text)[0]), set(given or ()), query)))
    lines = [ln for ln in read.split("\n") if ln.strip(MARKUP)]
    line = lines[-1] if lines else ""
    why = scenario_pair(line)
    if why is None:
        return found
    values = {n.value for _, n in find_numbers(line) if n.value not in (given or ())}
    got = parse_number(found.value, zeros=zeros)
    if len(values) < 2 or got is None or got.value not in values:
        return found
    return extracted(
        None,
        "ambiguous",
        f"{found.value!r} ({found.method}) is one of the results its last line gives under two conditions "
        f"({why}): {quoted(line)}",
        found.capped,
    )


#: A markdown footnote: its definition line ("[^gauss]: The story goes …") and its reference ("5,050.[^gauss]").
_FOOTNOTE_LINE = re.compile(r"(?m)^[ \t]*\[\^[^\]\n]{1,40}\]:.*$")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\n]{1,40}\]")


def without_footnotes(text: str) -> str:
    """``text`` without markdown footnotes: a footnote comments beside the answer, it does not give it."""
    if "[^" not in text:
        return text
    return _FOOTNOTE_REF.sub("", _FOOTNOTE_LINE.sub("", text))


#: A sentence that opens by reporting what a council participant gave ("Member B: $50.", "Juror 2 said
#: 8.", "Two members answered 48."): a report, not the answer's own value.
_MEMBER_OPENING = re.compile(
    r"(?i)^\W*(?:(?:one|two|three|four|five|both|all|the\s+other)\s+(?:of\s+the\s+\w+\s+)?)?"
    r"(?:members?|models?|jurors?|responses?|reviewers?|panelists?|experts?|agents?|participants?|debaters?)"
    r"(?:\s+(?:[A-Z0-9]{1,3}|#\d{1,2}))?\s*"
    r"(?:(?:said|says|answered|gave|chose|picked|proposed|voted\s+for|argued(?:\s+for)?|suggested|went\s+with|"
    r"reported|claimed|put|wrote|got)\b|[:—–])"
)
_Numbered = list[tuple[int, str, list[tuple[int, ParsedNumber]]]]
_PARTICIPANT = r"(?:members?|models?|jurors?|responses?|reviewers?|panelists?|experts?|agents?|participants?)"
#: An endorsement of one participant ("B is right", "Member 2 is correct", "the chair sides with A",
#: "I agree with Response B"); the participant's id is matched in capitals or digits only.
_ENDORSES = re.compile(
    rf"(?i:\b(?:{_PARTICIPANT}\s+)?)(?P<a>(?-i:[A-Z]|\d{{1,2}}))(?i:'s\s+\w+)?\s+(?i:is|was)\s+(?i:right|correct)\b"
    rf"|(?i:\b(?:agrees?\s+with|sides?\s+with|goes?\s+with|backs?|endorses?)\s+(?:{_PARTICIPANT}\s+)?)"
    r"(?P<b>(?-i:[A-Z]|\d{1,2}))\b"
)
#: A sentence that endorses the report right before it ("That's correct.", "This is right.").
_THAT_RIGHT = re.compile(r"(?i)^\W*(?:that'?s|that\s+is|this\s+is|it'?s|which\s+is)\s+(?:correct|right)\b")


def _endorsed_report(sentences: list[str], reports: _Numbered, zeros: bool) -> tuple[ParsedNumber, str] | None:
    """The value of the council participant the answer endorses, with the endorsement: a sentence
    of its own naming one participant as right ("B is right", "the chair sides with A") whose report
    gives a number, or "That's correct." right after a report of one number."""
    in_reports = {i for i, _, _ in reports}
    for i in range(len(sentences) - 1, -1, -1):  # the last endorsement decides, alone
        sentence = sentences[i]
        if i in in_reports:
            continue
        m = _ENDORSES.search(sentence)
        if m is not None:
            who = m["a"] or m["b"]
            said = re.compile(
                rf"(?i:\b{_PARTICIPANT}\s+){re.escape(who)}\b\s*(?i:(?:said|says|answered|gave|chose|got|put|wrote)\b|[:—–])"
            )
            for _, report, _ in reports:
                at = said.search(report)
                after = _nums(report[at.end() :], zeros) if at else []
                if after:
                    return after[0][1], m.group(0)
            return None
        if _THAT_RIGHT.match(sentence) and i - 1 in in_reports:
            report = next(r for j, r, _ in reports if j == i - 1)
            opening = _MEMBER_OPENING.match(report)
            nums = _nums(report[opening.end() :], zeros) if opening else []
            if nums and len({n.value for _, n in nums}) == 1:
                return nums[0][1], sentence.strip()
            return None
    return None


#: A sentence that restates the result of the sentence before it, stated after an "=", in another unit
#: or form ("Time = 250 / 12.5 = 20 min. Equivalently 1200 s.", "In other words, …"): kept only when
#: its number stands with the asked noun.
_RESTATING = re.compile(r"(?i)^\W*(?:equivalently|in\s+other\s+words|i\.\s?e\.|or\s*,|or\s+about)\b")
#: A question to the reader that opens a coda after the answer ("Would you like that in miles per hour?
#: It's about 37.3 mph.", "Want it in grams?", "Let me know if you need the working.").
_OFFER = re.compile(
    r"(?i)^\W*(?:would\s+you\s+like|do\s+you\s+(?:want|need)|shall\s+I|should\s+I|want\s+(?:me\s+to|it|that|this)|"
    r"need\s+(?:it|that|this)|let\s+me\s+know|if\s+you(?:'d|\s+would)\s+like|happy\s+to)\b"
)


def _extract_number(text: str, zeros: bool, givens: Iterable[float] | None, query: str | None) -> Extraction:
    """:func:`extract_number` before the two-scenario check."""
    text, capped = cap_text(text)
    given = set(givens) if givens is not None else None
    text = fraction_values(plain_numerals(dotted_thousands(clean_latex(without_footnotes(text)), given, query)))
    line = declared_clause(text)
    if line is not None:
        got = _pick_in_clause(line, zeros)
        if got:
            return _corrected_later(
                text, line, got, zeros, as_declared(_picked(got, "declared", f"{quoted(line)}", capped)), capped
            )
    boxed = last_boxed(text)
    cues = answer_cues(text)
    if boxed is not None:
        whole = parse_number(boxed, zeros=zeros)
        picked: _Picked | None = (whole, "the whole box") if whole is not None else _pick_in_clause(boxed, zeros)
        if picked:
            after = text.rfind("\\boxed")
            later = answer_cues(text[after:]) if cues else []
            if picked[0] is not None and later:
                other = _pick_in_clause(later[-1][1], zeros)
                if other and other[0] is not None and other[0].value != picked[0].value:
                    return extracted(
                        None,
                        "ambiguous",
                        f"\\boxed{{...}} gives {picked[0].text!r} but the later cue "
                        f"{later[-1][0]!r} gives {other[0].text!r}",
                        capped,
                    )
            return _picked(picked, "boxed", "inside \\boxed{...}", capped)
    for i, (cue, clause) in enumerate(reversed(cues)):
        picked = _pick_in_clause(clause, zeros)
        if picked:
            n = len(cues)
            return _corrected_later(
                text,
                clause,
                picked,
                zeros,
                _picked(
                    picked,
                    "answer_cue",
                    f"after the cue {cue!r} (last of {n} cue{'s' * (n != 1)} with a number"
                    f"{'' if i == 0 else f', {i} later cue(s) without one'})",
                    capped,
                ),
                capped,
            )
    for inner in reversed(bold_spans(text)):
        if _BOLD_HEADING.search(inner):
            continue
        num = parse_number(inner.lstrip("~≈= "), zeros=zeros)
        if num is None:
            bm = re.fullmatch(r"[~≈=]?\s*(?P<num>.+?)(?:\s*[°º][CFK]?|\s+[A-Za-z/°º²³µΩ]+){0,2}\.?", inner)
            num = parse_number(bm["num"], zeros=zeros) if bm else None
        if num is not None:
            return _number_extraction(num, "bold", f"the last bold number **{inner}**", capped)
        if re.search(r"\d", inner):
            break  # the last bold span with a number says more than a number: an earlier bold one is not the answer
    item = marked_item(text, strict=True)
    marked = _pick_in_clause(item, zeros) if item else None
    if marked and marked[0] is not None:
        return _picked(marked, "marked", f"the one list or table item marked as picked ({quoted(item or '')})", capped)
    return _number_fallback(text, zeros, given, capped, query)


#: A bold heading ("**Step 3: Share**", "**Total:**"), passed over by the bold rule.
_BOLD_HEADING = re.compile(r"(?i)^\W*(?:step|part|case|stage|method|approach)\b|:\W*$")


_RESTATES = re.compile(
    r"(?i)\b(?:given|we\s+know|starts?\s+with|started\s+with|initially|at\s+first|originally|"
    r"begins?\s+with|each|per|every|\?)"
)
#: A last sentence that labels a value ("Sale price: $30."): a stated result, so the first sentence
#: does not lead.
#: A turn after a computed value ("60 / 12 = 5 would be the naive answer, but … 4 weeks").
_CONTRAST = re.compile(r"(?i)\b(?:but|however|yet|though|although|whereas|instead)\b")
#: A first sentence that frames its number as a hypothesis or someone else's answer ("He has 25 if we
#: ignore …", "5 weeks is the textbook answer", "So 5 weeks..."): it does not lead.
_HYPOTHETICAL_LEAD = re.compile(
    r"(?i)\b(?:if|would|could|might|naive|naïve|naively|textbook|usual|expected|seems?|looks?|guess|assume|assuming|"
    r"ignore|ignoring|theory|theoretically|paper|strictly|ideally|nominally|simple|simply)\b|\.\.\.|…|\?\s*$"
)
_LABELLED = re.compile(r"(?i)^\W*[a-z][\w '-]{0,30}:\s*[-−$€£]?\d[\d,.]*\s*(?:[a-z%]+\s*)?\W*$")
_WORKING = re.compile(r"(?i)^\W*(?:#|step|part|case|let|first|to\b|we\s+need|start|given|note|\d+[.)]\s)")


_NEXT_WORD = re.compile(r"[\s$€£%]*(?P<word>[A-Za-z]+)")
_FUNCTION_WORDS = frozenset(
    "of a an the in on at to for from by with and or is are was were per each times more less than".split()
)


def _restates_query(sentence: str, at: tuple[int, ParsedNumber], query: str | None) -> bool:
    """Whether the number at ``at`` stands with the noun the question gives it, and the question asks
    "How many" of another noun ("The flock has 20 chickens" for "… 20 chickens. How many cups …?"; a
    function word such as "of" after the number does not count): a restated given, not a result."""
    pos, num = at
    word = _NEXT_WORD.match(sentence, pos + len(num.text))
    noun = _asked_noun(query)
    if query is None or word is None or noun is None or _with_asked_noun(sentence, [at], noun) is not None:
        return False
    for qpos, q in find_numbers(query, words=True):
        if q.value == num.value:
            qword = _NEXT_WORD.match(query, qpos + len(q.text))
            if qword is not None and qword["word"].lower() == word["word"].lower() not in _FUNCTION_WORDS:
                return True
    return False


_ASKED = re.compile(
    r"(?i)\bhow\s+many\s+(?:more\s+|fewer\s+|additional\s+|full\s+|whole\s+|extra\s+)?(?P<noun>[a-z]{3,})\b"
)


def _asked_noun(query: str | None) -> str | None:
    """The noun a "How many …?" question asks for ("How many boxes does she fill?" → "boxes")."""
    asked = list(_ASKED.finditer(query or ""))
    return asked[-1]["noun"].lower() if asked else None


def _with_asked_noun(segment: str, nums: list[tuple[int, ParsedNumber]], noun: str | None) -> ParsedNumber | None:
    """The one value in ``segment`` stated with the asked noun ("so 60 tiles fill **5 boxes**"), or
    ``None`` when no number, or numbers of different values, stand with it."""
    if noun is None:
        return None
    stem = noun[:-2] if noun.endswith("es") else noun.rstrip("s")
    hits = []
    for pos, num in nums:
        word = _NEXT_WORD.match(segment, pos + len(num.text))
        if word is not None and word.start("word") - (pos + len(num.text)) <= 2:
            w = word["word"].lower()
            if w == noun or w.rstrip("s") == stem or (w.endswith("es") and w[:-2] == stem):
                hits.append(num)
    return hits[0] if hits and all(_same_number(h, hits[0]) for h in hits) else None


def _overridden(rest: str, value: ParsedNumber, zeros: bool) -> bool:
    """Whether ``rest`` (the answer after its leading value) turns, corrects, disagrees or commits in
    the first person (:data:`harness.metrics.number_cues.OVERRIDE`) and a different number follows
    ("72 — that's what two members said, but I get 75")."""
    other = [p for p, n in _nums(rest, zeros) if not _same_number(n, value)]
    if not other:
        return False
    turn = OVERRIDE.search(rest)  # one pass each: the first turn, and the last different number after it
    return turn is not None and turn.end() <= other[-1]


def _bare_value_head(first: str, head: tuple[str, str]) -> bool:
    """Whether the first sentence opens with a value standing alone (a number and at most two unit
    words) before a dash, and goes on in words ("86 400 — that's 24 × 3600", "36 — 10% is 24 and …")."""
    sep = first[len(head[0]) :].lstrip()
    words = re.findall(r"[^\W\d_]+", head[0])
    return (
        sep[:1] in ("—", "–", "-")
        and len(words) <= 2
        and not _WORKING.match(head[0])
        and bool(re.match(r"[^\W\d_]", head[1].lstrip(MARKUP + " ")))
    )


def _result_cues(sentence: str) -> list[re.Match[str]]:
    """Conclusion cues and result phrases ("for a total of", "making") in ``sentence``, in order."""
    return sorted([*CONCLUSION.finditer(sentence), *RESULT_CUE.finditer(sentence)], key=lambda m: m.start())


def _number_fallback(
    text: str, zeros: bool, given: set[float] | None, capped: bool, query: str | None = None
) -> Extraction:
    if truncated(text):
        return extracted(None, "none", "the answer stops mid-sentence (truncated?) and gives no answer cue", capped)
    raw = [
        without_check_clause(without_hypothetical(without_reason(CONDITION_CLAUSE.sub(" ", s))))
        for s in split_sentences(_PAREN.sub(lambda m: m.group(0).replace(";", ","), _without_list_markers(text)))
    ]
    raw = [
        " " if i and only_hypothetical(s, query) and any(re.search(r"\d", r) for r in raw[:i]) else s
        for i, s in enumerate(raw)
    ]
    offer = next((i for i, s in enumerate(raw) if i and _OFFER.match(s)), None)
    if offer is not None and any(re.search(r"\d", r) for r in raw[:offer]):
        raw = raw[:offer]  # a question to the reader after the answer opens a coda: what follows is extra
    sentences = [_without_asides(_without_negated_numbers(s)) for s in raw]
    numbered = [(i, s, nums) for i, s in enumerate(sentences) if (nums := _nums(s, zeros))]
    kept = [t for t in numbered if not _is_check(t[1]) and not t[1].lstrip(MARKUP).startswith("(")]
    numbered = kept or numbered
    reports = [t for t in numbered if _MEMBER_OPENING.match(t[1])]
    endorsed = _endorsed_report(sentences, reports, zeros) if reports and len(reports) == len(numbered) else None
    if endorsed is not None:
        return _number_extraction(
            endorsed[0], "conclusion", f"the value of the participant the answer endorses ({endorsed[1]!r})", capped
        )
    if reports and len(reports) == len(numbered) and len(numbered) < len([s for s in sentences if s.strip()]):
        return extracted(
            None, "ambiguous", "every number is one a council participant gave; the answer states none itself", capped
        )
    numbered = [t for t in numbered if t not in reports] or numbered
    noun = _asked_noun(query)
    restated = [
        t
        for j, t in enumerate(numbered)
        if j
        and _RESTATING.match(t[1])
        and _answer_equals(numbered[j - 1][1])
        and _with_asked_noun(t[1], t[2], noun) is None
    ]
    numbered = [t for t in numbered if t not in restated] or numbered
    if given is not None and len(numbered) > 1 and context_after(numbered[0][1], [t[1] for t in numbered[1:]], query):
        # answer first, context after: the later sentences speak of other subjects or events
        found = _read_numbered(text, zeros, given, capped, query, raw, numbered[:1])
        passed = len(numbered) - 1
        note = f"; {passed} later sentence{'s' * (passed != 1)} about another subject passed over as context"
        return found.model_copy(update={"detail": found.detail + note})
    return _read_numbered(text, zeros, given, capped, query, raw, numbered)


def _read_numbered(
    text: str,
    zeros: bool,
    given: set[float] | None,
    capped: bool,
    query: str | None,
    raw: list[str],
    numbered: _Numbered,
) -> Extraction:
    """The fallback rules on the sentences with a number (``numbered``: index, sentence, numbers)."""
    if not numbered:
        return extracted(None, "none", "no number found in the answer", capped)
    i_last, last, last_nums = numbered[-1]
    offered = _alternatives(last, last_nums)
    if offered:
        return extracted(
            None,
            "ambiguous",
            f"the last sentence with a number offers several ({offered}) as alternatives: {quoted(last)}",
            capped,
        )
    spread = _range_answer(last, last_nums, with_from=False)
    if spread:
        return extracted(
            None, "ambiguous", f"the last sentence with a number ends on a range ({spread}): {quoted(last)}", capped
        )
    eqs = _answer_equals(last)
    cues_in = _result_cues(last)
    exact = _exact_before_approx(last, eqs, zeros)
    if exact is not None and not (cues_in and cues_in[-1].start() > eqs[-1].end()):
        return _number_extraction(exact, "equals", "the exact value before the last '≈' that rounds it", capped)
    raw_eqs, raw_cues = _answer_equals(raw[i_last]), _result_cues(raw[i_last])
    if (
        raw_eqs
        and not (raw_cues and raw_cues[-1].start() > raw_eqs[-1].end())
        and expression_after(raw[i_last][raw_eqs[-1].end() :])
    ):
        return extracted(None, "none", f"{_EXPRESSION_WHY} in the last sentence with a number: {quoted(last)}", capped)
    if eqs and not (cues_in and cues_in[-1].start() > eqs[-1].end()):
        if expression_after(last[eqs[-1].end() :]):
            return extracted(
                None, "none", f"{_EXPRESSION_WHY} in the last sentence with a number: {quoted(last)}", capped
            )
        after = _nums(last[eqs[-1].end() :], zeros)
        if after:
            turn = _CONTRAST.search(last, eqs[-1].end())
            if turn is not None and any(
                not _same_number(n, after[0][1]) for p, n in after if p >= turn.end() - eqs[-1].end()
            ):
                return extracted(
                    None,
                    "ambiguous",
                    f"the value after the last '{eqs[-1].group(0)}' ({after[0][1].text!r}) is contrasted with another "
                    f"number after {turn.group(0).strip()!r}: {quoted(last)}",
                    capped,
                )
            return _number_extraction(
                after[0][1], "equals", f"after the last '{eqs[-1].group(0)}' in the last sentence with a number", capped
            )
    noun = _asked_noun(query)
    if cues_in:
        clause = last[cues_in[-1].end() :]
        picked = _pick_in_clause(clause, zeros)
        with_noun = _with_asked_noun(clause, _nums(clause, zeros), noun)
        if (
            with_noun is not None
            and picked is not None
            and picked[0] is not None
            and not _same_number(with_noun, picked[0])
        ):
            return _number_extraction(
                with_noun,
                "conclusion_cue",
                f"after the cue {cues_in[-1].group(0).lower()!r}, the one number stated with the asked {noun!r}",
                capped,
            )
        if picked:
            return _picked(picked, "conclusion_cue", f"after the cue {cues_in[-1].group(0).lower()!r}", capped)
    i_first, first, first_nums = numbered[0]
    if (
        given is not None
        and i_first == 0
        and len(numbered) > 1
        and len(first_nums) == 1
        and len(first.split()) <= LEADING_WORDS
        and ":" not in first
        and not _WORKING.match(first)
        and not re.search(r"(?i)\b(?:wrong|incorrect|mistake|mistaken|intuitive|tempting|not)\b", first)
        and not _HYPOTHETICAL_LEAD.search(first)
        and not re.match(r"(?i)\W*no\b", text[text.find(first) + len(first) :])
        and first_nums[0][1].value not in given
        and not CORRECTION.search(text[len(first) :])
        and not _overridden(text[text.find(first) + len(first) :], first_nums[0][1], zeros)
        and not _LABELLED.match(last)
    ):
        return _number_extraction(
            first_nums[0][1], "leading", "the only number of the short first sentence, which the rest explains", capped
        )
    head = head_clause(first) if i_first == 0 and given is not None else None
    on_subject = head is not None and question_subject(head[0], query)
    if head is not None and (on_subject or _bare_value_head(first, head)):
        in_head = _nums(head[0], zeros)
        stated = _stated(head[0], in_head)
        if (
            len(in_head) == 1
            and stated == in_head
            and len(head[0].split()) <= LEADING_WORDS
            and in_head[0][1].value not in (given or set())
            and _nums(head[1], zeros)
            and not CORRECTION.search(text[len(head[0]) :])
            and not _overridden(text[text.find(head[0]) + len(head[0]) :], in_head[0][1], zeros)
        ):
            return _number_extraction(
                in_head[0][1],
                "leading",
                "the only number of the opening clause "
                + ("on the question's subject" if on_subject else "(a value standing alone before a dash)")
                + ", which the working after it explains",
                capped,
            )
    own = anchored_clause(last, query) if given is not None else None
    own_nums = _nums(own, zeros) if own else []
    if own_nums:
        return _number_extraction(
            own_nums[0][1],
            "last_number",
            "the number the last sentence states of the question's own subject (its other clauses: other subjects)",
            capped,
        )
    last_nums = _stated(last, last_nums, query)
    with_noun = _with_asked_noun(last, last_nums, noun) if len({n.value for _, n in last_nums}) > 1 else None
    if with_noun is not None:
        return _number_extraction(
            with_noun, "last_number", f"the one number of the last sentence stated with the asked {noun!r}", capped
        )
    if (
        given
        and len({n.value for _, n in last_nums}) == 1
        and len(last.split()) <= LEADING_WORDS
        and not _WORKING.match(last)
        and not _RESTATES.search(last)
        and not _restates_query(last, last_nums[-1], query)
    ):
        return _number_extraction(
            last_nums[-1][1],
            "last_number",
            "the only number of the short last sentence (a value the question also gives)",
            capped,
        )
    if given:
        for _, sentence, nums in reversed(numbered):
            nums = _stated(sentence, nums, query)
            fresh = [n for _, n in nums if n.value not in given]
            if fresh:
                method = "last_number" if sentence is last else "last_new_number"
                return _number_extraction(
                    fresh[-1],
                    method,
                    "the last number of the last sentence with a number the question did not give",
                    capped,
                )
    return _number_extraction(
        last_nums[-1][1],
        "last_number",
        f"the last number of the last sentence with a number (of {len(last_nums)} there)",
        capped,
    )
