"""Make invisible and direction-changing characters visible, and cut very long texts, for display.

Model output is shown as plain text, but some characters change how the text *looks* without
being seen: a right-to-left override (U+202E) makes ``24 si rewsna ehT`` display as
``The answer is 42``; C0/C1 control characters are invisible or move the cursor. For display
(the HTML report, the reviewers' sheet) each such character is replaced by a visible token
``⟨U+202E⟩``. The stored text (``results.jsonl``) is never changed.

Shown as tokens: C0 controls except ``\\n`` and ``\\t`` (a ``\\r`` that ends a ``\\r\\n`` line is
kept as a plain line end), DEL and C1 controls (U+007F–U+009F), the bidirectional marks,
embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the
zero-width and invisible format characters U+200B, U+2060–U+2064, U+FEFF, U+180E, and the line
and paragraph separators U+2028, U+2029. Zero-width (non-)joiners U+200C/U+200D are kept (emoji
sequences and several scripts need them). The replacement is one ``str.translate`` pass: linear.
"""

from __future__ import annotations

_CODEPOINTS = [
    *(c for c in range(0x20) if c not in (0x09, 0x0A)),
    *range(0x7F, 0xA0),
    0x061C,
    0x180E,
    0x200B,
    0x200E,
    0x200F,
    0x2028,
    0x2029,
    *range(0x202A, 0x202F),
    *range(0x2060, 0x2065),
    *range(0x2066, 0x206A),
    0xFEFF,
]
_TABLE = {c: f"⟨U+{c:04X}⟩" for c in _CODEPOINTS}

#: Longest text shown in full in the report, in characters.
DISPLAY_LIMIT = 20_000


def visible_controls(text: str) -> str:
    """``text`` with every control, bidi and invisible format character replaced by ``⟨U+XXXX⟩``."""
    return text.replace("\r\n", "\n").translate(_TABLE)


def truncated(text: str, limit: int = DISPLAY_LIMIT, where: str = "results.jsonl in the run folder") -> str:
    """The first ``limit`` characters of ``text`` plus a note saying how much was cut and where the rest is."""
    if len(text) <= limit:
        return text
    return (
        f"{text[:limit]}\n[… {len(text) - limit:,} more characters not shown "
        f"(first {limit:,} of {len(text):,}); the full text is in {where}]"
    )


def for_display(text: str, limit: int = DISPLAY_LIMIT) -> str:
    """Cut to ``limit`` characters (with a note), then make controls visible."""
    return visible_controls(truncated(text, limit))
