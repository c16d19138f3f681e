"""argparse value types shared by the sub-commands."""

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
