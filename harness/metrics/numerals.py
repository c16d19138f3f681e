"""Number notations rewritten to plain digits before an answer's numbers are read.

:func:`plain_numerals` rewrites, in this order (each a small table or pattern, not a parser):

* **vulgar fractions** (``½``, ``¾``, ``⅓``, any character whose ``unicodedata.numeric`` value is
  a fraction below 1): after a digit they add to it (``3½`` → ``3.5``, ``2 ¾`` → ``2.75``), alone
  they are their value (``½`` → ``0.5``); ``⁄`` (the fraction slash) becomes ``/``;
* **superscript exponents** (``10⁹``, ``2³``, ``10⁻³``): the digits become ``^9``, and a power of
  a number with at most four digits and an exponent of at most three digits is written out when it
  is below 10^15 (``10⁹`` → ``1000000000``, ``2^10`` → ``1024``; ``10^{-3}`` → ``0.001``);
* **mixed numbers** ``3 1/4`` (a whole number, one space, a proper fraction with a denominator of
  at most 100) → ``3.25``;
* **dots as thousands separators** when there are at least two groups (``2.500.000`` → ``2500000``;
  one group such as ``2.500`` stays a decimal here; :func:`dotted_thousands` reads it as thousands
  when the answer shows that convention, or when the group ends in "00" and the question asks for a
  count);
* **roots and π with a number**: ``2√3``, ``2\\sqrt{3}`` → ``3.464101615``, ``4π`` → ``12.56637061``,
  ``π/4`` and ``3π/4`` → their value (a bare π is left alone: "π ≈ 3.14" states 3.14); what that
  leaves of a LaTeX fraction (``\\frac{\\sqrt{3}}{2}`` → ``\\frac{1.732050808}{2}``) becomes its value
  in answers by :func:`fraction_values`
  (the value, so the check compares numbers; an expression around them is left to the other rules);
* **decimal commas**: a comma followed by one or two digits, or by four or more, and no further
  digit group (``1,15 l``, ``0,35``, ``0,7917``, ``3,14159``) is a decimal point, and so is a comma
  after a lone zero (``0,375``); thousands groups have three digits after a non-zero lead, so
  ``1,150`` is unchanged;
  a continental amount, thousands grouped by dots or spaces before a decimal comma (``1.102,50`` →
  ``1102.50``, ``11 576,25`` → ``11576.25``), is read whole;
* **Swiss notation**: thousands apostrophes (``1'250``, ``12’500'000``) are dropped, and so is the
  dash that marks a whole amount (``1'100.–`` → ``1100``, ``250.-``);
* **digits and a part**: "2 and a half" → 2.5, "1 and three quarters" → 1.75;
* **dozens**: "half a dozen" → 6, "a dozen" / "one dozen" → 12, "<n> dozen" (digits or a number
  word from one to twelve) → n × 12, "a baker's dozen" → 13.

Numbers inside words and identifiers are left alone. Every rewrite keeps the text around it, so
the rules of :mod:`harness.metrics.extraction` see the same sentences.
"""

from __future__ import annotations

import re
import unicodedata

