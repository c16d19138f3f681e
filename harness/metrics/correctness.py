"""Objective correctness: check a final answer against the case's optional ``expected:`` block.

Before any type's rule, a reasoning model's visible thinking is set aside (:mod:`harness.metrics.thinking`):
only the text after the last ``</think>`` is read, and an answer cut off inside an unclosed ``<think>``
is read up to that tag (so it is usually ``unanswered``); the detail says which.

Then a speaker label opening a one-speaker reply ("Assistant:", "Model B:", "Chairman:") is set aside
(:mod:`harness.metrics.structured`).

Per type (what is extracted is described in :mod:`harness.metrics.extraction`). For every type but
``python``, an answer that is one JSON object with an answer field (``{"answer": 0.1667,
"confidence": 0.9}``), or a record of ``key: value`` lines with one (``choice: Nitrogen``; with the
question known also the field it asks for, ``protocol: HTTPS`` for "Which protocol …"), is read by
that field alone (:mod:`harness.metrics.structured`; the detail names the field):

``exact``
    The extracted short answer matches ``value`` under :func:`~harness.metrics.extraction.phrase_match`:
    equal after normalization (case, NFKC, markdown, punctuation, whitespace; the articles a/an/the
    are dropped), or — for a candidate of at most 15 words — ``value`` appears in it as a whole phrase
    and the rest of the candidate has no negation or alternative word ("not", "never", "isn't",
    "or", "either", ...). ``normalize: false`` keeps case and marks: the stripped strings are equal,
    or the value as written stands as a whole token in a short answer with no negation or
    alternative ("Sodium is Na." for ``Na``; not "NaCl", "NA" or "<class 'list'>" for ``list``); the
    short answer is narrowed the same way first.
``any_of``
    Any of ``values`` matches under the ``exact`` rule.
    For both, a possessive name standing as a predicate is read as the name ("… but general relativity
    is Einstein's." names Einstein; "Einstein's ideas" does not:
    :func:`~harness.metrics.text_cues.without_predicative_possessive`), and the short answer is
    narrowed (:mod:`harness.metrics.text_cues`): a whole answer that is a symbol and its name glossed
    in a parenthesis or after a dash ("H (hydrogen)", "Sodium (Na)", "Fe — iron":
    :func:`~harness.metrics.text_cues.glossed`) is compared by whichever of the two names the value;
    asides in parentheses dropped (one that offers an alternative, "(or oxygen)", "(maybe Lyon)",
    makes the answer ``ambiguous``); an answer read without a cue that opens with another value as
    its heading, before a dash or colon, and names the value only after it ("j — …, since i is
    reserved for current": :func:`~harness.metrics.text_cues.heading`; not a filler heading, "Short
    answer:", a speaker's label, "Model B:", nor one of the question's words) is ``ambiguous``, so is
    one whose heading names the value only to dismiss it ("Ottawa — a common mistake; Toronto",
    "Beethoven — wrongly attributed") or that names it only in a clause ranking it below another
    ("Saturn, and Jupiter a close second", "…, with Neil Armstrong second"), and
    one whose heading names the value while the rest only explains it (no turn, negation, hedge,
    framing or commitment: "Beethoven — Piano Sonata No. 14 …") is compared by its heading alone;
    cut at its last contrast word ("but", "actually", ...), comparing
    the part after it — an answer that names the value only *before* the contrast is ``ambiguous``;
    without a cue, a value named only in a second "and" clause, or in a trailing phrase that is not an
    appositive ("held in Rio de Janeiro, Brazil" is one), is ``ambiguous``; so is a value named
    only inside a clause framed as what others think or say ("It's often thought to be Canberra",
    "It's usually credited to Einstein"; not plain attribution, "It is credited to Einstein", nor a
    framing the question uses). So is one the answer commits away from: a closing "…, so
    <another name>", alternatives with a slash, or a later first-person commitment without the
    value ("Textbooks say Edison. I'd say Swan.").
    When no value matches, a candidate with a clean radix prefix is compared without it ("0xFF"
    for ``FF``; not with ``normalize: false``, where notation counts), and a lower-case value's last
    word in the other grammatical number
    (:func:`~harness.metrics.text_cues.number_variants`: "mitochondrion" for "mitochondria", "nuclei"
    for "nucleus") matches the same way — possessives ("cell's") set aside, and not as a modifier of
    another noun ("Ohms law") —, not when the question asks
    for a word's form ("plural", "singular", "spelling", "what word …", "the letters of …").
``numeric``
    The extracted number ``got`` is correct when ``|got - value| <= max(tolerance, rel_tolerance *
    |value|)``. A percentage ``p%`` is correct when either ``p`` or ``p/100`` is within tolerance, so
    "25%" answers both 25 and 0.25; a compound duration "1 hour and 45 minutes" answers 1.75 and 105;
    when the question asks its count in a scale unit ("how many million …?", "in thousands"), a
    number given in units is also read in that unit ("2 500 million", "2.5 billion" answer 2500).
    The number is read by :mod:`harness.metrics.numbers` (digits, spelled-out numbers, LaTeX through
    math-verify); when ``value`` is 0, "no brothers", "none", "nothing" read as 0. The question's
    own numbers (``givens``) are passed over by the fallback rules. A number read without a cue (not declared,
    boxed, cued or bold) that every sentence stating it holds only inside a clause framed as what
    others give ("Commonly quoted as 212 °F", "Textbooks print 206") is ``ambiguous``, and so is
    a number every mention of which is hedged ("I think it's 42.", "Answer: probably 42").
``regex``
    ``regex.search(pattern)`` over the declared answer line (``Answer: ...``,
    :mod:`harness.metrics.declared`) when there is one — an answer that declares a line that does not
    match is ``wrong`` —, else over the clause of the answer's last result label ("Consensus: PUT.",
    "Final: …", "Verdict: …"; not one reporting what others answered:
    :func:`~harness.metrics.extraction_base.label_clause`), else over the whole answer (no match:
    ``unanswered``; a match followed by a
    correcting word — "but", "however", "actually", … — after which nothing matches: ``ambiguous``,
    unless the turned clause only points back to the match as the standard or correct one and closes the
    answer: "…, but that's the standard one)." :func:`~harness.metrics.regex_context.reaffirmed`; a turn
    in a later markdown section, "### Related codes", comments on other things, but a heading
    that corrects, "## Correction", "**Update:**", is itself a turn). Only
    a match the answer states counts (:mod:`harness.metrics.regex_context`, the first
    :data:`MAX_MATCHES` matches read): when every match is rejected ("not 1969", "FF? No", "… is a
    myth") or sits in a commenting aside after another value ("1969-07-21. (… after the 1969-07-20
    touchdown …)") the answer is ``wrong``, when one is offered as an alternative ("1969 or 1970")
    ``ambiguous`` — unless the alternatives are only matches of one another, two notations that both
    satisfy the pattern ("`#FF0000` (or the shorthand `#F00`)":
    :func:`~harness.metrics.regex_context.alternative_notations`), which is stated. A pattern that finds
    nothing is tried once more with clean ``0b``/``0x`` prefixes set aside ("0b11111111" for
    ``\\b11111111\\b``: :func:`~harness.metrics.regex_context.radix_unprefixed`). ``extract: whole``
    always searches the whole answer, ``extract: auto`` the extracted short answer. The ``regex``
    package (the same syntax as ``re``) searches with a time limit of :data:`REGEX_TIMEOUT_S` seconds: a
    pattern that backtracks catastrophically on an answer is stopped and the case is ``unanswered``,
    with a detail that says so.
``choice``
    The extracted option equals ``answer`` (a letter of ``options``, or with a list of options
    without letters the option's text); an option every mention of which is hedged ("Probably
    B.", "I think it's Mercury.", "B, I think.") is ``ambiguous``.
``boolean``
    The extracted truth value (yes/true/correct or no/false/incorrect) equals ``value``.
``python``
    ``setup`` (if any), then the extracted code, then the case's ``tests`` pass in
    :func:`harness.sandbox.run_python` (isolated child; each ``assert`` compared by plain value;
    when the machine offers less than the full isolation, the detail says ``[sandbox isolation
    partial: ...]`` or ``[sandbox isolation none: ...]``);
    tests that define ``check(candidate)`` without calling it get ``check(<function>)`` appended
    (HumanEval's form). The expectation is shown as the number of ``assert`` statements.

For every type but ``python``, an answer that disclaims what it says in its own voice ("I can't
vouch for that", "I'm not sure") with nothing committing after its last disclaimer
(:mod:`harness.metrics.disclaimer`) is ``ambiguous``, whatever value was read.

Verdicts: ``correct``; ``ambiguous`` when the answer commits to two different values (the
extraction's method is ``ambiguous``; it is not correct, and it is counted apart from wrong);
``unanswered`` when nothing could be extracted; else ``wrong``.

``extract: whole`` (exact, any_of, numeric, regex) uses the whole stripped answer instead of an
extraction; for ``numeric`` it must then be exactly one number.
"""

