"""Untrusted text (model replies, server error bodies, stored records) made safe to store and to print.

Two rules, one place:

* :func:`clean_surrogates` — text decoded from JSON may hold *lone* UTF-16 surrogates
  (``"\\ud800"`` is valid JSON but not encodable as UTF-8). Each lone surrogate becomes U+FFFD;
  a well-formed pair is kept as the character it encodes. Applied to every reply a provider returns,
  so a hostile reply can never make a result unwritable.
* :func:`printable` — before untrusted text reaches a terminal, every control character (C0 except
  newline and tab, DEL, C1, which carry ANSI/OSC escape sequences) and every bidirectional
  override/isolate character is shown as a visible ``\\xNN`` / ``\\uNNNN`` escape, so a reply cannot
  recolour, retitle, hide or reorder what the terminal shows. :func:`printable_line` also escapes
  newlines and tabs (for one-line messages).

Rich markup in untrusted text is a third hazard; the CLI prints through consoles with
``markup=False`` and ``highlight=False`` (see :func:`harness.common.console.plain_console`).
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

#: C0 controls except TAB and LF, DEL, C1 controls, and the bidi embedding/override/isolate marks
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (pairs are joined into their character)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def printable(text: str) -> str:
    """``text`` with control and bidi characters shown as escapes (newlines and tabs kept)."""
    return _CONTROL.sub(_escape, clean_surrogates(text))


def printable_line(text: str) -> str:
    """Like :func:`printable`, and newlines, carriage returns and tabs are escaped too (one line)."""
    return _CONTROL_LINE.sub(_escape, clean_surrogates(text))


def echo(text: str, file: TextIO | None = None) -> None:
    """``print`` for text that may hold untrusted parts: control and bidi characters escaped."""
    print(printable(text), file=file if file is not None else sys.stdout)
