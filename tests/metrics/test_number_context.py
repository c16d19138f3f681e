"""Numbers an answer states first and then surrounds with context (issue 26, the seventh corpus's
classes): notations of continental writers, a check or a hypothetical after the result, a value
standing alone before its working, a bold value with a unit symbol. Each class has at least three
phrasings of its own and the wrong answers that must not pass."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from harness.data.expected import Expected
from harness.metrics.correctness import check_expected

_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)


def _check(value: float, answer: str, query: str | None = None, tolerance: float = 1e-6) -> tuple[str, str]:
    got = check_expected(
        _EXPECTED.validate_python({"type": "numeric", "value": value, "tolerance": tolerance}), answer, query
    )
    assert got.verdict is not None
    return got.verdict, got.extraction.method


DECIMAL_COMMA = [
    # a comma followed by four or more digits, or after a lone zero, is a decimal comma
    (0.8333, "Das macht ungefähr 0,8333.", "correct"),
    (3.14159, "Pi vaut environ 3,14159.", "correct"),
    (0.625, "Der Anteil beträgt 0,625.", "correct"),
    (1.0625, "Antwort: 1,0625", "correct"),
    # a three-digit group after a non-zero lead stays a thousands separator
    (1150, "The bill comes to 1,150.", "correct"),
    (0.8333, "Das macht ungefähr 0,8433.", "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "verdict"), DECIMAL_COMMA)
def test_a_decimal_comma_with_four_digits_or_after_zero(value: float, answer: str, verdict: str) -> None:
    assert _check(value, answer, tolerance=1e-4)[0] == verdict


ROUND_DOTTED = [
    # a dotted group ending in "00" is thousands when the question asks for a count
    (3600, "Eine Stunde hat 3.600 Sekunden.", "How many seconds are in an hour?", "correct"),
    (525600, "Ein Jahr hat 525.600 Minuten.", "How many minutes are in a year?", "correct"),
    (120000, "Die Stadt hat etwa 120.000 Einwohner.", "What is the number of inhabitants of the town?", "correct"),
    # or when the answer writes two such numbers
    (1500, "Von 2.500 Stück bleiben 1.500 übrig.", "What remains after the sale?", "correct"),
    # otherwise, or with another last digit, it stays a decimal
    (2.5, "The ratio works out to 2.500.", "What is the ratio of the two lengths?", "correct"),
    (1.25, "Each share is 1.250 litres.", "How many litres does each person get?", "correct"),
    (3.6, "Eine Stunde hat 3.600 Sekunden.", "How many seconds are in an hour?", "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), ROUND_DOTTED)
def test_round_dotted_thousands_in_a_count(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query)[0] == verdict


_MELONS = "A truck carries 3 crates with 15 melons each. How many melons does it carry?"
_SOLVE = "Solve 3x + 4 = 10."
_SIDE = "An isosceles triangle has a perimeter of 24 cm and a base of 10 cm. How long is each equal side?"
CHECK_AFTER = [
    # a sentence that checks the result (a check heading, or a check phrase before its numbers) is not the answer
    (45, "Each of the 3 crates holds 15 melons, so 45 melons. Quick check: 45 / 3 = 15 ✓", _MELONS, "correct"),
    (7, "Each equal side is 7 cm. Sanity check: 7 + 7 + 10 = 24, so the perimeter fits.", _SIDE, "correct"),
    (2, "Solving 3x + 4 = 10 gives x = 2. Plugging it back in checks out: 3·2 + 4 = 10.", _SOLVE, "correct"),
    (7, "The equal sides are 7 cm each.\n\nA quick verification — 2 × 7 + 10 = 24 ✓", _SIDE, "correct"),
    # the wrong result before a check stays wrong
    (45, "Each crate holds 15 melons, so there are 30 melons. Quick check: 45 / 3 = 15 ✓", _MELONS, "wrong"),
    (7, "Each equal side is 14 cm. Sanity check: 7 + 7 + 10 = 24.", _SIDE, "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), CHECK_AFTER)
def test_a_check_after_the_result_is_not_the_answer(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query)[0] == verdict


_PENS = "Pens cost $3 each. How much does Ana pay for 6 pens?"
_TRAIN = "A train runs at 45 km/h for 2 hours. How far does it go?"
HYPOTHETICAL_AFTER = [
    # a hypothetical about another question after the answer is not the answer
    (18, "She pays $18, but if you meant the price with the coupon instead, that would be $15.", _PENS, "correct"),
    (90, "The train covers 90 km. If you were asking about the return trip instead, that's 120 km.", _TRAIN, "correct"),
    (18, "The answer is $18, and if you wanted the cost of 8 pens rather than 6, it would be $24.", _PENS, "correct"),
    (90, "It goes 90 km — had you asked for the distance at 60 km/h instead, it'd be 120 km.", _TRAIN, "correct"),
    # the hypothetical's value is not read as the answer, and a wrong answer stays wrong
    (15, "She pays $18, but if you meant the price with the coupon instead, that would be $15.", _PENS, "wrong"),
    (120, "The train covers 90 km. If you were asking about the return trip instead, that's 120 km.", _TRAIN, "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), HYPOTHETICAL_AFTER)
def test_a_hypothetical_after_the_answer_is_not_the_answer(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query)[0] == verdict


BARE_HEAD = [
    # a value standing alone before a dash, then its working in words
    (1440, "1440 — there are 24 hours of 60 minutes each.", "How many minutes are in a day?", "correct"),
    (52, "52 cards – four suits with 13 cards in each suit.", "How many cards are in a standard deck?", "correct"),
    (168, "168 hours - seven days times 24 hours a day.", "How many hours are in a week?", "correct"),
    (24, "1440 — there are 24 hours of 60 minutes each.", "How many minutes are in a day?", "wrong"),
    # a step heading is not a value standing alone
    (12, "Step 1 — multiply rows by columns: 3 × 4 = 12.", "A grid has 3 rows, 4 columns. How many cells?", "correct"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), BARE_HEAD)
def test_a_value_standing_alone_before_a_dash_leads(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query)[0] == verdict


_CELSIUS = "Convert 70 °F to Celsius, rounded to one decimal place."
BOLD_UNIT = [
    # a bold number whose unit is a symbol ("°C", "m²", "µm") is the bold answer
    (21.1, "Scale by 5/9.\n(70 − 32) × 5/9 ≈ 21.1\n\n**21.1 °C**", _CELSIUS, "correct"),
    (25, "Use 5 m for each side.\n\n**25 m²**", "What is the area of a square whose side is 5 m?", "correct"),
    (3.5, "Divide 7 by 2.\n\n**3.5 µm**", "How thick is each of the 2 layers of a 7 µm film?", "correct"),
    (21.1, "Scale by 5/9.\n\n**22.1 °C**", _CELSIUS, "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), BOLD_UNIT)
def test_a_bold_number_with_a_unit_symbol(value: float, answer: str, query: str, verdict: str) -> None:
    got = _check(value, answer, query, tolerance=0.05)
    assert got[0] == verdict
    assert got[1] == "bold"


_PIANO = "How many keys does a standard piano have?"
_TITANIC = "In what year did the Titanic sink?"
_MARS = "How many moons does Mars have?"
CONTEXT_AFTER = [
    # later sentences that speak of another subject or event (a superlative, "by comparison", a sequel)
    # are context after an opening statement that shares the question's words
    (
        88,
        "Of its 52 white and 36 black keys, a standard piano has 88 in all. "
        "The lowest note, A0, vibrates at about 27.5 Hz.",
        _PIANO,
        "correct",
    ),
    (
        1912,
        "The Titanic struck an iceberg on 14 April 1912 and went down early on 15 April 1912. "
        "Her sister ship Britannic, launched later, was lost in 1916.",
        _TITANIC,
        "correct",
    ),
    (
        2,
        "Discovered in 1877, the moons of Mars number 2: Phobos and Deimos. Jupiter, by comparison, has 95.",
        _MARS,
        "correct",
    ),
    # the opening's wrong value stays wrong, and a later sentence that turns or concludes is not context
    (2, "Mars has 95 moons. Jupiter, by comparison, has 2.", _MARS, "wrong"),
    (1912, "Many say the Titanic sank in 1912. But the wreck was actually found in 1985.", _TITANIC, "wrong"),
    (88, "Of 52 white and 36 black keys, a piano has 88. Adding them up gives 88.", _PIANO, "correct"),
    # a question that asks for the superlative is answered by it
    (
        27.5,
        "A standard piano has 88 keys over 7 octaves. The lowest note, A0, vibrates at about 27.5 Hz.",
        "What frequency is the lowest note of a standard piano?",
        "correct",
    ),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), CONTEXT_AFTER)
def test_context_about_another_subject_after_the_answer(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query)[0] == verdict


_BONES = "How many bones are in the adult human body?"
LONE_NUMBER_LEAD = [
    # a number opening the answer with a full stop is not a list marker unless other lines carry one
    (206, "206. A newborn has closer to 300 bony pieces, many of which fuse later.", _BONES, "correct"),
    (36, "36. (If you meant 15% off 240, the price would be 204.)", "What is 15% of 240?", "correct"),
    (7, "7. That is also why the week has seven named days.", "How many days are in a week?", "correct"),
    (
        12,
        "1. Multiply the 3 rows by the 4 columns.\n2. The grid has 12 cells.",
        "How many cells? 3 rows, 4 columns.",
        "correct",
    ),
    (300, "206. A newborn has closer to 300 bony pieces, many of which fuse later.", _BONES, "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), LONE_NUMBER_LEAD)
def test_a_lone_number_with_a_full_stop_is_not_a_list_marker(
    value: float, answer: str, query: str, verdict: str
) -> None:
    assert _check(value, answer, query)[0] == verdict


EQUIVALENT_FORMS = [
    # two forms of one value joined by "or" are not alternatives
    (0.5, "1/2, or 50%.", "correct"),
    (0.25, "It is 25% or 1/4.", "correct"),
    (0.75, "So three quarters: 0.75 or 75%.", "correct"),
    (0.5, "1/2 or 1/3, I can't decide.", "ambiguous"),
]


@pytest.mark.parametrize(("value", "answer", "verdict"), EQUIVALENT_FORMS)
def test_two_forms_of_one_value_are_not_alternatives(value: float, answer: str, verdict: str) -> None:
    assert _check(value, answer)[0] == verdict


LOCALE_AMOUNTS = [
    # Swiss thousands apostrophes and the dash of a whole amount; space-grouped thousands before a decimal comma
    (1100, "Neuer Preis: CHF 1'100.–", "correct"),
    (12500, "Das Auto kostet 12’500 Franken.", "correct"),
    (250, "Der Eintritt kostet 250.- CHF.", "correct"),
    (11576.25, "Kontostand nach 3 Jahren: 11 576,25 EUR", "correct"),
    (2345.5, "Total : 2\u202f345,50 €", "correct"),
    (1100, "Neuer Preis: CHF 1'010.–", "wrong"),
    (576.25, "Kontostand nach 3 Jahren: 11 576,25 EUR", "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "verdict"), LOCALE_AMOUNTS)
def test_swiss_and_space_grouped_amounts_are_read_whole(value: float, answer: str, verdict: str) -> None:
    assert _check(value, answer, tolerance=0.01)[0] == verdict


def test_feet_and_inches_are_not_thousands() -> None:
    from harness.metrics.numerals import plain_numerals

    assert plain_numerals("He is 5'10\" tall") == "He is 5'10\" tall"


_PENTAGON = "What is the sum of the interior angles of a pentagon, in degrees?"
_TRIP = "A car travels 150 km in 2.5 hours. What is its average speed in km/h?"
_BOOKS = "In how many orders can 5 distinct books stand on a shelf?"
CODA_AND_NOTES = [
    # a bold number with a degree sign attached is the bold answer
    (
        540,
        "(5 − 2) × 180° = **540°**\n\nEach angle of a regular pentagon is 108°; the exterior ones sum to 360°.",
        _PENTAGON,
        "correct",
    ),
    (
        90,
        "**90°** — a right angle. A straight angle, by contrast, is 180°.",
        "How many degrees is a right angle?",
        "correct",
    ),
    (540, "**360°**\n\nEach angle of a regular pentagon is 72°.", _PENTAGON, "wrong"),
    # a question to the reader after the answer opens a coda
    (60, "150 km ÷ 2.5 h = 60 km/h. Would you like it in miles per hour? That's about 37.3 mph.", _TRIP, "correct"),
    (60, "The average speed is 60 km/h. Want it in metres per second? It's 16.7 m/s.", _TRIP, "correct"),
    (37.3, "150 km ÷ 2.5 h = 60 km/h. Would you like it in miles per hour? That's about 37.3 mph.", _TRIP, "wrong"),
    # a markdown footnote comments beside the answer
    (120, "They can stand in 5! = 120 orders.[^p]\n\n[^p]: With a sixth book it would be 720.", _BOOKS, "correct"),
    (120, "Answer: 120[^n]\n\n[^n]: Not 25, which counts with repetition.", _BOOKS, "correct"),
    (720, "They can stand in 5! = 120 orders.[^p]\n\n[^p]: With a sixth book it would be 720.", _BOOKS, "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), CODA_AND_NOTES)
def test_a_degree_sign_a_reader_coda_and_footnotes(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query)[0] == verdict


ASKED_SCALE = [
    # a question that asks its count in a scale unit is answered by a number given in units
    (2500, "That is 2 500 million.", "How many million is 2.5 billion?", "correct"),
    (340, "The city has about 340 thousand residents.", "How many thousand residents does the city have?", "correct"),
    (7.9, "World population is about 7.9 billion.", "What is the world population in billions?", "correct"),
    (45, "Revenue was $45,000,000 last year.", "What was last year's revenue, in millions of dollars?", "correct"),
    (2500, "That is 25 000 million.", "How many million is 2.5 billion?", "wrong"),
    # without such a question the number is read in units
    (2500, "That is 2 500 million.", "What is 2.5 billion written out?", "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), ASKED_SCALE)
def test_a_count_asked_in_a_scale_unit(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query, tolerance=0.01)[0] == verdict


_DATA = "What is the population variance of 2, 4, 4, 4, 5, 5, 7, 9?"
_SCORES = "What is the mean score of the class?"
_EDGES = "How many edges does a cube have?"
OWN_SUBJECT_AND_ASIDES = [
    # of clauses stating numbers of several subjects, the one of the question's own subject
    (4, "The variance is 4, and the standard deviation is 2.", _DATA, "correct"),
    (2, "The variance is 4, and the standard deviation is 2.", "What is the standard deviation of 2, 4, 5?", "correct"),
    (78, "The mean is 78; the median is 81.", _SCORES, "correct"),
    (81, "The mean is 78; the median is 81.", _SCORES, "wrong"),
    # a check clause after the result in the same sentence
    (12, "Jurors: 12, 8, 12. The majority says 12 and Euler agrees: 8 − 12 + 6 = 2.", _EDGES, "correct"),
    (36, "10% is 24 and 5% is 12, so 15% is 36 — a quick check: 36/240 = 0.15.", "What is 15% of 240?", "correct"),
    (2, "Jurors: 12, 8, 12. The majority says 12 and Euler agrees: 8 − 12 + 6 = 2.", _EDGES, "wrong"),
    # a hypothetical with "instead" about any subject
    (72, "Its average speed is 72 km/h. If it had taken 3 hours instead, it would be 60 km/h.", _TRAIN, "correct"),
    (
        15,
        "Each gets 15; had there been 5 friends instead, each would get 12.",
        "60 cards, 4 friends: how many each?",
        "correct",
    ),
    (60, "Its average speed is 72 km/h. If it had taken 3 hours instead, it would be 60 km/h.", _TRAIN, "wrong"),
    # a year that dates a figure, when the question does not ask for a year
    (8849, "About 8,849 m by the 2020 survey.", "How tall is Mount Everest in metres?", "correct"),
    (330, "Roughly 330 million according to the 2020 census.", "How many million people live in the US?", "correct"),
    (1.43, "India has about 1.43 billion people as of 2023.", "What is India's population in billions?", "correct"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), OWN_SUBJECT_AND_ASIDES)
def test_own_subject_checks_hypotheticals_and_dates(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query, tolerance=0.01)[0] == verdict


_SHIRT = "After a 20% discount a shirt costs $40. What was the original price in dollars?"
_TANK = "A tank holds 250 litres and drains at 12.5 litres per minute. How many minutes until it is empty?"
REPORTS_COUNTERFACTUALS_RESTATED = [
    # a sentence reporting what a council participant gave is not the answer's own value
    # (the chairman names no value of its own: ambiguous, since "Member A:" opens a transcript of several speakers)
    (50, "Member A: $48. Member B: $50. The chairman sides with A.", _SHIRT, "wrong"),
    (50, "Juror 1 said $50. Juror 2 said $48. The panel could not agree.", _SHIRT, "ambiguous"),
    (50, "Member A: $48. Member B: $50. Member C: $50. The majority is right: $50.", _SHIRT, "correct"),
    # a counterfactual after the answer, when the question poses no condition
    (20, "250 / 12.5 = 20 minutes. If the drain rate doubled, it would take 10 minutes.", _TANK, "correct"),
    (20, "It empties after 20 minutes. Were the tank twice as big, it would need 40.", _TANK, "correct"),
    (10, "250 / 12.5 = 20 minutes. If the drain rate doubled, it would take 10 minutes.", _TANK, "wrong"),
    (
        10,
        "At 25 litres a minute it would take 10 minutes. If it drained at that rate, it would be empty in 10.",
        "How many minutes would the 250-litre tank take if it drained at 25 litres per minute?",
        "correct",
    ),
    # a restatement in another unit after a result stated with "="
    (20, "Time = 250 / 12.5 = 20 min. Equivalently 1200 s.", _TANK, "correct"),
    (20, "t = 250 / 12.5 = 20 min. In other words, a third of an hour, or 0.33 h.", _TANK, "correct"),
    (1200, "Time = 250 / 12.5 = 20 min. Equivalently 1200 seconds.", "How many seconds until it is empty?", "correct"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), REPORTS_COUNTERFACTUALS_RESTATED)
def test_member_reports_counterfactuals_and_restatements(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query, tolerance=0.01)[0] == verdict


OVERRIDDEN_LEADS = [
    # a leading value that a later turn, disagreement or first-person commitment replaces does not lead
    (72, "72 — that's what two members said, but I get 75.", _TRAIN, "wrong"),
    (50, "$50. I disagree with that, though: it was $48.", _SHIRT, "wrong"),
    (1440, "1440 — or so I thought; actually I count 1400.", "How many minutes are in a day?", "wrong"),
    (1440, "1440 — there are 24 hours of 60 minutes each.", "How many minutes are in a day?", "correct"),
    # a hypothetical with a decimal in it is still one hypothetical
    (25, "It takes 25 minutes. Had it drained at 12.5 instead of 10, it would take 20.", _TANK, "correct"),
    (20, "It takes 25 minutes. Had it drained at 12.5 instead of 10, it would take 20.", _TANK, "wrong"),
    (72, "75 km/h. If it had taken 2.5 hours instead of 2.4, it would be 72 km/h.", _TRAIN, "wrong"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), OVERRIDDEN_LEADS)
def test_an_overridden_lead_and_a_decimal_hypothetical(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query, tolerance=0.01)[0] == verdict


ENDORSED_REPORTS = [
    # when every number is a participant's report, the one the answer endorses is its value
    (50, "Member A: $48. Member B: $50. B is right.", _SHIRT, "correct"),
    (50, "Member A said $48 and member B said $50; B is correct.", _SHIRT, "correct"),
    (50, "Juror 2 said $50. That is correct.", _SHIRT, "correct"),
    (50, "Member A: $48. Member B: $50. The chairman sides with A.", _SHIRT, "wrong"),
    (50, "Member A said $48. That is correct.", _SHIRT, "wrong"),
    (50, "Member A: $48. Member B: $50. The panel could not agree.", _SHIRT, "ambiguous"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), ENDORSED_REPORTS)
def test_the_endorsed_report_gives_the_value(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query)[0] == verdict


_OCTAGON = "What is the sum of the interior angles of an octagon, in degrees?"
_SUM50 = "What is the sum of all integers from 1 to 50?"
RESULT_HEADINGS = [
    # a result heading or label (also in other languages) is an answer cue for the line after it
    (
        1080,
        "## Result\nFor n = 8: 6 × 180° = 1080°.\n\n## Related\nEach angle of a regular octagon is 135°.",
        _OCTAGON,
        "correct",
    ),
    (1275, "**Result**\n1 275\n\n**Method**\nPair 1 with 50, 2 with 49, …: 25 pairs of 51.", _SUM50, "correct"),
    (1275, "Ergebnis: 1 275.\nMethode: 25 Paare zu je 51.", _SUM50, "correct"),
    (1275, "Résultat : 1 275.\nMéthode : 25 paires de 51.", _SUM50, "correct"),
    (1275, "## Result\n1 250\n\n## Method\n25 pairs of 51 make 1275.", _SUM50, "wrong"),
    # a result heading over a list of values is not one value's cue
    (72, "## Results\n- distance: 180 km\n- time: 2.5 h\n- speed: 72 km/h", _TRAIN, "correct"),
]


@pytest.mark.parametrize(("value", "answer", "query", "verdict"), RESULT_HEADINGS)
def test_a_result_heading_is_an_answer_cue(value: float, answer: str, query: str, verdict: str) -> None:
    assert _check(value, answer, query)[0] == verdict


def test_a_result_heading_cues_a_short_answer_too() -> None:
    block = _EXPECTED.validate_python({"type": "exact", "value": "Canberra"})
    answer = "## Verdict\nCanberra\n\n## Why not Sydney\nSydney is larger, but it is not the capital."
    assert check_expected(block, answer, "What is the capital of Australia?").verdict == "correct"