from __future__ import annotations

import ast
import re
from itertools import islice
from typing import TYPE_CHECKING, Literal

from harness.common.model import Frozen
from harness.data.expected import (
    ExpectAnyOf,
    ExpectBoolean,
    ExpectChoice,
    Expected,
    ExpectExact,
    ExpectNumeric,
    ExpectPython,
    ExpectRegex,
)
from harness.metrics.declared import declared_line
from harness.metrics.disclaimer import disclaimed
from harness.metrics.extraction import (
    SHORT_ANSWER_WORDS,
    Extraction,
    cap_text,
    extract_answer,
    extract_boolean,
    extract_choice,
    extract_code,
    extract_number,
    find_numbers,
    normalize_answer,
    parse_number,
    phrase_match,
)
from harness.metrics.extraction_base import label_clause
from harness.metrics.number_cues import asked_scale
from harness.metrics.numerals import plain_numerals
from harness.metrics.regex_context import (
    alternative_notations,
    committed_lead,
    match_context,
    radix_unprefixed,
    reaffirmed,
)
from harness.metrics.structured import structured_answer, without_speaker
from harness.metrics.text_cues import (
    ATTRIBUTED,
    COMMITS,
    CONTRAST,
    OTHER_POSSIBILITY,
    alternative_aside,
    appositive,
    asked_words,
    attribution,
    contrast_cut,
    glossed,
    heading,
    last_conclusion,
    number_variants,
    ranked_sentence,
    second_clause,
    states_asked,
    trailing_phrase,
    without_asides,
    without_predicative_possessive,
)
from harness.metrics.thinking import visible_reply
from harness.records.scoreset import CheckResult, ScoreSet
from harness.records.transcript import Transcript
from harness.sandbox import ISOLATED, SandboxResult, run_python

if TYPE_CHECKING:
    from harness.data.cases import Case

#: Memory limit for the code of ``python`` cases, in MiB.
PYTHON_MEMORY_MB = 256

Verdict = Literal["correct", "wrong", "ambiguous", "unanswered"]


class CorrectnessResult(Frozen):
    """The outcome of one objective check.

    Args:
        correct: whether the answer is right.
        expected_display: what was expected, for people (``'Paris'``, ``0.75 (± 1e-06)``, ``B (London)``).
        extraction: what was taken from the answer, how and why.
        detail: expected vs got in words, with the reason for the verdict.
        sandbox: the sandbox run, for ``python`` cases that got as far as running code.
        verdict: ``correct``, ``wrong``, ``ambiguous`` (the answer commits to two different values)
            or ``unanswered`` (nothing extracted); ``None`` in results written before it existed.
    """

    correct: bool
    expected_display: str
    extraction: Extraction
    detail: str
    sandbox: SandboxResult | None = None
    verdict: Verdict | None = None

    @property
    def outcome(self) -> Verdict:
        """The verdict, worked out from ``correct`` and the extraction for older results."""
        return self.verdict or _verdict(self.correct, self.extraction)


def _verdict(correct: bool, extraction: Extraction) -> Verdict:
    if correct:
        return "correct"
    if extraction.method == "ambiguous":
        return "ambiguous"
    return "unanswered" if extraction.value is None else "wrong"


def _got(extraction: Extraction) -> str:
    if extraction.value is None:
        return f"nothing ({extraction.detail})"
    return f"{extraction.value!r} ({extraction.method}: {extraction.detail})"


def _whole(answer: str) -> Extraction:
    text = answer.strip()
    return Extraction(
        value=text or None,
        method="whole" if text else "none",
        detail="the whole answer (extract: whole)" if text else "the answer is empty",
        confidence=1.0 if text else 0.0,
    )


def _make(
    correct: bool, shown: str, extraction: Extraction, detail: str, sandbox: SandboxResult | None = None
) -> CorrectnessResult:
    verdict = _verdict(correct, extraction)
    if verdict == "ambiguous":
        detail = "ambiguous: " + detail
    return CorrectnessResult(
        correct=correct, expected_display=shown, extraction=extraction, detail=detail, sandbox=sandbox, verdict=verdict
    )


