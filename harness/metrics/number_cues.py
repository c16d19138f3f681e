"""Rule tables for reading the number a clause states (used by :mod:`harness.metrics.extraction`).

* :data:`CONDITION_EQ` — an ``=`` that states a condition, not a result: "for n = 10", "at x = 3",
  "when t = 2", "reached at x = 3", "where k = 5". The number after it is not the answer.
* :data:`CONDITION_CLAUSE` — such a condition with its value, dropped before the fallback rules
  read the numbers of a sentence.
* :data:`COMPARISON_AFTER` — a number that compares rather than states: "2 times as many", "3x
  more", "25% more than"; passed over when the clause has another number.
* :data:`UNIT_BEFORE` — "in one day", "per 1 hour": a 1 that names the unit, passed over like a
  comparison.
* :data:`CIRCUMSTANCE_BEFORE` — "from 4 boxes", "in 2 hours", "out of 12": a number in a
  circumstantial phrase, passed over when another number remains.
* :data:`APPOSITIVE_COPULA` — "which is", "that is", "i.e.": a copula that comments on the number
  before it ("48 pens, which is 2 times as many"), not one that introduces the result.
* :func:`expression_after` — the text after an ``=`` is an algebraic expression ("3(2x+1) + 0",
  "2x + 4"): no single number is the answer there.
* :data:`TAKE_BACK` — words that take back a stated answer ("wait", "I made a mistake"); a later
  different number after one makes a cued answer ambiguous.
* :data:`HEDGED_NUMBER` — "or 13", "maybe 13", "possibly 13" inside an answer's own clause
  ("Answer: 12 (or 13 if you count him)", "12, possibly 13"): with a different number, the clause
  commits to neither.
* :data:`GSM8K_LINE` — GSM8K's final line ``#### 42``.
* :func:`without_reason` — a sentence cut before a reason clause that follows the result ("log₄ 8 =
  3/2 since 4^(3/2) = 8", "5 left, because 12 − 7 = 5"): the numbers of the reason are its
  working, not the answer. Only when the part before holds a number.
* :func:`without_check_clause` — a sentence cut before a check clause after its result ("The
  majority says 12 and Euler agrees: 8 − 12 + 6 = 2").
* :func:`without_hypothetical` — a sentence cut before a hypothetical about another question
  after the answer ("It's 36 — and if you needed 15% more instead, that would be 276", "…, but if
  you meant the total rather than the share, 90"): its numbers answer a question not asked.
  :func:`only_hypothetical` — a sentence that is only such a hypothetical, or a counterfactual
  ("If the drain rate doubled, it would take 10 minutes.") when the question poses no condition,
  passed over by the fallback rules after an earlier sentence with a number.
* :func:`asked_scale` — a question that asks its count in a scale unit ("how many million …?",
  "in thousands"): the check also reads the answer's number in that unit ("2 500 million" and
  "2.5 billion" answer 2500).
* :func:`dating_year` — a year that dates a figure ("8,849 m by the 2020 survey", "as of 2023"),
  passed over like a circumstantial number when the question does not ask for a year or a date.
* :func:`anchored_clause` — question anchoring inside a sentence: of two or more clauses stating a
  number of a subject ("The variance is 4, and the standard deviation is 2."), the one whose subject
  shares the question's words.
* :func:`context_after` — question anchoring: later sentences that speak of another subject or
  event than the question's ("The smallest, the stapes, is about 3 mm long." after "…, leaving a
  typical adult with 206"; "…; formal reunification followed on 3 October 1990" after "… fell on 9
  November 1989") are context after an opening statement that shares the question's words.
* :func:`head_clause` — a first sentence that states the answer and then, after a dash or a colon,
  its working ("Tom has a dozen apples — Jerry has 4 and Tom has three times that", "Eliza earns
  $460 this week: $400 regular plus $60 overtime"): ``(head, working)``.
* :func:`question_subject` — whether a head opens with the subject of the question's asking
  sentence (the last one ending in "?"): a capitalised word of it that is not a function word
  ("Tom" for "How many apples does Tom have?"; not "Jerry" named only earlier, not "The", "If"), or
  a pronoun whose forms that sentence uses ("She …" for "how much are her earnings?").
* :data:`RESULT_CUE` — a phrase that introduces the result after the working ("4 × 28 = 112 and
  3 × 31 = 93, for a total of 205", "…, making 17", "…, which brings the total to 42"); read
  like a conclusion cue, so the number after it wins over the number after the last ``=``.
* :func:`scenario_pair` — a line that gives results under two contrasting conditions ("5 weeks
  without interest; with interest, 4", "$30 before tax. After tax, $32.40", "If compounded
  yearly, 1102.50; otherwise 1100", "Assuming no interest, 5 weeks. If interest applies, 4", "in
  the simple case 5; in the compound case 4", "5 weeks (4 with interest)", "37,500 in theory,
  27,500 in practice"): the number read from
  it is one scenario's, not a commitment.
"""

