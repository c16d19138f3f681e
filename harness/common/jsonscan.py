"""Finding JSON objects in model replies: the one lenient scanner every parser uses.

Model replies wrap JSON in prose or Markdown fences, put raw newlines inside strings (llama.cpp's
schema converter allows them) and may be adversarial. The scan never raises and is bounded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import islice
from typing import Any, Literal

#: a ```json fenced block; the body may not cross another fence (keeps the regex linear)
FENCED_JSON = re.compile(r"```(?:json)?\s*(\{(?:(?!```).)*?\})\s*```", re.DOTALL | re.IGNORECASE)
MAX_STARTS = 64  # raw objects are tried from at most this many '{' positions

Method = Literal["json_fenced", "json_raw"]


def json_objects(text: str) -> Iterator[tuple[int, int, dict[str, Any], Method]]:
    """JSON objects in ``text`` as ``(start, end, object, method)``: the fenced block first, then raw
    objects from each of the first :data:`MAX_STARTS` ``{`` positions. Strings may hold raw newlines.
    """
    m = FENCED_JSON.search(text)
    if m:
        try:
            obj = json.loads(m.group(1), strict=False)
        except (ValueError, RecursionError):  # deeply nested JSON raises RecursionError
            obj = None
        if isinstance(obj, dict):
            yield m.start(), m.end(), obj, "json_fenced"
    decoder = json.JSONDecoder(strict=False)
    for start in islice((i for i, ch in enumerate(text) if ch == "{"), MAX_STARTS):
        try:
            obj, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            yield start, end, obj, "json_raw"


def first_json_object(text: str) -> tuple[int, int, dict[str, Any]] | None:
    """The first object :func:`json_objects` finds, with its span, or ``None``."""
    for start, end, obj, _ in json_objects(text):
        return start, end, obj
    return None