def _abstained(extraction: Extraction, why: str) -> Extraction:
    """``extraction`` turned into an abstention: method ``ambiguous``, confidence 0, ``why`` added to its detail."""
    return extraction.model_copy(
        update={"method": "ambiguous", "confidence": 0.0, "detail": f"{extraction.detail}; {why}"}
    )


def _check_text(
    values: list[str],
    normalize: bool,
    extraction: Extraction,
    shown: str,
    query: str | None = None,
    answer: str = "",
) -> CorrectnessResult:
    if extraction.value is None:
        return _make(False, shown, extraction, f"expected {shown}, got {_got(extraction)}")
    candidate = without_predicative_possessive(extraction.value)  # "… but general relativity is Einstein's."
    # narrowed with or without normalization: "Na (from the Latin natrium)" reads as "Na"
    candidate, abstain = _narrowed(values, candidate, extraction.method, query)
    if not abstain:
        abstain = committed_elsewhere(values, extraction.value, answer, extraction.method, query)
    if abstain:
        extraction = _abstained(extraction, abstain)
        return _make(False, shown, extraction, f"expected {shown}, got {_got(extraction)}")
    reasons = []
    for value in values:
        ok, why = phrase_match(value, candidate, normalize)
        if ok:
            return _make(True, shown, extraction, f"expected {shown}, got {_got(extraction)}: {why}")
        reasons.append(why)
    bare = _RADIX_PREFIX.sub("", candidate) if normalize else candidate
    if bare != candidate:  # "0xFF" for "FF": a clean radix prefix is notation (not with normalize: false)
        for value in values:
            ok, why = phrase_match(value, bare, normalize)
            if ok and not _RADIX_PREFIX.search(value):
                return _make(
                    True, shown, extraction, f"expected {shown}, got {_got(extraction)}: {why} (prefix set aside)"
                )
    if normalize and not _ASKS_FORM.search(query or ""):  # "The mitochondrion." for "mitochondria"
        for value in values:
            for variant in number_variants(value):
                bare = re.sub(r"[\w-]+['’]s\b", " ", candidate)  # not "cell's", "the mitochondrion's cousin"
                ok, why = phrase_match(variant, bare, normalize)
                marked = re.sub(rf"(?i)(?<!\w){re.escape(variant.split()[-1])}(?!\w)", "\x00", bare, count=1)
                if ok and _AS_NOUN_MODIFIER.search(marked):
                    ok = False  # "Ohms law": the word modifies another noun, it is not the answer
                if ok:
                    other = f"(as {variant!r}, {value!r} in the other number)"
                    detail = f"expected {shown}, got {_got(extraction)}: {why} {other}"
                    return _make(True, shown, extraction, detail)
    if normalize and _hedges(values, candidate):
        extraction = _abstained(extraction, "it names the expected answer only as one of alternatives ('or')")
    return _make(False, shown, extraction, f"expected {shown}, got {_got(extraction)}: {'; '.join(reasons)}")


#: A clean radix prefix before its digits ("0xFF", "0b1010", "0o17").
_RADIX_PREFIX = re.compile(r"(?<![\w.])0(?:[xX](?=[0-9A-Fa-f]+\b)|[bB](?=[01]+\b)|[oO](?=[0-7]+\b))")


#: A word (marked \x00) followed by another noun rather than the end, punctuation, a preposition, a
#: conjunction or a verb: a modifier ("Ohms law"), not an answer ("measured in ohms.").
_AS_NOUN_MODIFIER = re.compile(
    r"(?i)\x00\s+(?!(?:of|in|on|at|is|are|was|were|and|or|that|which|with|for|from|to|by|as|make|makes|"
    r"produce|produces|do|does)\b)[a-z]"
)


#: A question about a word's own form ("What is the plural of cactus?", "What word do you get if you
#: reverse the letters of …?"): there the number is the answer.
_ASKS_FORM = re.compile(
    r"(?i)\b(?:plural|singular|spell(?:ed|ing|s)?|grammatical|words?|letters?|anagrams?|revers\w*|backwards?|"
    r"rhymes?|suffix|prefix)\b"
)


#: After a heading: a comment that dismisses it ("Ottawa — a common mistake", "Beethoven — wrongly
#: attributed", "Paris: a trap").
_DISMISSED = re.compile(
    r"(?i)^\W*(?:(?:is|was|that'?s|that\s+is|it'?s|it\s+is)\s+)?(?:(?:a|an|the)\s+)?(?:(?:common|popular|frequent|"
    r"typical|classic|widespread|old)\s+)?(?:mistake|misconception|myth|trap|error|wrong|incorrect|misattribution|"
    r"(?:wrongly|mistakenly|falsely|erroneously)\s+\w+)\b"
)
_LINK = re.compile(r"(?i)^\s*(?:with|and|while|whereas|then)\s+")
#: After a heading: a turn, a take-back, an alternative or a negation that unsettles it.
_UNSETTLED = re.compile(
    r"(?i)\b(?:but|however|yet|actually|in\s+fact|rather|instead|though|although|or|either|not|never|wrong|"
    r"incorrect|mistake|wait|sorry|maybe|perhaps|possibly|probably|no(?!\.\s*\d))\b|n't\b"
)


def _names(values: list[str], text: str) -> bool:
    norm = f" {normalize_answer(text)} "
    return any(f" {normalize_answer(v)} " in norm for v in values if normalize_answer(v))


