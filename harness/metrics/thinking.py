"""Reasoning models' visible thinking: the reply that is read is what follows it.

Reasoning models (DeepSeek-R1, QwQ, Qwen3 in thinking mode, ...) served through an OpenAI-compatible
endpoint often return their thinking inline, between ``<think>`` and ``</think>`` (some servers drop
the opening tag and keep only the closing one). The thinking tries values and discards them: it is
not the answer, and a value it passes through must neither be taken as the answer nor make the
answer look hedged. Rule, applied by :func:`harness.metrics.correctness.check_expected` before any
extraction rule of every expected type:

1. When the answer holds a closing tag (``</think>``, ``</thinking>``, ``</reasoning>``), only the
   text after the last one is read.
2. Else, when it holds an opening tag, the reply was cut off inside its thinking: only the text
   before that tag is read (usually nothing, so the answer is ``unanswered``).
3. Else the answer is read whole.

Tags are matched case-insensitively, with optional spaces inside the brackets.
"""

from __future__ import annotations

import re

_CLOSE = re.compile(r"(?i)<\s*/\s*(?:think|thinking|reasoning)\s*>")
_OPEN = re.compile(r"(?i)<\s*(?:think|thinking|reasoning)\s*>")

#: What the check's detail says when it read only part of the answer.
AFTER_THINKING = "read after the answer's thinking block"
CUT_OFF_THINKING = "the answer was cut off inside its thinking block; only the text before it was read"


def visible_reply(answer: str) -> tuple[str, str | None]:
    """The part of ``answer`` that is read (see the module docstring), and a note saying what was
    left out (``None`` when the answer is read whole)."""
    closes = list(_CLOSE.finditer(answer))
    if closes:
        return answer[closes[-1].end() :].strip(), AFTER_THINKING
    opened = _OPEN.search(answer)
    if opened:
        return answer[: opened.start()].strip(), CUT_OFF_THINKING
    return answer, None