from __future__ import annotations

import re

CONDITION_EQ = re.compile(
    r"(?i)\b(?:for|with|when|whenever|if|where|let|given|assuming|at|reached\s+at|attained\s+at|occurs\s+at|"
    r"setting|put|plugging\s+in)\s+[A-Za-z]{1,2}\s*$"
)
COMPARISON_AFTER = re.compile(
    r"(?i)^\s*(?:times\b|x\s+(?:as|more|less|fewer|larger|smaller|bigger)\b|×\s+(?:as|more)\b|"
    r"%?\s*(?:more|less|fewer|larger|smaller|greater|higher|lower)\s+than\b|percent\s+(?:more|less)\b|"
    r"%?\s*off\b)"
)
#: Before a 1 that names a unit rather than a quantity: "in one day", "per 1 hour", "for each one".
UNIT_BEFORE = re.compile(r"(?i)\b(?:in|per|for|each|every|within)\s+$")
#: Before a number in a circumstantial phrase: "from 4 boxes", "in 2 hours", "out of 12" (not "with",
#: "at": "ends with 8", "stands at 12" state results).
CIRCUMSTANCE_BEFORE = re.compile(
    r"(?i)\b(?:from|in|over|within|during|out\s+of|per)\s+"
    r"(?:the\s+|a\s+|an\s+|about\s+|only\s+)?$"
)
APPOSITIVE_COPULA = re.compile(r"(?i)\b(?:which|that|this|i\.e\.|ie)\s*,?\s*$")
_EXPRESSION = re.compile(
    r"^[-+(\s]*[a-z]\b\s*(?:[-+*/^]|\))"  # x + 1, (x+1)
    r"|^[-+]?\d+(?:\.\d+)?\s*[*×]?\s*\(\s*[-+]?\d*\s*[a-z]\b"  # 3(2x+1), 3 * (x - 1)
    r"|^[-+]?\d+(?:\.\d+)?[a-z]\b\s*[-+*/^]"  # 2x + 4
)
#: A condition with its value ("at x = 3", "for n = 10"), dropped before the fallback rules read numbers.
CONDITION_CLAUSE = re.compile(
    r"(?i)\b(?:for|when|whenever|where|at|reached\s+at|attained\s+at|occurs\s+at|if|with)\s+[A-Za-z]{1,2}\s*=\s*"
    r"[-−]?\d[\d,.]*"
)
#: Words that take back what was just said ("wait", "I made a mistake", "let me redo", "oops", "actually,
#: no", "on reflection"); a take-back counts only when what follows gives a different value.
TAKE_BACK = re.compile(
    r"(?i)\b(?:wait|correction|mistake|mistaken|recount|recheck|re-check|recalculate|recompute|"
    r"on\s+second\s+thought|let\s+me\s+redo|I\s+was\s+wrong|oops|scratch\s+that|that'?s\s+wrong|"
    r"that\s+is\s+wrong|not\s+right|correct(?:ing)?\s+myself|I\s+(?:misread|miscalculated|miscounted)|"
    r"(?:actually|hmm),?\s+(?:no|not)(?=\s*[,.:;!—–-])|actually,?\s+the\s+(?:correct|right|real|true)\s+\w+|"
    r"so\s+actually|actually,?\s+(?:it'?s|it\s+is|it\s+should|should|it\s+equals|it\s+comes\s+to)|"
    r"an?\s+error|on\s+reflection|recomput\w*)\b"
)
GSM8K_LINE = re.compile(r"(?m)^[ \t]*####[ \t]*(?P<value>[-−+$€£]?[ \t]?\d[^\n#]{0,40}?)[ \t]*$")


