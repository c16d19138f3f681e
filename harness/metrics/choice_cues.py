"""Rule tables for finding the option an answer names (used by :func:`harness.metrics.extraction.extract_choice`).

* :func:`option_pattern` — an option's text matched inside a sentence as written, whatever the
  punctuation between its words ("a positive (reinforcing) loop", "O(log n)", "Can't be
  determined"), with a plural or singular last word ("rectangle" / "rectangles"), and an optional
  leading article.
* :func:`shield` — a sentence with every option text and every letter marker ("(b)", "B)",
  "option C") replaced by a placeholder, so that splitting the sentence into sub-clauses at
  parentheses and commas does not cut them, and a negation word inside an option's own text ("Not
  enough information") is not read as negating it.
* :data:`ALTERNATIVES` — in a shielded sentence, two options joined by "or" / "/" ("A or D",
  "12/24/2006 or 12/25/2006", "(b) or maybe (c)"): offered as alternatives, so the clause or
  sentence commits to neither (``ambiguous``).
  In an answer's own clause, two options joined by "and" or a comma (:data:`JOINED`) are
  ambiguous too; a last sentence naming several options with a hedge ("could be", "perhaps":
  :data:`HEDGED`) commits to none.
* :func:`boolean_options` — options that are the two truth values (True/False, Yes/No,
  plausible/implausible, valid/invalid, correct/incorrect): the answer is read as a yes/no answer.
* :func:`pair_polarity` — for such a pair that is not yes/no vocabulary (plausible / implausible),
  the truth value the last sentence using the words gives ("not plausible" is the negative one).
* :data:`ORDINAL` — "the first one", "the second option", "the last choice": the option at that
  position.
* :func:`distinctive` — a short answer whose words pick out exactly one option by the words that
  options do not share ("white" for "The white book is the leftmost").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

#: Placeholder around an option key inside a shielded sentence.
MARK = "\x00"


def _word_pattern(word: str, last: bool) -> str:
    w = re.escape(word)
    if last and word.isalpha() and len(word) >= 3:
        if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
            return f"{re.escape(word[:-2])}(?:es)?"
        if word.endswith("s") and not word.endswith("ss"):
            return f"{re.escape(word[:-1])}s?"
        return f"{w}(?:s|es)?"
    return w


def option_pattern(text: str) -> re.Pattern[str] | None:
    """A case-insensitive pattern for ``text`` as written in a sentence (see the module docstring)."""
    words = re.findall(r"\w+", text.casefold())
    while words and words[0] in ("a", "an", "the"):
        words = words[1:]
    if not words:
        return None
    parts = [_word_pattern(w, i == len(words) - 1) for i, w in enumerate(words)]
    sep = r"[\W_]{0,4}?(?:(?:a|an|the)[\W_]{1,3})?"
    return re.compile(r"(?i)(?<!\w)(?:(?:a|an|the)\s+)?" + sep.join(parts) + r"(?!\w)")


_OPERATOR = "+\\-−–×*·/=^<>≤≥"
_OPERATOR_CLASS = {"-": "[-−–]", "−": "[-−–]", "–": "[-−–]", "×": "[×*·]", "*": "[×*·]", "·": "[×*·]"}


def is_expression(text: str) -> bool:
    """An option text with an operator between its terms ("x cos x + sin x", "a − b", "2^n"; not a
    hyphenated word or a date; a leading minus sign before a function, "−cos x", makes one too), whose
    operators tell it from another option with the same words."""
    return bool(re.search(r"[\w)]\s*[+−×*·=^<>≤≥]\s*[\w(]|\w\s+[-–]\s+\w|^\s*[-−]\s*[^\W\d_]{2,}\s", text))


def expression_pattern(text: str) -> re.Pattern[str]:
    """A pattern for an expression option as written: its terms and operators in order (spaces free,
    "-" / "−" and "*" / "×" alike), standing as a whole expression — not a part of a longer one ("x
    cos x" is not named by "sin x + x cos x"); an "=" and a value beside it ("2^10 = 1024", "d/dx sin x
    = cos x") do not extend it."""
    tokens = re.findall(r"\w+|[^\w\s]", unicodedata.normalize("NFKC", text.casefold()))
    body = r"\s*".join(_OPERATOR_CLASS.get(t, re.escape(t)) for t in tokens)
    ops = f"[{_OPERATOR}]"
    before = f"[{_OPERATOR.replace('=', '')}]"  # "= cos x": a result after "=" stands whole
    return re.compile(
        rf"(?i)(?<!\w)(?<!{before})(?<!{before}\s)(?<!\b[^\W\d_]\s)"
        + body
        + rf"(?!\w)(?!\s*(?!=\s*[-−]?\d){ops})(?!\s[^\W\d_]\b)"
    )


def shield(
    sentence: str, patterns: list[tuple[str, re.Pattern[str]]], markers: re.Pattern[str] | None, key_of: dict[str, str]
) -> str:
    """``sentence`` with option texts (longest first) and letter markers replaced by ``MARK key MARK``."""
    out = sentence
    for key, pattern in patterns:
        out = pattern.sub(f" {MARK}{key}{MARK} ".replace("\\", "\\\\"), out)
    if markers is not None:

        def _marker(m: re.Match[str]) -> str:
            key = key_of.get(m["k"]) or key_of.get(m["k"].upper()) or key_of.get(m["k"].lower())
            return f" {MARK}{key}{MARK} " if key else m.group(0)

        out = markers.sub(_marker, out)
    return out


def _pair(joiner: str) -> re.Pattern[str]:
    key = MARK + r"(?P<{}>[^" + MARK + r"]+)" + MARK
    return re.compile(key.format("a") + joiner + key.format("b"))


ALTERNATIVES = _pair(r"\s*,?\s*(?:or|/|and/or|nor)\s*(?:(?:else|maybe|perhaps|possibly|even)\s+)?")
#: In an answer's own clause (declared line, cue, box) two options joined by "and", "&", "+" or a
#: comma ("Answer: A and D", "Answer: B, C"): a single-answer question answered with two.
JOINED = _pair(r"\s*(?:,|&|\+|\band\b)\s*(?:also\s+)?")
#: A hedge in a sentence naming several options ("probably A, but it could be D"): it commits to none.
HEDGED = re.compile(r"(?i)\b(?:could|might|may)\s+(?:also\s+|well\s+)?be\b|\b(?:possibly|perhaps|maybe)\b")


def shielded_keys(part: str) -> set[str]:
    """The option keys shielded in ``part``."""
    return set(re.findall(MARK + r"([^" + MARK + r"]+)" + MARK, part))


def unshielded(part: str) -> str:
    """``part`` without its placeholders (what the negation test reads)."""
    return re.sub(MARK + r"[^" + MARK + r"]+" + MARK, " ", part)


_TRUE = {"true", "yes", "plausible", "valid", "correct", "possible", "right", "consistent", "entailed"}
_FALSE = {"false", "no", "implausible", "invalid", "incorrect", "impossible", "wrong", "inconsistent", "not entailed"}


def boolean_options(options: Mapping[str, str]) -> dict[bool, str] | None:
    """``{True: key, False: key}`` when the two options are a truth-value pair, else ``None``."""
    if len(options) != 2:
        return None
    out: dict[bool, str] = {}
    for key, text in options.items():
        t = " ".join(re.findall(r"[\w-]+", text.casefold()))
        if t in _TRUE:
            out[True] = key
        elif t in _FALSE:
            out[False] = key
    return out if len(out) == 2 else None


def pair_polarity(text: str, words: dict[bool, str]) -> tuple[bool | None, str] | None:
    """For a pair of option words such as plausible / implausible: the truth value the last sentence
    that uses either gives ("implausible", "not plausible", "isn't plausible" → false; "plausible" →
    true; a question such as "Valid?" is not a verdict); ``(None, why)`` when that sentence gives
    both, ``None`` when no sentence uses them."""
    pos, neg = (re.escape(words[True].casefold()), re.escape(words[False].casefold()))
    said = re.compile(
        r"(?i)(?P<neg>\b(?:not|never|hardly)\s+(?:\w+\s+)?|n't\s+(?:\w+\s+)?)?\b(?:(?P<n>"
        + neg
        + r")|(?P<p>"
        + pos
        + r"))\b"
    )
    for sentence in reversed(re.split(r"(?<=[.!?;])\s+|\n+", text)):
        if sentence.rstrip(" *_\"')").endswith("?"):  # "Deductively valid? No.": a question is not the verdict
            continue
        values = {bool(m["p"]) != bool(m["neg"]) for m in said.finditer(sentence)}
        if len(values) == 1:
            return values.pop(), sentence.strip()
        if values:
            return None, sentence.strip()
    return None


ORDINAL = re.compile(
    r"(?i)^\W*(?:it'?s\s+|it\s+is\s+|i\s+(?:pick|choose|go\s+with)\s+)?the\s+(?P<n>first|second|third|fourth|fifth|last)"
    r"\s+(?:one|option|choice|answer|phrase|sentence|statement)\b[^,;]*?[.!]?\s*$"
)
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1}


