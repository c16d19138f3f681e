"""Answer extraction: find the part of a free-text answer that an objective check compares, and say why.

Every extractor returns an :class:`Extraction` naming the value it found, the rule that found it
(``method``), a ``confidence`` for that rule (:data:`CONFIDENCE`) and a readable ``detail``, so a
failed check shows *what* was compared. An answer that commits to two different values gets the
method ``ambiguous`` (value ``None``): the check counts it apart from a wrong answer.

Answers longer than :data:`MAX_ANSWER_CHARS` are cut to their first :data:`HEAD_CHARS` and last
``MAX_ANSWER_CHARS - HEAD_CHARS`` characters before any rule runs (``capped`` is then true and the
detail says so); every rule is linear in the length of what it reads, and a clause is at most
:data:`CLAUSE_CHARS` long, so a hostile 1 MB answer costs no more than a 32 KB one.

Shared definitions
    *Answer cue*: "answer is / was / would be / will be", "answer:" or "answer =" (optionally
    "final", "correct", "right", "short" answer), a line that is only "Answer" / "Final answer", or
    GSM8K's last line ``#### 42``. Its *clause* is the rest of that sentence, or the next non-empty
    line when it is empty; cues
    whose clause starts with "not" are skipped. *Negated parts* of a clause are dropped before it
    is read: a parenthesis starting with "not", and ", not …" / "rather than …" / "instead of …" up
    to the next punctuation, so "12/25/2006 (not 12/24/2006)" reads as "12/25/2006".
    *Conclusion cue*: therefore, thus, hence, so, consequently, in total, altogether, overall, in
    conclusion, which gives, giving, "total/sum/result is".

Rules, in order of precedence (the first rule that yields something wins). Rule 0 of every type is
``declared``: the value of the declared answer line ``Answer: ...`` that the answer-format protocol
asks every subject for (:mod:`harness.metrics.declared`; the last line-initial "Answer:" / "Final
answer:"), read with the same clause reader as an answer cue (for a choice, a line that is exactly
one option's text first). The later rules run only when there is no declared line or it holds
nothing of the expected kind; ``Extraction.declared`` says which.

Numbers (:func:`extract_number`; the readers are in :mod:`harness.metrics.numbers`: digits,
spelled-out numbers through ``text2num``, LaTeX through ``math-verify``, and — only when the
expected value is 0 — zero words such as "no brothers" and "none")
    1. ``boxed`` — the last ``\\boxed{...}`` (read whole as one number or expression, else as a
       clause). If an answer cue after it gives a different number: ``ambiguous``.
    2. ``answer_cue`` — the last cue whose clause holds a number.
    A declared or cued number that the text after it takes back (a word such as "wait", "mistake",
    "recount", "let me redo" — :data:`harness.metrics.number_cues.TAKE_BACK` — followed by a
    different number) is ``ambiguous``.
    3. ``bold`` — the last ``**...**`` span that is just a number (plus up to two words of unit).
    4. in the last sentence that holds a number: ``equals`` — the number after its last ``=`` or
       ``≈`` (the exact value before a last ``≈`` that only rounds it: "1/3 ≈ 0.333", "2√2 ≈
       2.83"), unless a conclusion cue or a result phrase ("for a total of", "making", "which
       brings the total to": :data:`harness.metrics.number_cues.RESULT_CUE`) follows it; else
       ``conclusion_cue`` — read the clause after its last conclusion cue or result phrase.
    5. ``leading`` — the answer states one number in a short first sentence (at most
       :data:`LEADING_WORDS` words) and the rest explains it: the last sentence has no ``=`` or
       conclusion cue, no correction word ("actually", "wait", "instead", "recount", ...) follows,
       and, when the question is known, that number is not one the question gave; or the first
       sentence opens with a clause on the question's subject that holds one number (not a
       comparison, not a given) and goes on, after a dash or a colon, with the working ("Tom has a
       dozen apples — Jerry has 4 and …": :func:`harness.metrics.number_cues.head_clause`).
    6. ``last_number`` — the last number of the last sentence that holds one; when the question is
       known, numbers the question gave are passed over (``last_new_number``) if the answer has any
       other — except when the last sentence is short, states a single value and does not restate
       the question ("given", "we know", "starts with", "each", "per", a question mark): then its
       number is the answer even if the question gave it.
    Before any rule, notations are rewritten to digits (:mod:`harness.metrics.numerals`: "3½",
    "3 1/4", "10⁹", "2.500.000", "half a dozen", "π/4", ``\\frac{\\sqrt{3}}{2}``; "70.000" as 70000
    only when the answer shows the dot-for-thousands convention). The ``equals`` rule and a clause whose ``=`` is
    followed by an expression in a variable ("= 3(2x+1) + 0") give no number (``none``).
    Reading a clause (and the fallback rules' sentences): a reason clause after the result is cut
    off ("3/2 since 4^(3/2) = 8", "5, because 12 − 7 = 5":
    :func:`harness.metrics.number_cues.without_reason`); two different numbers joined by "or" ("8 or
    maybe 9") are ``ambiguous``;
    else the number after the last ``=``/``≈`` that states a result (not a condition such as "for
    n = 10", "at x = 3": :data:`harness.metrics.number_cues.CONDITION_EQ`), else the number right
    after the last ": ", else the first number after a range ("from
    −14 to 4", "between 3 and 5"), else — when the clause holds several numbers and a verb such as
    "is", "are", "equals", "gives", "sums to" comes after the first — the first number after the
    last such verb ("the first 12 odd numbers sum to 144"; not an appositive "which is"), else the
    first number. Numbers that compare ("2 times as many", "25% more than"), name a unit ("in one
    day") or sit in a circumstantial phrase ("from 4 boxes", "in 2 hours", "out of 12") are passed over
    in a clause and by the fallback rules when other numbers remain. Numbers inside a
    trailing parenthesis, "not 5", list markers ("1. ", "2) " at the start of a line), and
    sentences that start with "Check:"/"Verify"/"Note" are passed over by the fallback rules when
    other numbers remain.

Choices (:func:`extract_choice`; ``letters=False`` for options given as a list of texts)
    1. ``boxed``; 2. ``answer_cue`` — in the clause (negated parts dropped): a leading letter, else
    the options it mentions (exactly one, else ``ambiguous``); 3. ``bare_letter`` — the whole
    answer is one letter, or ``whole`` — the whole answer is one option's text; 4. ``bold`` — the
    last bold span that names exactly one option; 5. mentions by sentence: an option is mentioned
    by a marker ("Option B", "(B)", "B)", a capital letter standing alone) or by its text as whole
    words; sub-clauses holding a negation ("not", "n't", "never", "wrong", "incorrect", "unlike",
    "eliminate", "rule out", "rather than", ...) are ignored. The last sentence that mentions an
    option decides (``conclusion`` with a conclusion cue, else ``last_mention``) when it mentions
    exactly one; when it names several, the part after its last turn ("but", "however", "so",
    "which leaves", "only") decides if it names exactly one (``conclusion``); else the first
    sentence when it mentions exactly one and holds no negation (``leading``); a first and a last
    sentence naming different options without a conclusion cue, or a final sentence naming
    several, are ``ambiguous``; so is a last naming sentence, or a cued clause, that offers two
    options as alternatives ("A or D", "12/24/2006 or 12/25/2006"). Option texts of one
    character, or equal to a letter key, are matched only as letters.
    A lower-case letter counts only in parentheses, before ")" or alone, so "the answer is a city"
    is not option "a".
    Before rule 5 (:mod:`harness.metrics.choice_cues`): 4a. options that are a truth-value pair
    (True/False, Yes/No, plausible/implausible) are read as a yes/no answer (the boolean rules, or
    for a pair such as plausible/implausible "not plausible" as the negative one); 4b. ``leading``
    — the answer opens with an option's marker ("(c) Not enough information — …"), no other
    option's marker and no hedge on that line; 4c. ``leading`` — the first sentence points at an
    option by position ("The first one."). Rule 5 finds option texts as written (punctuation
    between words, a plural or singular last word) and shields texts and markers before splitting
    a sentence, so a negation inside an option's own text does not negate it. In a clause (rules
    0-4) a short phrase that only one option's distinctive words contain ("Answer: white") names
    it. An answer that walks through the options line by line ("A) …", "B) …") and has no
    conclusion cue in its last naming sentence, or stops mid-sentence, gives nothing (``none``).

Booleans (:func:`extract_boolean`; values ``true`` / ``false``)
    Polarity words: yes, true, correct, valid → true; no, false, incorrect, wrong, invalid → false;
    "not"/"n't" before one flips it ("not true" → false). 1. ``boxed``; 2. ``answer_cue`` (rule 0
    and 2 are ``ambiguous`` when a later answer cue, or a sentence after a take-back word such as
    "I should correct myself", gives the other value). Then, before rule 3: an answer that
    concludes both ways ("…, so yes; but …, so no") or ends by leaving it open ("It depends on the
    reader.") while using a yes/no word is ``ambiguous``;
    3. ``leading`` — the answer's first word ("True — you turn around…", "No, …"; not "No doubt"),
    or "Absolutely not" / "Not at all" (false) and "Absolutely." / "Of course," / "Indeed" (true);
    4. ``conclusion`` — the last sentence saying "is/are … true/false/correct/…", a conclusion cue
    followed by a polarity word, or only a yes/no word ("… where you started. Yes."); 5. ``bold``;
    5a. ``conclusion`` — a yes/no given as what is said ("a typical person would answer No") with no
    turn after it (:func:`harness.metrics.boolean_cues.said_verdict`). A clause with both
    polarities, or a leading word and a conclusion that disagree, is ``ambiguous``. Without any polarity word
    (:mod:`harness.metrics.boolean_cues`): 6. ``leading`` — an answer opening with "Not …" (false)
    or a short pronoun-and-auxiliary sentence ("It will." true, "It doesn't." false); 7.
    ``conclusion`` — "the statement holds / does not hold / is accurate", "that is a myth / a
    common misconception" (false); 8. ``predicate`` — with the question known: a comparison with
    the bound of a comparing question ("1024 > 1000", "which is greater than 1000" answer "Is 2^10
    greater than 1000?": :mod:`harness.metrics.compare_cues`), else the first clause that gives the
    question's predicate for its subject ("51 is not prime" answers "Is 51 prime?").

Short answers (:func:`extract_answer`, for ``exact`` and ``any_of``)
    ``boxed``; ``answer_cue``; ``bold`` (the last bold span of at most 8 words not ending in ":");
    ``conclusion`` (the last line starts with a conclusion cue: the clause after it); else the first
    sentence of the first non-empty line (when that sentence is a question — "Shakespeare? No,
    Marlowe." — the rest of the line instead) (``whole`` when that is the whole answer, else
    ``first_sentence``; a first sentence longer than :data:`SHORT_ANSWER_WORDS` words is cut at
    its first comma). Negated parts are dropped from every extracted clause.

Code (:func:`extract_code`)
    ``fenced_defines`` — the last fenced block that defines the expected function; else
    ``unfenced_defines`` — the last stretch of unfenced code (after prose, or around stray fence
    lines) that parses and defines it; else ``first_python_block`` (the first block labelled
    python/py/python3) or ``first_block``; else ``whole_answer`` when the whole answer parses as
    Python (``ast.parse`` only, never executed) and defines the function (or, with no function
    named, holds at least one statement that is not a bare expression, so that a prose word like
    "Paris" is not taken for code).
"""