def expression_after(text: str) -> bool:
    """Whether ``text`` (what follows an ``=``) starts with an algebraic expression in a variable
    ("3(2x+1) + 0", "2x + 4", "x + 1") rather than a number."""
    return bool(_EXPRESSION.match(text.strip()[:60]))


RESULT_CUE = re.compile(
    r"(?i)\b(?:(?:for|with|to|making|giving|reaching)\s+)?an?\s+(?:grand\s+|combined\s+|overall\s+)?total\s+of"
    r"|\b(?:which|that|this)\s+(?:makes|gives|comes\s+to|adds\s+up\s+to|totals|brings\s+(?:it|us|the\s+total)\s+to)"
    r"|\bmaking|\bbringing\s+(?:it|us|them|the\s+(?:total|sum|count))\s+to\b"
    r"|\b(?:leaves|leaving)(?=\s+(?:you\s+|him\s+|her\s+|them\s+|us\s+)?(?:with\s+)?[-−$€£]?\d)"
)
_REASON = re.compile(
    r"(?i)(?:[,;]\s*|\s[-–—]\s*|\s)(?:since|because|as\s+(?:shown|seen)\s+by|given\s+that|which\s+follows\s+from)\b"
)


#: A hypothetical about another question after the answer ("It's 36 — and if you needed 15% more
#: instead, that would be 276", "If you meant the total rather than the share, it's 90.", "If it had
#: taken 3 hours instead, …"): from its "if" to the end of the sentence.
_IN_SENTENCE = r"(?:[^.;!?\n]|(?<=\d)\.(?=\d))"  # any character of the sentence, a decimal point included
HYPOTHETICAL = re.compile(
    r"(?i)(?:^|(?<=[,;:])\s*|\s[-–—]+\s*|\s)(?:and\s+|but\s+|or\s+|whereas\s+|while\s+)?(?:if|had|were)\s+"
    rf"(?:(?:you|we|one|someone|they|the\s+(?:question|task))\b{_IN_SENTENCE}{{0,160}}?"
    r"\b(?:instead|rather|meant|wanted|asked\s+for|were\s+asking|had\s+asked)\b"
    rf"|{_IN_SENTENCE}{{0,160}}?\binstead\b){_IN_SENTENCE}{{0,300}}"
)


def without_hypothetical(sentence: str) -> str:
    """``sentence`` up to a hypothetical about another question (:data:`HYPOTHETICAL`), when a digit
    comes before it; a sentence that is only such a hypothetical is returned whole (the caller
    knows whether an earlier sentence stated a number)."""
    m = HYPOTHETICAL.search(sentence)
    if m is None or not re.search(r"\d", sentence[: m.start()]):
        return sentence
    return sentence[: m.start()]


#: A sentence that opens with a counterfactual condition and concludes in the conditional ("If the
#: drain rate doubled, it would take 10 minutes.", "Had she sold 3 more, she'd have 15.").
_COUNTERFACTUAL = re.compile(rf"(?i)^\W*(?:if|had|were)\b{_IN_SENTENCE}{{0,160}}?\b(?:would|could|might|'d|’d)\b")
#: A question that itself poses a condition: its answer may be stated in the conditional.
_CONDITIONAL_QUESTION = re.compile(r"(?i)\b(?:if|would|suppose|supposing|assume|assuming|had|were)\b")