def _narrowed(values: list[str], candidate: str, method: str, query: str | None = None) -> tuple[str, str]:
    """The part of a short answer that is compared, and why the answer abstains ("" when it does
    not): asides dropped, the part after a contrast, a value named only in a second clause
    (:mod:`harness.metrics.text_cues`)."""
    offered = alternative_aside(candidate)
    if offered is not None:
        return candidate, f"it offers an alternative in a parenthesis {offered[:60]!r}"
    gloss = glossed(candidate)
    if gloss is not None:  # "H (hydrogen)": a symbol and its name are one answer
        named = [g for g in gloss if _names(values, g)]
        if named:
            return named[0], ""
    candidate = without_asides(candidate, values)
    if method in ("whole", "first_sentence"):
        lead = heading(candidate, query)
        if lead is not None and _names(values, lead[0]) and _DISMISSED.match(lead[1]):
            return candidate, f"its heading names the expected answer only to dismiss it ({lead[1].strip()[:40]!r})"
        ranked = next((p for p in re.split(r"[,;]", candidate)[1:] if ranked_sentence(_LINK.sub("", p))), None)
        if ranked is not None and _names(values, ranked) and not _names(values, candidate.replace(ranked, " ")):
            return candidate, f"it names the expected answer only as ranked below another ({ranked.strip()[:40]!r})"
        if lead is not None and _names(values, lead[1]) and not _names(values, lead[0]):
            return (
                candidate,
                f"it opens with another value as its heading ({lead[0].strip()!r}) and names the expected "
                "answer only after it",
            )
        if (
            lead is not None
            and _names(values, lead[0])
            and not _UNSETTLED.search(lead[1])
            and not ATTRIBUTED.search(lead[1])
            and not COMMITS.search(lead[1])
        ):
            candidate = lead[0]  # "Beethoven — Piano Sonata No. 14 …": the heading is the answer, the rest explains
    cut = contrast_cut(candidate)
    if cut is not None:
        claim, other = cut
        if _names(values, claim):
            if OTHER_POSSIBILITY.search(other) and not _names(values, other):
                return candidate, "it names the expected answer but offers another candidate as a possibility"
            return claim, _reported(values, claim, query)
        if _names(values, other):
            return candidate, "it names the expected answer only where it is contrasted, corrected or conceded"
        return candidate, ""
    if (
        method in ("whole", "first_sentence", "conclusion")
        and len(normalize_answer(candidate).split()) <= SHORT_ANSWER_WORDS
    ):
        clauses = second_clause(candidate)
        if clauses is not None and _names(values, clauses[1]) and not _names(values, clauses[0]):
            return candidate, "it names the expected answer only in a second clause joined by 'and'"
        phrase = trailing_phrase(candidate)
        if phrase is not None and _names(values, phrase[1]) and not _names(values, phrase[0]):
            restated = appositive(*phrase)
            if restated is not None and _names(values, restated):
                return restated, ""
            return candidate, "it names the expected answer only in a phrase trailing the main clause"
    return candidate, _reported(values, candidate, query)


#: A closing part that opens by naming something ("Sydney", "it's Venus", "the answer is Lyon"; not
#: a possessive modifier such as "France's largest city").
_NAMES_FIRST = re.compile(
    r"(?:(?i:it'?s|it\s+is|the\s+answer\s+is|I'?d\s+say)\s+)?(?!I\b)[A-Z][\w-]*(?!['’]s\b)(?:\s|[.,;!?]|$)"
)


#: A name or a value in a committing sentence (a capitalised word past its first, other than "I",
#: or a number): "I'd say Swan" commits to something; "I'd say it's well planned" does not.
_NAMED = re.compile(r"(?<=\s)(?!I\b)[A-Z][\w-]*|\d")
#: After a commitment whose verb takes the choice itself ("I'll go with the liver", "I pick the
#: second"; not "I'd say it's well planned"): a noun phrase, whatever its case.
_CHOSEN = re.compile(r"\s+(?:the\s+|a\s+|an\s+)?(?!it\b|that\b|this\b)[a-z][\w-]{2,}")


_HEDGE_BEFORE = re.compile(
    r"(?i)\b(?:probably|maybe|perhaps|possibly|presumably|might\s+(?:well\s+)?be|could\s+(?:well\s+)?be|may\s+be|"
    r"my\s+(?:best\s+)?guess(?:\s+(?:is|would\s+be))?|I\s+(?:think|believe|guess|suppose|reckon)"
    r"(?:\s+(?:that|it'?s|it\s+is|it\s+was|the\s+answer\s+is))?)\s*:?\s*(?:(?:it'?s|it\s+is|the)\s+)?$"
)
_HEDGE_AFTER = re.compile(
    r"(?i)^\s*[,—–-]?\s*(?:probably|maybe|perhaps|possibly|I\s+think|I\s+believe|I\s+guess|I\s+suppose)\s*[.!?]*\s*$"
)


def _hedged_value(values: list[str], text: str) -> str:
    """The hedge right before or after the expected value in a short answer ("probably Canberra",
    "It might be Canberra", "My guess would be Canberra", "I think it's Canberra", "Canberra,
    probably"), else ""."""
    for value in values:
        if not value.strip():
            continue
        for m in re.finditer(rf"(?i)(?<!\w){re.escape(value.strip())}(?!\w)", text):
            found = _HEDGE_BEFORE.search(text[max(0, m.start() - 60) : m.start()]) or _HEDGE_AFTER.match(
                text[m.end() :]
            )
            if found is not None:
                return found.group(0).strip()
    return ""


_JOIN = r"\s*(?:\([^()]{0,80}\)\s*(?:and|&|;|,)|and|&|;)\s*(?:also\s+)?"


def _joined_other(values: list[str], text: str) -> str:
    """Another capitalised name joined to the expected value by "and", "&" or ";" (or by a comma
    after a qualifying parenthesis), not a word of an expected value itself: "Canberra and Sydney", "Canberra (de jure);
    Sydney (de facto)", "Canberra (officially), Sydney (in practice)"; "" when there is none."""
    for value in values:
        if not value.strip():
            continue
        for m in re.finditer(rf"(?i)(?<!\w){re.escape(value.strip())}(?!\w)", text):
            after = re.match(_JOIN + r"(?P<name>[A-Z][\w-]+)", text[m.end() :])
            before = re.search(r"(?P<name>[A-Z][\w-]+)" + _JOIN + r"(?:both\s+)?$", text[: m.start()])
            for found in (after, before):
                name = found["name"] if found else ""
                if (
                    found
                    and name not in ("I", "The", "A", "An")
                    and not any(name.lower() in v.lower().split() for v in values)
                ):
                    return found.group(0).strip()
    return ""


