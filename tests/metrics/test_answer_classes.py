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
        (
            _choice("B", LOOP),
            "Each increase feeds further growth, so this is a positive (reinforcing) loop.",
            "correct",
        ),
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
        (
            _choice("C", BBQ),
            "(c) Not enough information: the teacher and the plumber are both described only briefly.",
            "correct",
        ),
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
        (
            _choice("C", METALS),
            "Checking each choice:\nA) copper, conducts\nB) iron, conducts\nC) glass: an insul",
            "unanswered",
        ),
        (_choice("C", METALS), "A) copper: a metal.\nB) iron: a metal.\nC) glass: hmm", "unanswered"),
        (
            _choice("C", METALS),
            "A) copper: conducts.\nB) iron: conducts.\nC) glass: does not.\nSo the answer is C.",
            "correct",
        ),
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
        (
            "Do the angles of a triangle on a sphere sum to 180 degrees?",
            "Not on a sphere; they sum to more.",
            False,
            "correct",
        ),
        ("Is the square root of 2 rational?", "Not at all, it is irrational.", False, "correct"),
        (
            "Is the statement 'every prime is odd' true?",
            "2 is an even prime, so the statement does not hold.",
            False,
            "correct",
        ),
        (
            "Is the statement 'all squares are rhombi' true?",
            "Each square has four equal sides. The claim holds.",
            True,
            "correct",
        ),
        ("Will a stone sink in water?", "Not sure, it depends.", True, "unanswered"),
    ],
}

SHORT = {
    "contrast and correction": [
        ({"type": "any_of", "values": ["Lyon"]}, "Many would guess Lyon, but it is actually Marseille.", "ambiguous"),
        (
            {"type": "any_of", "values": ["Marseille"]},
            "Many would guess Lyon, but it is actually Marseille.",
            "correct",
        ),
        (
            {"type": "exact", "value": "Canberra"},
            "Sydney comes to mind first; however, the capital is Canberra.",
            "correct",
        ),
        (
            {"type": "exact", "value": "Sydney"},
            "Sydney comes to mind first; however, the capital is Canberra.",
            "ambiguous",
        ),
        ({"type": "exact", "value": "Mercury"}, "Answer: Venus, although Mercury is closer to the Sun", "ambiguous"),
    ],
    "asides in parentheses": [
        ({"type": "any_of", "values": ["Picasso", "Pablo Picasso"]}, "Answer: Braque (a friend of Picasso)", "wrong"),
        ({"type": "exact", "value": "Paris"}, "Answer: Paris (on the Seine)", "correct"),
        ({"type": "exact", "value": "Newton"}, "Leibniz (who argued with Newton about priority).", "wrong"),
    ],
    "a value only in a second clause": [
        (
            {"type": "exact", "value": "nitrogen"},
            "Most of the air is oxygen and we also breathe nitrogen.",
            "ambiguous",
        ),
        (
            {"type": "any_of", "values": ["carbon dioxide", "CO2"]},
            "Leaves release oxygen into the air and store carbon dioxide",
            "ambiguous",
        ),
        (
            {"type": "any_of", "values": ["carbon dioxide", "CO2"]},
            "Leaves absorb carbon dioxide and release oxygen.",
            "correct",
        ),
    ],
    "first clause of several": [
        ({"type": "exact", "value": "Cu"}, "Answer: Cu", "correct"),
        ({"type": "exact", "value": "Cu"}, "Fe is iron; copper is Cu.", "wrong"),
        ({"type": "exact", "value": "Cu"}, "Copper's symbol is Cu; iron's is Fe.", "correct"),
    ],
}


