"""No oracle in an arm's selection (issue 28): the answer key never picks the arm's answer.

For every expected type the property is the same: the samples fixed, replacing the expected value
(``value``, ``values``, ``answer``, ``pattern``) by a random other one leaves :func:`select_answer`'s
choice, rule and votes unchanged. The six-case word-sorting scenario is the one the issue measured
(one right sample of five won every case when samples that did not match the pattern abstained).
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.council.arms import select_answer
from harness.data.cases import Case
from harness.data.expected import (
    ExpectAnyOf,
    ExpectBoolean,
    ExpectChoice,
    Expected,
    ExpectExact,
    ExpectNumeric,
    ExpectRegex,
)
from harness.metrics.correctness import check_expected

WORDS = ["Paris", "Paris or Lyon", "Lyon", "Rome", "apple banana cherry", "cherry apple banana", "42", "blue"]
OPTIONS = {"A": "London", "B": "Paris", "C": "Rome", "D": "Madrid"}


def _case(expected: Expected) -> Case:
    return Case(id="q", dataset="d", query="What is 3 + 4?", ground_truth="x", expected=expected)


def _numeric_text(n: int, style: int) -> str:
    return [
        f"The answer is {n}.",
        f"So 3 + 4 = {n}.",
        f"**{n}**",
        f"I think {n}, maybe.",
        f"Working...\n\nAnswer: {n}",
        "There are none left.",
    ][style]


def _word_text(word: str, style: int) -> str:
    return [
        f"The answer is {word}.",
        f"**{word}**",
        f"{word}",
        f"Let me think. {word} it is.",
        f"Reasoning first.\n\nAnswer: {word}",
    ][style % 5]


def _choice_text(letter: str, style: int) -> str:
    return [
        f"The answer is {letter}.",
        f"({letter})",
        f"Option {letter} is right.",
        f"It must be {OPTIONS[letter]}.",
        f"Answer: {letter}",
    ][style % 5]


def _bool_text(yes: bool, style: int) -> str:
    return [
        ("Yes" if yes else "No") + ", because...",
        f"The answer is {'true' if yes else 'false'}.",
        f"Answer: {'yes' if yes else 'no'}",
        f"That is {'correct' if yes else 'incorrect'}.",
    ][style % 4]


styles = st.integers(min_value=0, max_value=4)
numeric_samples = st.lists(st.tuples(st.integers(min_value=0, max_value=12), st.integers(0, 5)), min_size=1, max_size=7)
word_samples = st.lists(st.tuples(st.sampled_from(WORDS), styles), min_size=1, max_size=7)
choice_samples = st.lists(st.tuples(st.sampled_from(sorted(OPTIONS)), styles), min_size=1, max_size=7)
bool_samples = st.lists(st.tuples(st.booleans(), styles), min_size=1, max_size=7)
patterns = st.sampled_from(
    [r"apple\s+banana\s+cherry", r"\bparis\b", r"^4\d$", r"rome|lyon", r"blue", re.escape("cherry apple")]
)


def _same_choice(texts: list[str], first: Expected, second: Expected) -> tuple[Any, ...]:
    chosen = select_answer(texts, _case(first))
    assert select_answer(texts, _case(second)) == chosen
    return chosen


@settings(max_examples=60, deadline=None)
@given(numeric_samples, st.integers(0, 12), st.integers(0, 12), st.sampled_from([0.0, 0.5]))
def test_numeric_key_does_not_pick(samples: list[tuple[int, int]], v1: int, v2: int, tol: float) -> None:
    texts = [_numeric_text(n, s) for n, s in samples]
    _same_choice(
        texts,
        ExpectNumeric(type="numeric", value=v1, tolerance=tol),
        ExpectNumeric(type="numeric", value=v2, tolerance=tol),
    )


@settings(max_examples=60, deadline=None)
@given(choice_samples, st.sampled_from(sorted(OPTIONS)), st.sampled_from(sorted(OPTIONS)))
def test_choice_key_does_not_pick(samples: list[tuple[str, int]], a1: str, a2: str) -> None:
    texts = [_choice_text(k, s) for k, s in samples]
    _same_choice(
        texts,
        ExpectChoice(type="choice", answer=a1, options=OPTIONS),
        ExpectChoice(type="choice", answer=a2, options=OPTIONS),
    )


@settings(max_examples=40, deadline=None)
@given(bool_samples, st.booleans(), st.booleans())
def test_boolean_key_does_not_pick(samples: list[tuple[bool, int]], b1: bool, b2: bool) -> None:
    texts = [_bool_text(y, s) for y, s in samples]
    _same_choice(texts, ExpectBoolean(type="boolean", value=b1), ExpectBoolean(type="boolean", value=b2))


@settings(max_examples=60, deadline=None)
@given(word_samples, st.sampled_from(WORDS), st.sampled_from(WORDS), st.sampled_from(["auto", "whole"]))
def test_exact_key_does_not_pick(samples: list[tuple[str, int]], w1: str, w2: str, extract: str) -> None:
    texts = [_word_text(w, s) for w, s in samples]
    _same_choice(
        texts,
        ExpectExact(type="exact", value=w1, extract=extract),  # type: ignore[arg-type]
        ExpectExact(type="exact", value=w2, extract=extract),
    )  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(
    word_samples,
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
)
def test_any_of_key_does_not_pick(samples: list[tuple[str, int]], v1: list[str], v2: list[str]) -> None:
    texts = [_word_text(w, s) for w, s in samples]
    _same_choice(texts, ExpectAnyOf(type="any_of", values=v1), ExpectAnyOf(type="any_of", values=v2))


@settings(max_examples=60, deadline=None)
@given(word_samples, patterns, patterns, st.sampled_from(["auto", "whole"]))
def test_regex_key_does_not_pick(samples: list[tuple[str, int]], p1: str, p2: str, extract: str) -> None:
    texts = [_word_text(w, s) for w, s in samples]
    _same_choice(
        texts,
        ExpectRegex(type="regex", pattern=p1, extract=extract),  # type: ignore[arg-type]
        ExpectRegex(type="regex", pattern=p2, extract=extract),
    )  # type: ignore[arg-type]


def test_majority_is_the_stated_value_whatever_the_key() -> None:
    """Three samples say 12, one says 7: 12 wins whether the key is 7 or 12."""
    texts = ["The answer is 7.", "Answer: 12", "So 3 + 4 = 12.", "**12**"]
    for value in (7, 12, 99):
        chosen, rule, votes = select_answer(texts, _case(ExpectNumeric(type="numeric", value=value)))
        assert (chosen, rule, votes) == (1, "majority", {"7": 1, "12": 3})


# The word-sorting scenario: per case, five samples; the right sorted list appears in at most one or
# two of them, the rest agree on one wrong order or disagree. The key-blind majority is right only
# where the right list is the most frequent stated answer.
SORT_CASES: list[tuple[str, list[str]]] = [
    (
        "apple banana cherry",
        [
            "banana apple cherry",
            "banana apple cherry",
            "apple banana cherry",
            "cherry banana apple",
            "banana apple cherry",
        ],
    ),
    ("dog eel fox", ["dog eel fox", "eel dog fox", "eel dog fox", "fox eel dog", "eel dog fox"]),
    ("gnu hen ibis", ["hen gnu ibis", "ibis gnu hen", "gnu hen ibis", "hen gnu ibis", "hen gnu ibis"]),
    ("jay kite lark", ["kite jay lark", "kite jay lark", "lark jay kite", "kite jay lark", "jay kite lark"]),
    ("mole newt owl", ["owl newt mole", "newt mole owl", "mole newt owl", "mole newt owl", "owl newt mole"]),
    ("pig quail rat", ["pig quail rat", "pig quail rat", "pig quail rat", "rat pig quail", "quail pig rat"]),
]


def test_word_sorting_gets_its_honest_count() -> None:
    right_samples = arm_right = 0
    for sorted_words, samples in SORT_CASES:
        texts = [f"Sorting the words alphabetically.\n\nAnswer: {s}" for s in samples]
        pattern = r"\b" + r"\W+".join(sorted_words.split()) + r"\b"  # searched in the whole answer
        case = _case(ExpectRegex(type="regex", pattern=pattern))
        chosen, rule, votes = select_answer(texts, case)
        assert rule == "majority" and sum(votes.values()) == 5
        right_samples += sum(check_expected(case.expected, t).correct for t in texts)  # type: ignore[arg-type]
        arm_right += check_expected(case.expected, texts[chosen]).correct  # type: ignore[arg-type]
        # the most frequent stated order wins, right or wrong (the first given on a tie)
        top = max(votes.values())
        assert votes[" ".join(samples[chosen].split())] == top
    assert right_samples == 9  # 9 right samples out of 30
    # right only where the sorted list is the plurality: case 6 (3 of 5); case 5 is a 2-2 tie that
    # the wrong order given first wins; the others have a wrong plurality. (Reading the key: 6/6.)
    assert arm_right == 1