def committed_elsewhere(values: list[str], candidate: str, answer: str, method: str, query: str | None = None) -> str:
    """Why a short answer that names the value is not the answer's commitment ("" when it is):
    it hedges the value (:func:`_hedged_value`: "probably Canberra", "It might be Canberra"); its
    closing conclusion turns to another name ("Canberra is the official answer, though …, so
    Sydney"); it offers alternatives with a slash ("Nitrogen / oxygen"); a declared, cued, boxed or
    bold answer (or a whole answer of at most six words) joins another capitalised name to it
    ("Canberra and Sydney", "Canberra (de jure); Sydney (de facto)") or gives it as a question
    ("Answer: Canberra?"); or, for an answer read without a cue, a later sentence commits in the
    first person to another name or value without naming the value ("Textbooks say X. I'd say
    Hilbert.", "…; in practice Sydney, which is my answer", and — a verb that takes the choice itself
    — "I'll go with the liver": :data:`~harness.metrics.text_cues.COMMITS`), or gives another name as
    what is asked ("It's Lyon.", "Lyon is the capital." for "What is the capital of France?"; also a
    clause of the answer itself: "Paris — what I thought at first, it's Lyon"; not a statement about
    another time: "Kyoto was the capital before 1869", a past tense the question does not use, nor one
    about a subject the question does not name: "Toronto is the capital of Ontario")."""
    if not _names(values, candidate):
        return ""
    turn = last_conclusion(candidate)
    if turn is not None and not _names(values, turn) and _NAMES_FIRST.match(turn):
        return f"its closing conclusion {turn.strip()[:60]!r} names something else"
    if not any("/" in v for v in values) and re.search(r"\b[A-Za-z]{3,}\s*/\s*[A-Za-z]{3,}\b", candidate):
        return "it offers alternatives with a slash"
    hedge = _hedged_value(values, candidate)
    if hedge:
        return f"it hedges the value ({hedge!r})"
    line = declared_line(cap_text(answer)[0]) if method == "declared" else None
    own = line.value if line is not None else candidate
    if method in ("declared", "answer_cue", "boxed", "bold") or (method == "whole" and len(candidate.split()) <= 6):
        for text in (candidate, own):
            other = _joined_other(values, text)
            if other:
                return f"it gives another answer beside it ({other!r})"
        if own.rstrip(" *_.").endswith("?") and "?" not in own.rstrip(" *_.")[:-1]:
            return "it offers the answer as a question"
    if method not in ("whole", "first_sentence", "conclusion"):
        return ""
    for clause in re.split(r"[,;—–]|\s-\s", candidate)[1:]:  # "Paris — what I thought at first, it's Lyon"
        if _IT_IS.match(clause.strip()) and not _names(values, clause):
            return f"a clause after it gives another value: {clause.strip()[:60]!r}"
    at = answer.find(candidate[: max(1, min(len(candidate), 40))])
    rest = answer[at + len(candidate) :] if at >= 0 else ""
    for sentence in re.split(r"[.!?;\n]+", rest):
        committed = COMMITS.search(sentence)
        named = _NAMED.search(sentence.strip()) or (
            committed
            and committed.group(0).lower().endswith(("with", "pick", "picks", "choose", "chooses", "name", "on"))
            and _CHOSEN.match(sentence, committed.end())
        )
        if committed and named and not _names(values, sentence):
            return f"a later sentence commits to something else: {sentence.strip()[:60]!r}"
        if _states_another(sentence.strip(), values, query):
            return f"a later sentence gives another value as what is asked: {sentence.strip()[:60]!r}"
    return ""


_NAME = r"(?P<x>(?!(?:It|The|This|That|They|He|She|We|I|A|An)\b)[A-Z][\w-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w-]*){0,2})"
_IT_IS = re.compile(
    r"^(?i:(?:so|thus|then|today|now|really|actually)\s+)?(?i:it'?s|it\s+is|the\s+answer\s+is|answer\s+is)\s+"
    + _NAME
    + r"[\s.!*_]*$"
)
_IS_THE = re.compile(r"^" + _NAME + r"\s+(?:is|was)\s+(?:the|its)\s+(?:[\w-]+\s+){0,2}?(?P<w>[a-z][\w-]*)\b")
_THE_IS = re.compile(r"(?i:^(?:the|its)\s+[^,;:]{1,60}?\s+(?:is|was))\s+" + _NAME)


#: A time qualifier that places a statement in another period ("before 1869", "until 1927", "formerly").
_THEN = re.compile(
    r"(?i)\b(?:before|until|till|formerly|once|used\s+to|previously|originally|historically|earlier|"
    r"(?:in|from|since)\s+(?:the\s+)?\d{3,4}s?)\b"
)
_PAST = re.compile(r"(?i)\b(?:was|were|did)\b")


def _states_another(sentence: str, values: list[str], query: str | None) -> bool:
    """A later sentence that gives another name as the answer: "It's Lyon." / "The answer is Lyon.",
    or, with the question known, states the question's predicate of another name ("Lyon is the
    capital.", "The capital is Lyon." for "What is the capital of France?"), with no negation."""
    if not sentence or _names(values, sentence) or re.search(r"(?i)\b(?:not|never|no)\b|n't\b", sentence):
        return False
    sentence = re.sub(r"^[\w ]{1,20}:\s+(?=[A-Z])", "", sentence)  # "chair: Lyon is the capital"
    past = _PAST.search(query or "") is not None
    if _THEN.search(sentence) or (re.search(r"\b(?:was|were)\b", sentence) and not past):
        return False  # "Kyoto was the capital before 1869": another time, not the answer
    if past and re.search(r"(?i)\b(?:today|now|currently|nowadays|these\s+days)\b", sentence):
        return False  # "Berlin is the capital today" for "What was the capital of West Germany?"
    if _IT_IS.match(sentence):
        return True
    asked = asked_words(query)
    m = _IS_THE.match(sentence) or _THE_IS.match(sentence)
    if m is None:
        return False
    others = set(re.findall(r"\b[A-Z][\w-]+", sentence[: m.start("x")] + " " + sentence[m.end("x") :]))
    if others - {"The", "Its", "It"} - set(re.findall(r"\b[A-Z][\w-]+", query or "")):
        return False  # "Toronto is the capital of Ontario": a subject the question does not ask about
    if m.re is _IS_THE:
        return m["w"] in asked
    return states_asked(sentence, query, strict=True)


def _reported(values: list[str], candidate: str, query: str | None) -> str:
    """Why a short answer that names the expected value only as what others think or say
    (:func:`~harness.metrics.text_cues.attribution`) does not commit ("" when it does)."""
    framed = attribution(candidate, query) if len(normalize_answer(candidate).split()) <= SHORT_ANSWER_WORDS else None
    if framed is not None and _names(values, framed[1]) and not _names(values, framed[0]):
        return "it names the expected answer only as what others think or say"
    return ""


def _hedges(values: list[str], candidate: str) -> bool:
    """The short answer offers the expected answer as one of alternatives ("Paris or Lyon")."""
    words = normalize_answer(candidate).split()
    if len(words) > SHORT_ANSWER_WORDS or not ({"or", "either"} & set(words)):
        return False
    text = " " + " ".join(words) + " "
    return any(f" {normalize_answer(v)} " in text for v in values if normalize_answer(v))


def _numeric_display(exp: ExpectNumeric) -> str:
    tol = f"± {exp.tolerance:g}"
    if exp.rel_tolerance:
        tol += f" or ± {exp.rel_tolerance:g} × |value|"
    return f"{exp.value:g} ({tol})"


