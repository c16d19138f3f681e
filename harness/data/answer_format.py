"""``answer_format: auto``: the answer-format instruction appended to a case's query, by expected type.

A dataset (golden or suite) with ``answer_format: auto`` gets, on every case that has an
``expected:`` block, one sentence appended to its query (after a blank line) telling the model how
to state its final answer, so the extractor finds it with an answer cue:

=================  ==================================================================================
expected type      instruction
=================  ==================================================================================
numeric            Give the final answer on the last line as 'Answer: <number>'.
choice (letters)   Give the final answer on the last line as 'Answer: <letter>'.
choice (list)      Give the final answer on the last line as 'Answer: <the option's text>'.
boolean            Give the final answer on the last line as 'Answer: yes' or 'Answer: no'.
exact, any_of,     Give the final answer on the last line as 'Answer: ...'.
regex
python             Give the complete Python code in one ```python code block (defining ``name``
                   when the case names a function).
=================  ==================================================================================

A query that already asks for a format ("… on the last line as 'Answer: …'", "```python") is left
as it is; ``answer_format: none`` (the default) never changes a query.
"""

from __future__ import annotations

import re
from typing import Literal

from harness.data.expected import ExpectBoolean, ExpectChoice, Expected, ExpectNumeric, ExpectPython

AnswerFormat = Literal["auto", "none"]
_LAST_LINE = "Give the final answer on the last line as "
_ALREADY = re.compile(r"(?i)'answer:|\"answer:|answer:\s*<|on the last line as|```python|code block")


def instruction_for(expected: Expected) -> str:
    """The instruction that fits ``expected`` (see the module docstring)."""
    if isinstance(expected, ExpectNumeric):
        return _LAST_LINE + "'Answer: <number>'."
    if isinstance(expected, ExpectChoice):
        return _LAST_LINE + ("'Answer: <letter>'." if expected.letters else "'Answer: <the option's text>'.")
    if isinstance(expected, ExpectBoolean):
        return _LAST_LINE + "'Answer: yes' or 'Answer: no'."
    if isinstance(expected, ExpectPython):
        name = f" defining `{expected.name}`" if expected.name else ""
        return f"Give the complete Python code{name} in one ```python code block."
    return _LAST_LINE + "'Answer: ...'."


def with_instruction(query: str, expected: Expected | None, answer_format: AnswerFormat) -> str:
    """``query`` with the fitting instruction appended, unless there is nothing to check or it already has one."""
    if answer_format != "auto" or expected is None or _ALREADY.search(query):
        return query
    return f"{query.rstrip()}\n\n{instruction_for(expected)}"
