"""The classes behind the spent blind holdout's eight misses (docs/extraction.md), each with at least
three phrasings of its own and the wrong or undecidable answers that must not pass."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from harness.data.expected import Expected
from harness.metrics.correctness import check_expected
from harness.metrics.numerals import dotted_thousands

_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)
YES_NO = ["Yes", "No"]


def _verdict(block: dict[str, Any], answer: str, query: str | None = None) -> str:
    got = check_expected(_EXPECTED.validate_python(block), answer, query)
    assert got.verdict is not None
    return got.verdict


def _bool(value: bool) -> dict[str, Any]:
    return {"type": "boolean", "value": value}


def _yes_no(answer: str) -> dict[str, Any]:
    return {"type": "choice", "answer": answer, "options": YES_NO}


def _num(value: float) -> dict[str, Any]:
    return {"type": "numeric", "value": value}


BOOLEAN = {
    "a last sentence that is only a yes/no word": [
        (_bool(True), "Every edge is visited once and the walk ends where it began. Yes.", "correct"),
        (_bool(False), "The glass is heavier than the water it displaces, so it sinks.\nNo", "correct"),
        (_yes_no("No"), "The coin landed heads because of the wind, not the player's plan.\n\nSo: no.", "correct"),
        (_yes_no("Yes"), "She skipped the meeting on purpose to avoid him. No.", "wrong"),
        (_bool(True), "No, not in general. The edge case breaks it, though. Yes.", "ambiguous"),  # leading no
    ],
    "a yes/no given as what is said": [
        (_yes_no("No"), "Most people would answer No here: the harm was a side effect.", "correct"),
        (_yes_no("Yes"), "A typical person would say yes, since she chose to do it.", "correct"),
        (_bool(False), "Given the accident, I'd say no.", "correct"),
        (_yes_no("Yes"), "Many would say yes, but the harm was never intended.", "unanswered"),  # turned
        (_bool(True), "I wouldn't say yes to that.", "unanswered"),  # negated
    ],
}

PREDICATE = [
    (
        "If you take 3 steps left and then 3 steps right, do you end up where you started?",
        "Left 3 and right 3 cancel out. You do end up where you started.",
        True,
        "correct",
    ),
    (
        "After the swap, is the red ball in the second box?",
        "Tracking each swap: the red ball is in the second box.",
        True,
        "correct",
    ),
    (
        "Given these moves, does the knight reach the corner square?",
        "Two jumps bring it to b3, then c1. The knight does not reach the corner square.",
        False,
        "correct",
    ),
    (
        "If you follow these steps, do you return to the starting point?",
        "Net movement is 2 steps forward. You do not return to the starting point.",
        True,
        "wrong",
    ),
]

COMPARISON = [
    ("Is 2^10 greater than 1000?", "2^10 = 1024, which is more than 1000.", True, "correct"),
    ("Is 3^5 greater than 250?", "3^5 = 243 < 250.", False, "correct"),
    ("Is 17 × 6 less than 100?", "17 × 6 = 102, which is not less than 100.", False, "correct"),
    ("Does 7^3 exceed 300?", "7 × 7 × 7 = 343 > 300.", True, "correct"),
    ("Is 12 × 12 larger than 140?", "We get 144, and 140 < 144.", True, "correct"),
    ("Is 2^10 greater than 1000?", "2^9 = 512, which is less than 1000.", False, "unanswered"),  # another subject
    ("Is 2^10 greater than 1000?", "It is above 1000 and below 1000 depending on rounding.", True, "unanswered"),
    ("Is 3^5 greater than 250?", "3^5 = 243, which is greater than 250.", True, "correct"),  # what it says
]

NUMBERS = {
    "one-group dotted thousands when the answer shows the convention": [
        (45000, "Der Umsatz steigt von 30.000 € auf 45.000 €.", None, "correct"),
        (2500, "Kosten: 1.200 $ plus 1.300 $, also 2.500 $.", None, "correct"),
        (3500, "Das sind 3,5 km, also 3.500 Meter.", None, "correct"),
        (
            12000,
            "Er zahlt 10.000 und bekommt 12.000 zurück.",
            "He pays $10,000 and gets back 20% more. How much does he get back?",
            "correct",
        ),
        (2500, "The sample weighs 2.500 grams.", None, "wrong"),  # no convention: a decimal
        (1024000, "So the product is 1.024 × 10^6.", "What is 2^10 × 10^3?", "correct"),  # a mantissa
    ],
    "a result phrase after the last equation": [
        (76, "5 × 12 = 60 and 2 × 8 = 16, for a total of 76 apples.", None, "correct"),
        (17, "Monday: 3 + 4 = 7 hours, Tuesday 2 × 5 = 10 hours, making 17 hours.", None, "correct"),
        (42, "Tickets 2 × 15 = 30 and snacks 3 × 4 = 12, which brings the total to 42 dollars.", None, "correct"),
        (12, "Tickets 2 × 15 = 30 and snacks 3 × 4 = 12, which brings the total to 42 dollars.", None, "wrong"),
    ],
    "a LaTeX fraction of roots or π": [
        (0.8660254, "Answer: $\\frac{\\sqrt{3}}{2}$", None, "correct"),
        (0.7853982, "The angle is $\\frac{\\pi}{4}$ radians.", None, "correct"),
        (2.3561945, "So $\\theta = \\dfrac{3\\pi}{4}$.", None, "correct"),
        (0.9428090, "Answer: $\\frac{2\\sqrt{2}}{3}$", None, "correct"),
        (0.7071068, "Answer: √2/2", None, "correct"),
        (4, "The angle is $\\frac{\\pi}{4}$ radians.", None, "wrong"),
    ],
}


@pytest.mark.parametrize(
    ("klass", "block", "answer", "verdict"), [(k, b, a, v) for k, rows in BOOLEAN.items() for b, a, v in rows]
)
def test_boolean_reading_class(klass: str, block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict, klass


@pytest.mark.parametrize(("query", "answer", "value", "verdict"), PREDICATE)
def test_a_question_after_a_leading_condition_is_answered_by_its_predicate(
    query: str, answer: str, value: bool, verdict: str
) -> None:
    assert _verdict(_bool(value), answer, query) == verdict
    options_block = _yes_no("Yes" if value else "No")  # the same question posed with Yes/No options
    assert _verdict(options_block, answer, query) == verdict


@pytest.mark.parametrize(("query", "answer", "value", "verdict"), COMPARISON)
def test_a_comparing_question_is_answered_by_a_stated_comparison(
    query: str, answer: str, value: bool, verdict: str
) -> None:
    assert _verdict(_bool(value), answer, query) == verdict


@pytest.mark.parametrize(
    ("klass", "value", "answer", "query", "verdict"),
    [(k, v, a, q, w) for k, rows in NUMBERS.items() for v, a, q, w in rows],
)
def test_number_reading_class(klass: str, value: float, answer: str, query: str | None, verdict: str) -> None:
    assert _verdict({**_num(value), "tolerance": 1e-6}, answer, query) == verdict, klass


def test_dotted_thousands_needs_a_sign_of_the_convention() -> None:
    assert dotted_thousands("It weighs 2.500 kg.") == "It weighs 2.500 kg."
    assert dotted_thousands("It weighs 2.500 kg, or 2,5 tonnes... no.") == "It weighs 2500 kg, or 2,5 tonnes... no."
    assert dotted_thousands("Total 1.250 € and 1.250.000 €") == "Total 1250 € and 1.250.000 €"
    assert dotted_thousands("Total 80.000", {80000.0}) == "Total 80000"
    assert dotted_thousands("Total 80.000", {80.0, 80000.0}) == "Total 80.000"  # both readings given


# ---- classes found on the dev half of the second blind corpus (docs/extraction.md)

METALS = {"A": "copper", "B": "iron", "C": "glass", "D": "silver"}
DATES = ["03/01/2020", "02/29/2020", "02/28/2020", "03/02/2020"]
LEAP = "2020 is a leap year. What is the date the day before 03/01/2020?"

TAKEN_BACK = [
    ("Answer: yes\n\nOn second look I should correct myself: it does not, so the answer is no.", True, "ambiguous"),
    ("Answer: no\n\nWait — the data say it does. Yes.", False, "ambiguous"),
    ("**Answer: yes**\n\nHmm, that's wrong: the claim does not hold, so no.", True, "ambiguous"),
    ("Answer: no\n\nStudies found no link between the habit and the illness.", False, "correct"),  # explains
]

BOTH_WAYS = [
    ("By the letter of the rule, so yes; by common sense, so no.", True, "ambiguous"),
    ("Legally it was his act, thus yes; but morally, thus no.", False, "ambiguous"),
    (
        "The first wire was needed, so yes. Most people blame the second one though. It depends on who you ask.",
        True,
        "ambiguous",
    ),
    ("It depends on the day.", True, "unanswered"),  # no yes/no word at all: nothing to count as named
    ("The wire closed the circuit, so yes.", True, "correct"),
]

ALTERNATIVES = [
    ({"type": "choice", "answer": "C", "options": METALS}, "Glass never conducts.\n\nAnswer: C or D", "ambiguous"),
    ({"type": "choice", "answer": "C", "options": METALS}, "I'd pick (c) or maybe (d).", "ambiguous"),
    ({"type": "choice", "answer": "C", "options": METALS}, "The answer is either C or B.", "ambiguous"),
    (
        {"type": "choice", "answer": "02/29/2020", "options": DATES},
        "The day before is 02/29/2020. Unless the year is not a leap year, so 02/29/2020 or 02/28/2020.",
        "ambiguous",
    ),
    (
        {"type": "choice", "answer": "C", "options": METALS},
        "Glass, not copper or silver, is the insulator: C.",
        "correct",
    ),
]

NUMBERS_2 = {
    "a reason clause after the result": [
        (1.5, "log₂ 8 ÷ log₂ 4 = 3/2 since 2^3 = 8 and 2^2 = 4.", None, "correct"),
        (5, "She has 5 marbles left because 12 − 7 = 5.", None, "correct"),
        (6, "It takes 6 hours, since 120 / 20 = 6 and the speed never changes.", None, "correct"),
        (8, "log₄ 16 = 2 since 4^2 = 16.", None, "wrong"),
    ],
    "the exact value before a rounding '≈'": [
        (1.7320508, "√3 ≈ 1.73", None, "correct"),
        (3.6055513, "The distance is √13 ≈ 3.61 units.", None, "correct"),
        (2.2360680, "So d = √5 ≈ 2.24.", None, "correct"),
        (2.24, "So d = √5 ≈ 2.34.", None, "wrong"),  # not a rounding of √5: the stated 2.34 is read
    ],
    "LaTeX math delimiters and decimals are not dotted thousands": [
        (0.375, "$3 \\div 8 = 0.375$\n\n$\\boxed{0.375}$", "What is $\\frac{3}{8}$ as a decimal?", "correct"),
        (0.125, "$1 \\div 8 = 0.125$", "What is $\\frac{1}{8}$ as a decimal?", "correct"),
        (1500, "The mass is $1.500$ kg in the notation.", None, "wrong"),  # 1.5, not 1500
        (0.625, "It is 0.625 €.", None, "correct"),
    ],
    "an opening clause on the question's subject, then the working": [
        (
            12,
            "Tom has a dozen apples — Jerry has 4 and Tom has three times that.",
            "Tom has 3 times as many apples as Jerry. Together they have 16 apples. How many apples does Tom have?",
            "correct",
        ),
        (
            460,
            "Mia earns four hundred sixty dollars: $400 for the base hours plus $60 extra.",
            "Mia is paid $10 an hour for 40 hours and $12 for each of 5 extra hours. What does Mia earn?",
            "correct",
        ),
        (
            35,
            "She reads 35 pages - 5 pages a day for 7 days.",
            "Ana reads 5 pages a day. How many pages does she read in 7 days?",
            "correct",
        ),
        (
            12,
            "Jerry has 4 apples — Tom has three times as many.",
            "Tom has 3 times as many apples as Jerry. Together they have 16 apples. How many apples does Tom have?",
            "wrong",
        ),
    ],
}


@pytest.mark.parametrize(("answer", "value", "verdict"), TAKEN_BACK)
def test_a_yes_no_taken_back_later_is_ambiguous(answer: str, value: bool, verdict: str) -> None:
    assert _verdict(_bool(value), answer) == verdict


@pytest.mark.parametrize(("answer", "value", "verdict"), BOTH_WAYS)
def test_a_yes_no_concluded_both_ways_or_left_open_is_ambiguous(answer: str, value: bool, verdict: str) -> None:
    assert _verdict(_bool(value), answer) == verdict
    if verdict != "unanswered":  # the same answers to Yes/No options
        assert _verdict(_yes_no("Yes" if value else "No"), answer) == verdict


@pytest.mark.parametrize(("block", "answer", "verdict"), ALTERNATIVES)
def test_options_offered_as_alternatives_are_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer, LEAP if block["options"] is DATES else None) == verdict


@pytest.mark.parametrize(
    ("klass", "value", "answer", "query", "verdict"),
    [(k, v, a, q, w) for k, rows in NUMBERS_2.items() for v, a, q, w in rows],
)
def test_number_reading_class_2(klass: str, value: float, answer: str, query: str | None, verdict: str) -> None:
    assert _verdict({**_num(value), "tolerance": 1e-4}, answer, query) == verdict, klass


# ---- variants of the dev-half classes, written to probe them (not from any corpus)

ORGANELLES = {"A": "Mitochondria", "B": "Ribosome", "C": "Golgi apparatus", "D": "Nucleus"}

RETRACTED = [
    (_num(42), "Answer: 42\n\nActually, I made an error: it should be 44.", "ambiguous"),
    (_num(42), "Answer: 42\n\nOn reflection, the correct total is 44.", "ambiguous"),
    (_num(42), "The answer is 42. Hmm, no — recomputing, it is 44.", "ambiguous"),
    (_num(12), "The answer is 12 apples. On reflection, 3 boxes of 4 is still 12.", "correct"),  # confirmed
    (_bool(True), "Answer: yes\n\nActually, no: the study found the opposite.", "ambiguous"),
    (_bool(True), "Yes. Hmm, actually no, I was thinking of something else.", "ambiguous"),
    (_bool(True), "Yes. Actually, no scientist disputes it.", "correct"),  # "no" is not the take-back here
]

TWO_OPTIONS = [
    ({"type": "choice", "answer": "A", "options": ORGANELLES}, "I'm torn.\n\nAnswer: A and D", "ambiguous"),
    ({"type": "choice", "answer": "A", "options": ORGANELLES}, "The answer is A, D.", "ambiguous"),
    ({"type": "choice", "answer": "A", "options": ORGANELLES}, "Answer: A/D", "ambiguous"),
    ({"type": "choice", "answer": "D", "options": ORGANELLES}, "It's probably A, but it could be D.", "ambiguous"),
    (
        {"type": "choice", "answer": "D", "options": ORGANELLES},
        "Mitochondria make ATP; perhaps the nucleus, though.",
        "ambiguous",
    ),
    ({"type": "choice", "answer": "A", "options": ORGANELLES}, "Answer: A (the mitochondria)", "correct"),
]

RANGES = [
    (_num(14), "Somewhere between 12 and 14.", "ambiguous"),
    (_num(3), "Answer: from 3 to 5 days", "ambiguous"),
    (_num(40), "The final answer is between 35 and 40 minutes.", "ambiguous"),
    (_num(6), "Between 3 and 5 pm he walked 6 km.", "correct"),  # the range is not the last number
]

POSSIBILITY = [
    ({"type": "any_of", "values": ["Paris"]}, "Probably Paris, though it might be Lyon.", "ambiguous"),
    ({"type": "exact", "value": "Au"}, "Au, although it could be Ag.", "ambiguous"),
    ({"type": "any_of", "values": ["Jupiter"]}, "Jupiter, but possibly Saturn if you count the rings.", "ambiguous"),
    ({"type": "any_of", "values": ["Paris"]}, "Paris, although it might surprise you.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), [*RETRACTED, *TWO_OPTIONS, *RANGES, *POSSIBILITY])
def test_an_answer_that_does_not_commit_is_never_correct(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


PLANETS = {"A": "Jupiter", "B": "Saturn", "C": "Neptune", "D": "Earth"}
HALF_COMMITTED = [
    (_bool(True), "This is partially true.", "ambiguous"),
    (_bool(False), "Answer: mostly false", "ambiguous"),
    (_bool(True), "The claim is half true: the core is hot, but not hotter.", "ambiguous"),
    (_bool(True), "Yes, in the sense that it is the biggest city — no, officially.", "ambiguous"),
    (_bool(False), "No; yes, if you count the suburbs.", "ambiguous"),
    (_bool(True), "Yes: but no, not in law.", "ambiguous"),
    (_bool(True), "Yes — the inner core is roughly as hot, about 5,500 °C.", "correct"),
    ({"type": "choice", "answer": "B", "options": PLANETS}, "I'd say B, although A could also be argued.", "ambiguous"),
    ({"type": "choice", "answer": "C", "options": PLANETS}, "C, but A might be right too.", "ambiguous"),
    ({"type": "choice", "answer": "D", "options": PLANETS}, "Probably D, though A may also fit.", "ambiguous"),
    ({"type": "choice", "answer": "A", "options": PLANETS}, "A. Jupiter is the largest.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), HALF_COMMITTED)
def test_a_half_committed_answer_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


SEVERAL_IN_A_CLAUSE = [
    (_num(12), "Answer: 12 (or 13 if you count him)", "ambiguous"),
    (_num(12), "Answer: 12, possibly 13", "ambiguous"),
    (_num(13), "The answer is 12 — maybe 13.", "ambiguous"),
    (_num(4), "Answer: 4 and 5", "ambiguous"),
    (_num(4), "Answer: 4, 5", "ambiguous"),
    (_num(12), "Answer: 12\n\nCheck: 3 × 5 = 15, so actually 15.", "ambiguous"),
    (_num(12), "Answer: 12 (not 13)", "correct"),
    (_num(12), "Answer: 12 or twelve", "correct"),  # one value written two ways
    (_num(12), "Answer: 12 (twelve)", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), SEVERAL_IN_A_CLAUSE)
def test_a_clause_offering_several_numbers_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


DATES_2006 = ["12/24/2006", "12/25/2006", "12/26/2006"]
ASKED_THEN_ANSWERED = [
    ({"type": "any_of", "values": ["Jupiter"]}, "Answer: Jupiter? No — Saturn.", "wrong"),
    ({"type": "exact", "value": "Paris"}, "Answer: Lyon? Actually, Paris.", "correct"),
    (_num(12), "Answer: 12? No, 13.", "wrong"),
    (_bool(False), "Answer: Does it cause arthritis? No, it does not.", "correct"),
    ({"type": "choice", "answer": "12/25/2006", "options": DATES_2006}, "Answer: 25/12/2006", "unanswered"),
    ({"type": "choice", "answer": "12/26/2006", "options": DATES_2006}, "Answer: 2006/26/12", "unanswered"),
    ({"type": "choice", "answer": "12/25/2006", "options": DATES_2006}, "Answer: 25", "correct"),  # one word
]


@pytest.mark.parametrize(("block", "answer", "verdict"), ASKED_THEN_ANSWERED)
def test_a_declared_line_that_asks_then_answers_and_words_out_of_order(
    block: dict[str, Any], answer: str, verdict: str
) -> None:
    """A declared value read after its question mark; an option's distinctive words count only in
    the option's own order (a date written day first does not name the month-first option)."""
    assert _verdict(block, answer) == verdict


