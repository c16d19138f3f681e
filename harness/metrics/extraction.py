"""Answer extraction: find the part of a free-text answer that an objective check compares, and say why.

Every extractor returns an :class:`Extraction` naming the value it found, the rule that found it
(``method``) and a readable ``detail``, so a failed check shows *what* was compared.

Rules, in order of precedence (the first rule that yields something wins):

Numbers (:func:`extract_number`)
    1. ``boxed`` — the last ``\\boxed{...}``;
    2. ``answer_cue`` — the last "answer is / answer: / answer =" clause (a cue followed by "not" is
       skipped; an empty clause continues on the next non-empty line);
    3. ``bold`` — the last ``**...**`` span that is just a number (plus up to two words of unit);
    4. in the last sentence that holds a number: ``equals`` — the number after its last ``=`` or
       ``≈``; else ``conclusion_cue`` — the first number after its last "therefore / thus / hence /
       so / in total / ..."; else ``last_number``.
    Inside a clause, the number after the last ``=`` wins, else the first number.
    Numbers may carry a sign (``-``, ``−``), a currency sign ($ € £ ¥ ₹), thousands separators
    (``1,234,567``: groups of exactly three digits), decimals, an exponent (``1.5e-3``,
    ``2 x 10^3``), a fraction (``3/4``; a zero denominator is not a number), a percent sign or the
    word "percent", and a scale word (thousand, million, billion, trillion). Spelled-out numbers
    from zero to ninety-nine count only where no digits are available (in the clause, or in the
    whole answer for the fallback). Not supported: decimal commas (``3,5`` is 3 and 5), mixed
    numbers (``1 1/2``), ranges.

Choices (:func:`extract_choice`)
    ``boxed``; ``answer_cue`` (a leading letter, a letter in parentheses, or exactly one option's
    text in the clause); ``bare_letter`` (the whole answer is one letter); ``marker`` ("Option B",
    "(B)", "B)" — exactly one distinct letter, else ambiguous and nothing is extracted);
    ``option_text`` (exactly one option's text matches the short answer under :func:`phrase_match`);
    ``trailing_letter`` (a short first sentence ends with an upper-case option letter).
    A lower-case letter counts only in parentheses, before ")" or alone, so "the answer is a
    city" is not option "a".

Short answers (:func:`extract_answer`, for ``exact`` and ``any_of``)
    ``boxed``; ``answer_cue``; ``bold`` (the last bold span of at most 8 words not ending in ":");
    else the first sentence of the first non-empty line (``whole`` when that is the whole answer,
    else ``first_sentence``).

Code (:func:`extract_code`)
    ``fenced_defines`` — the last fenced block that defines the expected function; else
    ``first_python_block`` (the first block labelled python/py/python3) or ``first_block``; else
    ``whole_answer`` when the whole answer parses as Python (``ast.parse`` only, never executed)
    and defines the function (or, with no function named, holds at least one statement that is
    not a bare expression, so that a prose word like "Paris" is not taken for code).
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Mapping

from harness.model import Frozen

#: Candidates longer than this are never matched by containment (see :func:`phrase_match`).
SHORT_ANSWER_WORDS = 15

#: Words that stop containment matching: negations, and alternatives that hedge between answers.
BLOCKING_WORDS = frozenset(
    "not no never neither nor none nothing cannot cant isnt arent wasnt werent dont doesnt didnt "
    "wont wouldnt couldnt shouldnt hasnt havent hadnt aint incorrect wrong or either".split()
)


class Extraction(Frozen):
    """What was taken from an answer, how and why.

    Args:
        value: the extracted text — a number as written (``$1,234.50``), a choice letter as it is
            spelled in the options, a short answer, or a code block; ``None`` when nothing fit.
        method: the rule that produced it (``boxed``, ``answer_cue``, ``bold``, ``equals``,
            ``conclusion_cue``, ``last_number``, ``bare_letter``, ``marker``, ``option_text``,
            ``fenced_defines``, ``whole_answer``, ... or ``none``).
        detail: a readable explanation, e.g. ``"'9' after the cue 'so'"``.
    """

    value: str | None
    method: str
    detail: str


class ParsedNumber(Frozen):
    """A number read from text.

    Args:
        text: the number as written.
        value: its value (a percentage keeps its written value: ``25%`` -> 25.0).
        percent: whether it was written as a percentage.
        kind: how it was read (``plain``, ``fraction``, ``percentage``, ``currency``, ...).
    """

    text: str
    value: float
    percent: bool = False
    kind: str = "plain"


def _show(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


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
        return False, (f"{_show(exp)} appears, but the answer has {len(words)} words "
                       f"(containment counts only up to {SHORT_ANSWER_WORDS})")
    rest = pattern.sub(" ", cand).split()
    blocking = sorted({w for w in rest if w in BLOCKING_WORDS})
    if blocking:
        return False, f"{_show(exp)} appears, but the answer also says {blocking} (negation or alternative)"
    return True, f"{_show(exp)} appears as a whole phrase in the {len(words)}-word answer {_show(cand)}"


def _clean_latex(text: str) -> str:
    text = re.sub(r"\\d?frac\s*\{\s*([^{}]*?)\s*\}\s*\{\s*([^{}]*?)\s*\}", r"\1/\2", text)
    text = re.sub(r"\\(?:text|mathrm|textbf|mathbf)\s*\{([^{}]*)\}", r"\1", text)
    text = text.replace("\\%", "%").replace("\\$", "$").replace("\\,", ",").replace("\\!", "")
    text = text.replace("\\times", "×").replace("\\cdot", "×").replace("\\approx", "≈")
    return text


def _last_boxed(text: str) -> str | None:
    start = text.rfind("\\boxed")
    if start < 0:
        return None
    brace = text.find("{", start)
    if brace < 0:
        return None
    depth = 0
    for i in range(brace, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[brace + 1 : i].strip()
    return None


_MARKUP = " \t*_`\"'“”‘’>"
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
_ANSWER_CUE = re.compile(
    r"(?i)\b(?P<cue>(?:final\s+|correct\s+|right\s+|short\s+)?answer)[*_]*"
    r"(?:\s+(?:is|would\s+be|will\s+be|was)\b[ \t]*:?|[ \t]*[:=])"
)
_ANSWER_HEADING = re.compile(r"(?im)^[ \t>#*_-]*(?P<cue>(?:final\s+)?answer)[ \t*_]*$")


def _clause(rest: str) -> str:
    rest = rest.strip(_MARKUP)
    m = _SENTENCE_END.search(rest)
    return (rest[: m.start()] if m else rest).strip(_MARKUP)


def _next_line(text: str, pos: int) -> str:
    for line in text[pos:].split("\n"):
        if line.strip(_MARKUP):
            return line
    return ""


def answer_cues(text: str) -> list[tuple[str, str]]:
    """The ``(cue, clause)`` pairs of explicit answer cues, in reading order.

    A cue is "answer is / was / would be / will be", "answer:" or "answer =" (optionally "final",
    "correct", "right", "short" answer), or a line that is only "Answer" / "Final answer". The
    clause is the rest of that sentence; when it is empty, the next non-empty line. Cues whose
    clause starts with "not" are left out.
    """
    found: list[tuple[int, str, str]] = []
    for m in _ANSWER_CUE.finditer(text):
        line_end = text.find("\n", m.end())
        rest = text[m.end(): len(text) if line_end < 0 else line_end]
        clause = _clause(rest) or _clause(_next_line(text, m.end()))
        found.append((m.start(), " ".join(m.group(0).split()), clause))
    for m in _ANSWER_HEADING.finditer(text):
        found.append((m.start(), m["cue"], _clause(_next_line(text, m.end()))))
    found.sort(key=lambda t: t[0])
    return [(cue.strip(" *_:=").lower(), clause) for _, cue, clause in found
            if clause and not re.match(r"(?i)not\b", clause)]


def _sentences(text: str) -> list[str]:
    parts = re.split(r"\n+|(?<=[.!?;])\s+", text)
    return [p.strip() for p in parts if p.strip()]


# -------------------------------------------------------------------------------------- numbers

_CURRENCY = "$€£¥₹"
_NUMBER_RE = re.compile(
    r"(?<![\w./])"
    r"(?P<sign1>[-+\u2212]?)(?:(?P<cur>[$€£¥₹])[ \t]?)?(?P<sign2>[-+\u2212]?)"
    r"(?P<body>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+)"
    r"(?P<exp>[eE][-+\u2212]?\d+)?"
    r"(?:[ \t]*/[ \t]*(?P<den>\d+)(?![\d/]|\.\d))?"
    r"(?:[ \t]*[x×*][ \t]*10[ \t]*\^[ \t]*\{?(?P<pow>[-+\u2212]?\d+)\}?)?"
    r"(?P<pct>[ \t]?%|[ \t]+per[ \t]?cent\b)?"
    r"(?P<scale>[ \t]+(?:thousand|million|billion|trillion)\b)?"
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
          "fifteen sixteen seventeen eighteen nineteen").split()
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_WORD_RE = re.compile(
    r"(?i)(?<![\w-])(?:(?P<tens>" + "|".join(_TENS) + r")(?:[ -](?P<unit>" + "|".join(_UNITS[1:10]) + r"))?"
    r"|(?P<small>" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r"))(?![\w-])"
)


def _minus(sign: str) -> bool:
    return sign in ("-", "\u2212")


def _from_match(m: re.Match[str]) -> ParsedNumber | None:
    kinds: list[str] = []
    body = m["body"]
    if "," in body:
        kinds.append("thousands separators")
    exp = (m["exp"] or "").replace("\u2212", "-")
    if exp:
        kinds.append("scientific")
    value = float(body.replace(",", "") + exp)
    if m["den"]:
        den = int(m["den"])
        if den == 0:
            return None
        value /= den
        kinds.append("fraction")
    if m["pow"]:
        value *= 10.0 ** int(m["pow"].replace("\u2212", "-"))
        kinds.append("scientific")
    if m["scale"]:
        value *= _SCALES[m["scale"].strip().lower()]
        kinds.append("scale word")
    if _minus(m["sign1"]) != _minus(m["sign2"]):
        value = -value
    if m["cur"]:
        kinds.append("currency")
    percent = bool(m["pct"])
    if percent:
        kinds.append("percentage")
    return ParsedNumber(text=m.group(0).strip(), value=value, percent=percent,
                        kind=", ".join(dict.fromkeys(kinds)) or "plain")


def _word_value(m: re.Match[str]) -> float:
    if m["tens"]:
        return float(_TENS[m["tens"].lower()] + (_UNITS.index(m["unit"].lower()) if m["unit"] else 0))
    return float(_UNITS.index(m["small"].lower()))


def find_numbers(text: str, words: bool = False) -> list[tuple[int, ParsedNumber]]:
    """Every number in ``text`` as ``(position, number)`` in reading order.

    Args:
        text: the text to scan.
        words: also read spelled-out numbers (zero to ninety-nine), for text without digits.
    """
    out: list[tuple[int, ParsedNumber]] = []
    for m in _NUMBER_RE.finditer(text):
        parsed = _from_match(m)
        if parsed is not None:
            out.append((m.start(), parsed))
    if words:
        for m in _WORD_RE.finditer(text):
            out.append((m.start(), ParsedNumber(text=m.group(0), value=_word_value(m), kind="spelled out")))
        out.sort(key=lambda t: t[0])
    return out


def parse_number(text: str) -> ParsedNumber | None:
    """Read ``text`` as exactly one number (surrounding spaces and markup allowed), else ``None``.

    Accepts everything :func:`find_numbers` reads, including spelled-out numbers ("seven").
    """
    s = text.strip(_MARKUP).rstrip(".,:;!?").strip(_MARKUP)
    m = _NUMBER_RE.fullmatch(s)
    if m:
        return _from_match(m)
    w = _WORD_RE.fullmatch(s)
    if w:
        return ParsedNumber(text=s, value=_word_value(w), kind="spelled out")
    return None


def _numbers_for(segment: str, allow_words: bool = True) -> list[tuple[int, ParsedNumber]]:
    nums = find_numbers(segment)
    if nums or not allow_words:
        return nums
    return find_numbers(segment, words=True)


_EQUALS = re.compile(r"(?<![<>!=])[=≈](?!=)")


def _pick_in_clause(clause: str, allow_words: bool = True) -> tuple[ParsedNumber, str] | None:
    eqs = list(_EQUALS.finditer(clause))
    if eqs:
        after = _numbers_for(clause[eqs[-1].end():], allow_words)
        if after:
            return after[0][1], f"after the last '{eqs[-1].group(0)}'"
    nums = _numbers_for(clause, allow_words)
    return (nums[0][1], "first number in the clause") if nums else None


def _number_extraction(num: ParsedNumber, method: str, why: str) -> Extraction:
    shown = f"{num.value:.15g}" + ("%" if num.percent else "")
    how = "" if num.kind == "plain" else f" ({num.kind})"
    return Extraction(value=num.text, method=method, detail=f"{num.text!r}{how} = {shown}, {why}")


_BOLD = re.compile(r"\*\*(?P<a>[^*\n]{1,120}?)\*\*|__(?P<b>[^_\n]{1,120}?)__")
_BOLD_NUMBER = re.compile(r"[~≈=]?\s*(?P<num>.+?)(?:\s+[A-Za-z]+){0,2}\.?")
_CONCLUSION = re.compile(
    r"(?i)\b(?:therefore|thus|hence|so|consequently|in\s+total|altogether|overall|in\s+conclusion|"
    r"which\s+gives|giving|(?:total|sum|result)\s+is)\b"
)


def extract_number(text: str) -> Extraction:
    """The final numeric answer in ``text`` (see the module docstring for the rules)."""
    text = _clean_latex(text)
    boxed = _last_boxed(text)
    if boxed is not None:
        picked = _pick_in_clause(boxed)
        if picked:
            return _number_extraction(picked[0], "boxed", f"inside \\boxed{{...}} ({picked[1]})")
    cues = answer_cues(text)
    for cue, clause in reversed(cues):
        picked = _pick_in_clause(clause)
        if picked:
            n = len(cues)
            return _number_extraction(picked[0], "answer_cue",
                                      f"after the cue {cue!r} ({picked[1]}; last of {n} cue{'s' * (n != 1)})")
    for m in reversed(list(_BOLD.finditer(text))):
        inner = (m["a"] or m["b"] or "").strip()
        bm = _BOLD_NUMBER.fullmatch(inner)
        num = parse_number(bm["num"]) if bm else None
        if num is not None:
            return _number_extraction(num, "bold", f"the last bold number **{inner}**")
    any_digits = bool(find_numbers(text))
    for sentence in reversed(_sentences(text)):
        nums = _numbers_for(sentence, allow_words=not any_digits)
        if not nums:
            continue
        eqs = list(_EQUALS.finditer(sentence))
        if eqs:
            after = _numbers_for(sentence[eqs[-1].end():], allow_words=not any_digits)
            if after:
                return _number_extraction(after[0][1], "equals",
                                          f"after the last '{eqs[-1].group(0)}' in the last sentence with a number")
        cues_in = list(_CONCLUSION.finditer(sentence))
        if cues_in:
            after = _numbers_for(sentence[cues_in[-1].end():], allow_words=not any_digits)
            if after:
                return _number_extraction(after[0][1], "conclusion_cue",
                                          f"first number after the cue {cues_in[-1].group(0).lower()!r}")
        method = "last_number" if any_digits else "last_word_number"
        return _number_extraction(nums[-1][1], method,
                                  f"the last number of the last sentence with a number (of {len(nums)} there)")
    return Extraction(value=None, method="none", detail="no number found in the answer")


# ---------------------------------------------------------------------------------- short answers


def _strip_list_marker(line: str) -> str:
    return re.sub(r"^\s*(?:[-*+•]|\d+[.)])\s+", "", line)


def extract_answer(text: str) -> Extraction:
    """The short answer in ``text``: boxed, after an answer cue, the last short bold span, else the
    first sentence (see the module docstring)."""
    text = _clean_latex(text)
    boxed = _last_boxed(text)
    if boxed:
        return Extraction(value=boxed, method="boxed", detail=f"inside \\boxed{{...}}: {_show(boxed)}")
    cues = answer_cues(text)
    if cues:
        cue, clause = cues[-1]
        return Extraction(value=clause, method="answer_cue",
                          detail=f"after the cue {cue!r} (last of {len(cues)}): {_show(clause)}")
    for m in reversed(list(_BOLD.finditer(text))):
        inner = (m["a"] or m["b"] or "").strip()
        if inner and not inner.endswith(":") and len(inner.split()) <= 8:
            return Extraction(value=inner, method="bold", detail=f"the last short bold span: {_show(inner)}")
    lines = [ln for ln in text.split("\n") if ln.strip(_MARKUP)]
    if not lines:
        return Extraction(value=None, method="none", detail="the answer is empty")
    first = _strip_list_marker(lines[0]).strip()
    m = re.search(r"[.!?;](?=\s|$)", first)
    sentence = re.sub(r"\*\*|__|`", "", first[: m.start()] if m else first).strip(_MARKUP)
    if sentence == text.strip().strip(_MARKUP + ".!?;"):
        return Extraction(value=sentence, method="whole", detail=f"the whole answer: {_show(sentence)}")
    return Extraction(value=sentence, method="first_sentence",
                      detail=f"the first sentence (no answer cue found): {_show(sentence)}")


# -------------------------------------------------------------------------------------- choices


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


def _letter_in_clause(clause: str, options: Mapping[str, str]) -> tuple[str, str] | None:
    keys = _letter_pattern(list(options))
    lead = re.match(r"^\W*(?:(?i:option|choice)\s+)?(?P<open>\()?(?P<k>" + keys + r"|[A-Za-z])(?P<close>\))?"
                    r"(?![\w'])", clause, re.IGNORECASE)
    if lead:
        alone = clause.strip(_MARKUP + ".!?:)(") == lead["k"]
        marked = bool(lead["open"] or lead["close"]) or alone or bool(re.match(r"^\W*(?i:option|choice)", clause))
        key = _key_for(lead["k"], options, strict_case=not marked)
        if key is not None:
            return key, "the letter leading the clause"
    paren = [m.group(1) for m in re.finditer(r"\((" + keys + r")\)", clause, re.IGNORECASE)]
    found = {k for k in (_key_for(p, options, strict_case=False) for p in paren) if k is not None}
    if len(found) == 1:
        return found.pop(), "the letter in parentheses in the clause"
    texts = [k for k, opt in options.items() if phrase_match(opt, clause)[0]]
    if len(texts) == 1:
        return texts[0], f"the text of option {texts[0]} in the clause"
    return None


def extract_choice(text: str, options: Mapping[str, str]) -> Extraction:
    """The option letter chosen in ``text`` (a key of ``options``; see the module docstring).

    Args:
        text: the answer.
        options: letter -> option text, as in the case's ``expected.options``.
    """
    text = _clean_latex(text)
    keys = _letter_pattern(list(options))
    boxed = _last_boxed(text)
    if boxed:
        got = _letter_in_clause(boxed, options)
        if got:
            return Extraction(value=got[0], method="boxed", detail=f"{got[0]!r} inside \\boxed{{...}} ({got[1]})")
    cues = answer_cues(text)
    for cue, clause in reversed(cues):
        got = _letter_in_clause(clause, options)
        if got:
            return Extraction(value=got[0], method="answer_cue",
                              detail=f"{got[0]!r} after the cue {cue!r} ({got[1]}: {_show(clause)})")
    bare = text.strip(_MARKUP + ".!?:()[] \n")
    key = _key_for(bare, options, strict_case=False) if len(bare) <= 2 else None
    if key is not None:
        return Extraction(value=key, method="bare_letter", detail=f"the whole answer is the letter {key!r}")
    marker_re = re.compile(r"\b(?:option|choice)\s+\(?(?P<k>" + keys + r")\)?(?![\w'])|\((?P<p>" + keys + r")\)"
                           r"|(?<![\w(])(?P<c>" + keys + r")\)", re.IGNORECASE)
    markers = [m["k"] or m["p"] or m["c"] for m in marker_re.finditer(text)]
    letters = sorted({k for k in (_key_for(x, options, strict_case=False) for x in markers) if k is not None})
    if len(letters) == 1:
        return Extraction(value=letters[0], method="marker",
                          detail=f"the only option marker in the answer is {letters[0]!r} (Option X, (X) or X))")
    if len(letters) > 1:
        return Extraction(value=None, method="ambiguous",
                          detail=f"the answer marks several options {letters} and gives no answer cue")
    short = extract_answer(text)
    if short.value is not None:
        matching = [k for k, opt in options.items() if phrase_match(opt, short.value)[0]]
        if len(matching) == 1:
            return Extraction(value=matching[0], method="option_text",
                              detail=f"the short answer {_show(short.value)} ({short.method}) gives the text "
                                     f"of option {matching[0]} ({_show(options[matching[0]])})")
        if len(short.value.split()) <= SHORT_ANSWER_WORDS:
            tail = re.search(r"(?<![\w'])(" + keys + r")[.!]?$", short.value.strip(_MARKUP))
            if tail and tail.group(1) in options:
                letter = tail.group(1)
                return Extraction(value=letter, method="trailing_letter",
                                  detail=f"the short answer {_show(short.value)} ends with the letter {letter!r}")
        if len(matching) > 1:
            return Extraction(value=None, method="ambiguous",
                              detail=f"the short answer {_show(short.value)} matches several options {matching}")
    return Extraction(value=None, method="none", detail="no option letter or option text found in the answer")


# ----------------------------------------------------------------------------------------- code

_FENCE = re.compile(r"^[ \t]*(?P<fence>```+|~~~+)[ \t]*(?P<lang>[\w+#.-]*)[^\n]*\n(?P<code>.*?)"
                    r"(?:^[ \t]*(?P=fence)[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_PYTHON_LANGS = {"python", "py", "python3", "py3"}


def _parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _defines(code: str, name: str) -> bool:
    tree = _parse(code)
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


def extract_code(text: str, function: str | None = None) -> Extraction:
    """The Python code in ``text`` to run against a case's tests (see the module docstring).

    Args:
        text: the answer.
        function: the name the tests call; picks the block that defines it.
    """
    blocks = code_blocks(text)
    n = len(blocks)
    if function:
        defining = [i for i, (_, code) in enumerate(blocks) if _defines(code, function)]
        if defining:
            i = defining[-1]
            return Extraction(value=blocks[i][1], method="fenced_defines",
                              detail=f"code block {i + 1} of {n} defines {function}()"
                                     + (f" (the last of {len(defining)} that do)" if len(defining) > 1 else ""))
    if blocks:
        py = [i for i, (lang, _) in enumerate(blocks) if lang in _PYTHON_LANGS]
        i, method = (py[0], "first_python_block") if py else (0, "first_block")
        lang = blocks[i][0] or "no language"
        missing = f"; no block defines {function}()" if function else ""
        return Extraction(value=blocks[i][1], method=method,
                          detail=f"code block {i + 1} of {n} ({lang}){missing}")
    tree = _parse(text)
    if tree is not None:
        if function and _defines(text, function):
            return Extraction(value=text, method="whole_answer",
                              detail=f"no fenced block; the whole answer parses as Python and defines {function}()")
        if not function and any(not isinstance(node, ast.Expr) for node in tree.body):
            return Extraction(value=text, method="whole_answer",
                              detail="no fenced block; the whole answer parses as Python")
    what = f" defining {function}()" if function else ""
    return Extraction(value=None, method="none", detail=f"no fenced code block and no Python code{what} in the answer")