def _reported_number(answer: str, extraction: Extraction, query: str | None) -> str:
    """Why a number read without a cue is only what others give ("" when it is not): every sentence
    that states it holds it only inside a framed clause ("Commonly quoted as 212 °F", "Textbooks
    print 212 °F": :func:`~harness.metrics.text_cues.attribution`)."""
    if extraction.value is None or extraction.method in ("declared", "boxed", "answer_cue", "bold", "whole"):
        return ""
    value = extraction.value
    stating = [s for s in re.split(r"(?<=[.!?;])\s+|\n+", cap_text(answer)[0]) if value in s]
    if not stating:
        return ""
    for sentence in stating:
        framed = attribution(sentence, query)
        if framed is None or value in framed[0] or value not in framed[1]:
            return ""
    return f"the answer gives {value!r} only as what others give or say"


def givens(query: str | None) -> list[float]:
    """The numbers a question states (digits and spelled-out), which fallback extraction passes over."""
    if not query:
        return []
    return [n.value for _, n in find_numbers(plain_numerals(cap_text(query)[0]), words=True)]


def _check_numeric(exp: ExpectNumeric, answer: str, query: str | None = None) -> CorrectnessResult:
    shown = _numeric_display(exp)
    zeros = exp.value == 0
    if exp.extract == "whole":
        num = parse_number(answer, zeros=zeros)
        extraction = Extraction(
            value=num.text if num else None,
            method="whole" if num else "none",
            detail="the whole answer is one number (extract: whole)"
            if num
            else "the whole answer is not exactly one number (extract: whole)",
            confidence=1.0 if num else 0.0,
        )
    else:
        extraction = extract_number(answer, zeros=zeros, givens=givens(query), query=query)
        num = parse_number(extraction.value, zeros=zeros) if extraction.value is not None else None
    if num is None:
        return _make(False, shown, extraction, f"expected {shown}, got {_got(extraction)}")
    framing = _reported_number(answer, extraction, query) or _hedged_mentions(answer, extraction.value or "")
    if framing:
        extraction = _abstained(extraction, framing)
        return _make(False, shown, extraction, f"expected {shown}, got {_got(extraction)}")
    bound = max(exp.tolerance, exp.rel_tolerance * abs(exp.value))
    readings = [(num.value, f"{num.value:g}")]
    if num.percent:
        readings.append((num.value / 100, f"{num.value / 100:g} (the percentage as a fraction)"))
    readings += [(v, f"{v:g} (the same {num.kind} in the smaller unit)") for v in num.also]
    scale = asked_scale(query)
    if scale is not None and abs(num.value) >= scale[1]:
        readings.append((num.value / scale[1], f"{num.value / scale[1]:g} (in the {scale[0]}s the question asks for)"))
    for value, label in readings:
        diff = abs(value - exp.value)
        if diff <= bound:
            return _make(
                True,
                shown,
                extraction,
                f"expected {shown}, got {label} from {_got(extraction)}; |difference| {diff:.3g} <= {bound:g}",
            )
    diffs = ", ".join(f"{label} differs by {abs(value - exp.value):.6g}" for value, label in readings)
    return _make(False, shown, extraction, f"expected {shown}, got {_got(extraction)}; {diffs} > {bound:g}")


#: Seconds one dataset pattern may search one answer (the ``regex`` package's ``timeout=``).
REGEX_TIMEOUT_S = 1.0
#: The most matches of one pattern whose context is read.
MAX_MATCHES = 50


#: A markdown section heading ("### Related codes", "**Notes**"): a turn in a later section comments
#: on other things, it does not turn away from the match.
#: A section heading that corrects what came before ("## Correction", "**Update:**", "### Erratum").
_CORRECTING = re.compile(r"(?i)correct|update|edit|errat|revis|amend|fix|actually|wait")
_NEXT_SECTION = re.compile(r"(?m)^[ \t]*(?:#{1,6}[ \t]+\S[^\n]*|\*\*[^*\n]{1,60}\*\*[ \t]*:?[ \t]*$)")