PREDICATE_WHOLE = [
    ("Is Sydney the capital of Australia?", "Sydney is the capital of New South Wales.", True, "unanswered"),
    ("Is Paris the capital of Germany?", "Paris is the capital of France.", True, "unanswered"),
    ("Is 91 prime?", "91 is prime to 10, being odd and not a multiple of 5.", True, "unanswered"),
    ("Is 51 prime?", "51 is not a prime number.", False, "correct"),
    ("Is 51 prime?", "51 is not prime because 3 divides it.", False, "correct"),
    (
        "Is the Great Wall of China visible from space with the naked eye?",
        "It is not visible from space with the naked eye.",
        False,
        "correct",
    ),
    (
        "Do penguins live at the North Pole?",
        "Penguins do not live at the North Pole; they live in the Southern Hemisphere.",
        False,
        "correct",
    ),
]


@pytest.mark.parametrize(("query", "answer", "value", "verdict"), PREDICATE_WHOLE)
def test_a_clause_answers_the_predicate_only_with_the_whole_predicate(
    query: str, answer: str, value: bool, verdict: str
) -> None:
    """Every content word of the clause's own predicate (up to "because …") must be the question's;
    a pronoun subject ("It is not …") stands for the question's subject."""
    assert _verdict(_bool(value), answer, query) == verdict