@pytest.mark.parametrize(
    ("klass", "block", "answer", "verdict"), [(k, b, a, v) for k, rows in CHOICE.items() for b, a, v in rows]
)
def test_choice_class(klass: str, block: dict[str, Any], answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, f"{klass}: {got.detail}"


@pytest.mark.parametrize(
    ("klass", "query", "answer", "value", "verdict"),
    [(k, q, a, v, w) for k, rows in BOOLEAN.items() for q, a, v, w in rows],
)
def test_boolean_class(klass: str, query: str, answer: str, value: bool, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python({"type": "boolean", "value": value}), answer, query)
    assert got.verdict == verdict, f"{klass}: {got.detail}"


@pytest.mark.parametrize(
    ("klass", "block", "answer", "verdict"), [(k, b, a, v) for k, rows in SHORT.items() for b, a, v in rows]
)
def test_short_answer_class(klass: str, block: dict[str, Any], answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, f"{klass}: {got.detail}"


TRUNCATED = [
    (
        {"type": "choice", "answer": "C", "options": METALS},
        "Copper and iron both conduct, and silver conducts best of all, so the one that does not is the",
        "unanswered",
    ),
    (
        {"type": "choice", "answer": "C", "options": METALS},
        "Looking at glass (C) and then at the metals, we",
        "unanswered",
    ),
    ({"type": "boolean", "value": False}, "Whales breathe air with lungs, which means that the claim is", "unanswered"),
    (
        {"type": "boolean", "value": True},
        "Checking the definition first: a square has four equal sides and",
        "unanswered",
    ),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), TRUNCATED)
def test_a_truncated_answer_is_never_correct(block: dict[str, Any], answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, got.detail


CONTRASTED_SUBJECT = [
    (
        "Is Sydney the capital of Australia?",
        "Sydney is the biggest city, but Canberra is the capital.",
        False,
        "correct",
    ),
    (
        "Is Toronto the capital of Canada?",
        "Toronto is the largest city; however, Ottawa is the capital.",
        False,
        "correct",
    ),
    ("Is Istanbul the capital of Turkey?", "Istanbul is famous, but Ankara is the capital.", True, "wrong"),
]


@pytest.mark.parametrize(("query", "answer", "value", "verdict"), CONTRASTED_SUBJECT)
def test_another_subject_given_the_predicate_answers_no(query: str, answer: str, value: bool, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python({"type": "boolean", "value": value}), answer, query)
    assert got.verdict == verdict, got.detail


MORE = [
    # a letter whose option text is another option's: ambiguous, not the letter
    ({"type": "choice", "answer": "B", "options": {"A": "Li", "B": "Na", "C": "K"}}, "Answer: C) Na", "ambiguous"),
    ({"type": "choice", "answer": "B", "options": {"A": "Li", "B": "Na", "C": "K"}}, "Answer: A) Na", "ambiguous"),
    ({"type": "choice", "answer": "B", "options": {"A": "Li", "B": "Na", "C": "K"}}, "Answer: B) Na", "correct"),
    # an aside on the declared line does not give the number
    ({"type": "numeric", "value": 7}, "Answer: 7 (since 49 = 7^2)", "correct"),
    ({"type": "numeric", "value": 12}, "Answer: 12 (3 boxes of 4)", "correct"),
    ({"type": "numeric", "value": 5}, "Answer: 5 (not 6, as 30/6 = 5)", "correct"),
    # the exact value before a rounding
    ({"type": "numeric", "value": 1 / 3}, "The probability is 1/3 ≈ 0.333.", "correct"),
    ({"type": "numeric", "value": 2 / 3}, "So P = 2/3 ≈ 0.67.", "correct"),
    ({"type": "numeric", "value": 0.67}, "So P = 2/3 ≈ 0.67.", "wrong"),
    # digits and a part
    ({"type": "numeric", "value": 2.5}, "It takes 2 and a half hours.", "correct"),
    ({"type": "numeric", "value": 1.75}, "You need 1 and three quarters cups.", "correct"),
    ({"type": "numeric", "value": 3.25}, "About 3 and a quarter miles.", "correct"),
    # a value only in a trailing phrase
    ({"type": "exact", "value": "Jupiter"}, "Saturn is the largest planet, with Jupiter second.", "ambiguous"),
    ({"type": "exact", "value": "Jupiter"}, "Jupiter is the largest planet, with Saturn second.", "correct"),
    ({"type": "any_of", "values": ["Everest"]}, "K2 is the tallest mountain, ahead of Everest.", "ambiguous"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), MORE)
def test_more_classes(block: dict[str, Any], answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, got.detail


MYTHS = [
    ("Do we only use 10% of our brains?", "That is a myth; imaging shows activity everywhere.", False, "correct"),
    ("Does cracking knuckles cause arthritis?", "A common misconception: studies find no link.", False, "correct"),
    ("Is the Great Wall visible from space with the naked eye?", "It's an urban legend.", False, "correct"),
    ("Did Einstein fail maths at school?", "This is not a myth at all.", False, "wrong"),
]


@pytest.mark.parametrize(("query", "answer", "value", "verdict"), MYTHS)
def test_a_myth_is_a_no(query: str, answer: str, value: bool, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python({"type": "boolean", "value": value}), answer, query)
    assert got.verdict == verdict, got.detail


TAKEN_BACK = [
    ({"type": "numeric", "value": 12}, "The answer is 12. Wait, let me recompute: 3 × 5 = 15.", "ambiguous"),
    ({"type": "numeric", "value": 12}, "Answer: 12\nOops, I made a mistake: it should be 14.", "ambiguous"),
    ({"type": "numeric", "value": 12}, "So the answer is 12. On second thought, 13.", "ambiguous"),
    ({"type": "numeric", "value": 12}, "Answer: 12\nWait, let me check: 3 × 4 = 12. Yes.", "correct"),
    ({"type": "numeric", "value": 12}, "The answer is 12 apples. Actually, that is 3 boxes of 4.", "correct"),
    (
        {"type": "choice", "answer": "B", "options": {"A": "Li", "B": "Na", "C": "K"}},
        "The answer is B. Wait, no, it is C.",
        "ambiguous",
    ),
    (
        {"type": "choice", "answer": "B", "options": {"A": "Li", "B": "Na", "C": "K"}},
        "Answer: B\nOops, that's wrong: potassium, (C).",
        "ambiguous",
    ),
    (
        {"type": "choice", "answer": "B", "options": {"A": "Li", "B": "Na", "C": "K"}},
        "Answer: B\nWait, let me double-check: (B) is sodium. Yes.",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), TAKEN_BACK)
def test_an_answer_taken_back_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, got.detail


CONFIRMED = [
    ({"type": "numeric", "value": 12}, "The answer is 12.\nWait, let me verify: 15 - 3 = 12. Correct.", "correct"),
    ({"type": "numeric", "value": 12}, "So the answer is 12; recount: 4 + 4 + 4 = 12.", "correct"),
    (
        {"type": "choice", "answer": "B", "options": {"A": "Li", "B": "Na", "C": "K"}},
        "The answer is B. Wait, is it (C)? No: potassium is K, so (B) stands.",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), CONFIRMED)
def test_a_check_that_ends_on_the_same_answer_keeps_it(block: dict[str, Any], answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, got.detail


MORE_BOOLEAN = [
    (
        {"type": "choice", "answer": "False", "options": ["True", "False"]},
        "not True is False; False and True is False. The expression evaluates to False.",
        "correct",
    ),
    (
        {"type": "choice", "answer": "False", "options": ["True", "False"]},
        "True or False is True, and not that is False. The whole thing comes out as False.",
        "correct",
    ),
    (
        {"type": "choice", "answer": "False", "options": ["True", "False"]},
        "False and False is False; not False is True. It evaluates to True.",
        "wrong",
    ),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), MORE_BOOLEAN)
def test_a_boolean_expression_evaluates_to(block: dict[str, Any], answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, got.detail


@pytest.mark.parametrize(
    ("answer", "value", "verdict"),
    [
        ("Indeed it does.", True, "correct"),
        ("Of course it does!", True, "correct"),
        ("Well, it doesn't.", True, "wrong"),
    ],
)
def test_a_short_auxiliary_answer_after_an_interjection(answer: str, value: bool, verdict: str) -> None:
    got = check_expected(
        _EXPECTED.validate_python({"type": "boolean", "value": value}), answer, "Does water expand when it freezes?"
    )
    assert got.verdict == verdict, got.detail


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("Shakespeare? No, Marlowe.", "wrong"),
        ("Was it Shakespeare? It was Marlowe.", "wrong"),
        ("Marlowe? No, it was Shakespeare.", "correct"),
    ],
)
def test_an_opening_question_is_not_the_answer(answer: str, verdict: str) -> None:
    block = {"type": "any_of", "values": ["Shakespeare", "William Shakespeare"]}
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, got.detail


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("A. Nitrogen", "ambiguous"),  # the letter says A, the text says B ("A" is not the article here)
        ("A) Nitrogen", "ambiguous"),
        ("B. Nitrogen", "correct"),
        ("A. Oxygen", "wrong"),
    ],
)
def test_a_leading_letter_and_another_options_text_disagree(answer: str, verdict: str) -> None:
    block = {"type": "choice", "answer": "B", "options": {"A": "Oxygen", "B": "Nitrogen", "C": "Argon"}}
    got = check_expected(_EXPECTED.validate_python(block), answer)
    assert got.verdict == verdict, got.detail