def only_hypothetical(sentence: str, query: str | None = None) -> bool:
    """Whether ``sentence`` is, from its start, a hypothetical about another question ("If you wanted
    15% more instead, that would be 276."), or — with the question known and posing no condition of
    its own — a counterfactual ("If the drain rate doubled, it would take 10 minutes.")."""
    m = HYPOTHETICAL.search(sentence)
    if m is not None and not re.search(r"\w", sentence[: m.start()]):
        return True
    return query is not None and not _CONDITIONAL_QUESTION.search(query) and bool(_COUNTERFACTUAL.match(sentence))


#: A check clause inside a sentence after its result ("The majority says 12 and Euler agrees: 8 − 12 + 6
#: = 2", "…, so 36 — a quick check: 36/240 = 0.15"): from the joint to the end of the sentence.
_CHECK_CLAUSE = re.compile(
    r"(?i)(?:[,;]\s*|\s[-–—]\s*|\s)(?:and\s+|which\s+)?(?:[\w'’]+\s+){0,2}"
    r"(?:agrees|confirms\s+it|checks\s+out|(?:quick\s+|sanity\s+)?check|verification)\s*[:—–][^.;!?\n]*"
)


def without_check_clause(sentence: str) -> str:
    """``sentence`` up to a check clause after its result (:data:`_CHECK_CLAUSE`), when a digit comes
    before it."""
    m = _CHECK_CLAUSE.search(sentence)
    if m is None or not re.search(r"\d", sentence[: m.start()]):
        return sentence
    return sentence[: m.start()]


def without_reason(sentence: str) -> str:
    """``sentence`` up to its first reason clause ("since …", "because …"), when a digit comes before it."""
    m = _REASON.search(sentence)
    if m is None or not re.search(r"\d", sentence[: m.start()]):
        return sentence
    return sentence[: m.start()]


_HEAD_SPLIT = re.compile(r"\s[—–-]\s|:\s")
#: A subject pronoun and the forms of it that show the question asks about the same person.
_PRONOUN_FORMS = {
    "he": frozenset({"he", "his", "him"}),
    "she": frozenset({"she", "her", "hers"}),
    "they": frozenset({"they", "their", "them"}),
    "we": frozenset({"we", "our", "us"}),
}
#: Capitalised words that open a question's sentences without naming its subject.
_FUNCTION_WORDS = frozenset(
    "The A An In On At For By With From To Of If When How What Which Who Whose Where Why After Before During "
    "Since Then So There This That These Those It Its Each Every All Some Any No Now First Next Finally Also "
    "Suppose Assume Given Let Find Compute Calculate What Is Are Was Were Does Do Did Can Could Will Would "
    "Give Round Express Answer Total Altogether Together Over Per Every".split()
)


def head_clause(sentence: str) -> tuple[str, str] | None:
    """``(head, working)`` split at the first spaced dash or ": " of ``sentence``, else ``None``."""
    m = _HEAD_SPLIT.search(sentence)
    if m is None or not sentence[: m.start()].strip() or not sentence[m.end() :].strip():
        return None
    return sentence[: m.start()], sentence[m.end() :]


def question_subject(head: str, query: str | None) -> bool:
    """Whether ``head`` opens with the question's subject (see the module docstring)."""
    first = re.match(r"\W*([A-Za-z][\w'’]*)", head)
    if first is None or not query:
        return False
    word = re.sub(r"['’]s$", "", first.group(1))
    asked = _asked(query)
    forms = _PRONOUN_FORMS.get(word.lower())
    if forms is not None:
        return bool(forms & {w.lower() for w in re.findall(r"\w+", asked)})
    names = set(re.findall(r"\b[A-Z][a-z]+", asked)) - _FUNCTION_WORDS
    return word in names


def _asked(query: str) -> str:
    """The sentence of ``query`` that asks (the last one ending in "?"), else the whole query."""
    end = query.rfind("?")
    if end < 0:
        return query
    start = max(query.rfind(".", 0, end), query.rfind("\n", 0, end), query.rfind("!", 0, end)) + 1
    return query[start : end + 1]