YEAR = {"type": "regex", "pattern": r"\b1969\b"}
HEX = {"type": "regex", "pattern": r"(?i)\b(0x)?ff\b"}
QUADRATIC = {"type": "regex", "pattern": r"O\(n\^?2\)|O\(n²\)"}
REGEX_CONTEXT = [
    (YEAR, "Not 1969 — it was 1970.", "wrong"),
    (YEAR, "It was 1970, not 1969.", "wrong"),
    (YEAR, "Answer: 1970 (not 1969)", "wrong"),
    (HEX, "FF? No, FE.", "wrong"),
    (QUADRATIC, "Average O(n log n); O(n^2) is only a myth.", "wrong"),
    (YEAR, "Either 1969 or 1970.", "ambiguous"),
    (YEAR, "In 1969, I think — or was it 1970?", "ambiguous"),
    (YEAR, "Answer: 1969 or 1970", "ambiguous"),
    (YEAR, "The landing was in 1969 (July 20).", "correct"),
    (HEX, "0xFF (255), not 0xFE.", "correct"),
    (QUADRATIC, "It is O(n^2) in the worst case, not O(n log n).", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), REGEX_CONTEXT)
def test_a_regex_match_the_answer_rejects_or_hedges_does_not_pass(
    block: dict[str, Any], answer: str, verdict: str
) -> None:
    assert _verdict(block, answer) == verdict


