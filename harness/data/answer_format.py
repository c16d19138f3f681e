"""The answer-format protocol: the instruction appended to a case's query, by expected type.

Every case that has an ``expected:`` block gets one sentence appended to its query (after a blank
line) telling the model how to state its final answer (``answer_format: auto``, the default of
every golden dataset and suite). The query is what every subject is asked — each council member,
the chairman (whose synthesis prompt quotes the question), the baseline and every arm — so all get
the same instruction, and each transcript records it in its ``query``. The extractor reads the
declared line first (:mod:`harness.metrics.declared`) and falls back to its rules only without one;
how many answers followed the format is counted per subject (:mod:`harness.stats.artifacts`).

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
as it is; a dataset with ``answer_format: none`` (the explicit opt-out) never changes a query.
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