_VULGAR = "".join(
    ch
    for ch in map(chr, range(0x00BC, 0x2190))
    if unicodedata.category(ch) == "No"
    and 0 < unicodedata.numeric(ch, 0) < 1
    and "FRACTION" in unicodedata.name(ch, "")
)
_VULGAR_RE = re.compile(r"(?<![\w.])(?:(?P<whole>\d+)[ \t]?)?(?P<frac>[" + re.escape(_VULGAR) + r"])")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUPER_RE = re.compile(r"(?<=[\d)])(?P<sup>[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_POWER_RE = re.compile(
    r"(?<![\w.^])(?<![x×*][ \t])(?<![×*])(?P<base>\d{1,4})[ \t]?\^[ \t]?"
    r"(?:\{(?P<e1>[-−]?\d{1,3})\}|(?P<e2>[-−]?\d{1,3}))"
    r"(?![\d^]|\.\d)"
)
_MIXED_RE = re.compile(r"(?<![\w./,])(?P<whole>\d{1,6})[ \t]+(?P<num>\d{1,2})/(?P<den>\d{1,3})(?![\w/]|\.\d)")
_DOTTED_RE = re.compile(r"(?<![\w.,])\d{1,3}(?:\.\d{3}){2,}(?![\w.,]\d|\.\d)")
_ROOT_RE = re.compile(
    r"(?<![\w.])(?P<k>\d{1,6}(?:\.\d+)?)?[ \t]?(?:√|\\sqrt)[ \t]?"
    r"(?:\{(?P<r1>\d{1,6}(?:\.\d+)?)\}|(?P<r2>\d{1,6}(?:\.\d+)?))(?![\d.]\d)"
)
_PI_OVER_RE = re.compile(
    r"(?<![\w.])(?P<k>\d{1,6}(?:\.\d+)?)?[ \t]?(?:π|\\pi\b)[ \t]?/[ \t]?(?P<d>\d{1,6})(?![\d.]\d|\.\d)"
)
_FRAC_NUM_RE = re.compile(r"\\[dt]?frac\s*\{\s*(?P<a>\d{1,12}(?:\.\d+)?)\s*\}\s*\{\s*(?P<b>\d{1,12}(?:\.\d+)?)\s*\}")
_PI_RE = re.compile(r"(?<![\w.])(?P<k>\d{1,6}(?:\.\d+)?)[ \t]?(?:π|\\pi\b)(?![\w^])")
#: A continental amount: dot-grouped thousands and a decimal comma ("1.102,50", "12.345.678,9").
_CONTINENTAL_RE = re.compile(r"(?<![\w.,])(?P<int>[1-9]\d{0,2}(?:\.\d{3})+),(?P<dec>\d{1,2})(?!\d|[.,]\d)")
#: A continental amount grouped by spaces (also no-break and thin spaces) before a decimal comma
#: ("11 576,25", "1 102,50").
_SPACED_CONTINENTAL_RE = re.compile(
    r"(?<![\w.,])(?P<int>[1-9]\d{0,2}(?:[ \u00a0\u202f\u2009]\d{3})+),(?P<dec>\d{1,2})(?!\d|[.,]\d)"
)
#: Swiss thousands apostrophes ("1'250", "12’500'000") and the price dash of a whole amount ("1'100.–",
#: "250.-", "80,–").
_APOSTROPHE_RE = re.compile(r"(?<![\w'’.,])[1-9]\d{0,2}(?:['’]\d{3})+(?![\w'’]|[.,]\d)")
_PRICE_DASH_RE = re.compile(r"(?<=\d)[.,][–—-](?![\w–—-])")
_DECIMAL_COMMA_RE = re.compile(
    r"(?<![\d,.])(?:(?P<a>\d{1,6}),(?P<b>\d{1,2}|\d{4,12})|(?P<z>0),(?P<c>\d{3}))(?![\d]|,\d)"
)
_AND_A_PART = re.compile(
    r"(?i)(?<![\w.])(?P<n>\d{1,6})\s+and\s+(?P<part>a\s+half|one\s+half|a\s+quarter|one\s+quarter|"
    r"three\s+quarters|a\s+third|two\s+thirds)\b"
)
_PARTS = {
    "a half": 0.5,
    "one half": 0.5,
    "a quarter": 0.25,
    "one quarter": 0.25,
    "three quarters": 0.75,
    "a third": 1 / 3,
    "two thirds": 2 / 3,
}
_SMALL = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_DOZEN_RE = re.compile(
    r"(?i)(?<![\w-])(?P<how>half\s+a|a\s+baker'?s|an?|one|(?P<n>\d{1,4}|" + "|".join(_SMALL) + r"))\s+dozen\b"
)


def _vulgar(m: re.Match[str]) -> str:
    value = unicodedata.numeric(m["frac"]) + (int(m["whole"]) if m["whole"] else 0)
    return f"{value:.6g}"


def _power(m: re.Match[str]) -> str:
    base = int(m["base"])
    exp = int((m["e1"] or m["e2"]).replace("−", "-"))
    if base == 0 or abs(exp) > 15:
        return m.group(0)
    value = base**exp if exp >= 0 else base ** float(exp)
    if value >= 1e15 or (isinstance(value, float) and value < 1e-12):
        return m.group(0)
    return str(value) if isinstance(value, int) else f"{value:.12g}"


def _mixed(m: re.Match[str]) -> str:
    num, den = int(m["num"]), int(m["den"])
    if not 0 < num < den <= 100:
        return m.group(0)
    return f"{int(m['whole']) + num / den:.6g}"


def _dozen(m: re.Match[str]) -> str:
    how = m["how"].lower()
    if how.startswith("half"):
        return "6"
    if how.startswith("a baker"):
        return "13"
    if m["n"]:
        n = int(m["n"]) if m["n"].isdigit() else _SMALL[m["n"].lower()]
        return str(n * 12)
    return "12"


def _root(m: re.Match[str]) -> str:
    return f"{float(m['k'] or 1) * float(m['r1'] or m['r2']) ** 0.5:.10g}"


def _pi(m: re.Match[str]) -> str:
    return f"{float(m['k']) * 3.141592653589793:.10g}"


def _pi_over(m: re.Match[str]) -> str:
    den = float(m["d"])
    return f"{float(m['k'] or 1) * 3.141592653589793 / den:.10g}" if den else m.group(0)


def _frac_num(m: re.Match[str]) -> str:
    den = float(m["b"])
    return f"{float(m['a']) / den:.10g}" if den else m.group(0)