SHORT_REJECT_OR_RETRACT = [
    ({"type": "exact", "value": "Leonardo da Vinci"}, "Not Raphael; Leonardo da Vinci.", "correct"),
    ({"type": "any_of", "values": ["Mars"]}, "Not Venus — Mars.", "correct"),
    ({"type": "any_of", "values": ["Venus"]}, "Not Venus; Mars.", "wrong"),
    ({"type": "exact", "value": "Leonardo da Vinci"}, "Michelangelo — no wait, Leonardo da Vinci.", "correct"),
    ({"type": "exact", "value": "Michelangelo"}, "Michelangelo — no wait, Leonardo da Vinci.", "wrong"),
    ({"type": "any_of", "values": ["Au"]}, "Ag, oops, Au.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), SHORT_REJECT_OR_RETRACT)
def test_a_short_answer_after_a_rejection_or_a_take_back(block: dict[str, Any], answer: str, verdict: str) -> None:
    """A first part that only rejects ("Not Raphael; …") or is taken back ("…, no wait, …") is not
    the answer: what follows it is."""
    assert _verdict(block, answer) == verdict


PAIR_QUESTIONS = [
    ({"type": "choice", "answer": "valid", "options": ["valid", "invalid"]}, "Deductively valid? No.", "wrong"),
    ({"type": "choice", "answer": "invalid", "options": ["valid", "invalid"]}, "Deductively valid? No.", "correct"),
    ({"type": "choice", "answer": "invalid", "options": ["valid", "invalid"]}, "Is it valid? No.", "correct"),
    ({"type": "choice", "answer": "implausible", "options": ["plausible", "implausible"]}, "Plausible? No.", "correct"),
    (
        {"type": "choice", "answer": "plausible", "options": ["plausible", "implausible"]},
        "Is that plausible? Not for a goalkeeper.",
        "unanswered",
    ),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), PAIR_QUESTIONS)
def test_a_question_restating_a_word_option_is_not_its_verdict(
    block: dict[str, Any], answer: str, verdict: str
) -> None:
    assert _verdict(block, answer) == verdict


# The classes behind the second blind corpus's spent holdout (one false positive, six misses).
TILES = "A box holds 12 tiles. How many boxes are needed for 60 tiles?"
FLOCK = "Each of the 20 chickens eats 3 cups a day. How many cups do they eat in total?"
GIVEN_RESTATED = [
    # a short last sentence whose only number stands with the noun the question gives it is a restated given
    (_num(20), FLOCK, "Let me think. 20 × 3 = 60 cups per day overall. The flock has 20 chickens", "wrong"),
    (_num(12), TILES, "60 / 12 = 5 boxes. Each box has 12 tiles.", "wrong"),
    (_num(20), FLOCK, "That is 3 cups for each bird, 60 altogether? No: the farm has 20 chickens.", "wrong"),
    # the same value as the result, with the asked noun or after "of", still counts
    (_num(60), TILES, "Work it out: twelve per box. You need 60 tiles.", "correct"),
    (
        _num(0.375),
        "Sam ate 3/8 of a pizza and Jo ate 1/4 of it. What fraction did Sam eat?",
        "Jo: 1/4. Sam: 3/8 of the pizza.",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), GIVEN_RESTATED)
def test_a_short_last_sentence_restating_a_given_with_its_noun_is_not_the_answer(
    block: dict[str, Any], query: str, answer: str, verdict: str
) -> None:
    assert _verdict(block, answer, query) == verdict


ANSWER_FIRST = [
    (_num(5), "Answer first: five.\n\nWorking: 12 × 5 = 60, so 60 tiles fill 5 boxes.", "correct"),
    (_num(5), "Answer up front: 5\n\nBecause 60 / 12 = 5, so 60 tiles need that many.", "correct"),
    (_num(5), "Answer, in short: 5 boxes. The 60 tiles split into 12s.", "correct"),
    (_num(5), "Answer in brief: 6. So 60 tiles fill 5 boxes.", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), ANSWER_FIRST)
def test_an_answer_cue_qualified_by_its_placement(block: dict[str, Any], answer: str, verdict: str) -> None:
    """ "Answer first:", "Answer up front:", "Answer, in short:" are answer cues like "Answer:"."""
    assert _verdict(block, answer, TILES) == verdict


MARBLES = "Lucas shares 14 marbles equally among 6 friends. How many marbles are left over?"
GERUND_GIVING = [
    (_num(2), "Two marbles remain after giving each of the 6 friends 2.", "correct"),
    (_num(2), "After giving 12 away, 2 marbles remain.", "correct"),
    (_num(2), "2 are left over when giving each friend 2 marbles.", "correct"),
    (_num(2), "Each friend gets 2, giving 12 in all, so 2 are left.", "correct"),
    (_num(2), "Three marbles remain after giving each of the 6 friends 2.", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), GERUND_GIVING)
def test_giving_as_a_verb_is_not_a_conclusion_cue(block: dict[str, Any], answer: str, verdict: str) -> None:
    """ "giving" after "after", "before", "when", "while", "by", "without" is a verb ("after giving each
    friend 2"), not the conclusion cue "…, giving 6"."""
    assert _verdict(block, answer, MARBLES) == verdict


AGES = "Ann is 4 years older than Ben. In 2 years their ages will add up to 30. How old is Ann now?"
PAREN_SEMICOLON = [
    (_num(15), "Ann is 15 now (Ben is 11; in two years they will be 17 and 13, which add to 30).", "correct"),
    (_num(15), "She is 15 (check: 11 + 4 = 15; 17 + 13 = 30).", "correct"),
    (_num(15), "Ann: 15 years old (Ben: 11; sum in 2 years: 17 + 13 = 30).", "correct"),
    (_num(15), "Ann is 13 now (Ben is 9; in two years 15 and 11, which add to 26).", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), PAREN_SEMICOLON)
def test_a_semicolon_inside_a_parenthesis_does_not_end_the_sentence(
    block: dict[str, Any], answer: str, verdict: str
) -> None:
    """A trailing parenthesis stays one aside even when it holds a semicolon, so its numbers are
    passed over and the sentence's own number is read."""
    assert _verdict(block, answer, AGES) == verdict


SPELLED_PERCENT = [
    (_num(0.15), "Fifteen percent chose chemistry.", "correct"),
    (_num(0.4), "Forty per cent of them passed.", "correct"),
    (_num(0.25), "Answer: twenty-five percent", "correct"),
    (_num(0.15), "Fifteen chose chemistry.", "wrong"),
    (_num(0.15), "Sixteen percent chose chemistry.", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), SPELLED_PERCENT)
def test_a_spelled_out_percentage_reads_as_its_fraction(block: dict[str, Any], answer: str, verdict: str) -> None:
    """ "Fifteen percent" is a percentage like "15%": it matches the fraction 0.15."""
    assert _verdict(block, answer) == verdict


WASHINGTON = {"type": "any_of", "values": ["George Washington", "Washington"]}
ABBREVIATIONS = [
    (WASHINGTON, "The first U.S. president was Washington.", "correct"),
    (WASHINGTON, "The first U.S. president was John Adams.", "wrong"),
    ({"type": "exact", "value": "Washington, D.C."}, "Washington, D.C. is the capital.", "correct"),
    (
        {"type": "any_of", "values": ["Louis Pasteur", "Pasteur"]},
        "Dr. Louis Pasteur. He developed it in 1885.",
        "correct",
    ),
    ({"type": "any_of", "values": ["Canberra"]}, "The capital, i.e. the seat of government, is Canberra.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), ABBREVIATIONS)
def test_an_abbreviation_does_not_end_the_first_sentence(block: dict[str, Any], answer: str, verdict: str) -> None:
    """The full stop of "U.S.", "e.g.", "i.e." before a lower-case word, or of a title ("Dr."), is
    not a sentence end."""
    assert _verdict(block, answer) == verdict


DATES = ["10/03/2019", "10/02/2019", "09/03/2019", "10/04/2019"]
PREMISE = [
    (
        {"type": "choice", "answer": "10/02/2019", "options": DATES},
        "If tomorrow is 10/03/2019, today is 10/02/2019.",
        "correct",
    ),
    (
        {"type": "choice", "answer": "10/03/2019", "options": DATES},
        "If tomorrow is 10/03/2019, today is 10/02/2019.",
        "wrong",
    ),
    (
        {"type": "choice", "answer": "B", "options": {"A": "iron", "B": "glass", "C": "copper"}},
        "Since iron and copper conduct, glass is the insulator.",
        "correct",
    ),
    (
        {"type": "choice", "answer": "B", "options": {"A": "iron", "B": "glass", "C": "copper"}},
        "Assuming copper conducts best, then iron comes next.",
        "wrong",
    ),
    (
        {"type": "choice", "answer": "B", "options": {"A": "iron", "B": "glass", "C": "copper"}},
        "If it were glass, copper or iron would do.",
        "ambiguous",
    ),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), PREMISE)
def test_an_option_named_only_in_a_leading_premise_is_assumed_not_answered(
    block: dict[str, Any], answer: str, verdict: str
) -> None:
    """ "If X, Y" / "Since X, Y" / "Assuming X, then Y": the options the condition names are assumed;
    the option named after it is the answer."""
    assert _verdict(block, answer) == verdict


# The classes behind the third blind corpus's dev half (two false positives, one miss).
LATEX_WHOLE = [
    (_num(1), "Total: $\\frac{1+\\sqrt{3}}{2}$\n\nAnswer: \\frac{1+\\sqrt{3}}{2}", "wrong"),
    (_num(1.3660254), "Answer: $\\frac{1+\\sqrt{3}}{2}$", "correct"),
    (_num(2), "The answer is $\\frac{2+\\sqrt{2}}{1}$.", "wrong"),
    (_num(0.5), "So the result is \\frac{3-2}{2}.", "correct"),
    (_num(3), "Answer: \\sqrt{9}", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), LATEX_WHOLE)
def test_a_latex_expression_in_a_clause_is_read_whole(block: dict[str, Any], answer: str, verdict: str) -> None:
    """A clause holding a LaTeX expression is read as one expression, never as its first digit."""
    assert _verdict({**block, "tolerance": 1e-6}, answer) == verdict


EITHER_OR = [
    (_num(1), "So the answer is either $1 or $\\frac{1+\\sqrt{3}}{2}$.", "ambiguous"),
    (_num(12), "The answer is either 12 or something close to it.", "ambiguous"),
    (_num(7), "Answer: either 7 or 8, depending on rounding", "ambiguous"),
    (_num(7), "Answer: 7", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), EITHER_OR)
def test_either_or_in_the_answer_clause_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    """ "either X or Y" offers alternatives even when Y is not a readable number."""
    assert _verdict(block, answer) == verdict


RESTATED = [
    (_num(0.5), "4 × 250 ml = 1 liter poured, so 1 of 2 liters remains — half of it, i.e. 0.5.", "correct"),
    (_num(0.25), "3 of 4 slices are eaten, so 1 slice is left, that is 0.25 of the pie.", "correct"),
    (_num(0.75), "1 of 4 parts is used, so 3 parts remain, in other words 0.75.", "correct"),
    (_num(0.5), "4 × 250 ml = 1 liter poured, so 1 of 2 liters remains, i.e. 0.4.", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), RESTATED)
def test_a_result_restated_after_ie_is_the_answer(block: dict[str, Any], answer: str, verdict: str) -> None:
    """ "…, i.e. 0.5" / "that is 0.25" / "in other words 0.75": the number right after the restatement
    is the result in the asked form."""
    assert _verdict(block, answer) == verdict


# GSM8K-style reading, probed with phrasings written here (no corpus answer copied).
PENCILS = "John buys 3 packs of 12 pencils and gives away 10. How many pencils does he have left?"
SHIRT = "A shirt costs $40 and is discounted by 25%. What is the sale price in dollars?"
GSM_READING = {
    '"leaves N" / ", leaving N" states the result': [
        (_num(26), PENCILS, "36 pencils minus 10 leaves 26.", "correct"),
        (_num(26), PENCILS, "He buys 36 and hands out 10, leaving 26.", "correct"),
        (_num(26), PENCILS, "Giving away 10 of the 36 leaves him with 26.", "correct"),
        (_num(26), PENCILS, "36 pencils minus 10 leaves 24.", "wrong"),
    ],
    '"N left over after …": "left" closes the phrase, it does not introduce a number': [
        (_num(26), PENCILS, "So John has 26 left over after giving 10 away.", "correct"),
        (_num(26), PENCILS, "So 26 remain after 10 are given away.", "correct"),
        (_num(26), PENCILS, "So he is left with 26 after 10 go.", "correct"),
        (_num(26), PENCILS, "So John has 10 left over after giving 26 away.", "wrong"),
    ],
    'an amount "off" is a discount, not the result': [
        (_num(30), SHIRT, "The sale price is $30, which is $10 off the original $40.", "correct"),
        (_num(30), SHIRT, "It sells for $30 — that's $10 off.", "correct"),
        (_num(30), SHIRT, "You pay 30 dollars, 25% off the list price.", "correct"),
        (_num(30), SHIRT, "The sale price is $10 off.", "wrong"),
    ],
    "a labelled last value is stated, so a short first sentence does not lead": [
        (_num(30), SHIRT, "The discount is $10. Sale price: $30.", "correct"),
        (_num(30), SHIRT, "You save $10 on it. Final price: $30", "correct"),
        (_num(30), SHIRT, "The markdown comes to $10. Price now: 30 dollars.", "correct"),
        (_num(30), SHIRT, "The discount is $10. Sale price: $32.", "wrong"),
    ],
}


@pytest.mark.parametrize(
    ("klass", "block", "query", "answer", "verdict"),
    [(k, b, q, a, w) for k, rows in GSM_READING.items() for b, q, a, w in rows],
)
def test_gsm8k_reading_class(klass: str, block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict, klass


SAVINGS = "Mia saves $12 each week. How many weeks does she need to save $60?"
CONTRASTED_EQUALS = [
    (_num(5), "60 / 12 = 5 would be the naive answer, but with interest she needs 4 weeks.", "ambiguous"),
    (_num(5), "60 / 12 = 5 looks right, however the fee means 6 weeks.", "ambiguous"),
    (_num(4), "60 / 12 = 5, yet the bonus cuts it to 4 weeks.", "ambiguous"),
    (_num(5), "60 / 12 = 5, but only if she never skips a week.", "correct"),  # a turn without a number
    (_num(5), "60 / 12 = 5 weeks, though 5 is a lot for a child.", "correct"),  # the same number
]


@pytest.mark.parametrize(("block", "answer", "verdict"), CONTRASTED_EQUALS)
def test_a_computed_value_contrasted_with_another_number_is_ambiguous(
    block: dict[str, Any], answer: str, verdict: str
) -> None:
    """In the last sentence, "= 5 …, but … 4" turns away from the computed value: neither is taken."""
    assert _verdict(block, answer, SAVINGS) == verdict


TURNED_CLAUSE = [
    (_num(5), "The answer is 5, but with interest she needs 4.", "ambiguous"),
    (_num(5), "Answer: 5 weeks, however the fee pushes it to 6", "ambiguous"),
    (_num(4), "The answer is 5, yet with the bonus it drops to 4.", "ambiguous"),
    (_num(5), "The answer is 5 weeks, but only if she never skips one.", "correct"),
    (_num(5), "Answer: 5, though 5 weeks feels long.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), TURNED_CLAUSE)
def test_an_answer_clause_that_turns_to_another_number_is_ambiguous(
    block: dict[str, Any], answer: str, verdict: str
) -> None:
    """A cued or declared clause whose first number is followed by "but" / "however" / "yet" /
    "though" and a different number commits to neither."""
    assert _verdict(block, answer, SAVINGS) == verdict


HYPOTHETICAL_LEAD = [
    (_num(5), "5 weeks is the textbook answer. I get 6 when the fee is counted in.", "wrong"),
    (_num(25), "He has 25 marbles if we ignore the lost ones; counting them, 30.", "wrong"),
    (_num(5), "So she needs 5 weeks... no, 6 weeks because the first week is skipped.", "wrong"),
    (_num(5), "It would seem like 5 weeks. With the fee she needs 6 weeks of saving in all.", "wrong"),
    (_num(5), "5 weeks. Saving 12 dollars each week reaches the 60 dollars in that time.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), HYPOTHETICAL_LEAD)
def test_a_hypothetical_first_sentence_does_not_lead(block: dict[str, Any], answer: str, verdict: str) -> None:
    """A short first sentence framed as a hypothesis or another's answer ("if we ignore …", "the
    textbook answer", "would seem", "…"), or taken back by a following "no", is not the answer."""
    query = SAVINGS if block["value"] == 5 else "Ben has 20 marbles, loses 5 and finds 10. How many marbles now?"
    assert (
        _verdict(block, answer, query) != "correct" if verdict == "wrong" else _verdict(block, answer, query) == verdict
    )


ATTRIBUTED_AND_APPOSITIVE = [
    # a value named only as what others think or say does not commit the answerer (the spent third holdout's FP)
    ({"type": "exact", "value": "Canberra"}, "It's often thought to be Canberra", "ambiguous"),
    ({"type": "any_of", "values": ["Canberra"]}, "The capital is commonly believed to be Canberra.", "ambiguous"),
    ({"type": "any_of", "values": ["Edison"]}, "Many say Edison invented the light bulb.", "ambiguous"),
    ({"type": "any_of", "values": ["Edison"]}, "People assume it was Edison.", "ambiguous"),
    ({"type": "any_of", "values": ["Paris"]}, "It is said to be Paris.", "ambiguous"),
    # the framing rejected by a contrast, or a leading concession: the answerer's own clause decides
    ({"type": "exact", "value": "Canberra"}, "Many people think it's Sydney, but it is Canberra", "correct"),
    ({"type": "exact", "value": "Canberra"}, "Although many believe it's Sydney, it is Canberra.", "correct"),
    ({"type": "exact", "value": "Sydney"}, "Although many believe it's Sydney, it is Canberra.", "ambiguous"),
    ({"type": "any_of", "values": ["Canberra"]}, "Canberra, though many assume Sydney.", "correct"),
    # a trailing appositive restating the clause's last noun phrase is the answer (the spent third holdout's misses)
    ({"type": "any_of", "values": ["France"]}, "The treaty was signed in Paris, France.", "correct"),
    (
        {"type": "any_of", "values": ["Brazil"]},
        "The 2016 Summer Olympics were held in Rio de Janeiro, Brazil",
        "correct",
    ),
    ({"type": "exact", "value": "H2O"}, "Water is dihydrogen monoxide, H2O.", "correct"),
    ({"type": "exact", "value": "NaCl"}, "Table salt is sodium chloride, NaCl", "correct"),
    # … but a trailing phrase that is another candidate, not a restatement, stays ambiguous
    ({"type": "any_of", "values": ["Jupiter"]}, "The largest planet is Saturn, Jupiter", "ambiguous"),
    ({"type": "any_of", "values": ["Jupiter"]}, "Saturn is the largest planet, with Jupiter second", "ambiguous"),
    ({"type": "any_of", "values": ["Lyon"]}, "The capital of France is Paris, Lyon", "ambiguous"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), ATTRIBUTED_AND_APPOSITIVE)
def test_attributed_values_and_trailing_appositives(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


HEDGED_REPORT = [
    # a hedging adverb before a reporting verb reports what others hold: no commitment (the spent fourth corpus's FP)
    (
        {"type": "any_of", "values": ["Bell", "Alexander Graham Bell"]},
        "It's generally credited to Bell.",
        None,
        "ambiguous",
    ),
    ({"type": "exact", "value": "Homer"}, "Traditionally ascribed to Homer", None, "ambiguous"),
    ({"type": "exact", "value": "Ottawa"}, "It has long been assumed to be Ottawa", None, "ambiguous"),
    ({"type": "any_of", "values": ["Newton"]}, "Newton is widely regarded as its discoverer.", None, "ambiguous"),
    (
        {"type": "any_of", "values": ["Magellan"]},
        "It's often credited to Magellan, though he died on the way, so Elcano finished it.",
        None,
        "ambiguous",
    ),
    # reporting others without an adverb: sources, legend, "supposedly"
    ({"type": "exact", "value": "Everest"}, "Most textbooks give Everest.", None, "ambiguous"),
    ({"type": "exact", "value": "Romulus"}, "According to legend, Romulus founded it.", None, "ambiguous"),
    ({"type": "exact", "value": "Ottawa"}, "Reportedly Ottawa.", None, "ambiguous"),
    ({"type": "exact", "value": "Nile"}, "Tradition holds that the Nile is longest", None, "ambiguous"),
    ({"type": "exact", "value": "Everest"}, "Everest is the classic answer.", None, "ambiguous"),
    (
        {"type": "any_of", "values": ["Pluto"]},
        "Pluto, the usual textbook answer from my school days",
        None,
        "ambiguous",
    ),
    # plain attribution stated as fact, or a framing the question itself uses, commits
    ({"type": "any_of", "values": ["Bell"]}, "The telephone is credited to Bell.", None, "correct"),
    ({"type": "exact", "value": "Homer"}, "It was composed by Homer.", None, "correct"),
    ({"type": "exact", "value": "Leonardo"}, "The Mona Lisa is attributed to Leonardo", None, "correct"),
    ({"type": "exact", "value": "Homer"}, "It's attributed to Homer.", None, "correct"),
    (
        {"type": "exact", "value": "Homer"},
        "It's traditionally ascribed to Homer.",
        "To whom is the Odyssey traditionally ascribed?",
        "correct",
    ),
    (
        {"type": "any_of", "values": ["Bell"]},
        "Usually credited to Bell.",
        "Who is credited with inventing the telephone?",
        "correct",
    ),
    # the answerer's own clause beside the report commits
    ({"type": "exact", "value": "Ottawa"}, "Ottawa; it's often wrongly assumed to be Toronto.", None, "correct"),
    ({"type": "exact", "value": "Ottawa"}, "Though many sources give Toronto, it is Ottawa.", None, "correct"),
    ({"type": "exact", "value": "Toronto"}, "Though many sources give Toronto, it is Ottawa.", None, "ambiguous"),
    ({"type": "any_of", "values": ["Bell"]}, "Bell, who is often credited with it", None, "ambiguous"),
    ({"type": "any_of", "values": ["Bell"]}, "Bell, though Meucci is sometimes credited with it", None, "correct"),
]


@pytest.mark.parametrize(("block", "answer", "query", "verdict"), HEDGED_REPORT)
def test_a_value_reported_through_a_hedged_framing_is_not_a_commitment(
    block: dict[str, Any], answer: str, query: str | None, verdict: str
) -> None:
    assert _verdict(block, answer, query) == verdict


TURNED_LONG_SENTENCE = [
    # a long first sentence whose rest turns to another value is not cut at its first comma
    (
        {"type": "any_of", "values": ["Edison", "Thomas Edison"]},
        "Edison gets the popular credit, but Joseph Swan demonstrated a working bulb months earlier, so I'd say Swan.",
        "ambiguous",
    ),
    (
        {"type": "exact", "value": "Everest"},
        "Everest is the quick reply, however measured from base to peak Mauna Kea is taller, so I'd go with Mauna Kea",
        "ambiguous",
    ),
    (
        {"type": "any_of", "values": ["Canberra"]},
        "Sydney hosts most big events, yet the seat of the federal government and parliament is in fact Canberra.",
        "correct",
    ),
    (
        {"type": "any_of", "values": ["Amazon"]},
        "The Nile by older surveys, but newer satellite measurements put it behind, so the Amazon is the longest.",
        "correct",
    ),
    # … and one without a turn is still cut at its first comma
    (
        {"type": "exact", "value": "Canberra"},
        "Canberra, a planned city chosen in 1908 as a compromise between the two largest rival cities.",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), TURNED_LONG_SENTENCE)
def test_a_long_first_sentence_that_turns_is_read_whole(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


ALTERNATIVE_ASIDE = [
    ({"type": "exact", "value": "Mercury"}, "Mercury (possibly Venus, depending on the definition)", "ambiguous"),
    ({"type": "any_of", "values": ["gold", "Au"]}, "Answer: gold (or maybe platinum)", "ambiguous"),
    ({"type": "exact", "value": "Paris"}, "Paris (perhaps Lyon in the Roman period).", "ambiguous"),
    ({"type": "exact", "value": "oxygen"}, "Oxygen (unless you count silicon by mass)", "ambiguous"),
    # an aside that offers nothing else is still dropped
    ({"type": "exact", "value": "Paris"}, "Paris (the capital since the 6th century).", "correct"),
    ({"type": "exact", "value": "gold"}, "Answer: gold (symbol Au)", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), ALTERNATIVE_ASIDE)
def test_a_parenthesis_offering_an_alternative_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


DISCLAIMED = [
    # an answer that declines to stand by its value, with nothing committing after that, is ambiguous
    (_num(100), "Water boils at 100 °C at sea level, though I can't vouch for your altitude.", "ambiguous"),
    (_num(42), "My working gives 42, but I'm honestly not sure about the second step.", "ambiguous"),
    (_num(7), "I'd rather not commit to a number: it might be 7, depending on the rounding.", "ambiguous"),
    ({"type": "exact", "value": "Canberra"}, "Canberra. I can't be certain, so please check.", "ambiguous"),
    (_bool(True), "Yes, I think so, but don't quote me on it.", "ambiguous"),
    ({"type": "choice", "answer": "B", "options": ["A", "B", "C"]}, "B, I think. I'm not confident.", "ambiguous"),
    # … but a disclaimer the answer then turns from, or one followed by an answer cue, commits
    (_num(42), "I'm not completely sure, but the total comes to 42.", "correct"),
    (_num(7), "I can't be certain without the table. The answer is 7.", "correct"),
    (_bool(False), "I don't know every case by heart. Still, 91 = 7 × 13, so the claim is false.", "correct"),
    # the words in another voice are not a disclaimer
    (_num(12), "You can't be sure by eye, so count them: there are 12.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), DISCLAIMED)
def test_an_answer_that_disclaims_its_value_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


def _rx(pattern: str) -> dict[str, Any]:
    return {"type": "regex", "pattern": pattern}


REGEX_CONCEDED_OR_LEAD = [
    # a match inside a concessive clause is conceded, not stated
    (_rx(r"\b1969\b"), "The landing most people cite is 1972, though the first one was in 1969.", "ambiguous"),
    (_rx(r"(?i)\bparis\b"), "I'd say Lyon, although Paris hosts the government.", "ambiguous"),
    (_rx(r"\b206\b"), "Even though textbooks list 206 bones, an infant has about 270, so 270.", "ambiguous"),
    (_rx(r"\b1969\b"), "Although some say 1968, the landing was in 1969.", "correct"),  # the main clause states it
    (_rx(r"\b1969\b"), "It was 1969, though the planning began years earlier.", "correct"),
    # an answer that opens and closes on its own short answer commits to it; the matches between are discussion
    (
        _rx(r"(?i)\bkelvin\b"),
        "Celsius. Kelvin is just Celsius shifted by 273.15, so Celsius is the base unit.",
        "wrong",
    ),
    (
        _rx(r"(?i)\bmercury\b"),
        "Venus. Mercury is nearer the Sun, but on average Venus comes nearest to us, hence Venus.",
        "wrong",
    ),
    (_rx(r"(?i)\bau\b"), "Silver. Au is gold's symbol; silver is Ag. Therefore silver.", "wrong"),
    # … but a lead that the ending does not restate, or an ending that matches, leaves the match stated
    (_rx(r"(?i)\bkelvin\b"), "Good question. The SI base unit of temperature is the kelvin.", "correct"),
    (_rx(r"(?i)\bmercury\b"), "Mercury. It orbits closest, so Mercury is the answer.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), REGEX_CONCEDED_OR_LEAD)
def test_a_regex_match_conceded_or_between_a_committed_lead_does_not_pass(
    block: dict[str, Any], answer: str, verdict: str
) -> None:
    assert _verdict(block, answer) == verdict


BOOLEAN_BY_MEANING = {
    "'no' before a noun is a determiner, not a verdict": [
        (
            "Is 12 divisible by 4?",
            "12 / 4 = 3 with no remainder, so 4 divides it — it is divisible by 4.",
            True,
            "correct",
        ),
        (
            "Can a bishop change square colour?",
            "It moves only diagonally and has no way to leave its colour.",
            False,
            "unanswered",
        ),
        ("Is 15 a multiple of 5?", "There is no doubt about it: 15 = 3 × 5. Yes.", True, "correct"),
        (
            "Does the claim hold?",
            "No, it does not hold: there are no exceptions listed but one counterexample.",
            False,
            "correct",
        ),
    ],
    "the opposite of the question's predicate": [
        ("Is 57 a prime number?", "57 = 3 × 19, so it's composite.", False, "correct"),
        ("Is 35 even?", "It is odd, since it ends in 5.", False, "correct"),
        (
            "Is the square root of 2 rational?",
            "The square root of 2 is irrational (proof by contradiction).",
            False,
            "correct",
        ),
        ("Is 8 odd?", "8 is even.", True, "wrong"),
        ("Is 49 prime?", "It's odd, and 7 × 7 = 49.", False, "unanswered"),  # odd is not the opposite of prime
    ],
    "'X lies' / 'X is truthful' for 'Does X tell the truth?'": [
        (
            "Ann lies. Bo says Ann lies. Cy says Bo lies. Does Cy tell the truth?",
            "Ann lies, so Bo is truthful, and therefore Cy lies.",
            False,
            "correct",
        ),
        (
            "Ann tells the truth. Bo says Ann lies. Cy says Bo lies. Does Cy tell the truth?",
            "Bo is lying, hence Cy is truthful.",
            True,
            "correct",
        ),
        (
            "Dee lies. Eli says Dee tells the truth. Fay says Eli lies. Does Fay tell the truth?",
            "Eli lies — so Fay tells the truth.",
            True,
            "correct",
        ),
        (
            "Dee lies. Eli says Dee tells the truth. Fay says Eli lies. Does Fay tell the truth?",
            "If Fay tells the truth then Eli lies.",
            True,
            "unanswered",
        ),
    ],
    "the question's predicate adjective, or its opposite, standing first": [
        (
            'Is the following sentence plausible? "Jokic hit a three-pointer."',
            "Plausible — he's an NBA center.",
            True,
            "correct",
        ),
        (
            'Is the following sentence plausible? "Brady scored a penalty kick."',
            "Implausible: Brady plays American football.",
            False,
            "correct",
        ),
        ("Is it possible to divide by zero in the reals?", "Impossible. Division by 0 is undefined.", False, "correct"),
        ("Is the argument valid?", "Invalid — the premises do not force the conclusion.", False, "correct"),
        ('Is the following sentence plausible? "Messi scored a goal."', "Messi — he's a forward.", True, "unanswered"),
    ],
    "'That's right' / 'You're right' as the opening verdict": [
        ("Is the Pacific the largest ocean?", "That's right: it covers about a third of the surface.", True, "correct"),
        ("Is water made of hydrogen and oxygen?", "You're right, H2O.", True, "correct"),
        ("Is the Moon a planet?", "That's not right — it's a natural satellite.", False, "correct"),
        ("Is Everest the tallest mountain above sea level?", "Exactly right. 8,849 m.", True, "correct"),
    ],
}


@pytest.mark.parametrize(
    ("klass", "query", "answer", "value", "verdict"),
    [(k, *case) for k, cases in BOOLEAN_BY_MEANING.items() for case in cases],
)
def test_a_boolean_answered_through_its_meaning(klass: str, query: str, answer: str, value: bool, verdict: str) -> None:
    assert _verdict(_bool(value), answer, query) == verdict, klass


def _ch(answer: str, options: dict[str, str]) -> dict[str, Any]:
    return {"type": "choice", "answer": answer, "options": options}


DERIVATIVES = {"A": "2x", "B": "x^2 + 2x", "C": "2x + 2", "D": "2x - 2"}
PLANETS = {"A": "Venus", "B": "Mercury", "C": "Mars", "D": "Earth"}
CHOICE_CLASSES = {
    "an option rejected in a sentence is not named by that sentence's reason clause": [
        (_ch("B", PLANETS), "It has to be (B). Not A, since A is second from the Sun.", "correct"),
        (_ch("D", PLANETS), "We live on the third planet, option D. Never C, because C is fourth.", "correct"),
        (_ch("A", PLANETS), "Option C is wrong, as C is farther out; so A.", "correct"),
        (_ch("C", PLANETS), "The answer is not C, since C is the red planet.", "unanswered"),  # was read as C
    ],
    "expression options are told apart by their operators": [
        (_ch("C", DERIVATIVES), "Differentiating term by term gives 2x + 2, option C.", "correct"),
        (_ch("D", DERIVATIVES), "Differentiating x^2 − 2x gives 2x − 2.", "correct"),
        (_ch("A", DERIVATIVES), "It comes to 2x + 2.", "wrong"),  # 2x inside 2x + 2 is not option A
        (_ch("C", DERIVATIVES), "The slope is 2x + 2, not 2x - 2.", "correct"),
    ],
    "an option's text as the opening heading, then the explanation": [
        (_ch("B", PLANETS), "Mercury — its orbit lies well inside Venus's.", "correct"),
        (_ch("D", PLANETS), "Earth: Mars and Venus are both farther from us than the Moon's host.", "correct"),
        (_ch("C", PLANETS), "Mars. Its iron oxide dust makes it red, unlike Venus.", "correct"),
        (_ch("A", PLANETS), "Venus — but Mercury is actually closer.", "wrong"),  # read after the turn
        (_ch("A", PLANETS), "Venus: it is brightest, so the answer is Mercury.", "wrong"),
        (_ch("A", PLANETS), "Venus: no, it is second. Mercury is closest.", "wrong"),
        (_ch("A", PLANETS), "Venus. It is second from the Sun. Mercury is the closest.", "ambiguous"),
    ],
}


@pytest.mark.parametrize(
    ("klass", "block", "answer", "verdict"), [(k, *case) for k, cases in CHOICE_CLASSES.items() for case in cases]
)
def test_a_choice_reading_class(klass: str, block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict, klass


TWO_SCENARIOS_Q = "A tank holds 90 litres and a pump empties 15 litres a minute. How many minutes to empty it?"
TWO_SCENARIOS = [
    # results under two contrasting conditions: never correct for either scenario
    (_num(6), "6 minutes without leaks; with a leak, 5.", "ambiguous"),
    (_num(5), "6 minutes without leaks; with a leak, 5.", "ambiguous"),
    (_num(6), "If the pump runs at full speed, 6 minutes; otherwise about 9.", "ambiguous"),
    (_num(6), "In the ideal case 6 minutes; in the realistic case 8 minutes.", "ambiguous"),
    (_num(6), "Answer: 6 minutes (9 if the pump slows down)", "ambiguous"),
    (_num(9), "Assuming full speed, 90 / 15 = 6 minutes. If the pump slows, 9 minutes.", "ambiguous"),
    (_num(6), "**6 minutes** with no leak, **5 minutes** with it.", "ambiguous"),
    # one condition, or conditions that restate the working, still commit
    (_num(6), "If the pump removes 15 litres a minute, 90 / 15 = 6 minutes.", "correct"),
    (_num(6), "Without any leak the tank empties in 90 / 15 = 6 minutes.", "correct"),
    (_num(6), "With 15 litres going each minute, it takes 6 minutes.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), TWO_SCENARIOS)
def test_results_under_two_conditions_are_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer, TWO_SCENARIOS_Q) == verdict


BOLD_INTERMEDIATE = [
    # the last bold span with a number says more than a number: an earlier bold number is an intermediate
    (
        _num(30),
        "How many boys are on the team?",
        "The team has **75 players** in all, and 40% of them are boys, which is **30 boys on the team**.",
        "correct",
    ),
    (
        _num(12),
        "How many cookies does each child get?",
        "Baking 4 trays gives **48 cookies**; shared by 4 children that is **12 cookies for each child**.",
        "correct",
    ),
    (
        _num(9),
        "How many pages are left?",
        "She read **51 pages** over three days, so **9 pages are still left to read**.",
        "correct",
    ),
    # a plain bold number still wins, and a bold heading with a number is passed over
    (_num(48), "How many cookies are baked?", "4 trays of 12 give **48 cookies**.", "correct"),
    (
        _num(7),
        "How many pencils does each friend get?",
        "**Step 1: Total** 3 × 12 = 36.\n36 − 8 = **28 pencils**; 28 / 4 = **7 pencils**.\n**Step 3: Check**",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), BOLD_INTERMEDIATE)
def test_an_earlier_bold_number_is_not_taken_past_a_later_bold_statement(
    block: dict[str, Any], query: str, answer: str, verdict: str
) -> None:
    assert _verdict(block, answer, query) == verdict


SHORT_COMMITTED_ELSEWHERE = [
    # reporting subjects: what textbooks, everyone or most people give is not the answerer's
    ({"type": "any_of", "values": ["Edison"]}, "Textbooks say Edison. I'd say Swan.", "ambiguous"),
    ({"type": "exact", "value": "Everest"}, "Everyone says Everest; Chimborazo is farther from the core.", "ambiguous"),
    ({"type": "exact", "value": "Pluto"}, "Most would answer Pluto, though it's a dwarf planet now.", "ambiguous"),
    # a later first-person commitment that does not name the value
    (
        {"type": "exact", "value": "Canberra"},
        "Officially Canberra; in practice Sydney, which is my answer.",
        "ambiguous",
    ),
    ({"type": "exact", "value": "Au"}, "Au is gold. My answer is Ag, silver.", "wrong"),  # read by its cue
    (
        {"type": "any_of", "values": ["Edison"]},
        "Edison, on paper. I'll go with Swan, who demonstrated first.",
        "ambiguous",
    ),
    # a closing conclusion that turns to another name
    (
        {"type": "exact", "value": "Canberra"},
        "Canberra is the formal answer, though Sydney runs things, so Sydney.",
        "ambiguous",
    ),
    ({"type": "exact", "value": "Mercury"}, "Mercury by the books, hence Venus on average.", "ambiguous"),
    (
        {"type": "exact", "value": "Paris"},
        "Paris, the capital, so France's largest city too.",
        "correct",
    ),  # no other name
    # alternatives with a slash
    ({"type": "exact", "value": "nitrogen"}, "Answer: Nitrogen / oxygen", "ambiguous"),
    ({"type": "any_of", "values": ["Edison"]}, "Edison/Swan", "ambiguous"),
    ({"type": "exact", "value": "Paris"}, "Paris / Lyon, depending on the era", "ambiguous"),
    # … while a later sentence that names the value, or no first-person commitment, leaves it correct
    ({"type": "exact", "value": "Canberra"}, "Canberra. I'd say Canberra without hesitation.", "correct"),
    ({"type": "exact", "value": "Canberra"}, "Canberra. It was purpose-built as a compromise.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), SHORT_COMMITTED_ELSEWHERE)
def test_a_short_answer_the_answer_commits_away_from(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


REPORTED_NUMBER = [
    # a number given only as what others give, or disclaimed in other words, is not a commitment
    (_num(100), "Commonly quoted as 100 °C; in a mountain hut it is lower.", "ambiguous"),
    (_num(206), "Textbooks print 206 bones for an adult skeleton.", "ambiguous"),
    (_num(8849), "Most sources give 8,849 m for Everest's height.", "ambiguous"),
    (_num(212), "Water boils at 212 °F at sea level — though I wouldn't rely on that number.", "ambiguous"),
    (_num(212), "It's 212 °F in the book. I'm not going to state a number for your kettle.", "ambiguous"),
    # stated in the answer's own clause too, or declared, it commits
    (_num(100), "Water boils at 100 °C at sea level, as is commonly stated.", "correct"),
    (_num(206), "Textbooks print 206, and an adult has 206 bones.", "correct"),
    (_num(206), "Most sources give 206.\nAnswer: 206", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), REPORTED_NUMBER)
def test_a_number_only_reported_or_disclaimed_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


AMPERE_Q = "What is the SI base unit of electric current?"
REGEX_REPORTED_ASIDE_LEAD = [
    # a match in a framed clause is reported, not stated
    (_rx(r"(?i)\bampere\b"), "Many say ampere; I say coulomb.", "ambiguous"),
    (_rx(r"\b1969\b"), "Most people say 1969. The real first landing was staged in 1968.", "ambiguous"),
    (_rx(r"(?i)\bparis\b"), "Textbooks print Paris, yet Versailles was the seat of power.", "ambiguous"),
    # a match in a commenting parenthesis after another value is an aside
    (_rx(r"07/04/1776"), "Answer: 07/02/1776 (the famous 07/04/1776 was only the printing).", "wrong"),
    (_rx(r"\b1969\b"), "It was 1968 (some still insist on 1969 for the landing).", "wrong"),
    (_rx(r"07/04/1776"), "Answer: July 4, 1776 (07/04/1776)", "correct"),  # a bare restatement
    # a short lead of the answer's own commits; the matches after it are discussion
    (_rx(r"(?i)\bampere\b"), "Coulomb. Ampere is derived from it.", "wrong"),
    (_rx(r"(?i)\bampere\b"), "It's the volt — the ampere follows from Ohm's law.", "wrong"),
    (_rx(r"(?i)\bkelvin\b"), "Celsius; kelvin is merely an offset scale.", "wrong"),
    # … unless the lead is a filler, repeats the question, or is restated before the match
    (_rx(r"(?i)\bampere\b"), "Sure. The ampere is the base unit.", "correct"),
    (_rx(r"(?i)\bampere\b"), "Electric current: its SI base unit is the ampere.", "correct"),
    (_rx(r"07/04/1776"), "July 4th. In MM/DD/YYYY: 07/04/1776.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), REGEX_REPORTED_ASIDE_LEAD)
def test_a_regex_match_reported_in_an_aside_or_after_a_lead(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer, AMPERE_Q) == verdict


BOOLEAN_FRAMED = [
    # a truth value that is only what others say is not the answer's verdict
    (
        _bool(True),
        "Is it true that goldfish have a three-second memory?",
        "It's commonly said to be true, but it's a myth.",
        "wrong",
    ),
    (
        _bool(True),
        "Do bulls hate the colour red?",
        "Many people think that is true. Bulls are colour-blind to red.",
        "unanswered",
    ),
    (
        _bool(True),
        "Is lightning unable to strike twice?",
        "Popularly believed true; towers are hit many times a year.",
        "unanswered",
    ),
    # the answer's own clause beside the report still decides
    (
        _bool(False),
        "Is it true that we use only 10% of our brains?",
        "People often say it is true, but that is false.",
        "correct",
    ),
    (
        _bool(True),
        "Is the Great Wall visible from low orbit?",
        "Some say no, but astronauts confirm it is true from low orbit.",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), BOOLEAN_FRAMED)
def test_a_truth_value_only_reported_is_not_the_verdict(
    block: dict[str, Any], query: str, answer: str, verdict: str
) -> None:
    assert _verdict(block, answer, query) == verdict


MORE_HEDGES = [
    # "I might be off", "I'm unsure": disclaimers with nothing committing after them
    (_num(30), "I believe it's $30, although I might be off by the tax.", "ambiguous"),
    (_num(30), "Answer: $30 (approximately; I'm unsure about the rounding)", "ambiguous"),
    (_num(12), "12 eggs, I think — I could be misremembering the recipe.", "ambiguous"),
    # before / after a charge: two scenarios
    (_num(30), "The sale price is $30 before tax. After tax, $32.40.", "ambiguous"),
    (_num(45), "Before the tip the bill is $45; after the tip it is $54.", "ambiguous"),
    (_num(30), "After the discount the price is $30.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), MORE_HEDGES)
def test_more_disclaimers_and_before_after_scenarios(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


NOT_A_DISCLAIMER_OR_COMMITMENT = [
    # a doubt about something else, or an opinion without a name, leaves the answer committed
    ({"type": "exact", "value": "Canberra"}, "Canberra. I'm not sure why so many people say otherwise.", "correct"),
    ({"type": "exact", "value": "Canberra"}, "Canberra. I'd say it's one of the best-planned cities.", "correct"),
    (_num(7), "Each friend gets 7. I don't know how the brother felt about it.", "correct"),
    ({"type": "exact", "value": "Canberra"}, "Canberra. I'd say Sydney is more famous, though.", "ambiguous"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), NOT_A_DISCLAIMER_OR_COMMITMENT)
def test_a_doubt_about_something_else_is_not_a_disclaimer(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


KEPT_COMMITMENTS = [
    # a long first sentence whose turn only contrasts facts is still cut at its first comma
    (
        {"type": "exact", "value": "Canberra"},
        "Canberra is the capital, but Sydney is the largest city and the financial centre of the country.",
        "correct",
    ),
    (
        {"type": "any_of", "values": ["Einstein"]},
        "Einstein developed it in 1915, but Hilbert independently derived the field equations at about that time.",
        "correct",
    ),
    (
        {"type": "exact", "value": "Nile"},
        "The Nile is the longest, however the Amazon carries far more water than any other river on Earth.",
        "correct",
    ),
    # an agreeing "as is commonly believed" commits
    ({"type": "any_of", "values": ["Shakespeare"]}, "Shakespeare wrote it, as is commonly believed.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), KEPT_COMMITMENTS)
def test_contrasted_facts_and_agreeing_framings_still_commit(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


BOOLEAN_TURNS = [
    # a leading verdict left open or turned in other words
    (_bool(True), "Is the Great Wall visible from orbit?", "Yes — well, it depends on the altitude.", "ambiguous"),
    (_bool(True), "Do heavier objects fall faster?", "True, if there is air; false otherwise.", "ambiguous"),
    (_bool(True), "Is aspirin safe?", "Yes (for most adults); no (for children).", "ambiguous"),
    # a predicate asked back as a question is not a claim, and disagreeing claims answer nothing
    (_bool(False), "Is 91 a prime number?", "It is composite? No, 91 is prime.", "wrong"),
    (_bool(True), "Does Cy tell the truth?", "Cy tells the truth? No, Cy lies.", "wrong"),
    (_bool(False), "Does Cy tell the truth?", "Cy lies — wait, no, Cy tells the truth.", "unanswered"),
    (_bool(False), "Is 57 prime?", "57 is prime... no, 57 is not prime, 3 × 19.", "unanswered"),
    (
        _bool(True),
        'Is the following sentence plausible? "Kane scored a penalty."',
        "Plausible: Kane takes penalties.",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), BOOLEAN_TURNS)
def test_boolean_turns_questions_and_disagreeing_claims(
    block: dict[str, Any], query: str, answer: str, verdict: str
) -> None:
    assert _verdict(block, answer, query) == verdict


MORE_FRAMINGS = [
    ({"type": "exact", "value": "Canberra"}, "The answer key says Canberra.", "ambiguous"),
    ({"type": "exact", "value": "Canberra"}, "Conventional wisdom says Canberra.", "ambiguous"),
    ({"type": "exact", "value": "Canberra"}, "It's widely taught that the capital is Canberra.", "ambiguous"),
    ({"type": "exact", "value": "Canberra"}, "People usually reply Canberra.", "ambiguous"),
    (_num(720), "You'll commonly see 720° quoted for this.", "ambiguous"),
    ({"type": "exact", "value": "Canberra"}, "Canberra, I believe, though I haven't checked recently.", "ambiguous"),
    (
        {"type": "choice", "answer": "A", "options": {"A": "Versailles", "B": "Paris"}},
        "I'd go with B, though A is often cited.",
        "wrong",
    ),
    # the answer's own statement beside a framing still commits
    (
        {"type": "exact", "value": "Canberra"},
        "The capital is Canberra, which people often confuse with Sydney.",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), MORE_FRAMINGS)
def test_more_framings_of_what_others_hold(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


FIRST_PERSON_CHECKS = [
    (_num(7), "Each friend gets 7 pencils. I double-checked: 4 × 7 = 28.", "correct"),
    (_num(12), "There are 12 eggs left. I verified it: 30 − 18 = 12, and 18 + 12 = 30.", "correct"),
    (_num(5), "He needs 5 weeks. Checking this: 5 × 12 = 60.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), FIRST_PERSON_CHECKS)
def test_a_first_person_check_sentence_is_passed_over(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


WIDGETS_Q = "A factory makes 1,250 widgets a day. How many widgets does it make in 30 days?"
THEORY_AND_PRACTICE = [
    # a thousands-separated number before a comma is one number (was read as 37 and 500)
    (_num(37500), "Roughly 37,500, assuming no downtime.", "correct"),
    (_num(37500), "It makes 37,500, since 1,250 × 30 = 37,500.", "correct"),
    (_num(1275), "The total is 1,275, as the pairs show.", "correct"),
    # results in theory and in practice: two scenarios
    (_num(37500), "Naively 37,500; realistically about 27,500.", "ambiguous"),
    (_num(37500), "37,500 in theory, 27,500 in practice.", "ambiguous"),
    (_num(27500), "On paper 37,500, in practice fewer: about 27,500.", "ambiguous"),
    # an answer cue qualified as someone else's, and a first sentence that is a question, do not commit
    (_num(37500), "The simple answer is 37,500. A realistic estimate is 27,500.", "wrong"),
    (_num(37500), "The textbook answer is 37,500; with maintenance days it is 27,500.", "wrong"),
    (_num(37500), "37,500? That seems too high; I'd say 27,500.", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), THEORY_AND_PRACTICE)
def test_numbers_in_theory_and_practice(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer, WIDGETS_Q) == verdict


ANOTHER_BESIDE = [
    ({"type": "exact", "value": "Canberra"}, "Answer: Canberra (officially), Sydney (in practice)", "ambiguous"),
    ({"type": "exact", "value": "Canberra"}, "Answer: Canberra (de jure); Sydney (de facto)", "ambiguous"),
    ({"type": "any_of", "values": ["Einstein"]}, "Answer: both Einstein and Hilbert", "ambiguous"),
    ({"type": "any_of", "values": ["Einstein"]}, "Answer: Hilbert & Einstein", "ambiguous"),
    ({"type": "exact", "value": "Canberra"}, "Answer: Canberra?", "ambiguous"),
    # a pair that is the expected value, an appositive place, or an aside still commit
    ({"type": "any_of", "values": ["Watson and Crick", "Watson"]}, "Answer: Watson and Crick", "correct"),
    ({"type": "any_of", "values": ["Paris"]}, "Answer: Paris, France (the capital)", "correct"),
    ({"type": "exact", "value": "Canberra"}, "Answer: Canberra (since 1913)", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), ANOTHER_BESIDE)
def test_another_name_beside_the_answer_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


CHOICE_DECLARED_BESIDE = [
    (_ch("B", PLANETS), "Answer: B (or C)", "ambiguous"),
    (_ch("B", PLANETS), "Answer: B — unless the question means Earth's neighbour, then D", "ambiguous"),
    (_ch("B", PLANETS), "Answer: B; C if you count by average distance", "ambiguous"),
    (_ch("B", PLANETS), "Answer: B?", "ambiguous"),
    # a concession, a negation, the option's own text or an explanation after the letter still commit
    (_ch("B", PLANETS), "Answer: B (though C is close)", "correct"),
    (_ch("B", PLANETS), "Answer: B, not C", "correct"),
    (_ch("B", PLANETS), "Answer: B (Mercury)", "correct"),
    (_ch("B", PLANETS), "Answer: B. Mercury orbits well inside Venus and Earth.", "correct"),
    # a framing after the option qualifies it
    (_ch("B", PLANETS), "B, according to most textbooks.", "unanswered"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), CHOICE_DECLARED_BESIDE)
def test_a_declared_option_beside_another_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


HEDGED_SHORT = [
    ({"type": "exact", "value": "nitrogen"}, "Probably nitrogen.", "ambiguous"),
    ({"type": "exact", "value": "nitrogen"}, "It might be nitrogen.", "ambiguous"),
    ({"type": "exact", "value": "nitrogen"}, "My guess would be nitrogen.", "ambiguous"),
    ({"type": "any_of", "values": ["Canberra"]}, "I think it's Canberra.", "ambiguous"),
    ({"type": "any_of", "values": ["Canberra"]}, "Answer: Canberra, probably", "ambiguous"),
    # a hedge on something else leaves the value committed
    (
        {"type": "any_of", "values": ["Leonardo da Vinci"]},
        "The Mona Lisa was painted by Leonardo da Vinci, probably between 1503 and 1519.",
        "correct",
    ),
    ({"type": "exact", "value": "Canberra"}, "Canberra. It is probably the best-planned city.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), HEDGED_SHORT)
def test_a_hedged_short_answer_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


HEDGED_OPTION = [
    (_ch("B", PLANETS), "Probably B.", "ambiguous"),
    (_ch("B", PLANETS), "I think it's Mercury.", "ambiguous"),
    (_ch("B", PLANETS), "Answer: probably B", "ambiguous"),
    (_ch("B", PLANETS), "B, I think.", "ambiguous"),
    # one unhedged mention commits
    (_ch("B", PLANETS), "I think it's B. Mercury orbits closest, so B.", "correct"),
    (_ch("B", PLANETS), "The answer is B, Mercury, which is probably surprising.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), HEDGED_OPTION)
def test_an_option_only_hedged_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


HEDGED_NUMBER = [
    (_num(42), "I think it's 42.", "ambiguous"),
    (_num(42), "Answer: probably 42", "ambiguous"),
    (_num(42), "My guess would be 42 apples.", "ambiguous"),
    (_num(42), "42, I think.", "ambiguous"),
    # a hedge on something else, or one unhedged statement, commits
    (_num(42), "6 × 7 = 42. I think that's right.", "correct"),
    (_num(42), "I think we should multiply: 6 × 7 = 42.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), HEDGED_NUMBER)
def test_a_number_only_hedged_is_ambiguous(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


def _any(*values: str) -> dict[str, Any]:
    return {"type": "any_of", "values": list(values)}


MARKED_VALUES = [
    # a mark that makes another answer is not normalized away: "O" is not "O-", "C" not "C++"
    (_any("O negative", "O-", "O neg"), "Answer: O", "wrong"),
    (_any("C++", "cpp"), "The language is C.", "wrong"),
    (_any("C#", "C sharp"), "Answer: C", "wrong"),
    (_any("-5"), "Answer: 5", "wrong"),
    (_any("A+"), "Answer: A", "wrong"),
    # the mark kept, or the value in other words, still matches
    (_any("O negative", "O-", "O neg"), "Answer: O-", "correct"),
    (_any("O negative", "O-", "O neg"), "The universal donor is O-negative.", "correct"),
    (_any("C++", "cpp"), "Answer: C++", "correct"),
    (_any("C#", "C sharp"), "It is C#.", "correct"),
    (_any("-5"), "Answer: −5", "correct"),
    (_any("self-driving"), "Answer: self driving", "correct"),
    # the other way round: a mark the answer adds makes another answer than the unmarked value
    ({"type": "exact", "value": "C"}, "Answer: C#", "wrong"),
    ({"type": "exact", "value": "C"}, "C++ (the kernel moved to it for drivers)", "wrong"),
    (_any("B", "B positive"), "Blood group B- is what the card says.", "wrong"),
    ({"type": "exact", "value": "3"}, "Answer: -3", "wrong"),
    # ... but not a mark the answer rejects, nor the unmarked value itself
    ({"type": "exact", "value": "C"}, "C. Not C++, which came a decade later.", "correct"),
    ({"type": "exact", "value": "C"}, "It's plain C.", "correct"),
]

#: a value named in a tie with another hedges between them
TIED_VALUES = [
    (_any("Brazil"), "It's a tie between Brazil and Germany on that count.", False),
    (_any("Mercury"), "Mercury and Venus are tied here", False),
    ({"type": "exact", "value": "Tokyo"}, "Honestly a tie: Tokyo and Delhi", False),
    (_any("Brazil"), "Brazil, with five titles.", True),
]


@pytest.mark.parametrize(("block", "answer", "correct"), TIED_VALUES)
def test_a_value_named_in_a_tie_is_no_answer(block: dict[str, Any], answer: str, correct: bool) -> None:
    assert (_verdict(block, answer) == "correct") is correct


@pytest.mark.parametrize(("block", "answer", "verdict"), MARKED_VALUES)
def test_a_significant_mark_is_not_normalized_away(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


CHEM = {"A": "Ice melting", "B": "Paper burning", "C": "Salt dissolving in water", "D": "Glass breaking"}

CONCEDED_SECOND = [
    # a second clause that only concedes a possibility does not choose what it names
    (_ch("B", CHEM), "I'd lean toward C, but B is possible too.", "wrong"),
    (_ch("B", CHEM), "My answer is C, but B cannot be ruled out.", "wrong"),
    (_ch("B", CHEM), "C fits best, but B could also work.", "wrong"),
    (_any("Paris"), "I'd lean toward Lyon, but Paris is possible too.", "ambiguous"),
    (_any("Paris"), "It is Lyon, but Paris can't be ruled out.", "ambiguous"),
    (_any("Paris"), "Lyon is my pick, but Paris is also plausible.", "ambiguous"),
    # the first, committed value is what is read; a turn that commits still does
    (_ch("C", CHEM), "My answer is C, but B cannot be ruled out.", "correct"),
    (_any("Lyon"), "It is Lyon, but Paris can't be ruled out.", "correct"),
    (_ch("B", CHEM), "Ice melting and salt dissolving are physical, but B is a chemical change.", "correct"),
    (_any("Marseille"), "Most people guess Lyon, but it is actually Marseille.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), CONCEDED_SECOND)
def test_a_conceded_possibility_is_not_chosen(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


QUALIFIED_LEAD = [
    # a yes/no after an opening viewpoint adverb is the leading verdict
    (_bool(True), "Is a whale a mammal?", "Biologically, yes — it breathes air and nurses its young.", "correct"),
    (_bool(False), "Is a peanut a nut?", "Technically, no: it is a legume that grows underground.", "correct"),
    (_bool(False), "Can you see the Great Wall from orbit?", "Sadly, no. It is far too narrow.", "correct"),
    (_bool(False), "Is a whale a fish?", "Biologically, yes — it swims.", "wrong"),
    # a hedging or limiting adverb does not commit; a turned second verdict leaves it open
    (_bool(True), "Is a tomato a fruit?", "Probably, yes.", "unanswered"),
    (_bool(True), "Is a tomato a fruit?", "Botanically, yes; in the kitchen, no.", "ambiguous"),
    (_bool(True), "Is a tomato a fruit?", "Yes, but culinarily no.", "ambiguous"),
    (_bool(True), "Is a tomato a fruit?", "Yes, but no one cooks it as one.", "correct"),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), QUALIFIED_LEAD)
def test_a_yes_no_after_an_opening_qualifier(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


def _rx(pattern: str) -> dict[str, Any]:
    return {"type": "regex", "pattern": pattern}


RED = r"(?i)#(ff0000|f00)\b"

BOTH_NOTATIONS = [
    # two notations that both satisfy the pattern are not ambiguous alternatives
    (_rx(RED), "Pure red is `#FF0000` (or the shorthand `#F00`), as rgb(255, 0, 0).", "correct"),
    (_rx(RED), "It is #FF0000 or, in short form, #F00.", "correct"),
    (_rx(r"(?i)\b(?:0x)?ff\b"), "255 in hex is 0xFF, or simply FF.", "correct"),
    # an alternative that does not match, or a hedge, still leaves it open
    (_rx(RED), "It is #FF0000, or #00FF00.", "ambiguous"),
    (_rx(RED), "Maybe #FF0000 or #F00.", "ambiguous"),
    (_rx(RED), "#FF0000 or #F00, or perhaps #00FF00.", "ambiguous"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), BOTH_NOTATIONS)
def test_two_notations_that_both_match_are_stated(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


RADIX_PREFIX = [
    # a clean 0b/0x prefix does not hide the bare digits a pattern asks for
    (_rx(r"\b11111111\b"), "Reading the remainders from bottom to top: 0b11111111.", "correct"),
    (_rx(r"(?i)\bff\b"), "255 is 0xFF in hexadecimal.", "correct"),
    (_rx(r"\b1010\b"), "Answer: 0b1010", "correct"),
    # not a clean token, a rejected value, or another value stays as it was
    (_rx(r"\b11111111\b"), "It is 0b111111112.", "unanswered"),
    (_rx(r"(?i)\bff\b"), "It is 0xFFG.", "unanswered"),
    (_rx(r"\b11111111\b"), "It is not 0b11111111.", "wrong"),
    (_rx(r"\b1010\b"), "Answer: 0b1011", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), RADIX_PREFIX)
def test_a_clean_radix_prefix_is_set_aside(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


CONTINENTAL_AMOUNT = [
    # dot-grouped thousands before a decimal comma are one amount
    (_num(1102.5), "Formel: K = 1000 · 1,05² = 1000 · 1,1025\n\nEndbetrag: 1.102,50 USD", "correct"),
    (_num(2345.75), "Summe: 2.345,75 €", "correct"),
    (_num(12345678.9), "Der Gesamtbetrag ist 12.345.678,9 EUR.", "correct"),
    # another amount stays wrong
    (_num(1102.5), "Endbetrag: 1.105,00 USD", "wrong"),
    (_num(50), "Endbetrag: 1.102,50 USD", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), CONTINENTAL_AMOUNT)
def test_a_continental_amount_is_read_whole(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


RESTATED_ASIDE = [
    # an aside that restates the result for the reader's way of measuring is not a second scenario
    (
        _num(3),
        "2/3 × 9/2 = 3.\n\n**3 cups** of sugar (that's 48 tablespoons, if you're measuring that way).",
        "correct",
    ),
    (_num(0.75), "You need **0.75 kg** of flour (i.e. 750 g, if you prefer grams).", "correct"),
    (_num(12), "The tank holds **12 litres** (about 3.2 gallons, if you're using US units).", "correct"),
    # an aside under a real condition, or an alternative amount, still is
    (_num(12), "The tank holds **12 litres** (15 litres if you include the overflow).", "ambiguous"),
    (_num(3), "**3 cups** of sugar (or 4 cups if you're measuring loosely).", "ambiguous"),
    (_num(3), "**3 cups** of sugar (that's 4 cups if you prefer it sweeter).", "ambiguous"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), RESTATED_ASIDE)
def test_an_aside_restating_the_result_is_not_a_scenario(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict
