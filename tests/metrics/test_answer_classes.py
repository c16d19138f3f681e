"""Choice, boolean and short-answer classes the extractor used to misread, and abstention instead of
guessing (issue 26): each class with at least three phrasings of its own. ``verdict`` is what the
check must say."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from harness.data.expected import Expected
from harness.metrics.correctness import check_expected

_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)

LOOP = {"A": "a negative (balancing) loop", "B": "a positive (reinforcing) loop", "C": "no loop at all"}
BIG_O = {"A": "O(n)", "B": "O(log n)", "C": "O(n log n)", "D": "O(1)"}
BBQ = {"A": "The teacher", "B": "The plumber", "C": "Not enough information"}
METALS = {"A": "copper", "B": "iron", "C": "glass", "D": "silver"}
TF = ["True", "False"]
PLAUSIBLE = ["plausible", "implausible"]
BOOKS = ["The red book is the leftmost", "The blue book is the leftmost", "The grey book is the leftmost"]
ORDER = ["a lovely small round table", "a round small lovely table"]
PLURAL = {"A": "mammals", "B": "reptiles", "C": "birds"}


def _choice(answer: str, options: dict[str, str] | list[str]) -> dict[str, Any]:
    return {"type": "choice", "answer": answer, "options": options}


CHOICE = {
    "option text with parentheses": [
        (_choice("B", LOOP), "Each increase feeds further growth, so this is a positive (reinforcing) loop.",
         "correct"),
        (_choice("B", LOOP), "What we have here is a positive (reinforcing) loop, not a balancing one.", "correct"),
        (_choice("B", LOOP), "It behaves like a negative (balancing) loop.", "wrong"),
        (_choice("B", BIG_O), "Halving the range each step makes binary search O(log n).", "correct"),
        (_choice("B", BIG_O), "Sorting first costs O(n log n) overall.", "wrong"),
    ],
    "option text with a negation word": [
        (_choice("C", BBQ), "The story never says who was late, so Not enough information.", "correct"),
        (_choice("C", BBQ), "We cannot tell from the text: not enough information.", "correct"),
        (_choice("C", BBQ), "The plumber, because the teacher had already left.", "ambiguous"),  # names two
        (_choice("C", BBQ), "Answer: The plumber", "wrong"),
    ],
    "lower-case letter in parentheses": [
        (_choice("C", METALS), "Glass does not carry current, which makes (c) the insulator.", "correct"),
        (_choice("C", METALS), "I'd go with (c) here.", "correct"),
        (_choice("C", METALS), "Copper is the one that fails to conduct, so (a).", "wrong"),
    ],
    "letter in a negated clause": [
        (_choice("C", METALS), "This is not (D): silver conducts very well. The insulator is (C).", "correct"),
        (_choice("C", METALS), "It isn't (B). Glass, (C), is the insulator.", "correct"),
        (_choice("C", METALS), "Definitely not (C). The answer must be (A).", "wrong"),
    ],
    "a leading marker": [
        (_choice("C", BBQ), "(c) Not enough information: the teacher and the plumber are both described only briefly.",
         "correct"),
        (_choice("C", BBQ), "C) Not enough information", "correct"),
        (_choice("C", BBQ), "(b) The plumber, since the teacher was in class.", "wrong"),
        (_choice("C", BBQ), "(b) The plumber or (c), hard to say.", "ambiguous"),
    ],
    "True/False options": [
        (_choice("False", TF), "The claim is false.", "correct"),
        (_choice("False", TF), "That statement does not hold: the Moon has no light of its own.", "correct"),
        (_choice("False", TF), "This turns out to be true.", "wrong"),
        (_choice("implausible", PLAUSIBLE), "A goalkeeper hitting a home run is not plausible.", "correct"),
        (_choice("implausible", PLAUSIBLE), "The sentence is implausible for a tennis player.", "correct"),
        (_choice("implausible", PLAUSIBLE), "That is perfectly plausible.", "wrong"),
    ],
    "singular or plural option text": [
        (_choice("A", PLURAL), "Whales are a mammal, not a fish.", "correct"),
        (_choice("A", PLURAL), "Bats belong with the mammal group.", "correct"),
        (_choice("A", PLURAL), "Snakes are a reptile.", "wrong"),
    ],
    "a short answer that picks an option by its own words": [
        (_choice(BOOKS[1], BOOKS), "Going left to right: blue, red, grey.\n\nAnswer: blue", "correct"),
        (_choice(BOOKS[1], BOOKS), "Answer: the blue one", "correct"),
        (_choice(BOOKS[1], BOOKS), "Answer: grey", "wrong"),
    ],
    "an option by its position": [
        (_choice(ORDER[0], ORDER), "The first one.", "correct"),
        (_choice(ORDER[0], ORDER), "It's the first option.", "correct"),
        (_choice(ORDER[0], ORDER), "The second one.", "wrong"),
    ],
    "a walk-through that never commits": [
        (_choice("C", METALS), "Checking each choice:\nA) copper, conducts\nB) iron, conducts\nC) glass: an insul",
         "unanswered"),
        (_choice("C", METALS), "A) copper: a metal.\nB) iron: a metal.\nC) glass: hmm", "unanswered"),
        (_choice("C", METALS), "A) copper: conducts.\nB) iron: conducts.\nC) glass: does not.\nSo the answer is C.",
         "correct"),
    ],
}

BOOLEAN = {
    "no yes/no word": [
        ("Is 51 prime?", "51 is not prime, as 3 × 17 = 51.", False, "correct"),
        ("Is 91 prime?", "91 is not prime since 7 × 13 = 91.", False, "correct"),
        ("Is 97 prime?", "97 is prime: no prime up to 9 divides it.", True, "correct"),
        ("Is 51 prime?", "51 is prime.", False, "wrong"),
        ("Will ice float on water?", "It will.", True, "correct"),
        ("Does a compass needle point to true north?", "It doesn't.", False, "correct"),
        ("Can penguins fly?", "They can't.", False, "correct"),
        ("Do the angles of a triangle on a sphere sum to 180 degrees?", "Not on a sphere; they sum to more.", False,
         "correct"),
        ("Is the square root of 2 rational?", "Not at all, it is irrational.", False, "correct"),
        ("Is the statement 'every prime is odd' true?", "2 is an even prime, so the statement does not hold.", False,
         "correct"),
        ("Is the statement 'all squares are rhombi' true?", "Each square has four equal sides. The claim holds.", True,
         "correct"),
        ("Will a stone sink in water?", "Not sure, it depends.", True, "unanswered"),
    ],
}

SHORT = {
    "contrast and correction": [
        ({"type": "any_of", "values": ["Lyon"]}, "Many would guess Lyon, but it is actually Marseille.", "ambiguous"),
        ({"type": "any_of", "values": ["Marseille"]}, "Many would guess Lyon, but it is actually Marseille.",
         "correct"),
        ({"type": "exact", "value": "Canberra"}, "Sydney comes to mind first; however, the capital is Canberra.",
         "correct"),
        ({"type": "exact", "value": "Sydney"}, "Sydney comes to mind first; however, the capital is Canberra.",
         "ambiguous"),
        ({"type": "exact", "value": "Mercury"}, "Answer: Venus, although Mercury is closer to the Sun", "ambiguous"),
    ],
    "asides in parentheses": [
        ({"type": "any_of", "values": ["Picasso", "Pablo Picasso"]}, "Answer: Braque (a friend of Picasso)", "wrong"),
        ({"type": "exact", "value": "Paris"}, "Answer: Paris (on the Seine)", "correct"),
        ({"type": "exact", "value": "Newton"}, "Leibniz (who argued with Newton about priority).", "wrong"),
    ],
    "a value only in a second clause": [
        ({"type": "exact", "value": "nitrogen"}, "Most of the air is oxygen and we also breathe nitrogen.",
         "ambiguous"),
        ({"type": "any_of", "values": ["carbon dioxide", "CO2"]},
         "Leaves release oxygen into the air and store carbon dioxide", "ambiguous"),
        ({"type": "any_of", "values": ["carbon dioxide", "CO2"]}, "Leaves absorb carbon dioxide and release oxygen.",
         "correct"),
    ],
    "first clause of several": [
        ({"type": "exact", "value": "Cu"}, "Answer: Cu", "correct"),
        ({"type": "exact", "value": "Cu"}, "Fe is iron; copper is Cu.", "wrong"),
        ({"type": "exact", "value": "Cu"}, "Copper's symbol is Cu; iron's is Fe.", "correct"),
    ],
}


@pytest.mark.parametrize(("klass", "block", "answer", "verdict"),
                         [(k, b, a, v) for k, rows in CHOICE.items() for b, a, v in rows])
def test_choice_class(klass: str, block: dict[str, Any], answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, f"{klass}: {got.detail}"


@pytest.mark.parametrize(("klass", "query", "answer", "value", "verdict"),
                         [(k, q, a, v, w) for k, rows in BOOLEAN.items() for q, a, v, w in rows])
def test_boolean_class(klass: str, query: str, answer: str, value: bool, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python({"type": "boolean", "value": value}), answer, query)
    assert got.verdict == verdict, f"{klass}: {got.detail}"


@pytest.mark.parametrize(("klass", "block", "answer", "verdict"),
                         [(k, b, a, v) for k, rows in SHORT.items() for b, a, v in rows])
def test_short_answer_class(klass: str, block: dict[str, Any], answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, f"{klass}: {got.detail}"