HEDGED_NUMBER = re.compile(
    r"(?i)(?:\bor\b|\bmaybe\b|\bpossibly\b|\bperhaps\b|\bprobably\b|\bif\s+not\b)\s*,?\s*"
    r"(?:even\s+|about\s+|around\s+|just\s+|so\s+)?(?=[-−$€£]?\d)"
)


_WITHOUT = re.compile(r"(?i)\bwith(?:out|\s+no)\s+(?:any\s+|the\s+)?(?P<noun>[a-z]{3,})")
_BEFORE = re.compile(r"(?i)\bbefore\s+(?:the\s+|any\s+)?(?P<noun>tax|taxes|tip|fees?|discount|shipping|interest)\b")
_IF = re.compile(r"(?i)\bif\b")
_IDEAL = re.compile(r"(?i)\b(?:naively|in\s+theory|theoretically|on\s+paper|ideally|nominally|in\s+principle)\b")
_REAL = re.compile(r"(?i)\b(?:realistically|in\s+practice|practically|in\s+reality|in\s+real\s+life)\b")
_ELSE = re.compile(r"(?i)\b(?:otherwise|or\s+else|else|if\s+not|if\s+instead|assuming)\b")
_CASE = re.compile(r"(?i)\bin\s+the\s+[\w-]+\s+case\b|\bin\s+case\s+of\b")
_CONDITIONED_ASIDE = re.compile(r"(?i)\([^()]*\d[^()]*\b(?:with|without|if|unless|assuming|when)\b[^()]*\)")
#: Unit words after "if you prefer" in a restating aside.
_UNITS = (
    r"(?:metric|imperial|us|si|units?|grams?|kilograms?|kg|g|pounds?|lbs?|ounces?|oz|litres?|liters?|ml|cups?|"
    r"tablespoons?|teaspoons?|miles?|km|kilometres?|kilometers?|metres?|meters?|feet|inches|celsius|fahrenheit)"
)
#: A conditioned aside that restates the result in other terms, its condition only the reader's way of
#: measuring or writing it ("(that's 48 tablespoons, if you're measuring that way)", "(i.e. 0.75 kg, if
#: you prefer metric)"): the same quantity, not a second scenario.
_RESTATED_ASIDE = re.compile(
    r"(?i)^\(\s*(?:that's|that\s+is|i\.\s?e\.|ie|which\s+is|equivalently|about|roughly|~|≈|=)[^()]*"
    r"\bif\s+you(?:'re|\s+are)?\s+(?:measuring|converting|prefer\s+(?:the\s+)?"
    + _UNITS
    + r"|writing\s+it|working\s+in\s+(?:us|metric|imperial|si)|"
    r"using\s+(?:us|metric|imperial|si))\b"
    r"(?![^()]*\b(?:otherwise|else|instead)\b)"
)


def scenario_pair(line: str) -> str | None:
    """What makes ``line`` a two-scenario statement (see the module docstring), else ``None``: a
    "without X" / "with no X" and a "with … X" of the same noun (or "with it"); "before tax" and
    "after tax" (tax, tip, fees, discount, shipping, interest); "naively / in theory / on paper"
    and "realistically / in practice"; an "if" with "otherwise" / "else" /
    "if not" / "assuming"; two "in the … case"; or a parenthesis giving a number under a condition
    (not one that only restates the result for the reader's way of measuring: :data:`_RESTATED_ASIDE`)."""
    for m in _WITHOUT.finditer(line):
        noun = re.escape(re.sub(r"(?:es|s)$", "", m["noun"].lower())) + r"\w*"  # "without leaks" / "with a leak"
        if re.search(rf"(?i)\bwith\s+(?!out\b|no\b)(?:(?:[\w%.$]+\s+){{0,2}}{noun}|(?:it|them|that|this)\b)", line):
            return f"{m.group(0)!r} and 'with … {m['noun']}'"
    if _IF.search(line) and (other := _ELSE.search(line)):
        return f"'if' and {other.group(0)!r}"
    for m in _BEFORE.finditer(line):
        noun = re.escape(m["noun"].lower())
        if re.search(rf"(?i)\bafter\s+(?:the\s+|any\s+)?{noun}\b", line):
            return f"{m.group(0)!r} and 'after {m['noun']}'"
    ideal, real = _IDEAL.search(line), _REAL.search(line)
    if ideal and real:
        return f"{ideal.group(0)!r} and {real.group(0)!r}"
    cases = _CASE.findall(line)
    if len(cases) >= 2:
        return f"{cases[0]!r} and {cases[1]!r}"
    aside = next((a for a in _CONDITIONED_ASIDE.finditer(line) if not _RESTATED_ASIDE.match(a.group(0))), None)
    if aside:
        return f"the aside {aside.group(0)!r}"
    return None


