"""The terminal side of the CLI: a rich console that prints text literally and escapes control characters.

Model replies, server error bodies and stored records reach the terminal through case errors, gate
reasons and reports; rich would read ``[/bold]`` in them as markup (a ``MarkupError`` at the end of a
run) and swallow ``[baseline]``, and ANSI/OSC escape sequences would act on the terminal.
:class:`PlainConsole` turns markup, highlighting and emoji codes off and passes every string it prints
through :func:`harness.common.untrusted.printable`; :func:`harness.common.untrusted.echo` does the same for plain
``print`` output.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from harness.common.untrusted import printable


class PlainConsole(Console):
    """A rich console for untrusted text: no markup, highlighting or emoji codes, no hard wrapping; strings
    escaped."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        kwargs.setdefault("highlight", False)
        kwargs.setdefault("emoji", False)
        kwargs.setdefault("soft_wrap", True)  # a long error line stays one line (greppable, copyable)
        super().__init__(**kwargs)

    def print(self, *objects: Any, **kwargs: Any) -> None:  # noqa: A003 - rich's name
        super().print(*(printable(o) if isinstance(o, str) else o for o in objects), **kwargs)


def plain_console(stderr: bool = True, quiet: bool = False) -> PlainConsole:
    """The CLI's console: stderr (progress and notes) by default, stdout for results; ``quiet`` prints nothing."""
    return PlainConsole(stderr=stderr, quiet=quiet)