from __future__ import annotations

import ast
import re
import textwrap
import unicodedata
from collections.abc import Iterable, Mapping

from harness.common.model import Frozen
from harness.metrics.boolean_cues import (
    BARE_VERDICT,
    HEDGE,
    HOLDS,
    LEADING_NOT,
    MYTH,
    SO_VERDICT,
    predicate_polarity,
    said_verdict,
    short_aux,
)
from harness.metrics.choice_cues import (
    ALTERNATIVES,
    boolean_options,
    distinctive,
    option_pattern,
    ordinal_key,
    pair_polarity,
    shield,
    shielded_keys,
    unshielded,
)
from harness.metrics.compare_cues import comparison_polarity
from harness.metrics.declared import declared_line
from harness.metrics.number_cues import (
    APPOSITIVE_COPULA,
    CIRCUMSTANCE_BEFORE,
    COMPARISON_AFTER,
    CONDITION_CLAUSE,
    CONDITION_EQ,
    GSM8K_LINE,
    RESULT_CUE,
    TAKE_BACK,
    UNIT_BEFORE,
    expression_after,
    head_clause,
    question_subject,
    without_reason,
)
from harness.metrics.numbers import ParsedNumber, find_numbers, math_value, parse_number
from harness.metrics.numerals import dotted_thousands, fraction_values, plain_numerals

__all__ = [
    "BLOCKING_WORDS",
    "CONFIDENCE",
    "Extraction",
    "MAX_ANSWER_CHARS",
    "ParsedNumber",
    "SHORT_ANSWER_WORDS",
    "answer_cues",
    "cap_text",
    "code_blocks",
    "extract_answer",
    "extract_boolean",
    "extract_choice",
    "extract_code",
    "extract_number",
    "find_numbers",
    "normalize_answer",
    "parse_number",
    "phrase_match",
]

#: Candidates longer than this are never matched by containment (see :func:`phrase_match`).
SHORT_ANSWER_WORDS = 15
#: Answers longer than this many characters are cut (head + tail) before extraction.
MAX_ANSWER_CHARS = 32_000
#: How much of the start of a cut answer is kept.
HEAD_CHARS = 4_000
#: The longest clause read after a cue.
CLAUSE_CHARS = 400
#: Only the last this many answer cues are read (an answer rarely restates its answer more often).
MAX_CUES = 20
#: The longest first sentence the ``leading`` number rule accepts, in words.
LEADING_WORDS = 20

#: Words that stop containment matching: negations, and alternatives that hedge between answers.
BLOCKING_WORDS = frozenset(
    "not no never neither nor none nothing cannot cant isnt arent wasnt werent dont doesnt didnt "
    "wont wouldnt couldnt shouldnt hasnt havent hadnt aint incorrect wrong or either".split()
)

#: How much each rule is trusted (0-1); ``ambiguous`` and ``none`` are 0.
CONFIDENCE: dict[str, float] = {
    "declared": 0.97,
    "boxed": 0.95,
    "answer_cue": 0.9,
    "whole": 0.9,
    "bare_letter": 0.9,
    "fenced_defines": 0.9,
    "bold": 0.8,
    "equals": 0.75,
    "conclusion_cue": 0.7,
    "conclusion": 0.7,
    "unfenced_defines": 0.75,
    "whole_answer": 0.7,
    "leading": 0.6,
    "last_mention": 0.6,
    "first_python_block": 0.5,
    "first_block": 0.4,
    "last_new_number": 0.55,
    "predicate": 0.55,
    "last_number": 0.5,
    "first_sentence": 0.5,
    "model": 0.5,
    "ambiguous": 0.0,
    "none": 0.0,
}


class Extraction(Frozen):
    """What was taken from an answer, how, how surely, and why.

    Args:
        value: the extracted text — a number as written (``$1,234.50``), a choice key as it is
            spelled in the options, ``true``/``false``, a short answer, or a code block; ``None``
            when nothing fit or the answer is ambiguous.
        method: the rule that produced it (``boxed``, ``answer_cue``, ``bold``, ``equals``,
            ``conclusion_cue``, ``leading``, ``last_number``, ``bare_letter``, ``last_mention``,
            ``fenced_defines``, ``model``, ``ambiguous``, ``none``, ...).
        detail: a readable explanation, e.g. ``"'9' after the cue 'so'"``.
        confidence: how much the rule is trusted, 0-1 (:data:`CONFIDENCE`); ``None`` in results
            written before it was recorded.
        capped: the answer was longer than :data:`MAX_ANSWER_CHARS` and only its head and tail were read.
        declared: the value was read from the declared answer line (``Answer: ...``,
            :mod:`harness.metrics.declared`), for ``python`` from a fenced python block.
    """

    value: str | None
    method: str
    detail: str
    confidence: float | None = None
    capped: bool = False
    declared: bool = False


def _ex(value: str | None, method: str, detail: str, capped: bool = False, declared: bool = False) -> Extraction:
    if capped:
        detail += f" (the answer was longer than {MAX_ANSWER_CHARS} characters: only its start and end were read)"
    return Extraction(
        value=value,
        method=method,
        detail=detail,
        confidence=CONFIDENCE.get(method, 0.5),
        capped=capped,
        declared=declared,
    )


def cap_text(text: str) -> tuple[str, bool]:
    """``text`` cut to its first :data:`HEAD_CHARS` and last characters when longer than
    :data:`MAX_ANSWER_CHARS`, and whether it was cut."""
    if len(text) <= MAX_ANSWER_CHARS:
        return text, False
    return text[:HEAD_CHARS] + "\n…\n" + text[-(MAX_ANSWER_CHARS - HEAD_CHARS) :], True


