"""The answer a text states, read from the text alone: what a baseline arm votes with (issue 28).

:func:`stated_value` reads one candidate answer with the public extractors of
:mod:`harness.metrics.extraction` and folds what they find into a comparable key. It looks at the
``expected:`` block only for what the *question* declares — its type, the options of a ``choice``,
``extract`` and ``normalize`` — and never at the answer key (``value``, ``values``, ``answer``,
``pattern``, a reference): replacing the key by any other leaves every key here unchanged, so a
vote among samples cannot be steered towards the right answer.

Keys per expected type (``None``: the text states nothing this type can read; it does not vote):

``numeric``
    :func:`~harness.metrics.extraction.extract_number` (the question's own numbers passed over; zero
    words such as "none" are not read, since whether they count depends on the key), parsed and
    written as ``%.12g`` (``"1,000"`` and ``"1000.0"`` vote together), with ``%`` kept for a percentage.
    ``extract: whole``: the whole answer read as one number.
``choice``
    :func:`~harness.metrics.extraction.extract_choice` over the case's options: the option key.
``boolean``
    :func:`~harness.metrics.extraction.extract_boolean`: ``true`` / ``false``.
``exact``, ``any_of``, ``regex``
    :func:`~harness.metrics.extraction.extract_answer` (the declared answer line or answer cue first,
    then boxed, bold, a conclusion, the first sentence; ``extract: whole``: the whole stripped answer),
    folded by :func:`~harness.metrics.extraction.normalize_answer` (``exact`` with ``normalize: false``:
    stripped only). For ``regex`` the pattern is the key, so the answer is read as a short answer:
    ``extract: whole`` (the regex default) is a rule for *searching*, not for reading what was stated.
``python``
    ``None``: code is not compared by value.
"""

from __future__ import annotations

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
from harness.metrics.correctness import givens
from harness.metrics.extraction import (
    extract_answer,
    extract_boolean,
    extract_choice,
    extract_number,
    normalize_answer,
    parse_number,
)

__all__ = ["stated_value"]


def _number_key(text: str | None) -> str | None:
    num = parse_number(text) if text else None
    if num is None:
        return None
    return f"{num.value:.12g}" + ("%" if num.percent else "")


def _short_key(text: str, whole: bool, normalize: bool) -> str | None:
    value = text.strip() if whole else extract_answer(text).value
    if not value:
        return None
    key = normalize_answer(value) if normalize else value.strip()
    return key or None


def stated_value(expected: Expected, text: str, query: str | None = None) -> str | None:
    """The key of the answer ``text`` states, for ``expected``'s type (see the module docstring)."""
    if isinstance(expected, ExpectNumeric):
        if expected.extract == "whole":
            return _number_key(text)
        return _number_key(extract_number(text, givens=givens(query), query=query).value)
    if isinstance(expected, ExpectChoice):
        return extract_choice(text, expected.option_map, letters=expected.letters).value
    if isinstance(expected, ExpectBoolean):
        return extract_boolean(text, query).value
    if isinstance(expected, ExpectExact):
        return _short_key(text, expected.extract == "whole", expected.normalize)
    if isinstance(expected, ExpectAnyOf):
        return _short_key(text, expected.extract == "whole", True)
    if isinstance(expected, ExpectRegex):
        return _short_key(text, False, True)
    assert isinstance(expected, ExpectPython)
    return None
