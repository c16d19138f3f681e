"""Number notations and number roles that the extractor used to misread: each class with at least
three phrasings of its own (issue 26). ``verdict`` is what the check must say for ``value``."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from harness.data.expected import Expected
from harness.metrics.correctness import check_expected
from harness.metrics.numerals import plain_numerals

_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)


def _verdict(value: float, answer: str, query: str | None = None) -> str:
    got = check_expected(_EXPECTED.validate_python({"type": "numeric", "value": value}), answer, query)
    assert got.verdict is not None
    return got.verdict


CASES = {
    "dozens": [
        (6, "She needs half a dozen eggs for the cake.", "correct"),
        (24, "Altogether that is two dozen.", "correct"),
        (36, "The baker sold 3 dozen rolls before noon.", "correct"),
        (12, "I would buy a dozen.", "correct"),
        (12, "Half a dozen are left.", "wrong"),
    ],
    "vulgar fractions": [
        (3.5, "Each friend gets 3½ slices.", "correct"),
        (0.75, "The tank is ¾ full.", "correct"),
        (2.25, "You need 2 ¼ cups of flour.", "correct"),
        (2.5, "You need 2 ¼ cups of flour.", "wrong"),
    ],
    "mixed numbers": [
        (3.25, "The plank measures 3 1/4 metres.", "correct"),
        (7.5, "He walked 7 1/2 miles in total.", "correct"),
        (1.125, "So the recipe needs 1 1/8 teaspoons.", "correct"),
        (1, "So the recipe needs 1 1/8 teaspoons.", "wrong"),
    ],
    "superscript powers": [
        (1e9, "A gigabyte is about 10⁹ bytes.", "correct"),
        (8, "The volume is 2³ = 8 cubic units.", "correct"),
        (0.001, "One millimetre is 10⁻³ m.", "correct"),
        (1e6, "So roughly 10^6 users.", "correct"),
        (9, "A gigabyte is about 10⁹ bytes.", "wrong"),
    ],
    "dotted thousands": [
        (2_500_000, "The population is 2.500.000 people.", "correct"),
        (1_250_000, "Revenue came to €1.250.000 last year.", "correct"),
        (3_000_000, "That gives 3.000.000 in total.", "correct"),
        (2.5, "The population is 2.500.000 people.", "wrong"),
    ],
    "spaced thousands before a full stop": [
        (12_500, "It is 12 500.", "correct"),
        (86_400, "A day has 86 400.", "correct"),
        (1_000_000, "The final count is 1 000 000.", "correct"),
        (500, "It is 12 500.", "wrong"),
    ],
    "condition after the result": [
        (9, "The maximum is 9, reached at x = 3.", "correct"),
        (-4, "The minimum value is -4, attained at t = 2.", "correct"),
        (16, "So the peak height is 16 m, which occurs at t = 1.", "correct"),
        (3, "The maximum is 9, reached at x = 3.", "wrong"),
    ],
    "comparison after the result": [
        (48, "Ana has 48 pens, which is 2 times as many as Ben.", "correct"),
        (30, "The second shelf holds 30 books, 3 times more than the first.", "correct"),
        (120, "So the store sold 120 shirts, 20% more than last week.", "correct"),
        (2, "Ana has 48 pens, which is 2 times as many as Ben.", "wrong"),
    ],
    "compound durations": [
        (1.75, "The trip takes 1 hour and 45 minutes.", "correct"),
        (105, "The trip takes 1 hour and 45 minutes.", "correct"),
        (2.5, "So it lasts 2 hours 30 minutes.", "correct"),
        (150, "Running time: 2 min 30 s.", "correct"),
        (45, "The trip takes 1 hour and 45 minutes.", "wrong"),
    ],
    "expression answers": [
        (3, "Expanding gives f(x) = 3 * (2x+1) + 0", "unanswered"),
        (2, "So the derivative is y' = 2x + 4", "unanswered"),
        (6, "Simplified: g = 6(x - 1)", "unanswered"),
        (7, "Simplified, the result = 7.", "correct"),
    ],
    "GSM8K final line": [
        (42, "She has 40 + 2 = 42 stickers, minus 5 lost is 37? No, none were lost.\n#### 42", "correct"),
        (18, "Janet sells 16 - 3 - 4 = 9 eggs at $2 each.\n#### 18", "correct"),
        (1200, "Total cost 3 * 400.\n####  1,200", "correct"),
        (9, "Janet sells 16 - 3 - 4 = 9 eggs at $2 each.\n#### 18", "wrong"),
    ],
}

GIVEN = [
    (
        "Sam has 12 apples. He gives away half and then buys 6 more. How many does he have now?",
        "Half of 12 is 6, and 6 more makes 12. Sam has 12 apples.",
        12,
        "correct",
    ),
    (
        "A bag holds 5 red and 5 blue marbles. Two red ones are swapped for two blue ones. How many red marbles?",
        "Two leave and two arrive, so the count does not change. There are 5 red marbles.",
        5,
        "correct",
    ),
    (
        "Ken runs 3 km on Monday and twice that on Tuesday, then half of Tuesday's distance on Wednesday. "
        "How far on Wednesday?",
        "Tuesday is 6 km and half of that is 3 km. He runs 3 km on Wednesday.",
        3,
        "correct",
    ),
]


@pytest.mark.parametrize(
    ("klass", "value", "answer", "verdict"), [(k, v, a, w) for k, rows in CASES.items() for v, a, w in rows]
)
def test_number_class(klass: str, value: float, answer: str, verdict: str) -> None:
    assert _verdict(value, answer) == verdict, klass


@pytest.mark.parametrize(("query", "answer", "value", "verdict"), GIVEN)
def test_a_final_value_the_question_also_gives_is_read(query: str, answer: str, value: float, verdict: str) -> None:
    assert _verdict(value, answer, query) == verdict


def test_plain_numerals_leaves_words_and_scientific_notation_alone() -> None:
    assert plain_numerals("2 x 10^3 and H2O and v1.2.3 and 3/4") == "2 x 10^3 and H2O and v1.2.3 and 3/4"
    assert plain_numerals("5 1/0 and 4 5/3") == "5 1/0 and 4 5/3"  # not proper fractions


MUFFINS = "A baker makes 24 muffins and sells them in boxes of 6 for $5 a box. How much money does he make?"
CIRCUMSTANCE = [
    (20, "The baker makes $20 from 4 boxes.", "correct"),
    (150, "The train covers 150 km in 2 hours.", "correct"),
    (36, "She collects 36 stamps over 3 weeks.", "correct"),
    (4, "The baker makes $20 from 4 boxes.", "wrong"),
]
CHECKS = [
    (4, "x = 4? Let's check: 2(4) + 3 = 11 ✓", "correct"),
    (4, "So x = 4. Let me verify: 2 × 4 + 3 = 11.", "correct"),
    (4, "x = 4.\nDouble-checking: 8 + 3 = 11.", "correct"),
    (11, "x = 4? Let's check: 2(4) + 3 = 11 ✓", "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "verdict"), CIRCUMSTANCE)
def test_a_number_in_a_circumstantial_phrase_is_passed_over(value: float, answer: str, verdict: str) -> None:
    assert _verdict(value, answer, MUFFINS) == verdict


@pytest.mark.parametrize(("value", "answer", "verdict"), CHECKS)
def test_a_check_after_the_answer_is_not_the_answer(value: float, answer: str, verdict: str) -> None:
    assert _verdict(value, answer, "Solve for x: 2x + 3 = 11.") == verdict


SYMBOLS = [
    (12.566370614, "The area is πr² = 4π square units.", "correct"),
    (6.283185307, "So the circumference is 2π.", "correct"),
    (3.4641016, "Simplified, it is 2√3.", "correct"),
    (1.4142136, "The diagonal is \\sqrt{2}.", "correct"),
    (3.14, "π ≈ 3.14", "correct"),  # a bare π is not rewritten: the rounded value is the answer
    (2, "Simplified, it is 2√3.", "wrong"),
    (1.15, "Il reste 1,15 l.", "correct"),
    (0.35, "On en verse 0,35 l.", "correct"),
    (2.5, "Es sind 2,5 kg.", "correct"),
    (1150, "That is 1,150 apples.", "correct"),  # three digits after the comma: thousands
]


@pytest.mark.parametrize(("value", "answer", "verdict"), SYMBOLS)
def test_roots_pi_and_decimal_commas(value: float, answer: str, verdict: str) -> None:
    got = check_expected(_EXPECTED.validate_python({"type": "numeric", "value": value, "tolerance": 0.0001}), answer)
    assert got.verdict == verdict, got.detail
