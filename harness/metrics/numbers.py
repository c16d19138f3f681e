"""Reading numbers in answers: digits, spelled-out numbers, zero words and mathematical notation.

Three readers, each used where it fits:

* **digits** — one regular expression (:data:`NUMBER_RE`): an optional sign (``-``, ``−``), currency
  sign ($ € £ ¥ ₹), thousands separators (``1,234,567`` or ``86 400`` with a space, no-break or thin
  space: groups of exactly three digits), decimals,
  an exponent (``1.5e-3``, ``2 x 10^3``), a fraction (``3/4``; a zero denominator is not a number),
  a percent sign or the word "percent", and a scale word (``1.5 million``). Not read: ordinals
  (``12th``), the minutes of a time (``9:00`` is 9), decimal commas (``3,5`` is 3 and 5) and ranges
  (``5-7`` is 5 and 7).
* **spelled-out numbers** — runs of number words ("three", "twenty-one", "two hundred and five",
  a percentage when "percent" follows: "fifteen percent",
  "one million", "one point five") are converted by the ``text2num`` library
  (:func:`text_to_num.alpha2digit`); "and a half" adds 0.5 ("three and a half" = 3.5), "minus" /
  "negative" negates. A lone "one" used as a pronoun ("the one that", "one of them", "no one") is
  not a number.
* **zero words** — only when the caller asks (the expected value is 0): "no" before a noun ("no
  brothers"; not "no matter", "no longer", "no more than", a bare "No,"), "none", "nothing",
  "nobody", "no one" read as 0.
* **compound durations** — "1 hour and 45 minutes", "2 min 30 s" are one number: its value in the
  larger unit (1.75) and ``also`` in the smaller (105); the check accepts either.
* **other notations** (vulgar fractions, superscript powers, mixed numbers, dotted thousands,
  dozens) are rewritten to digits first by :func:`harness.metrics.numerals.plain_numerals`.
* **mathematical notation** — :func:`math_value` reads one LaTeX or plain expression
  (``\\frac{\\sqrt{3}}{2}``, ``2\\pi``, ``1\\frac{1}{2}``, ``10^{-3}``) with ``math-verify`` (the
  parser lighteval and open-r1 use) and evaluates it with SymPy. Inputs longer than
  :data:`MATH_MAX_CHARS` characters, and inputs that could make SymPy compute for long (sums,
  products, integrals, limits; more than one power; a power, factorial or binomial next to a
  number of four or more digits) are not parsed. ``math-verify``'s own time limit uses ``signal.alarm``, which
  works only in the main thread, and scoring runs in worker threads: these bounds replace it.
"""

from __future__ import annotations

import bisect
import functools
import logging
import re

from harness.common.model import Frozen
from harness.metrics.numerals import plain_numerals

#: Longest expression handed to math-verify/SymPy.
MATH_MAX_CHARS = 200


class ParsedNumber(Frozen):
    """A number read from text.

    Args:
        text: the number as written.
        value: its value (a percentage keeps its written value: ``25%`` -> 25.0).
        percent: whether it was written as a percentage.
        kind: how it was read (``plain``, ``fraction``, ``percentage``, ``currency``, ``spelled out``,
            ``zero word``, ``math expression``, ``duration``, ...).
        also: the same quantity in other units (a compound duration "1 hour and 45 minutes" is
            1.75 and also 105: hours or minutes, whichever the question asked for).
    """

    text: str
    value: float
    percent: bool = False
    kind: str = "plain"
    also: tuple[float, ...] = ()


