"""Every sub-command's ``--help`` says what it does, its options' defaults and choices, and an example."""

from __future__ import annotations

import argparse

import pytest

from harness.cli import SUBJECT_CHOICES, build_parser
from harness.run import subjects


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("name", sorted(_subcommands()))
def test_every_subcommand_has_an_example(name: str) -> None:
    text = _subcommands()[name].format_help()
    assert "example:" in text, name
    example = text.split("example:", 1)[1].strip().splitlines()[0].strip()
    assert example.startswith(f"council-harness {name}"), (name, example)
    # the example itself parses (no made-up option)
    build_parser().parse_args(example.split()[1:])


def test_run_help_lists_every_subject_and_the_cache_modes() -> None:
    text = " ".join(_subcommands()["run"].format_help().split())
    assert f"one of: {SUBJECT_CHOICES}" in text
    assert set(SUBJECT_CHOICES.split(", ")) == set(subjects._choices().split(", "))
    assert "(default: council,baseline)" in text
    assert "replay makes no model call" in text
