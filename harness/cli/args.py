"""argparse value types and top-level options shared by the sub-commands: ``--version``, the exit codes' help."""

from __future__ import annotations

import argparse


def whole_number(minimum: int):  # noqa: ANN201 - returns an argparse type callable
    """An argparse ``type=`` that accepts whole numbers ``>= minimum`` with a clear message otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {value}")
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return parse


non_negative_int = whole_number(0)
positive_int = whole_number(1)


#: The exit codes of every command (:mod:`harness.common.errors`), shown at the end of ``council-harness --help``.
EXIT_CODES_HELP = (
    "exit codes: 0 passed; 1 the gate failed (a failing case or a regression); "
    "2 usage or configuration error; 3 infrastructure error or incomplete results (a replay-cache "
    "miss, an unreachable endpoint, every case errored, scoring errors); 130 interrupted."
)


def package_version() -> str:
    """The installed ``council-harness`` version (:func:`importlib.metadata.version`)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("council-harness")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``: ``council-harness <version>`` on stdout, exit 0."""
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