NUMBER_RE = re.compile(
    r"(?<![\w./])(?<!\d:)"
    r"(?P<sign1>[-+\u2212]?)(?:(?P<cur>[$€£¥₹])[ \t]?)?(?P<sign2>[-+\u2212]?)"
    r"(?P<body>(?:\d{1,3}(?:,\d{3})+(?!\d|,\d)"
    r"|\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?![\d,]|\.\d|[ \u00a0\u202f\u2009]\d)"
    r"|\d+)(?:\.\d+)?|\.\d+)"
    r"(?P<exp>[eE][-+\u2212]?\d+)?"
    r"(?:[ \t]?/[ \t]?(?P<den>\d+)(?![\d/]|\.\d))?"
    r"(?:[ \t]?[x×*][ \t]?10[ \t]?\^[ \t]?\{?(?P<pow>[-+\u2212]?\d{1,3})\}?)?"
    r"(?P<pct>[ \t]?%|[ \t]per[ \t]?cent\b)?"
    r"(?P<scale>[ \t](?:thousand|million|billion|trillion)\b)?"
    r"(?!(?<=\d)(?:st|nd|rd|th)\b)"
)
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALE_WORDS = ["hundred", "thousand", "million", "billion", "trillion"]
_NUMBER_WORD = "|".join(sorted(_SMALL + _TENS + _SCALE_WORDS, key=len, reverse=True))
_DIGIT_WORD = "|".join(_SMALL[:10])
WORD_RUN_RE = re.compile(
    r"(?i)(?<![\w-])(?P<sign>(?:minus|negative)\s+)?"
    r"(?P<run>(?:a\s+(?=hundred|thousand|million|billion|trillion))?(?:" + _NUMBER_WORD + r")"
    r"(?:(?:[ \t]+|-|[ \t]+and[ \t]+)(?:" + _NUMBER_WORD + r")){0,12}"
    r"(?:[ \t]+point(?:[ \t]+(?:" + _DIGIT_WORD + r")){1,6})?)"
    r"(?P<half>[ \t]+and[ \t]+(?:a|one)[ \t]+half)?"
    r"(?:[ \t-]+(?P<frac>halves|halfs|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?))?"
    r"(?![\w-])"
)
_FRACTION_WORDS = {
    "half": 2,
    "third": 3,
    "quarter": 4,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
_PRONOUN_BEFORE = re.compile(r"(?i)\b(?:the|this|that|each|every|any|no|some|which|which|a|another|other)\s+$")
_PRONOUN_AFTER = re.compile(r"(?i)^\s+(?:of|another|by|who|which|that|way|thing|at\s+a\s+time)\b")
ZERO_WORD_RE = re.compile(
    r"(?i)(?<![\w-])(?:none|nothing|nobody|no[ \t]+one|no(?=[ \t]+(?!matter\b|longer\b|more\b|less\b|fewer\b"
    r"|one\b|doubt\b|way\b|problem\b|need\b|wait\b|sorry\b|not\b|it\b|the\b|that\b|this\b|I\b|you\b|he\b|she\b"
    r"|we\b|they\b|there\b|answer\b|idea\b|clue\b|comment\b|sorry\b)[A-Za-z]))(?![\w-])"
)


def _minus(sign: str) -> bool:
    return sign in ("-", "\u2212")


def number_from_match(m: re.Match[str]) -> ParsedNumber | None:
    """The :class:`ParsedNumber` of one :data:`NUMBER_RE` match (``None`` for a zero denominator)."""
    kinds: list[str] = []
    body = m["body"]
    if any(sep in body for sep in ", \u00a0\u202f\u2009"):
        kinds.append("thousands separators")
    exp = (m["exp"] or "").replace("\u2212", "-")
    if exp:
        kinds.append("scientific")
    try:
        value = float(re.sub(r"[, \u00a0\u202f\u2009]", "", body) + exp)
    except OverflowError:
        return None
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
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return ParsedNumber(
        text=m.group(0).strip(), value=value, percent=percent, kind=", ".join(dict.fromkeys(kinds)) or "plain"
    )


@functools.lru_cache(maxsize=4096)
def _alpha2digit(run: str) -> str:
    from text_to_num import alpha2digit

    return alpha2digit(run, "en", threshold=0)


def _is_pronoun_one(text: str, m: re.Match[str]) -> bool:
    if m["run"].lower() != "one" or m["sign"] or m["half"]:
        return False
    before = text[max(0, m.start() - 12) : m.start()]
    after = text[m.end() : m.end() + 16]
    return bool(_PRONOUN_BEFORE.search(before) or _PRONOUN_AFTER.match(after))


_PERCENT_AFTER = re.compile(r"(?i)\s*(?:percent|per\s+cent)\b")


def word_numbers(text: str) -> list[tuple[int, ParsedNumber]]:
    """Spelled-out numbers in ``text`` as ``(position, number)``, converted by ``text2num``."""
    out: list[tuple[int, ParsedNumber]] = []
    for m in WORD_RUN_RE.finditer(text):
        if _is_pronoun_one(text, m):
            continue
        run = re.sub(r"(?i)^a\s+", "one ", m["run"])
        digits = _alpha2digit(run)
        nums = [n for d in NUMBER_RE.finditer(digits) if (n := number_from_match(d)) is not None]
        if not nums:
            continue
        negative = bool(m["sign"])
        halved = text[max(0, m.start() - 5) : m.start()].lower() == "half "
        for i, n in enumerate(nums):
            value = n.value + (0.5 if m["half"] and i == len(nums) - 1 else 0.0)
            if m["frac"] and i == len(nums) - 1:
                value /= _FRACTION_WORDS[m["frac"].lower().rstrip("s").replace("halve", "half")]
            if halved and i == 0:
                value /= 2
            if negative and i == 0:
                value = -value
            shown = m.group(0).strip() if len(nums) == 1 else n.text
            pct_word = _PERCENT_AFTER.match(text, m.end()) if i == len(nums) - 1 else None
            pct = pct_word is not None
            kind = "spelled out, percentage" if pct else "spelled out"
            if pct_word is not None and len(nums) == 1:
                shown = text[m.start() : pct_word.end()].strip()
            out.append((m.start(), ParsedNumber(text=shown, value=value, percent=pct, kind=kind)))
    return out


def zero_words(text: str) -> list[tuple[int, ParsedNumber]]:
    """'no brothers', 'none', 'nothing', 'nobody', 'no one' as ``(position, 0)``."""
    return [
        (m.start(), ParsedNumber(text=m.group(0), value=0.0, kind="zero word")) for m in ZERO_WORD_RE.finditer(text)
    ]


DURATION_RE = re.compile(
    r"(?i)(?<![\w.])(?P<big>\d{1,4})[ \t]*(?P<bu>hours?|hrs?|h|minutes?|mins?)[ \t]*,?[ \t]*(?:and[ \t]+)?"
    r"(?P<small>\d{1,2})[ \t]*(?P<su>minutes?|mins?|m|seconds?|secs?|s)\b"
)


def durations(text: str) -> list[tuple[int, int, ParsedNumber]]:
    """Compound durations ("1 hour and 45 minutes", "2 min 30 s") as ``(start, end, number)``: the
    value in the larger unit, ``also`` in the smaller (1.75 and 105)."""
    out = []
    for m in DURATION_RE.finditer(text):
        big_hours = m["bu"].lower().startswith("h")
        small_minutes = m["su"].lower().startswith("m")
        if big_hours != small_minutes:  # hours with seconds, minutes with minutes: not a compound
            continue
        big, small = int(m["big"]), int(m["small"])
        if small >= 60:
            continue
        out.append(
            (
                m.start(),
                m.end(),
                ParsedNumber(text=m.group(0), value=big + small / 60, also=(big * 60.0 + small,), kind="duration"),
            )
        )
    return out


def find_numbers(text: str, words: bool = False, zeros: bool = False) -> list[tuple[int, ParsedNumber]]:
    """Every number in ``text`` as ``(position, number)`` in reading order.

    Args:
        text: the text to scan.
        words: also read spelled-out numbers ("three", "one million", "three and a half").
        zeros: also read zero words ("no brothers", "none") as 0.
    """
    out: list[tuple[int, ParsedNumber]] = []
    spans: list[tuple[int, int]] = []
    compound = durations(text) if re.search(r"(?i)\d[ \t]*(?:h|min)", text) else []
    for m in NUMBER_RE.finditer(text):
        inside = next((d for d in compound if d[0] <= m.start() < d[1]), None)
        if inside is not None:
            if m.start() == inside[0]:
                out.append((inside[0], inside[2]))
                spans.append((inside[0], inside[1]))
            continue
        parsed = number_from_match(m)
        if parsed is not None:
            out.append((m.start(), parsed))
            spans.append((m.start(), m.end()))
    if words:
        # a scale word already read with its digits ("2 million") is not a number of its own
        starts = [a for a, _ in spans]
        for pos, n in word_numbers(text):
            i = bisect.bisect_right(starts, pos) - 1
            if i < 0 or pos >= spans[i][1]:
                out.append((pos, n))
    if zeros:
        out.extend(zero_words(text))
    if words or zeros:
        out.sort(key=lambda t: t[0])
    return out


_MARKUP = " \t*_`\"'“”‘’>"


def parse_number(text: str, zeros: bool = False) -> ParsedNumber | None:
    """Read ``text`` as exactly one number (surrounding spaces and markup allowed), else ``None``.

    Accepts everything :func:`find_numbers` reads, spelled-out numbers ("seven", "one million")
    included, and a single mathematical expression (:func:`math_value`).
    """
    s = plain_numerals(text.strip(_MARKUP).rstrip(".,:;!?").strip(_MARKUP))
    d = DURATION_RE.fullmatch(s)
    if d:
        compound = durations(s)
        if len(compound) == 1:
            return compound[0][2]
    m = NUMBER_RE.fullmatch(s)
    if m:
        return number_from_match(m)
    w = WORD_RUN_RE.fullmatch(s)
    pct = WORD_RUN_RE.match(s)
    if w or (pct and _PERCENT_AFTER.fullmatch(s, pct.end())):
        got = word_numbers(s)
        if len(got) == 1:
            return got[0][1]
    if zeros:
        z = ZERO_WORD_RE.fullmatch(s)
        if z or s.lower() in ("no", "zero"):
            return ParsedNumber(text=s, value=0.0, kind="zero word")
    value = math_value(s)
    if value is not None:
        return ParsedNumber(text=s, value=value, kind="math expression")
    return None


# ------------------------------------------------------------------------------ math expressions

_UNBOUNDED = re.compile(r"\\(?:prod|sum|int|lim|iint|oint)")
_GROWS = re.compile(r"[!^]|\\binom|\\choose|\*\*")


def _too_costly(s: str) -> bool:
    """Expressions SymPy could spend long on: series, integrals, limits; towers of powers; a power,
    factorial or binomial with a number of four or more digits in the expression."""
    return bool(
        _UNBOUNDED.search(s) or s.count("^") + s.count("**") > 1 or (_GROWS.search(s) and re.search(r"\d{4,}", s))
    )


_MATHY = re.compile(r"\\[A-Za-z]+|\^|√|π|\)\s*/|/\s*\(")


@functools.lru_cache(maxsize=2048)
def math_value(text: str) -> float | None:
    """The value of one mathematical expression (LaTeX or plain), read by math-verify, else ``None``.

    Only text that looks mathematical (a LaTeX command, ``^``, ``√``, ``π`` or a fraction with a
    parenthesised term, ``(3-2)/2``) and is at most
    :data:`MATH_MAX_CHARS` long is parsed; a result that is not a real number (a variable, an
    interval, an equation) is ``None``.
    """
    s = text.strip()
    if not s or len(s) > MATH_MAX_CHARS or not _MATHY.search(s) or _too_costly(s):
        return None
    try:
        import sympy
        from math_verify import LatexExtractionConfig, parse
    except ImportError:  # pragma: no cover - math-verify is a core dependency
        return None
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    s = s.replace("√", "\\sqrt").replace("π", "\\pi")
    if not s.startswith("$"):
        s = f"${s}$"
    try:
        parsed = parse(s, extraction_config=[LatexExtractionConfig()], parsing_timeout=None)
        if not parsed:
            return None
        expr = parsed[0]
        if not isinstance(expr, sympy.Expr) or not expr.is_number:
            return None
        value = complex(sympy.N(expr))
    except Exception:  # noqa: BLE001 - math-verify and SymPy raise many kinds on odd input
        return None
    if value.imag or value.real != value.real or abs(value.real) == float("inf"):
        return None
    return float(value.real)