def ordinal_key(sentence: str, keys: list[str]) -> str | None:
    """The option a whole sentence such as "The first one." points at, by position."""
    m = ORDINAL.match(sentence.strip())
    if not m:
        return None
    i = _ORDINALS[m["n"].lower()]
    return keys[i] if -len(keys) <= i < len(keys) else None


_FILLER = frozenset("a an the one option choice it is its that this".split())


def distinctive(clause: str, options: Mapping[str, str]) -> str | None:
    """The one option whose distinctive words (those not in every option) include all of the clause's
    words in the option's own order, when the clause is at most four words and names at least one
    distinctive word."""
    words = [w for w in re.findall(r"\w+", clause.casefold()) if w not in _FILLER]
    if not words or len(words) > 4:
        return None
    sets = {k: set(re.findall(r"\w+", t.casefold())) for k, t in options.items()}
    common = set.intersection(*sets.values()) if sets else set()
    if not set(words) - common:
        return None
    fits = [k for k, ws in sets.items() if set(words) <= ws]
    if len(fits) != 1:
        return None
    order = [w for w in re.findall(r"\w+", options[fits[0]].casefold())]
    at = 0
    for w in words:  # the words in the option's own order: "25/12/2006" does not name "12/25/2006"
        if w not in order[at:]:
            return None
        at = order.index(w, at) + 1
    return fits[0]
