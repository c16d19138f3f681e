"""A structured, tool-shaped answer: a JSON object whose answer field is what is read (used by
:func:`harness.metrics.correctness.check_expected` for every type but ``python``).

Subjects asked for machine-readable output reply with one JSON object, alone or in a fenced
``json`` block: ``{"answer": 0.1667, "confidence": 0.9}``. The object's answer field — the first
key, in this order, of ``answer``, ``final_answer``, ``finalAnswer``, ``result``, ``value``
(case-insensitive) — holding a string, a number or a truth value is the reply that is read: a
string as written, a number as JSON writes it, ``true`` / ``false`` as those words. The other
fields (a confidence, a note) are not read. An answer that is not a single JSON object, or whose
answer field is missing, empty or a list or object, is read as written by the rules.

Only answers of at most :data:`MAX_JSON_CHARS` characters are parsed (``json.loads``, never
evaluated).
"""

from __future__ import annotations

import json
import re

#: The keys that hold the answer, in the order they are looked for.
ANSWER_KEYS = ("answer", "final_answer", "finalanswer", "result", "value")
#: The longest answer parsed as JSON.
MAX_JSON_CHARS = 20_000
_FENCE = re.compile(r"(?s)^```[ \t]*(?:json)?[ \t]*\n(?P<body>.*?)\n?```$")


def structured_answer(text: str) -> tuple[str, str] | None:
    """``(value, key)`` of a JSON object answer's answer field (see the module docstring), else ``None``."""
    body = text.strip()
    if len(body) > MAX_JSON_CHARS:
        return None
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced["body"].strip()
    if not (body.startswith("{") and body.endswith("}")):
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    keys = {str(k).lower(): k for k in data}
    for want in ANSWER_KEYS:
        if want not in keys:
            continue
        value = data[keys[want]]
        if isinstance(value, bool):
            return ("true" if value else "false"), keys[want]
        if isinstance(value, int | float):
            return json.dumps(value), keys[want]
        if isinstance(value, str) and value.strip():
            return value.strip(), keys[want]
        return None
    return None
