"""CSV cells that a spreadsheet will not run as formulas (the OWASP CSV-injection rule).

A cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula
(or can become one) in Excel, LibreOffice and Google Sheets: ``=HYPERLINK("http://evil", "click")``.
:func:`neutralise` prefixes such a cell with a single quote, which spreadsheets show as text and
hide. A cell that already starts with a quote is prefixed too, so :func:`restore` (drop one
leading quote) gives back exactly the original text when a sheet is read back.

:func:`sheet_text` is for cells people only read (reports, column headers): control and bidi
characters are also shown as escapes (:func:`harness.common.untrusted.printable`), so an escape
sequence cannot reach a terminal that ``cat``s the file; such cells do not round-trip.
"""

from __future__ import annotations

from typing import Any

from harness.common.untrusted import printable

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "'")


def neutralise(value: Any) -> Any:
    """A text cell prefixed with ``'`` when it starts with a formula trigger (or a quote); other values as they are."""
    if isinstance(value, str) and value.startswith(_TRIGGERS):
        return "'" + value
    return value


def restore(value: str) -> str:
    """The original text of a cell written by :func:`neutralise`."""
    return value[1:] if value.startswith("'") else value


def sheet_text(value: Any) -> Any:
    """A text cell with control and bidi characters escaped, then :func:`neutralise`; other values as they are."""
    return neutralise(printable(value)) if isinstance(value, str) else value