def _check_regex(exp: ExpectRegex, answer: str, query: str | None = None) -> CorrectnessResult:
    import regex

    flags = regex.IGNORECASE if exp.ignore_case else 0
    shown = f"/{exp.pattern}/" + ("i" if exp.ignore_case else "")
    line = declared_line(cap_text(answer)[0]) if exp.extract is None else None
    labelled = label_clause(cap_text(answer)[0]) if exp.extract is None and line is None else None
    if line is not None and line.value:
        target, where = line.value, f"the declared answer line {line.value[:80]!r}"
    elif labelled is not None:  # "… Consensus: PUT.": the label's clause, not a value the rounds passed through
        target, where = labelled, f"the clause of the answer's last result label {labelled[:80]!r}"
    elif exp.extract == "auto":
        short = extract_answer(answer)
        target, where = short.value or "", f"the extracted answer ({short.method}: {short.detail})"
    else:
        target, where = answer, "the whole answer"
    declared = line is not None and bool(line.value)
    try:
        found = list(islice(regex.finditer(exp.pattern, target, flags, timeout=REGEX_TIMEOUT_S), MAX_MATCHES))
    except TimeoutError:
        extraction = Extraction(
            value=None,
            method="none",
            confidence=0.0,
            detail=(
                f"the pattern took more than {REGEX_TIMEOUT_S:g} s on {where} and was stopped "
                "(catastrophic backtracking?); rewrite the pattern"
            ),
        )
        return _make(False, shown, extraction, f"expected a match of {shown}; {extraction.detail}")
    bare = radix_unprefixed(target) if not found else target
    if bare != target:  # "0b11111111" for a pattern written as \b11111111\b
        try:
            found = list(islice(regex.finditer(exp.pattern, bare, flags, timeout=REGEX_TIMEOUT_S), MAX_MATCHES))
        except TimeoutError:
            found = []
        if found:
            answer = bare if target is answer else answer
            target, where = bare, f"{where} (a 0b/0x prefix set aside)"
    contexts = [(f, match_context(target, f.start(), f.end(), query)) for f in found]
    stated = [f for f, how in contexts if how == "stated"]
    if (
        not stated
        and all(how in ("hedged", "aside") for _, how in contexts)
        and any(how == "hedged" for _, how in contexts)
        and alternative_notations(target, [(f.start(), f.end()) for f in found])
    ):
        stated = [found[0]]  # "#FF0000 (or the shorthand #F00)": both alternatives satisfy the pattern
    m = stated[0] if stated else None
    if found and m is None:
        hedged = any(how in ("hedged", "conceded", "reported") for _, how in contexts)
        extraction = Extraction(
            value=None if hedged else found[0].group(0),
            method="ambiguous" if hedged else ("declared" if declared else "regex_search"),
            confidence=0.0 if hedged else 1.0,
            declared=declared and not hedged,
            detail=(
                f"matched {found[0].group(0)!r} in {where}, but only "
                + (
                    "as one of alternatives, in a concession or as what others say"
                    if hedged
                    else "where the answer rejects it, comments on it in an aside or states a longer or signed number"
                )
            ),
        )
        return _make(False, shown, extraction, f"expected a match of {shown}; {extraction.detail}")
    if m and not declared and target is answer:
        lead = committed_lead(answer, lambda piece: _first_match(exp.pattern, piece, flags), query)
        if lead is not None:
            extraction = Extraction(
                value=lead,
                method="leading",
                confidence=0.5,
                detail=f"matched {m.group(0)!r} in the whole answer, but it opens and closes on its own {lead!r}",
            )
            return _make(False, shown, extraction, f"expected a match of {shown}; {extraction.detail}")
        headings = list(_NEXT_SECTION.finditer(answer, m.end()))
        section = next((h for h in headings if not _CORRECTING.search(h.group(0))), None)
        turns = [
            c
            for c in CONTRAST.finditer(answer, m.end(), section.start() if section else len(answer))
            if not c["concede"] and not reaffirmed(answer, c.end())
        ]
        later = sorted(turns + [h for h in headings if _CORRECTING.search(h.group(0))], key=lambda t: t.start())
        if later:
            try:
                again = regex.search(exp.pattern, answer[later[-1].end() :], flags, timeout=REGEX_TIMEOUT_S)
            except TimeoutError:
                again = None
            if again is None:
                extraction = Extraction(
                    value=None,
                    method="ambiguous",
                    confidence=0.0,
                    detail=(
                        f"matched {m.group(0)!r} in the whole answer, but the answer turns away from it after "
                        f"{later[-1].group(0).strip()!r} and no match follows"
                    ),
                )
                return _make(False, shown, extraction, f"expected a match of {shown}; {extraction.detail}")
    if m:
        extraction = Extraction(
            value=m.group(0),
            method="declared" if declared else "regex_search",
            confidence=1.0,
            declared=declared,
            detail=f"matched {m.group(0)!r} at {m.start()}-{m.end()} in {where}",
        )
        return _make(True, shown, extraction, f"expected a match of {shown}, found {m.group(0)!r} in {where}")
    if declared:  # the subject declared an answer and it does not match: wrong, not unanswered
        extraction = Extraction(
            value=target, method="declared", detail=f"no match in {where}", confidence=1.0, declared=True
        )
    else:
        extraction = Extraction(value=None, method="regex_search", detail=f"no match in {where}", confidence=0.0)
    return _make(False, shown, extraction, f"expected a match of {shown}, none in {where}")