#: Words a sentence shares with any question without being about its subject.
_COMMON = frozenset(
    "the and for are was were has have had that this these those with from into than then there their them they "
    "what which when where who whom whose how many much does did can could will would should about after before "
    "over under each every per all any some its it's one two three four five six seven eight nine ten give "
    "answer number total also just only very more less most least".split()
)
#: A later sentence's sign that it speaks of another subject or another event (the brief: "a second,
#: a smallest, another event"): a superlative, an ordinal, "other" / "another", a sequel in time.
_OTHER_SUBJECT = re.compile(
    r"(?i)\b(?:smallest|largest|biggest|longest|shortest|highest|lowest|tallest|heaviest|lightest|oldest|youngest|"
    r"newest|earliest|latest|fastest|slowest|nearest|closest|farthest|furthest|deepest|widest|hottest|coldest|"
    r"brightest|greatest|the\s+(?:most|least)\s+[a-z]+|(?<!per\s)(?<!a\s)(?<!one\s)second|third|fourth|fifth|"
    r"(?<!in\s)(?<!each\s)other(?!\s+words)|another|followed|"
    r"later|afterwards|subsequently|meanwhile|by\s+comparison|for\s+comparison|in\s+comparison|for\s+reference)\b"
)
#: A later sentence that opens with a pronoun or a link speaks of what came before, not of another subject.
_REFERS_BACK = re.compile(r"(?i)^\W*(?:it|he|she|they|this|that|these|those|which|so|thus|hence|I|we|you)\b")
_TURN_OR_RESULT = re.compile(
    r"(?i)[=≈]|\b(?:but|however|yet|though|although|actually|in\s+fact|instead|rather|wait|correction|"
    r"mistake|answer|result|total|therefore|thus|hence|so|overall|altogether|real|really|actual|true|truly|"
    r"correct|right|precise|exact|accurate|final)\b"
)


def _stem(word: str) -> str:
    for end in ("ing", "ed", "es", "s"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)]
    return word


def content_stems(text: str) -> set[str]:
    """The content words of ``text``, lower-cased and stemmed ("bones" → "bone", "fused" → "fus"):
    words of three letters or more that are not function words (:data:`_COMMON`)."""
    return {_stem(w) for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in _COMMON}


def other_subject(sentence: str, query: str) -> bool:
    """Whether ``sentence``, after an answer's opening statement, speaks of another subject or event
    (see :func:`context_after`): it shares no content word with the question, opens with a noun
    phrase of its own (not a pronoun or a link), names another subject (:data:`_OTHER_SUBJECT`, a
    sign the question itself does not use) and neither computes, concludes, turns nor claims to be
    the real or correct value ("The real count, the most accurate, is 213.")."""
    sign = _OTHER_SUBJECT.search(sentence)
    return (
        sign is not None
        and not re.search(rf"(?i)\b{re.escape(sign.group(0))}\b", query)
        and not (content_stems(sentence) & content_stems(_asked(query)))
        and not _REFERS_BACK.match(sentence)
        and not _TURN_OR_RESULT.search(sentence)
    )


