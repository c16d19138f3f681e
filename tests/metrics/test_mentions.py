"""Required mentions are number-aware ("three" matches "3"); forbidden claims are literal."""

from __future__ import annotations

import pytest

from harness.data.cases import Case
from harness.metrics.checks import mention_checks


def _check(mention: str, answer: str) -> tuple[bool, str]:
    (check,) = mention_checks(Case(id="c", query="q", required_mentions=(mention,)), answer).checks
    return check.passed, check.detail


@pytest.mark.parametrize(
    ("mention", "answer", "found"),
    [
        ("three", "There are 3 fruits.", True),  # issue 12: the correct answer "3 fruits"
        ("3", "There are three fruits.", True),
        ("3", "There are 13 fruits.", False),  # the literal substring "3" is not the number 3
        ("three sisters", "David has 3 sisters.", True),
        ("1,000", "About 1000 people came.", True),
        ("2.5 million", "It has 2,500,000 users.", True),
        ("one", "Someone came.", False),
        ("Article 20", "see article 20 of the GDPR", True),
        ("Article 20", "see article 21", False),
        ("Paris", "PARIS is the capital", True),
    ],
)
def test_required_mentions_are_number_aware(mention: str, answer: str, found: bool) -> None:
    assert _check(mention, answer)[0] is found


def test_mention_details() -> None:
    assert _check("three", "3 fruits") == (True, "found the number 3")
    assert _check("3", "13 fruits") == (False, "the number 3 ('3') does not appear in the answer")
    assert _check("three sisters", "3 sisters") == (True, "found (numbers compared as digits)")


def test_forbidden_claims_stay_literal() -> None:
    case = Case(id="c", query="q", forbidden_claims=("3 sisters",))
    (check,) = mention_checks(case, "He has three sisters.").checks
    assert check.passed  # literal: "three sisters" is not the text "3 sisters"
    (hit,) = mention_checks(case, "He has 3 Sisters.").checks
    assert not hit.passed