def _first_match(pattern: str, text: str, flags: int) -> int | None:
    """Where ``pattern`` first matches in ``text``, else ``None`` (a pattern that times out counts as no match)."""
    import regex

    try:
        found = regex.search(pattern, text, flags, timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        return None
    return found.start() if found is not None else None


def count_asserts(tests: str) -> tuple[int, str]:
    """How many checks ``tests`` hold: ``assert`` statements (``(n, "assert")``), or the non-comment
    lines when the tests do not parse or hold no assert (``(n, "test line")``)."""
    try:
        n = sum(isinstance(node, ast.Assert) for node in ast.walk(ast.parse(tests)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        n = 0
    if n:
        return n, "assert"
    return sum(1 for ln in tests.splitlines() if ln.strip() and not ln.strip().startswith("#")), "test line"


def python_tests(exp: ExpectPython) -> str:
    """The tests to run: ``tests``, plus ``check(<function>)`` when they define ``check`` but never call it."""
    name = exp.name
    if not name:
        return exp.tests
    try:
        tree = ast.parse(exp.tests)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return exp.tests
    defines = any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in tree.body)
    calls = any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "check" for n in ast.walk(tree)
    )
    return exp.tests + f"\n\ncheck({name})\n" if defines and not calls else exp.tests


def _check_python(exp: ExpectPython, answer: str) -> CorrectnessResult:
    n, what = count_asserts(exp.tests)
    target = f"code defining {exp.name}()" if exp.name else "code"
    shown = f"{target} that passes {n} {what}{'s' * (n != 1)}"
    extraction = extract_code(answer, exp.name)
    if extraction.value is None:
        return _make(False, shown, extraction, f"expected {shown}, got no code: {extraction.detail}")
    code = extraction.value if not exp.setup else exp.setup.rstrip() + "\n\n\n" + extraction.value
    result = run_python(code, python_tests(exp), timeout_s=exp.timeout_s, memory_mb=PYTHON_MEMORY_MB)
    how = f"{extraction.method}: {extraction.detail}" + ("; after the case's setup code" if exp.setup else "")
    verdict = "the tests passed" if result.passed else f"the tests did not pass: {result.summary()}"
    if result.isolation != ISOLATED:  # say so: the code ran without the private root or namespaces (harness.sandbox)
        verdict += f" [sandbox isolation {result.isolation}]"
    return _make(
        result.passed, shown, extraction, f"expected {shown}; ran the extracted code ({how}): {verdict}", sandbox=result
    )


def _check_choice(exp: ExpectChoice, answer: str, query: str | None = None) -> CorrectnessResult:
    options = exp.option_map
    shown = f"{exp.answer} ({options[exp.answer]})" if exp.letters else repr(exp.answer)
    extraction = extract_choice(answer, options, letters=exp.letters, query=query)
    got = extraction.value
    if got is None:
        return _make(False, shown, extraction, f"expected {shown}, got {_got(extraction)}")
    got_shown = f"{got} ({options[got]})" if exp.letters else repr(got)
    hedge = _hedged_option(answer, got, options[got], exp.letters)
    if hedge:
        extraction = _abstained(extraction, f"it hedges it ({hedge!r})")
        return _make(False, shown, extraction, f"expected {shown}, got {_got(extraction)}")
    return _make(
        got == exp.answer,
        shown,
        extraction,
        f"expected {shown}, got {got_shown} ({extraction.method}: {extraction.detail})",
    )


def _hedged_option(answer: str, key: str, text: str, letters: bool) -> str:
    """The hedge on the chosen option when every mention of it is hedged ("Probably B.", "I think
    it's Mercury.", "B, I think."), else ""."""
    patterns = [rf"(?i)(?<!\w){re.escape(text.strip())}(?!\w)"] if text.strip() else []
    if letters:
        patterns.append(rf"(?<![\w'’])\(?{re.escape(key)}\)?(?![\w'’])")
    return _hedged_everywhere(cap_text(answer)[0], patterns)


def _hedged_mentions(answer: str, value: str) -> str:
    """For a number read from the answer: why it is not a commitment when every mention of it is
    hedged ("I think it's 42.", "Probably 42.", "42, I think."), else ""."""
    if not value.strip():
        return ""
    hedge = _hedged_everywhere(cap_text(answer)[0], [rf"(?<![\w.,]){re.escape(value.strip())}(?![\w]|[.,]\d)"])
    return f"the answer hedges it ({hedge!r})" if hedge else ""


def _hedged_everywhere(answer: str, patterns: list[str]) -> str:
    """The first hedge (:data:`_HEDGE_BEFORE`, :data:`_HEDGE_AFTER`) when every match of ``patterns``
    in ``answer`` is hedged, else ""."""
    hedges = []
    for pattern in patterns:
        for m in re.finditer(pattern, answer):
            end = re.search(r"[.!?\n]", answer[m.end() :])
            found = _HEDGE_BEFORE.search(answer[max(0, m.start() - 60) : m.start()]) or _HEDGE_AFTER.match(
                answer[m.end() : m.end() + (end.end() if end else 80)]
            )
            if found is None:
                return ""
            hedges.append(found.group(0).strip())
    return hedges[0] if hedges else ""


def _check_boolean(exp: ExpectBoolean, answer: str, query: str | None = None) -> CorrectnessResult:
    shown = str(exp.value).lower()
    extraction = extract_boolean(answer, query)
    if extraction.value is None:
        return _make(False, shown, extraction, f"expected {shown}, got {_got(extraction)}")
    return _make(
        extraction.value == shown,
        shown,
        extraction,
        f"expected {shown}, got {extraction.value} ({extraction.method}: {extraction.detail})",
    )


def check_expected(expected: Expected, answer: str, query: str | None = None) -> CorrectnessResult:
    """Check ``answer`` against one ``expected:`` block (see the module docstring for the rules).

    Args:
        expected: the case's ``expected`` block.
        answer: the final answer text to check (untrusted; code in it runs only in the sandbox).
        query: the question, when known: its numbers are passed over by the numeric fallback rules.
    """
    reply, thinking = visible_reply(answer)
    reply, speaker = without_speaker(reply)
    result = _check_reply(expected, reply, query)
    notes = "; ".join(n for n in (thinking, speaker) if n)
    if not notes:
        return result
    extraction = result.extraction.model_copy(update={"detail": f"{result.extraction.detail}; {notes}"})
    return result.model_copy(update={"extraction": extraction, "detail": f"{result.detail} ({notes})"})


def _check_reply(expected: Expected, answer: str, query: str | None) -> CorrectnessResult:
    """:func:`check_expected` on the part of the answer that is read."""
    if isinstance(expected, ExpectPython):
        return _check_python(expected, answer)
    structured = structured_answer(answer, query)
    if structured is not None:
        result = _check_read(expected, structured[0], query)
        note = f"read from the structured answer's {structured[1]!r} field"
        extraction = result.extraction.model_copy(update={"detail": f"{result.extraction.detail}; {note}"})
        return result.model_copy(update={"extraction": extraction, "detail": f"{result.detail} ({note})"})
    result = _check_read(expected, answer, query)
    why = disclaimed(cap_text(answer)[0]) if result.outcome in ("correct", "wrong") else None
    if why is None:
        return result
    extraction = _abstained(result.extraction, f"the answer disclaims it ({why!r}) and does not commit after that")
    return _make(
        False, result.expected_display, extraction, f"expected {result.expected_display}, got {_got(extraction)}"
    )


def _check_read(expected: Expected, answer: str, query: str | None) -> CorrectnessResult:
    """:func:`check_expected` for the types whose value is read from the answer (all but ``python``)."""
    if isinstance(expected, ExpectExact):
        extraction = _whole(answer) if expected.extract == "whole" else extract_answer(answer, query)
        return _check_text([expected.value], expected.normalize, extraction, repr(expected.value), query, answer)
    if isinstance(expected, ExpectAnyOf):
        extraction = _whole(answer) if expected.extract == "whole" else extract_answer(answer, query)
        shown = "any of " + ", ".join(repr(v) for v in expected.values)
        return _check_text(expected.values, True, extraction, shown, query, answer)
    if isinstance(expected, ExpectNumeric):
        return _check_numeric(expected, answer, query)
    if isinstance(expected, ExpectRegex):
        return _check_regex(expected, answer, query)
    if isinstance(expected, ExpectBoolean):
        return _check_boolean(expected, answer, query)
    assert not isinstance(expected, ExpectPython)
    return _check_choice(expected, answer, query)


def check_case(case: Case, answer: str) -> CorrectnessResult | None:
    """Check ``answer`` against ``case.expected`` with the case's question: the one way an answer is
    read, for a member's stage-1 answer, the chairman's synthesis, a baseline's or an arm's answer
    alike (``None`` without an ``expected:`` block)."""
    if case.expected is None:
        return None
    return check_expected(case.expected, answer, case.query)


def correctness_scores(case: Case, transcript: Transcript) -> tuple[CorrectnessResult | None, ScoreSet]:
    """Score ``transcript.final_answer`` against ``case.expected``.

    Args:
        case: the case; without an ``expected`` block nothing is scored.
        transcript: what the subject produced; its ``final_answer`` is checked.

    Returns:
        The detailed result (``None`` without an ``expected`` block) and a :class:`ScoreSet` with the
        score ``correct`` (1.0 or 0.0) and one ``correctness`` check whose detail says expected vs got
        (an ambiguous answer's detail starts with "ambiguous:").
    """
    result = check_case(case, transcript.final_answer)
    if result is None:
        return None, ScoreSet()
    return result, correctness_score_set(case, result)


def correctness_score_set(case: Case, result: CorrectnessResult) -> ScoreSet:
    """The score ``correct`` (1.0 or 0.0) and the ``correctness`` check of one result."""
    kind = case.expected.type if case.expected is not None else "expected"
    check = CheckResult(
        kind="correctness", target=f"{kind}: {result.expected_display}", passed=result.correct, detail=result.detail
    )
    return ScoreSet(scores={"correct": 1.0 if result.correct else 0.0}, checks=(check,))