def context_after(first: str, later: list[str], query: str | None) -> bool:
    """Whether the sentences ``later`` (each holding a number) are only context after the opening
    statement ``first``: the question is known, ``first`` shares a content word with the question's
    asking sentence, and every later sentence speaks of another subject or event
    (:func:`other_subject`: "The smallest, the stapes, is about 3 mm long." after "…, leaving a
    typical adult with 206." for "How many bones are in a typical adult …?")."""
    if not query or not later or not (content_stems(first) & content_stems(_asked(query))):
        return False
    return all(other_subject(s, query) for s in later)


_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
#: A question that asks for a count in a scale unit ("how many million is 2,5 milliard?", "the
#: population in millions", "in thousands of euros").
_ASKED_SCALE = re.compile(
    r"(?i)\bhow\s+many\s+(?P<a>hundred|thousand|million|billion|trillion)s?\b"
    r"|\bin\s+(?P<b>hundred|thousand|million|billion|trillion)s\b"
)


def asked_scale(query: str | None) -> tuple[str, float] | None:
    """The scale unit the question asks its count in (``("million", 1e6)`` for "how many million …?",
    "… in millions"), else ``None``: a number the answer gives in units ("2 500 million",
    "2.5 billion") is then also read in that scale."""
    m = _ASKED_SCALE.search(query or "")
    if m is None:
        return None
    word = (m["a"] or m["b"]).lower()
    return word, _SCALES[word]


#: A year that dates a figure rather than answers ("by the 2020 survey", "as of 2023", "since 1990").
_DATING = re.compile(
    r"(?i)\b(?:by\s+the|as\s+of|since|until|circa|c\.|according\s+to\s+the|per\s+the|from\s+the)\s+"
    r"(?:(?:early|mid|late)[\s-]+)?$"
)
#: A question that asks for a year or a date.
_ASKS_YEAR = re.compile(r"(?i)\b(?:year|when|date|century|decade)\b")


def dating_year(before: str, number: float, query: str | None) -> bool:
    """Whether a number is a year that dates a figure (:data:`_DATING` right ``before`` it, a whole
    number from 1000 to 2100), when the question does not ask for a year or a date."""
    return (
        number.is_integer()
        and 1000 <= number <= 2100
        and not _ASKS_YEAR.search(query or "")
        and _DATING.search(before) is not None
    )


_CLAUSE_SPLIT = re.compile(r"(?i),\s*(?:and|while|whereas)\s+|;\s*|\s+and\s+(?=(?:the|its|their|his|her)\s)")
_SUBJECT_VALUE = re.compile(
    r"(?i)^\W*(?P<subj>(?:the|its|their|his|her|a|an)\s+[^,;:=]{1,50}?)\s+(?:is|are|was|were|equals|comes\s+to)\s+"
    r"(?:about\s+|approximately\s+|roughly\s+|exactly\s+|around\s+)?(?P<value>[-−$€£]?\d.*)$"
)


def anchored_clause(sentence: str, query: str | None) -> str | None:
    """The value part of the one clause of ``sentence`` that states a number of the question's own
    subject, when the sentence states numbers of two or more subjects ("The variance is 4, and the
    standard deviation is 2." for "What is the population variance …?" gives "4"): its subject shares
    a content word with the question's asking sentence and every other subject shares none."""
    if not query:
        return None
    clauses = [m for c in _CLAUSE_SPLIT.split(sentence) if (m := _SUBJECT_VALUE.match(c))]
    if len(clauses) < 2:
        return None
    asked = content_stems(_asked(query))
    own = [m for m in clauses if content_stems(m["subj"]) & asked]
    if len(own) != 1:
        return None
    return own[0]["value"]


#: After an answer's leading value: a turn, a correction, a disagreement or a first-person commitment
#: ("but I get 75", "I disagree: it was $48", "actually 75"); a different number after one overrides
#: the leading value.
OVERRIDE = re.compile(
    r"(?i)\b(?:but|however|yet|though|although|actually|instead|wait|disagree|in\s+fact|really|"
    r"I\s+(?:get|got|make\s+it|think|say|'d\s+say|would\s+say|calculate|compute|count))\b"
)