#: A number with one dotted group of three digits ("70.000"): thousands or a decimal, by convention.
_ONE_GROUP_RE = re.compile(
    r"(?<![\w.,^])(?P<a>[1-9]\d{0,2})\.(?P<b>\d{3})(?![\w.,]\d|\.\d|\d|\s*(?:[x×*]|\\times|\\cdot)\s*10|[eE][-+−]?\d)"
)
#: A currency written after the amount, as in continental Europe ("70.000 $", "1.250 €", "300.000 EUR"); a
#: "$" only after a space ("0.375$" closes LaTeX math).
_CURRENCY_AFTER_RE = re.compile(
    r"(?<![\w.,])[1-9]\d{0,2}\.\d{3}(?!\d)"
    r"(?:[ \t\u00a0][$€£¥₹]|[ \t\u00a0]?(?:[€£¥₹]|(?:EUR|USD|GBP|CHF|euros?|dollars?)\b))"
)


#: A question that asks for a count ("How many seconds …?", "the number of …").
_COUNT_QUESTION = re.compile(r"(?i)\bhow\s+many\b|\bnumber\s+of\b")


def dotted_thousands(text: str, givens: set[float] | None = None, query: str | None = None) -> str:
    """``text`` with one-group dotted numbers ("70.000") written as thousands ("70000") when the
    answer shows the dot-for-thousands convention, else unchanged.

    The convention is shown by any of: a number with two or more dotted groups ("2.500.000"); a
    decimal comma ("1,5", "0,35"); a currency written after a dotted amount ("80.000 $", "1.250 €");
    or, with the question's numbers known, a dotted number whose thousands reading is a number the
    question gave and whose decimal reading is not ("$80,000" in the question, "80.000" in the
    answer). Without such a sign "2.500" stays 2.5: an English decimal is far more common; the
    mantissa of scientific notation ("1.024 × 10⁶") is never read as thousands.

    A dotted group ending in "00" ("604.800", "86.400") is read as thousands by itself when the
    question asks for a count ("How many …", "the number of …") or the answer writes two or more
    such numbers: an English decimal is not written with two trailing zeros, and a count is whole.
    """
    if "." not in text:
        return text
    ones = list(_ONE_GROUP_RE.finditer(text))
    if not ones:
        return text
    shown = (
        _DOTTED_RE.search(text) is not None
        or _DECIMAL_COMMA_RE.search(text) is not None
        or _CURRENCY_AFTER_RE.search(text) is not None
        or bool(
            givens and any(float(m["a"] + m["b"]) in givens and float(f"{m['a']}.{m['b']}") not in givens for m in ones)
        )
    )
    if shown:
        return _ONE_GROUP_RE.sub(r"\g<a>\g<b>", text)
    round_groups = [m for m in ones if m["b"].endswith("00")]
    if round_groups and (len(round_groups) > 1 or _COUNT_QUESTION.search(query or "")):
        return _ONE_GROUP_RE.sub(lambda m: m["a"] + m["b"] if m["b"].endswith("00") else m.group(0), text)
    return text


def fraction_values(text: str) -> str:
    """``text`` with LaTeX fractions of two plain numbers as their value (``\\frac{1.732050808}{2}``,
    what :func:`plain_numerals` leaves of ``\\frac{\\sqrt{3}}{2}``, → ``0.8660254038``). Applied to
    answers only: a question's ``\\frac{3}{8}`` states 3 and 8, not the value it asks for."""
    return _FRAC_NUM_RE.sub(_frac_num, text) if "frac" in text else text


def plain_numerals(text: str) -> str:
    """``text`` with the notations of the module docstring written as plain digits."""
    if "√" in text or "\\sqrt" in text:
        text = _ROOT_RE.sub(_root, text)
    if "π" in text or "\\pi" in text:
        text = _PI_RE.sub(_pi, _PI_OVER_RE.sub(_pi_over, text))
    if not text.isascii():
        text = text.replace("\u2044", "/")
        text = _VULGAR_RE.sub(_vulgar, text)
        text = _SUPER_RE.sub(lambda m: "^" + m["sup"].translate(_SUPERSCRIPT), text)
    if "^" in text:
        text = _POWER_RE.sub(_power, text)
    if "/" in text:
        text = _MIXED_RE.sub(_mixed, text)
    if "'" in text or "’" in text:
        text = _APOSTROPHE_RE.sub(lambda m: re.sub(r"['’]", "", m.group(0)), text)
    if "–" in text or "—" in text or "-" in text:
        text = _PRICE_DASH_RE.sub("", text)
    if "," in text:
        text = _SPACED_CONTINENTAL_RE.sub(lambda m: re.sub(r"\s", "", m["int"]) + "." + m["dec"], text)
    if "." in text and "," in text:
        text = _CONTINENTAL_RE.sub(lambda m: m["int"].replace(".", "") + "." + m["dec"], text)
    if "." in text:
        text = _DOTTED_RE.sub(lambda m: m.group(0).replace(".", ""), text)
    if "," in text:
        text = _DECIMAL_COMMA_RE.sub(lambda m: f"{m['a'] or m['z']}.{m['b'] or m['c']}", text)
    if " and " in text:
        text = _AND_A_PART.sub(lambda m: f"{int(m['n']) + _PARTS[' '.join(m['part'].lower().split())]:.6g}", text)
    if "dozen" in text.lower():
        text = _DOZEN_RE.sub(_dozen, text)
    return text