def _show(text: str, limit: int = 60) -> str:
    flat = " ".join(text[: limit * 4].split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def _declared_clause(text: str) -> str | None:
    """The value of the declared answer line (:func:`harness.metrics.declared.declared_line`), cut
    to its first sentence, or ``None`` without one."""
    line = declared_line(text)
    if line is None or not line.value:
        return None
    return _clause(line.value) or line.value


def _as_declared(ex: Extraction) -> Extraction:
    return ex.model_copy(update={"declared": True, "detail": "on the declared answer line: " + ex.detail})


# ---------------------------------------------------------------------------------------- text


def normalize_answer(text: str) -> str:
    """Fold an answer for comparison: NFKC, case-fold, markdown and punctuation, articles, spaces.

    Periods and apostrophes vanish (``U.S.A.`` -> ``usa``, ``don't`` -> ``dont``) except between
    digits (``3.14`` stays); every other punctuation mark becomes a space except between digits
    (``1,000`` stays); the articles "a", "an" and "the" are dropped wherever they stand alone;
    whitespace collapses to single spaces.
    """
    s = unicodedata.normalize("NFKC", text).casefold()
    s = s.replace("\u2019", "'").replace("\u2018", "'")
    s = re.sub(r"(?<!\d)[.']|[.'](?!\d)", "", s)
    s = "".join(ch if (ch.isalnum() or ch.isspace() or ch in ".,") else " " for ch in s)
    s = re.sub(r"(?<!\d),|,(?!\d)", " ", s)
    words = [w for w in s.split() if w not in ("a", "an", "the")]
    return " ".join(words)


def phrase_match(expected: str, candidate: str, normalize: bool = True) -> tuple[bool, str]:
    """Whether ``candidate`` gives the answer ``expected``, with the reason in words.

    With ``normalize`` (the default) both sides go through :func:`normalize_answer`; they match when

    1. they are equal, or
    2. the candidate has at most :data:`SHORT_ANSWER_WORDS` words, the expected phrase occurs in it
       as whole words, and what is left of the candidate once the phrase is removed holds none of
       :data:`BLOCKING_WORDS` (negations such as "not", "isn't", "never", and "or"/"either", which
       hedge between answers). So "It is Paris." matches "Paris", while "not Paris", "Paris or
       Lyon" and "Lyon, not Paris" do not.

    Without ``normalize`` only exact equality of the stripped strings counts.

    Args:
        expected: the expected answer.
        candidate: the extracted answer.
        normalize: fold case, punctuation and articles and allow containment.
    """
    if not normalize:
        ok = candidate.strip() == expected.strip()
        return ok, "equal (exact, not normalized)" if ok else "not equal (exact comparison, not normalized)"
    exp, cand = normalize_answer(expected), normalize_answer(candidate)
    if not exp:
        return False, "the expected answer is empty after normalization"
    if exp == cand:
        return True, f"equal after normalization ({_show(cand)})"
    words = cand.split()
    pattern = re.compile(r"(?<!\S)" + re.escape(exp) + r"(?!\S)")
    if not pattern.search(cand):
        return False, f"{_show(exp)} is not in {_show(cand)} (normalized)"
    if len(words) > SHORT_ANSWER_WORDS:
        return False, (
            f"{_show(exp)} appears, but the answer has {len(words)} words "
            f"(containment counts only up to {SHORT_ANSWER_WORDS})"
        )
    rest = pattern.sub(" ", cand).split()
    blocking = sorted({w for w in rest if w in BLOCKING_WORDS})
    if blocking:
        return False, f"{_show(exp)} appears, but the answer also says {blocking} (negation or alternative)"
    return True, f"{_show(exp)} appears as a whole phrase in the {len(words)}-word answer {_show(cand)}"


def _mixed(m: re.Match[str]) -> str:
    whole, num, den = int(m[1]), int(m[2]), int(m[3])
    return f"{whole + num / den:.12g}" if den else m.group(0)


def _clean_latex(text: str) -> str:
    text = re.sub(r"(?<![\d.])(\d{1,9})\s*\\[dt]?frac\s*\{\s*(\d{1,9})\s*\}\s*\{\s*(\d{1,9})\s*\}", _mixed, text)
    text = re.sub(r"\\[dt]?frac\s*\{\s*([^{}]{0,40}?)\s*\}\s*\{\s*([^{}]{0,40}?)\s*\}", r"\1/\2", text)
    text = re.sub(r"\\(?:text|mathrm|textbf|mathbf|operatorname)\s*\{([^{}]{0,200})\}", r"\1", text)
    text = text.replace("\\%", "%").replace("\\$", "$").replace("\\,", ",").replace("\\!", "")
    text = text.replace("{,}", ",").replace("\\times", "×").replace("\\cdot", "×").replace("\\approx", "≈")
    return text.replace("\\(", " ").replace("\\)", " ").replace("\\[", " ").replace("\\]", " ")


def _last_boxed(text: str) -> str | None:
    start = text.rfind("\\boxed")
    if start < 0:
        return None
    brace = text.find("{", start, start + 16)
    if brace < 0:
        return None
    depth = 0
    for i in range(brace, min(len(text), brace + CLAUSE_CHARS)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[brace + 1 : i].strip()
    return None


_MARKUP = " \t*_`\"'“”‘’>$"
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
_ANSWER_CUE = re.compile(
    r"(?i)\b(?P<cue>(?:final\s+|correct\s+|right\s+|short\s+)?answer)[*_]*"
    r"(?:\s+(?:is|would\s+be|will\s+be|was)\b[ \t]*:?|[ \t]*[:=])"
)
_ANSWER_HEADING = re.compile(r"(?im)^[ \t>#*_-]*(?P<cue>(?:final\s+)?answer)[ \t*_:]*$")
_NEGATED = re.compile(
    r"(?i)\(\s*(?:not|rather\s+than|instead\s+of|and\s+not)\b[^()]{0,200}\)"
    r"|(?:[,;]|\s[-–—])\s*(?:but\s+)?(?:not|rather\s+than|instead\s+of)\b[^,;.()\n]{0,200}"
)


def drop_negated(clause: str) -> str:
    """``clause`` without its negated parts ("(not X)", ", not X", "rather than X", "instead of X")."""
    return " ".join(_NEGATED.sub(" ", clause).split())


def _clause(rest: str) -> str:
    rest = rest[:CLAUSE_CHARS].strip(_MARKUP)
    m = _SENTENCE_END.search(rest)
    return (rest[: m.start()] if m else rest).strip(_MARKUP)


def _next_line(text: str, pos: int) -> str:
    for _ in range(6):
        end = text.find("\n", pos, pos + CLAUSE_CHARS)
        line = text[pos : end if end >= 0 else pos + CLAUSE_CHARS]
        if line.strip(_MARKUP):
            return line
        if end < 0:
            return ""
        pos = end + 1
    return ""


_REJECTED = re.compile(
    r"(?i)\b(?:but|which|that)\s+(?:that's|that\s+is|this\s+is|it's|it\s+is|is)\s+"
    r"(?:wrong|incorrect|a\s+mistake|mistaken|not\s+(?:right|correct))\b"
)
_HYPOTHETICAL = re.compile(
    r"(?i)\b(?:intuitive|tempting|obvious|naive|naïve|common|wrong|incorrect|initial|"
    r"first|quick|easy|expected|usual)\s+$"
)


def answer_cues(text: str) -> list[tuple[str, str]]:
    """The ``(cue, clause)`` pairs of explicit answer cues, in reading order.

    A cue is "answer is / was / would be / will be", "answer:" or "answer =" (optionally "final",
    "correct", "right", "short" answer), a line that is only "Answer" / "Final answer", or GSM8K's
    final line ``#### 42`` (a number after the four hashes, nothing else on the line). The
    clause is the rest of that sentence; when it is empty, the next non-empty line. Left out: cues
    whose clause starts with "not", clauses that reject themselves ("10 cents, but that's wrong"),
    and cues qualified as a trap ("the intuitive / tempting / naive / common answer is"). Only the
    last :data:`MAX_CUES` cues are kept.
    """
    found: list[tuple[int, str, str]] = []
    for m in list(_ANSWER_CUE.finditer(text))[-MAX_CUES:]:
        line_end = text.find("\n", m.end(), m.end() + CLAUSE_CHARS)
        rest = text[m.end() : m.end() + CLAUSE_CHARS if line_end < 0 else line_end]
        clause = _clause(rest) or _clause(_next_line(text, m.end()))
        found.append((m.start(), " ".join(m.group(0).split()), clause))
    for m in list(_ANSWER_HEADING.finditer(text))[-MAX_CUES:]:
        found.append((m.start(), m["cue"], _clause(_next_line(text, m.end()))))
    if "####" in text:
        found += [(m.start(), "####", m["value"]) for m in list(GSM8K_LINE.finditer(text))[-MAX_CUES:]]
    found.sort(key=lambda t: t[0])
    return [
        (cue.strip(" *_:=").lower(), clause)
        for pos, cue, clause in found[-MAX_CUES:]
        if clause
        and not re.match(r"(?i)not\b", clause)
        and not _REJECTED.search(clause)
        and not _HYPOTHETICAL.search(text[max(0, pos - 24) : pos])
    ]


def _sentences(text: str) -> list[str]:
    parts = re.split(r"\n+|(?<=[.!?;])\s+", text)
    return [p.strip() for p in parts if p.strip()]


_BOLD = re.compile(r"\*\*(?P<a>[^*\n]{1,120}?)\*\*|__(?P<b>[^_\n]{1,120}?)__")
_CONCLUSION = re.compile(
    r"(?i)\b(?:therefore|thus|hence|so|consequently|in\s+total|altogether|overall|in\s+conclusion|"
    r"which\s+gives|giving|(?:total|sum|result)\s+is)\b"
)
_CORRECTION = re.compile(
    r"(?i)\b(?:actually|wait|correction|recount|recheck|re-check|instead|mistake|"
    r"on\s+second\s+thought|let\s+me\s+redo|I\s+was\s+wrong)\b"
)


def _bolds(text: str) -> list[str]:
    return [(m["a"] or m["b"] or "").strip() for m in _BOLD.finditer(text)]


_DANGLING = re.compile(
    r"(?i)(?:[,:(\-–—=+×*/]|\b(?:the|a|an|and|or|so|we|to|of|is|are|was|be|then|which|that|next|first|because|"
    r"since|with|for|in|on|by|but|this|it|as|will|would|gives?|equals?|get|have|has|from|into|let's|let|now|its|"
    r"their|his|her|our|my))$"
)


def truncated(text: str) -> bool:
    """Whether ``text`` stops mid-sentence: no closing punctuation and a dangling last word or sign
    ("… so the", "… Next we", "… = ")."""
    tail = text[-200:].rstrip()
    return bool(tail) and not re.search(r"[.!?)\]}*_`\"'”’]$", tail) and bool(_DANGLING.search(tail))


# -------------------------------------------------------------------------------------- numbers

_EQUALS = re.compile(r"(?<![<>!=])[=≈](?!=)")
_RANGE = re.compile(r"(?i)\b(?:from|between)\s+(?P<a>\S{1,24})\s+(?:to|and|through|-|–)\s+(?P<b>\S{1,24})")
_BETWEEN_ALTERNATIVES = re.compile(r"(?i)^[^.;:=]{0,24}?\b(?:or|nor)\b[^.;:=]{0,24}$")
_COPULA = re.compile(
    r"(?i)\b(?:is|are|was|were|be|equals?|makes?|gives?|yields?|sums?\s+to|adds?\s+up\s+to|"
    r"comes?\s+to|totals?|handles?|remain|left)\b"
)


def _alternatives(text: str, nums: list[tuple[int, ParsedNumber]]) -> str | None:
    """The numbers offered as alternatives ("8 or 9", "either 2 million or 1,000,000"), if any."""
    for (p1, a), (p2, b) in zip(nums, nums[1:], strict=False):
        if a.value != b.value and _BETWEEN_ALTERNATIVES.match(text[p1 + len(a.text) : p2]):
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
    return _ex(
        None,
        "ambiguous",
        f"{num.text!r} is taken back later: {_show(tail[fix.start() :])} gives {later[-1].text!r}",
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


def _stated(text: str, nums: list[tuple[int, ParsedNumber]]) -> list[tuple[int, ParsedNumber]]:
    """``nums`` without those that compare ("2 times as many", "25% more than") or name a unit ("in
    one day", "per 1 hour"), then without those in a circumstantial phrase ("from 4 boxes", "in 2
    hours"), each only when others remain."""
    kept = [
        (p, n)
        for p, n in nums
        if not COMPARISON_AFTER.match(text[p + len(n.text) : p + len(n.text) + 24])
        and not (n.value == 1 and UNIT_BEFORE.search(text[max(0, p - 12) : p]))
    ]
    kept = kept or nums
    main = [(p, n) for p, n in kept if not CIRCUMSTANCE_BEFORE.search(text[max(0, p - 12) : p])]
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
_CHECK = re.compile(
    r"(?i)^\W*(?:check(?:ing)?|verif(?:y|ication|ied)|sanity\s+check|proof|note|"
    r"for\s+comparison|by\s+comparison|let'?s\s+(?:check|verify)|let\s+me\s+(?:check|verify)|"
    r"to\s+(?:check|verify)|double[- ]check(?:ing)?)\b"
)


def _without_asides(sentence: str) -> str:
    """``sentence`` without parentheses when numbers remain outside them ("2 (1 is not prime)")."""
    bare = _PAREN.sub(" ", sentence)
    return bare if bare.strip(_MARKUP + ".!?;") and find_numbers(bare, words=True) else sentence


def _pick_in_clause(clause: str, zeros: bool) -> _Picked | None:
    """The number a clause gives: ``(number, why)``, ``(None, why)`` when ambiguous, ``None`` if none."""
    clause = _without_asides(_without_negated_numbers(without_reason(clause)))
    nums = _nums(clause, zeros)
    if not nums:
        return None
    offered = _alternatives(clause, nums)
    if offered:
        return None, f"the clause {_show(clause)} offers several numbers ({offered}) as alternatives"
    eqs = _answer_equals(clause)
    if eqs:
        if expression_after(clause[eqs[-1].end() :]):
            return None, _EXPRESSION_WHY
        after = _nums(clause[eqs[-1].end() :], zeros)
        if after:
            return after[0][1], f"after the last '{eqs[-1].group(0)}'"
    elif expression_after(clause) and not parse_number(clause):
        return None, _EXPRESSION_WHY
    colon = clause.rfind(": ")
    if colon >= 0:
        tail = clause[colon + 1 :]
        after = _nums(tail, zeros)
        if after and len(tail[: after[0][0]].strip(_MARKUP + "(")) == 0 and len({n.value for _, n in after}) == 1:
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
            and not APPOSITIVE_COPULA.search(clause[max(0, m.start() - 8) : m.start()])
        ]
        if cops and cops[0].start() > nums[0][0]:
            following = [n for pos, n in nums if pos >= cops[-1].end()]
            return following[0], f"the first number after {cops[-1].group(0)!r}"
    return nums[0][1], "first number in the clause"


def _number_extraction(num: ParsedNumber, method: str, why: str, capped: bool) -> Extraction:
    shown = f"{num.value:.15g}" + ("%" if num.percent else "")
    how = "" if num.kind == "plain" else f" ({num.kind})"
    return _ex(num.text, method, f"{num.text!r}{how} = {shown}, {why}", capped)


def _picked(picked: _Picked, method: str, why: str, capped: bool) -> Extraction:
    num, how = picked
    if num is None:
        return _ex(None, "none" if how == _EXPRESSION_WHY else "ambiguous", f"{how} ({why})", capped)
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
    text, capped = cap_text(text)
    given = set(givens) if givens is not None else None
    text = fraction_values(plain_numerals(dotted_thousands(_clean_latex(text), given)))
    line = _declared_clause(text)
    if line is not None:
        got = _pick_in_clause(line, zeros)
        if got:
            return _corrected_later(
                text, line, got, zeros, _as_declared(_picked(got, "declared", f"{_show(line)}", capped)), capped
            )
    boxed = _last_boxed(text)
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
                    return _ex(
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
    for inner in reversed(_bolds(text)):
        num = parse_number(inner.lstrip("~≈= "), zeros=zeros)
        if num is None:
            bm = re.fullmatch(r"[~≈=]?\s*(?P<num>.+?)(?:\s+[A-Za-z/]+){0,2}\.?", inner)
            num = parse_number(bm["num"], zeros=zeros) if bm else None
        if num is not None:
            return _number_extraction(num, "bold", f"the last bold number **{inner}**", capped)
    return _number_fallback(text, zeros, given, capped, query)


_RESTATES = re.compile(
    r"(?i)\b(?:given|we\s+know|starts?\s+with|started\s+with|initially|at\s+first|originally|"
    r"begins?\s+with|each|per|every|\?)"
)
_WORKING = re.compile(r"(?i)^\W*(?:#|step|part|case|let|first|to\b|we\s+need|start|given|note|\d+[.)]\s)")


def _result_cues(sentence: str) -> list[re.Match[str]]:
    """Conclusion cues and result phrases ("for a total of", "making") in ``sentence``, in order."""
    return sorted([*_CONCLUSION.finditer(sentence), *RESULT_CUE.finditer(sentence)], key=lambda m: m.start())


def _number_fallback(
    text: str, zeros: bool, given: set[float] | None, capped: bool, query: str | None = None
) -> Extraction:
    if truncated(text):
        return _ex(None, "none", "the answer stops mid-sentence (truncated?) and gives no answer cue", capped)
    raw = [without_reason(CONDITION_CLAUSE.sub(" ", s)) for s in _sentences(_LIST_MARKERS.sub("", text))]
    sentences = [_without_asides(_without_negated_numbers(s)) for s in raw]
    numbered = [(i, s, nums) for i, s in enumerate(sentences) if (nums := _nums(s, zeros))]
    kept = [t for t in numbered if not _CHECK.match(t[1]) and not t[1].lstrip(_MARKUP).startswith("(")]
    numbered = kept or numbered
    if not numbered:
        return _ex(None, "none", "no number found in the answer", capped)
    i_last, last, last_nums = numbered[-1]
    offered = _alternatives(last, last_nums)
    if offered:
        return _ex(
            None,
            "ambiguous",
            f"the last sentence with a number offers several ({offered}) as alternatives: {_show(last)}",
            capped,
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
        return _ex(None, "none", f"{_EXPRESSION_WHY} in the last sentence with a number: {_show(last)}", capped)
    if eqs and not (cues_in and cues_in[-1].start() > eqs[-1].end()):
        if expression_after(last[eqs[-1].end() :]):
            return _ex(None, "none", f"{_EXPRESSION_WHY} in the last sentence with a number: {_show(last)}", capped)
        after = _nums(last[eqs[-1].end() :], zeros)
        if after:
            return _number_extraction(
                after[0][1], "equals", f"after the last '{eqs[-1].group(0)}' in the last sentence with a number", capped
            )
    if cues_in:
        picked = _pick_in_clause(last[cues_in[-1].end() :], zeros)
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
        and first_nums[0][1].value not in given
        and not _CORRECTION.search(text[len(first) :])
    ):
        return _number_extraction(
            first_nums[0][1], "leading", "the only number of the short first sentence, which the rest explains", capped
        )
    head = head_clause(first) if i_first == 0 and given is not None else None
    if head is not None and question_subject(head[0], query):
        in_head = _nums(head[0], zeros)
        stated = _stated(head[0], in_head)
        if (
            len(in_head) == 1
            and stated == in_head
            and len(head[0].split()) <= LEADING_WORDS
            and in_head[0][1].value not in (given or set())
            and _nums(head[1], zeros)
            and not _CORRECTION.search(text[len(head[0]) :])
        ):
            return _number_extraction(
                in_head[0][1],
                "leading",
                "the only number of the opening clause on the question's subject, which the working after it explains",
                capped,
            )
    last_nums = _stated(last, last_nums)
    if (
        given
        and len({n.value for _, n in last_nums}) == 1
        and len(last.split()) <= LEADING_WORDS
        and not _WORKING.match(last)
        and not _RESTATES.search(last)
    ):
        return _number_extraction(
            last_nums[-1][1],
            "last_number",
            "the only number of the short last sentence (a value the question also gives)",
            capped,
        )
    if given:
        for _, sentence, nums in reversed(numbered):
            nums = _stated(sentence, nums)
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


# ---------------------------------------------------------------------------------- short answers


def _strip_list_marker(line: str) -> str:
    return re.sub(r"^\s*(?:[-*+•]|\d+[.)])\s+", "", line)


_LEAD_CONCLUSION = re.compile(r"(?i)^\W*(?:so|therefore|thus|hence|in\s+conclusion|in\s+summary|overall)\b[,:]?\s*")


def extract_answer(text: str) -> Extraction:
    """The short answer in ``text``: boxed, after an answer cue, the last short bold span, a final
    conclusion, else the first sentence (see the module docstring)."""
    text, capped = cap_text(text)
    text = _clean_latex(text)
    line = _declared_clause(text)
    if line is not None:
        value = drop_negated(line) or line
        return _as_declared(_ex(value, "declared", _show(value), capped))
    boxed = _last_boxed(text)
    if boxed:
        value = drop_negated(boxed)
        return _ex(value, "boxed", f"inside \\boxed{{...}}: {_show(value)}", capped)
    cues = answer_cues(text)
    if cues:
        cue, clause = cues[-1]
        value = drop_negated(clause) or clause
        return _ex(value, "answer_cue", f"after the cue {cue!r} (last of {len(cues)}): {_show(value)}", capped)
    for inner in reversed(_bolds(text)):
        if inner and not inner.endswith(":") and len(inner.split()) <= 8:
            return _ex(inner, "bold", f"the last short bold span: {_show(inner)}", capped)
    lines = [ln for ln in text.split("\n") if ln.strip(_MARKUP)]
    if not lines:
        return _ex(None, "none", "the answer is empty", capped)
    if len(lines) > 1 or len(_sentences(lines[0])) > 1:
        final = _sentences(lines[-1])[-1] if _sentences(lines[-1]) else ""
        lead = _LEAD_CONCLUSION.match(final)
        if lead and final[lead.end() :].strip():
            value = drop_negated(final[lead.end() :]).strip(_MARKUP + ".!?;")
            return _ex(
                value, "conclusion", f"the final sentence after {lead.group(0).strip()!r}: {_show(value)}", capped
            )
    first = _strip_list_marker(lines[0]).strip()
    m = re.search(r"[.!?](?=\s|$)|;(?!\s*(?:however|but|actually|in\s+fact|rather|instead|yet|though)\b)", first)
    if m and m.group(0) == "?" and first[m.end() :].strip():  # "Shakespeare? No, Marlowe.": a question, not the answer
        rest = re.sub(r"(?i)^(?:no|nope|yes|well)\b[,.!—–-]*\s*", "", first[m.end() :].strip()) or first[m.end() :]
        return _ex(
            drop_negated(rest) or rest,
            "first_sentence",
            f"the sentence after the opening question: {_show(rest)}",
            capped,
        )
    sentence = re.sub(r"\*\*|__|`", "", first[: m.start()] if m else first).strip(_MARKUP)
    whole = sentence == text.strip().strip(_MARKUP + ".!?;")
    sentence = drop_negated(sentence) or sentence
    if len(sentence.split()) > SHORT_ANSWER_WORDS and "," in sentence:
        sentence = sentence.split(",")[0].strip()
    if whole:
        return _ex(sentence, "whole", f"the whole answer: {_show(sentence)}", capped)
    return _ex(sentence, "first_sentence", f"the first sentence (no answer cue found): {_show(sentence)}", capped)


# -------------------------------------------------------------------------------------- choices

_NEGATION = re.compile(
    r"(?i)\b(?:not|no|never|neither|nor|wrong|incorrect|false|unlike|eliminat\w*|rul(?:e|ed|ing)\s+out|"
    r"excluded?|discard\w*|rather\s+than|instead\s+of|except|cannot|can't|isn't|aren't|wasn't|doesn't|"
    r"don't|didn't|won't|wouldn't|couldn't|tempting|distractor|trap)\b|n't\b"
)
_SUBCLAUSE = re.compile(r"[,;:()\[\]—–]|\s-\s|\b(?:but|while|whereas|although|though)\b", re.IGNORECASE)


def _letter_pattern(keys: list[str]) -> str:
    return "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))


def _key_for(letter: str, options: Mapping[str, str], strict_case: bool) -> str | None:
    if letter in options:
        return letter
    if not strict_case:
        for key in options:
            if key.lower() == letter.lower():
                return key
    return None


class _Options:
    """Option keys and texts, with the regular expressions that find their mentions."""

    def __init__(self, options: Mapping[str, str], letters: bool) -> None:
        self.options = dict(options)
        self.letters = letters
        keys = _letter_pattern(list(options)) if letters else ""
        self.marker = (
            re.compile(
                r"\b(?:option|choice|answer)\s+\(?(?P<k>" + keys + r")\)?(?![\w'])|\((?P<p>" + keys + r")\)"
                r"|(?<![\w(])(?P<c>" + keys + r")\)|(?<![\w'’-])(?P<u>" + keys + r")(?![\w'’-])"
            )
            if letters
            else None
        )
        self.keys_ci = (
            re.compile(
                r"\b(?:option|choice)\s+\(?(?P<k>" + keys + r")\)?(?![\w'])|\((?P<p>" + keys + r")\)", re.IGNORECASE
            )
            if letters
            else None
        )
        keys_ci = {k.casefold() for k in options} if letters else set()
        self.texts = sorted(
            (
                (k, normalize_answer(t))
                for k, t in options.items()
                if normalize_answer(t)
                and (not letters or (len(normalize_answer(t)) > 1 and normalize_answer(t) not in keys_ci))
            ),
            key=lambda kt: len(kt[1]),
            reverse=True,
        )
        self.patterns = [
            (k, p)
            for k, t in sorted(options.items(), key=lambda kt: len(kt[1]), reverse=True)
            if any(k == kk for kk, _ in self.texts) and (p := option_pattern(t)) is not None
        ]
        self.shield_markers = (
            [
                re.compile(r"(?i)\((?P<k>" + keys + r")\)"),
                re.compile(r"(?i)\b(?:option|choice)\s+\(?(?P<k>" + keys + r")\)?(?![\w'])"),
                re.compile(r"(?<![\w(])(?P<k>" + keys + r")\)"),
            ]
            if letters
            else []
        )

    def mentions(self, clause: str) -> set[str]:
        found: set[str] = set()
        if self.letters and self.marker is not None and self.keys_ci is not None:
            for m in self.keys_ci.finditer(clause):
                key = _key_for(m["k"] or m["p"], self.options, strict_case=False)
                if key:
                    found.add(key)
            for m in self.marker.finditer(clause):
                letter = m["k"] or m["p"] or m["c"] or m["u"]
                if m["u"] and (letter in ("A", "I") or len(letter) > 1 or not letter.isupper()):
                    # a bare "A"/"I" is usually the article or the pronoun
                    if not (
                        letter == "A" and re.match(r"\s*(?:is|was|would|seems|or|and|[).,:;!]|$)", clause[m.end() :])
                    ):
                        continue
                key = _key_for(letter, self.options, strict_case=True)
                if key:
                    found.add(key)
        norm = " " + normalize_answer(clause) + " "
        for key, text in self.texts:
            token = " " + text + " "
            if token in norm:
                found.add(key)
                norm = norm.replace(token, " ")
        return found

    def shielded(self, sentence: str) -> str:
        """``sentence`` with option texts and letter markers as placeholders (:func:`choice_cues.shield`)."""
        out = shield(sentence, self.patterns, None, {})
        for marker in self.shield_markers:
            out = shield(out, [], marker, {k: k for k in self.options})
        return out

    def offered(self, clause: str) -> list[str]:
        """Two different options offered as alternatives ("A or D", "12/24 or 12/25", "(b) or maybe
        (c)"), else an empty list (:data:`harness.metrics.choice_cues.ALTERNATIVES`)."""
        out = self.shielded(clause)
        if self.letters:
            upper = [k for k in self.options if len(k) == 1 and k.isupper()]
            if upper:
                bare = re.compile(r"(?<![\w'’\x00-])(?P<k>" + _letter_pattern(upper) + r")(?![\w'’\x00-])")
                out = shield(out, [], bare, {k: k for k in upper})
        for m in ALTERNATIVES.finditer(out):
            if m["a"] != m["b"] and m["a"] in self.options and m["b"] in self.options:
                return [m["a"], m["b"]]
        return []

    def positive_mentions(self, sentence: str) -> set[str]:
        """Options named in sub-clauses without a negation; an option's own words (its text, its
        marker) are shielded first, so parentheses inside them do not split and their own "not" does
        not negate them."""
        found: set[str] = set()
        for part in _SUBCLAUSE.split(self.shielded(sentence)):
            rest = unshielded(part)
            if part.strip() and not _NEGATION.search(rest):
                found |= {k for k in shielded_keys(part) if k in self.options} | self.mentions(rest)
        return found


def _lead_letter(clause: str, opts: _Options) -> str | None:
    if not opts.letters:
        return None
    keys = _letter_pattern(list(opts.options))
    lead = re.match(
        r"^\W*(?:(?i:option|choice)\s+)?(?P<open>\()?(?P<k>" + keys + r"|[A-Za-z])(?P<close>\))?"
        r"(?![\w'])",
        clause,
        re.IGNORECASE,
    )
    if not lead:
        return None
    alone = clause.strip(_MARKUP + ".!?:)(") == lead["k"]
    marked = bool(lead["open"] or lead["close"]) or alone or bool(re.match(r"^\W*(?i:option|choice)", clause))
    return _key_for(lead["k"], opts.options, strict_case=not marked)


def _choice_in_clause(clause: str, opts: _Options) -> tuple[str | None, str] | None:
    clause = drop_negated(clause)
    offered = opts.offered(clause)
    if offered:
        return None, f"the clause offers options {offered} as alternatives"
    key = _lead_letter(clause, opts)
    if key is not None:
        named = {k for k, p in opts.patterns if p.search(clause)}
        if named and key not in named:
            return None, f"the letter {key!r} leads the clause but it names option {sorted(named)[0]!r}'s text"
        return key, "the letter leading the clause"
    found = opts.positive_mentions(clause)
    if len(found) == 1:
        key = found.pop()
        return key, f"the clause names option {key!r}"
    if len(found) > 1:
        return None, f"the clause names several options {sorted(found)}"
    key = ordinal_key(clause, list(opts.options))
    if key is not None:
        return key, f"the clause points at option {key!r} by its position"
    if not _NEGATION.search(clause):
        key = distinctive(clause, opts.options)
        if key is not None:
            return key, f"the clause's words pick out option {key!r} alone"
    return None


_MARKED_LEAD = r"^[\s*_>#-]*(?:\((?P<a>{keys})\)|(?P<b>{keys})\)|(?P<c>{keys})[.:](?=\s))"
_WALK_LINE = r"(?m)^[ \t*_>#-]*(?:\(?(?:{keys})\)|(?:{keys})[.:](?=\s))"


def _leading_marker(text: str, opts: _Options) -> str | None:
    """The option whose marker opens the answer ("(c) Can't be determined — …", "B) London"), when the
    answer is not a walk-through of several options and the opening line does not negate it."""
    if not opts.letters:
        return None
    keys = _letter_pattern(list(opts.options))
    first = next((ln for ln in text.split("\n") if ln.strip(_MARKUP)), "")
    m = re.match(_MARKED_LEAD.format(keys=keys), first, re.IGNORECASE)
    if not m or len(re.findall(_WALK_LINE.format(keys=keys), text, re.IGNORECASE)) > 1:
        return None
    key = _key_for(m["a"] or m["b"] or m["c"], opts.options, strict_case=bool(m["c"]))
    if key is None:
        return None
    rest = first[m.end() :]
    others = set()
    for marker in opts.shield_markers:
        others |= {_key_for(x["k"], opts.options, strict_case=False) for x in marker.finditer(rest)}
    if others - {key} or re.search(r"(?i)\b(?:or|either|maybe|possibly|perhaps)\b", rest):
        return None
    pattern = dict(opts.patterns).get(key)
    if pattern is not None and pattern.match(rest.strip(" \t*_:—–-")):
        return key
    if not _NEGATION.search(rest) and opts.positive_mentions(rest) <= {key}:
        return key
    return None


def _walk_through(text: str, opts: _Options) -> bool:
    """The answer goes through two or more options line by line ("A) …", "B) …")."""
    if not opts.letters:
        return False
    keys = _letter_pattern(list(opts.options))
    return len(re.findall(_WALK_LINE.format(keys=keys), text, re.IGNORECASE)) > 1


def _choice_taken_back(text: str, clause: str, opts: _Options, found: Extraction, capped: bool) -> Extraction:
    """``found``, unless the text after ``clause`` takes it back ("…. Wait, it is (C)"; see
    :func:`_corrected_later`)."""
    at = text.rfind(clause)
    if found.value is None or at < 0:
        return found
    tail = text[at + len(clause) :]
    fix = TAKE_BACK.search(tail)
    if fix is None:
        return found
    named = [m for sentence in _sentences(tail[fix.end() :]) if (m := opts.positive_mentions(sentence))]
    other = named[-1] - {found.value} if named else set()
    if not other:  # nothing named after it, or the last naming sentence confirms the answer
        return found
    return _ex(
        None,
        "ambiguous",
        f"{found.value!r} is taken back later: {_show(tail[fix.start() :])} names {sorted(other)}",
        capped,
    )


def _choice_result(got: tuple[str | None, str], method: str, why: str, capped: bool) -> Extraction:
    key, how = got
    if key is None:
        return _ex(None, "ambiguous", f"{how} ({why})", capped)
    return _ex(key, method, f"{key!r} {why} ({how})", capped)


def extract_choice(text: str, options: Mapping[str, str], letters: bool = True, query: str | None = None) -> Extraction:
    """The option chosen in ``text`` (a key of ``options``; see the module docstring).

    Args:
        text: the answer.
        options: key -> option text: the case's letters, or each option's text mapped to itself.
        letters: the keys are letters the answer may use (``False`` for options given as a list).
        query: the question, when known (for options that are a truth-value pair).
    """
    text, capped = cap_text(text)
    text = _clean_latex(text)
    opts = _Options(options, letters)
    line = _declared_clause(text)
    if line is not None:
        whole = [
            k
            for k, t in options.items()
            if normalize_answer(t)
            and normalize_answer(t) == normalize_answer(line)
            and not (letters and re.match(r"^\W*\(?[A-Za-z]\)", line))
        ]
        if len(whole) == 1:
            return _as_declared(_ex(whole[0], "declared", f"the text of option {whole[0]!r}", capped))
        got = _choice_in_clause(line, opts)
        if got:
            return _choice_taken_back(
                text, line, opts, _as_declared(_choice_result(got, "declared", _show(line), capped)), capped
            )
    boxed = _last_boxed(text)
    if boxed:
        got = _choice_in_clause(boxed, opts)
        if got:
            return _choice_result(got, "boxed", "inside \\boxed{...}", capped)
    cues = answer_cues(text)
    for cue, clause in reversed(cues):
        got = _choice_in_clause(clause, opts)
        if got:
            return _choice_taken_back(
                text,
                clause,
                opts,
                _choice_result(got, "answer_cue", f"after the cue {cue!r}: {_show(clause)}", capped),
                capped,
            )
    bare = text.strip(_MARKUP + ".!?:()[] \n")
    if letters and len(bare) <= 2:
        key = _key_for(bare, options, strict_case=False)
        if key is not None:
            return _ex(key, "bare_letter", f"the whole answer is the letter {key!r}", capped)
    whole = [
        k
        for k, t in options.items()
        if normalize_answer(t)
        and normalize_answer(t) == normalize_answer(bare)
        and not (letters and re.match(r"^\W*\(?[A-Za-z][.):]\s", bare))
    ]  # "A. Nitrogen": the letter A
    if len(whole) == 1:
        return _ex(whole[0], "whole", f"the whole answer is the text of option {whole[0]!r}", capped)
    for inner in reversed(_bolds(text)):
        got = _choice_in_clause(inner, opts)
        if got and got[0] is not None:
            return _choice_result(got, "bold", f"in the last bold span naming an option **{inner}**", capped)
    pair = boolean_options(options)
    if pair is not None:
        words = {v: normalize_answer(options[k]) for v, k in pair.items()}
        if not set(words.values()) & {"true", "false", "yes", "no", "correct", "incorrect"}:
            polar = pair_polarity(text, words)
            if polar is not None:
                value, where = polar
                if value is None:
                    return _ex(None, "ambiguous", f"the sentence {_show(where)} uses both options' words", capped)
                return _ex(
                    pair[value], "last_mention", f"{pair[value]!r}: {_show(where)} says {words[value]!r}", capped
                )
        said = extract_boolean(text, query)
        if said.value is None:
            return _ex(None, said.method, f"the options are a truth-value pair; {said.detail}", capped)
        key = pair[said.value == "true"]
        return _ex(
            key,
            said.method,
            f"{key!r}: the options are a truth-value pair and the answer says {said.value} ({said.detail})",
            capped,
        )
    key = _leading_marker(text, opts)
    if key is not None:
        return _ex(key, "leading", f"{key!r}: the answer opens with its marker", capped)
    sentences = _sentences(text)
    key = ordinal_key(sentences[0], list(options)) if sentences else None
    if key is not None:
        return _ex(
            key, "leading", f"{key!r}: the answer opens by pointing at it by position ({_show(sentences[0])})", capped
        )
    return _choice_by_mentions(text, opts, capped)


_TURN = re.compile(
    r"(?i)\b(?:but|however|whereas|therefore|thus|hence|so|which\s+leaves|leaving|that\s+leaves|"
    r"leaves|only)\b"
)


def _choice_by_mentions(text: str, opts: _Options, capped: bool) -> Extraction:
    if truncated(text):
        return _ex(None, "none", "the answer stops mid-sentence (truncated?) and gives no answer cue", capped)
    sentences = _sentences(text)
    mentioned = [(i, s, m) for i, s in enumerate(sentences) if (m := opts.positive_mentions(s))]
    if not mentioned:
        return _ex(None, "none", "no option letter or option text found in the answer", capped)
    i_last, last, last_keys = mentioned[-1]
    if _walk_through(text, opts) and not _CONCLUSION.search(last):
        return _ex(None, "none", "the answer walks through the options line by line and never commits to one", capped)
    _, first, first_keys = mentioned[0]
    cue = _CONCLUSION.search(last)
    lead_ok = mentioned[0][0] == 0 and len(first_keys) == 1 and not _NEGATION.search(first)
    if len(last_keys) == 1:
        key = next(iter(last_keys))
        if cue or not lead_ok or first_keys == last_keys or len(mentioned) == 1:
            method = "conclusion" if cue else "last_mention"
            return _ex(
                key, method, f"{key!r}: the last sentence that names an option names only it ({_show(last)})", capped
            )
        lead = next(iter(first_keys))
        return _ex(
            None,
            "ambiguous",
            f"the first sentence names {lead!r} and the last names {key!r}, without a conclusion cue",
            capped,
        )
    offered = opts.offered(last)
    if offered:
        return _ex(None, "ambiguous", f"the last sentence naming options offers {offered} as alternatives", capped)
    turn = list(_TURN.finditer(last))
    if turn:
        after = opts.positive_mentions(last[turn[-1].end() :])
        if len(after) == 1:
            key = next(iter(after))
            return _ex(
                key,
                "conclusion",
                f"{key!r}: the only option named after {turn[-1].group(0).strip()!r} "
                f"in the last sentence naming options ({_show(last)})",
                capped,
            )
    if lead_ok and not cue:
        key = next(iter(first_keys))
        return _ex(
            key,
            "leading",
            f"{key!r}: the first sentence names only it ({_show(first)}); the last "
            f"sentence naming options names several {sorted(last_keys)}",
            capped,
        )
    return _ex(
        None, "ambiguous", f"the last sentence naming options names several {sorted(last_keys)} ({_show(last)})", capped
    )


# ------------------------------------------------------------------------------------- booleans

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
_POLARITY_RE = re.compile(r"(?i)(?P<neg>\b(?:not|n't|never)\s+(?:\w+\s+)?)?\b(?P<w>" + "|".join(_POLARITY) + r")\b")
_LEADING_WORD = re.compile(
    r"(?i)^[\W_]*(?:(?P<w>yes|no|true|false|correct|incorrect)\b(?!\s+(?:doubt|problem|question|wonder|one|matter|need)\b)"
    r"(?!\s+(?:and|or|xor|is|==?|equals)\b|\s*[=)])"
    r"|(?P<neg>(?:absolutely|definitely|certainly|of\s+course|surely)\s+not|not\s+at\s+all|nope)\b"
    r"|(?P<pos>absolutely|definitely|certainly|of\s+course|indeed|yep|yeah)\b(?=\s*[.,!;:—–-]))"
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
        return None, f"the clause {_show(clause)} says both true and false"
    value = values.pop()
    return value, f"{_show(clause)} reads as {str(value).lower()}"


def _bool_result(got: tuple[bool | None, str], method: str, why: str, capped: bool) -> Extraction:
    value, how = got
    if value is None:
        return _ex(None, "ambiguous", f"{how} ({why})", capped)
    return _ex(str(value).lower(), method, f"{why}: {how}", capped)


def extract_boolean(text: str, query: str | None = None) -> Extraction:
    """``true`` or ``false`` as the answer commits to it (see the module docstring).

    Args:
        text: the answer.
        query: the question, when known: its predicate lets "51 is not prime" answer "Is 51 prime?".
    """
    text, capped = cap_text(text)
    text = _clean_latex(text)
    line = _declared_clause(text)
    if line is not None:
        got = _polarity(line)
        if got:
            return _bool_taken_back(text, line, _as_declared(_bool_result(got, "declared", _show(line), capped)))
    boxed = _last_boxed(text)
    if boxed:
        got = _polarity(boxed)
        if got:
            return _bool_result(got, "boxed", "inside \\boxed{...}", capped)
    for cue, clause in reversed(answer_cues(text)):
        got = _polarity(clause)
        if got:
            return _bool_taken_back(text, clause, _bool_result(got, "answer_cue", f"after the cue {cue!r}", capped))
    sentences = _sentences(text)
    both = {m["w"].lower() for m in SO_VERDICT.finditer(text)}
    if len(both) > 1:
        return _ex(None, "ambiguous", "the answer concludes both ways ('so yes' and 'so no')", capped)
    if sentences and HEDGE.match(sentences[-1]) and _POLARITY_RE.search(text):
        return _ex(None, "ambiguous", f"the answer ends by leaving it open: {_show(sentences[-1])}", capped)
    lead = _LEADING_WORD.match(text.lstrip())
    lead_value = (_POLARITY[lead["w"].lower()] if lead["w"] else not lead["neg"]) if lead else None
    conclusion: tuple[bool | None, str] | None = None
    for sentence in reversed(sentences[1:] if lead else sentences):
        concluding = _CONCLUSION.search(sentence)
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
            return _ex(
                None,
                "ambiguous",
                f"the answer starts with {said!r} but concludes {str(conclusion[0]).lower()} ({conclusion[1]})",
                capped,
            )
        return _ex(str(lead_value).lower(), "leading", f"the answer starts with {said!r}", capped)
    if conclusion and truncated(text) and conclusion[1] and sentences and sentences[-1] in conclusion[1]:
        return _ex(None, "none", "the answer stops mid-sentence (truncated?) in its concluding sentence", capped)
    if conclusion:
        return _bool_result(conclusion, "conclusion", "the last sentence that states a truth value", capped)
    for inner in reversed(_bolds(text)):
        got = _polarity(inner)
        if got and got[0] is not None:
            return _bool_result(got, "bold", f"the last bold span **{inner}**", capped)
    said_yes = said_verdict(text)
    if said_yes is not None:
        return _ex(
            str(said_yes[0]).lower(),
            "conclusion",
            f"{_show(said_yes[1])} (the yes/no the answer says is given)",
            capped,
        )
    return _boolean_without_words(text, sentences, query, capped)


def _bool_taken_back(text: str, clause: str, found: Extraction) -> Extraction:
    """``found``, unless the text after ``clause`` gives the other value: a later answer cue, or
    after a take-back word (:data:`harness.metrics.number_cues.TAKE_BACK`) a sentence with a
    yes/no word ("Answer: no. However, I should correct myself: … so the answer is yes")."""
    at = text.rfind(clause)
    if found.value is None or at < 0:
        return found
    tail = text[at + len(clause) :]
    later = [got for _, c in answer_cues(tail) if (got := _polarity(c))]
    if not later and (fix := TAKE_BACK.search(tail)):
        later = [got for s in _sentences(tail[fix.end() :]) if (got := _polarity(s))]
    if not later or later[-1][0] == (found.value == "true"):
        return found
    return _ex(None, "ambiguous", f"{found.value!r} is taken back later: {later[-1][1]}", found.capped)


def _boolean_without_words(text: str, sentences: list[str], query: str | None, capped: bool) -> Extraction:
    """The rules for answers without a yes/no word (:mod:`harness.metrics.boolean_cues`)."""
    if truncated(text):
        return _ex(None, "none", "the answer stops mid-sentence (truncated?) and gives no yes/no word", capped)
    first = sentences[0] if sentences else ""
    lead_not = LEADING_NOT.match(first)
    short = short_aux(first)
    if lead_not or short is not None:
        value = False if lead_not else short
        later = predicate_polarity(query, " ".join(sentences[1:])) if len(sentences) > 1 else None
        if later is not None and later[0] != value:
            return _ex(
                None, "ambiguous", f"the answer opens with {_show(first)} but later says {_show(later[1])}", capped
            )
        return _ex(str(value).lower(), "leading", f"the answer opens with {_show(first)}", capped)
    holds = [m for m in HOLDS.finditer(text)]
    if holds:
        m = holds[-1]
        value = not (m["neg"] or m["neg2"])
        return _ex(str(value).lower(), "conclusion", f"{_show(m.group(0))} (the last verdict on the statement)", capped)
    myths = list(MYTH.finditer(text[:2000]))
    if myths:
        value = bool(myths[0]["neg"])
        return _ex(
            str(value).lower(),
            "conclusion",
            f"{_show(myths[0].group(0))}: the claim is {'not ' if not value else ''}a myth",
            capped,
        )
    compared = comparison_polarity(query, text)
    if compared is not None:
        return _ex(
            str(compared[0]).lower(), "predicate", f"{_show(compared[1])} answers the question's comparison", capped
        )
    said = predicate_polarity(query, text)
    if said is not None:
        return _ex(str(said[0]).lower(), "predicate", f"{_show(said[1])} answers the question's predicate", capped)
    return _ex(None, "none", "no yes/no or true/false found in the answer", capped)


# ----------------------------------------------------------------------------------------- code

_FENCE = re.compile(
    r"^[ \t]*(?P<fence>```+|~~~+)[ \t]*(?P<lang>[\w+#.-]*)[^\n]*\n(?P<code>.*?)"
    r"(?:^[ \t]*(?P=fence)[ \t]*$|\Z)",
    re.MULTILINE | re.DOTALL,
)
_FENCE_LINE = re.compile(r"^[ \t]*(?:```+|~~~+)[\w+#.-]*[ \t]*$")
_CODE_START = re.compile(r"^(?:async\s+def|def|class|import|from\s+[\w.]+\s+import|@)\b")
_PYTHON_LANGS = {"python", "py", "python3", "py3"}
#: The most trailing lines :func:`extract_code` drops while looking for code that parses.
TRIM_LINES = 40


def _parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _defines(code: str, name: str, tree: ast.Module | None = None) -> bool:
    tree = tree or _parse(code)
    if tree is None:
        return bool(re.search(r"^\s*(?:async\s+)?def\s+" + re.escape(name) + r"\s*\(", code, re.MULTILINE))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
    return False


def code_blocks(text: str) -> list[tuple[str, str]]:
    """The fenced code blocks of ``text`` as ``(language, code)``; an unclosed fence runs to the end."""
    return [(m["lang"].lower(), m["code"]) for m in _FENCE.finditer(text)]


def _dedent_indented_blocks(lines: list[str]) -> list[str]:
    """Markdown's indented code blocks (4 spaces or a tab after a blank line) moved to column 0."""
    out = list(lines)
    i = 0
    while i < len(out):
        if (
            out[i].startswith(("    ", "\t"))
            and (i == 0 or not out[i - 1].strip())
            and _CODE_START.match(out[i].lstrip())
        ):
            j = i
            while j < len(out) and (not out[j].strip() or out[j].startswith(("    ", "\t"))):
                j += 1
            block = textwrap.dedent("\n".join(out[i:j])).split("\n")
            out[i:j] = block
            i += len(block)
        else:
            i += 1
    return out


_STATEMENT_LINE = re.compile(r"^[A-Za-z_][\w.]*\s*(?:[-+*/]?=|\(|\[)|^(?:return|if|for|while|try|with|print)\b")


def _unfenced(text: str, function: str) -> str | None:
    """The last stretch of unfenced code in ``text`` that parses and defines ``function``.

    A stretch starts at a line opening with ``def``/``class``/``import``/``from … import``/``@``
    that follows prose (or starts the text); fence-only lines are dropped; trailing prose is cut
    line by line (at most :data:`TRIM_LINES`) until the stretch parses.
    """
    lines = [ln for ln in text.split("\n") if not _FENCE_LINE.match(ln)]
    lines = _dedent_indented_blocks(lines)
    heads: list[int] = []
    prose = True
    for i, ln in enumerate(lines):
        if not ln.strip() or ln[0] in " \t":
            continue
        if _CODE_START.match(ln):
            if prose:
                heads.append(i)
            prose = False
        elif not _STATEMENT_LINE.match(ln):
            prose = True
    for head in reversed(heads[-8:]):
        end = len(lines)
        for _ in range(TRIM_LINES):
            chunk = "\n".join(lines[head:end]).rstrip() + "\n"
            tree = _parse(chunk)
            if tree is not None:
                if _defines(chunk, function, tree):
                    return chunk
                break
            end -= 1
            while end > head and not lines[end - 1].strip():
                end -= 1
            if end <= head:
                break
    return None


def extract_code(text: str, function: str | None = None) -> Extraction:
    """The Python code in ``text`` to run against a case's tests (see the module docstring).

    Args:
        text: the answer.
        function: the name the tests call; picks the block that defines it.
    """
    text, capped = cap_text(text)
    blocks = code_blocks(text)
    n = len(blocks)
    if function:
        defining = [i for i, (_, code) in enumerate(blocks) if _defines(code, function)]
        if defining:
            i = defining[-1]
            return _ex(
                blocks[i][1],
                "fenced_defines",
                f"code block {i + 1} of {n} defines {function}()"
                + (f" (the last of {len(defining)} that do)" if len(defining) > 1 else ""),
                capped,
            )
        whole = _parse(text)
        if whole is not None and _defines(text, function, whole):
            return _ex(
                text,
                "whole_answer",
                f"no fenced block; the whole answer parses as Python and defines {function}()",
                capped,
            )
        code = _unfenced(text, function)
        if code is not None:
            return _ex(
                code,
                "unfenced_defines",
                f"unfenced code that parses and defines {function}() (prose and stray fences left out)",
                capped,
            )
    if blocks:
        py = [i for i, (lang, _) in enumerate(blocks) if lang in _PYTHON_LANGS]
        i, method = (py[0], "first_python_block") if py else (0, "first_block")
        lang = blocks[i][0] or "no language"
        missing = f"; no block defines {function}()" if function else ""
        return _ex(blocks[i][1], method, f"code block {i + 1} of {n} ({lang}){missing}", capped)
    tree = _parse(text)
    if tree is not None and not function and any(not isinstance(node, ast.Expr) for node in tree.body):
        return _ex(text, "whole_answer", "no fenced block; the whole answer parses as Python", capped)
    what = f" defining {function}()" if function else ""
    return _ex(None, "none", f"no fenced code block and no Python code{what} in the answer", capped)


def math_equivalent(text: str) -> float | None:
    """The value of ``text`` read as one mathematical expression (see :func:`harness.metrics.numbers.math_value`)."""
    return math_value(text)
