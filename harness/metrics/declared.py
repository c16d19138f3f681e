"""The declared answer line of the answer-format protocol (:mod:`harness.data.answer_format`).

Every subject asked a case with an ``expected:`` block is told to end with one line
``Answer: <value>``. The *declared line* is the last line of an answer that starts (after
markdown: ``**``, ``#``, ``>``, list bullets) with "Answer" or "Final answer" followed by ``:``
(markdown may close before or after the colon: ``**Answer:** 42``, ``**Answer**: 42``); its
*value* is the rest of that line without markup. The line *follows the format* when it is the
answer's last non-empty line; a declared line followed by more text still counts as declared (it
is read first), but the answer is counted as not following the format.

For ``python`` cases the format is one fenced ```` ```python ```` block; :func:`follows_format`
checks that instead.

Extraction reads the declared line first and falls back to its rules only when there is no
declared line or it holds nothing of the expected kind (see :mod:`harness.metrics.extraction`).
"""

from __future__ import annotations

import re

from harness.common.model import Frozen

_LINE = re.compile(r"(?im)^[ \t>#*_\-•]*(?:final[ \t]+)?answer[ \t*_]*:[ \t*_]*(?P<value>[^\n]*)$")
_STRIP = " \t*_`\"'“”‘’>$"
#: The longest declared value read, in characters.
VALUE_CHARS = 400


class DeclaredLine(Frozen):
    """The declared answer line of an answer.

    Args:
        value: the text after ``Answer:`` on that line, markup stripped (may be empty).
        last: whether it is the answer's last non-empty line (the format was followed).
        start: where the line starts in the text.
    """

    value: str
    last: bool
    start: int


def declared_line(text: str) -> DeclaredLine | None:
    """The last ``Answer: ...`` line of ``text`` (see the module docstring), else ``None``."""
    found = None
    for m in _LINE.finditer(text):
        found = m
    if found is None:
        return None
    value = found["value"][:VALUE_CHARS].strip(_STRIP).rstrip(" \t*_")
    last = not text[found.end() :].strip(_STRIP + "\n.")
    return DeclaredLine(value=value.strip(_STRIP), last=last, start=found.start())


_PY_FENCE = re.compile(r"(?im)^[ \t]*```+[ \t]*(?:python3?|py)\b")


def follows_format(kind: str, text: str) -> bool:
    """Whether ``text`` followed the answer-format instruction for an expected ``kind``: a fenced
    python block for ``python``, else a declared line that is the last line and holds a value."""
    if kind == "python":
        return bool(_PY_FENCE.search(text))
    line = declared_line(text)
    return line is not None and line.last and bool(line.value)
