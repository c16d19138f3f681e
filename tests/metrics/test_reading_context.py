"""Context after (or around) the answer in exact, any_of and choice answers: values stated of
something other than what the question asks are not the answer. Each class with at least three
phrasings of its own, and the wrong or undecidable answers that must not pass (issue 26)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from harness.data.expected import Expected
from harness.metrics.correctness import check_expected

_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)


def _verdict(block: dict[str, Any], answer: str, query: str | None = None) -> str:
    got = check_expected(_EXPECTED.validate_python(block), answer, query)
    assert got.verdict is not None
    return got.verdict


def _exact(value: str) -> dict[str, Any]:
    return {"type": "exact", "value": value}


def _choice(answer: str, options: list[str]) -> dict[str, Any]:
    return {"type": "choice", "answer": answer, "options": options}


RIVERS = ["Nile", "Amazon", "Yangtze", "Mississippi"]
LONGEST = "Which river is the longest? Options: Nile; Amazon; Yangtze; Mississippi"
METALS = "Which metal conducts electricity best?"

RANKED_CONTEXT = [
    # a value placed below another (a rank word after it, or "ahead of" / "followed by" / "overtook" before it)
    (_choice("Nile", RIVERS), LONGEST, "Nile — it runs about 6,650 km. The Amazon is a close second.", "correct"),
    (_choice("Nile", RIVERS), LONGEST, "The Nile, narrowly ahead of the Amazon by most measurements.", "correct"),
    (
        _choice("Amazon", RIVERS),
        LONGEST,
        "Amazon: by one survey it overtook the Nile. The Yangtze comes third.",
        "correct",
    ),
    (_choice("Nile", RIVERS), LONGEST, "The Nile, followed by the Amazon and then the Yangtze.", "correct"),
    (_exact("silver"), METALS, "Copper is second; the best conductor is silver, though it costs more.", "correct"),
    (_exact("silver"), METALS, "Gold comes third; silver is the best of all.", "correct"),
    # the wrong value keeps being read; a question that asks for the rank reads the ranked value
    (_choice("Nile", RIVERS), LONGEST, "Amazon — the Nile is a close second.", "wrong"),
    (_exact("silver"), METALS, "Silver is second; copper is the best conductor.", "wrong"),
    (_exact("copper"), "Which metal is the second-best conductor?", "Copper is second; silver is the best.", "correct"),
    (
        _choice("Amazon", RIVERS),
        "Which river is the second longest? Options: Nile; Amazon; Yangtze; Mississippi",
        "The Nile, ahead of the Amazon.",
        "ambiguous",
    ),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), RANKED_CONTEXT)
def test_a_value_ranked_below_another_is_context(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


POWERS = ["2^10", "10^3", "3^6"]
LETTERED = {"type": "choice", "answer": "B", "options": {"A": "Venus", "B": "Mercury", "C": "Mars"}}

ASIDES_NAMING_OTHERS = [
    # the other options named only in a parenthetical remark, and an option followed by its value
    (_choice("2^10", POWERS), "2^10 = 1024 is the largest (10^3 = 1000, 3^6 = 729).", "correct"),
    (_choice("10^3", POWERS), "The biggest is 10^3 (2^10 is 1024, 3^6 is 729, both smaller).", "correct"),
    (LETTERED, "Mercury is closest to the Sun (Venus is second, Mars fourth).", "correct"),
    (LETTERED, "(B) Mercury orbits closest (Venus at 0.72 AU, Mars at 1.52 AU).", "correct"),
    # an aside that offers, adds or negates an option leaves it open
    (LETTERED, "Mercury is closest to the Sun (or Venus, on average).", "ambiguous"),
    (LETTERED, "Mercury is closest to the Sun (Venus could also be argued).", "ambiguous"),
    (_choice("2^10", POWERS), "2^10 = 1024 is the largest (maybe 3^6 = 729 is close).", "ambiguous"),
    (_choice("2^10", POWERS), "3^6 = 729 is the largest (2^10 = 1024, 10^3 = 1000).", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), ASIDES_NAMING_OTHERS)
def test_options_named_only_in_an_aside_are_remarks(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer, "Which is the largest?") == verdict


TURN_TO_THE_ASKED = [
    # a long first sentence that turns, after its first comma, to state what the question asks
    (
        _exact("Canberra"),
        "What is the capital of Australia?",
        "Sydney is the biggest city and Melbourne was the temporary seat of government, but the capital is "
        "Canberra, a planned city.",
        "correct",
    ),
    (
        _exact("Au"),
        "What is the chemical symbol for gold?",
        "Gold sits in group 11 alongside copper and silver in the periodic table, but its symbol is Au, from aurum.",
        "correct",
    ),
    (
        _exact("Everest"),
        "What is the highest mountain on Earth?",
        "Mauna Kea is taller when measured from its base on the ocean floor, however the highest peak above sea "
        "level is Everest.",
        "correct",
    ),
    # the turn states the asked predicate of another value: the opening name is not a commitment
    (
        _exact("Canberra"),
        "What is the capital of Australia?",
        "Canberra hosts Parliament House and the High Court of Australia, but the legal capital under the "
        "constitution is Sydney.",
        "ambiguous",
    ),
    (
        _exact("Au"),
        "What is the chemical symbol for gold?",
        "Au is what older periodic tables printed for the metal, but the official symbol today is Ag, I believe.",
        "ambiguous",
    ),
    # a turn to something the question does not ask leaves the opening clause as the answer
    (
        _exact("Canberra"),
        "What is the capital of Australia?",
        "Canberra is the capital of the country, but Sydney is the largest and best-known city by a long way.",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), TURN_TO_THE_ASKED)
def test_a_turn_to_what_the_question_asks(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


def _any(*values: str) -> dict[str, Any]:
    return {"type": "any_of", "values": list(values)}


HEADING_VALUE = [
    # a short answer opening with another value as its heading: the expected one named only after it
    (
        _any("i"),
        "What symbol denotes the square root of -1?",
        "j — engineers use it, since i means current.",
        "ambiguous",
    ),
    (_exact("Paris"), "What is the capital of France?", "Lyon: most people wrongly guess Paris.", "ambiguous"),
    (
        _exact("Mercury"),
        "Which planet is closest to the Sun?",
        "Venus - it is closer to us than Mercury is.",
        "ambiguous",
    ),
    # the heading names the expected value, or the heading is filler or the question's own words
    (_any("i"), "What symbol denotes the square root of -1?", "i — though engineers write j.", "correct"),
    (_exact("Paris"), "What is the capital of France?", "Short answer: Paris, on the Seine.", "correct"),
    (_exact("Paris"), "What is the capital of France?", "The capital: Paris, since 987.", "correct"),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), HEADING_VALUE)
def test_a_heading_gives_the_value(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


GLOSSED_SYMBOL = [
    # a symbol and its name glossed in a parenthesis are one answer, either way round
    (_exact("Hydrogen"), "Answer: H (hydrogen)", "correct"),
    (_exact("Na"), "Sodium (Na)", "correct"),
    (_exact("sodium chloride"), "Answer: NaCl (sodium chloride)", "correct"),
    (_exact("Iron"), "Fe (iron).", "correct"),
    # a different name, an alternative or a rejected gloss is not the expected answer
    (_exact("Hydrogen"), "Answer: He (helium)", "wrong"),
    (_exact("Hydrogen"), "Answer: He (or hydrogen)", "ambiguous"),
    (_exact("Hydrogen"), "Answer: He (not hydrogen)", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), GLOSSED_SYMBOL)
def test_a_symbol_and_its_glossed_name_are_one_answer(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


OTHER_NUMBER = [
    # the same common noun in the other grammatical number
    (_exact("mitochondria"), "Which organelle makes most of the cell's ATP?", "The mitochondrion.", "correct"),
    (_exact("nucleus"), "Where is a eukaryotic cell's DNA kept?", "In the nuclei of its cells.", "correct"),
    (_any("vertebrae"), "What are the bones of the spine called?", "Each one is a vertebra.", "correct"),
    (_exact("ribosomes"), "Where are proteins made?", "On the ribosome.", "correct"),
    (_exact("ohm"), "What is the SI unit of resistance?", "Answer: Ohms", "correct"),
    (_any("byte"), "What unit holds eight bits?", "Eight bits make two nibbles, or one of the bytes.", "wrong"),
    # not a name, not a possessive, and not when the question asks for the form itself
    (_any("cacti", "cactuses"), "What is the plural of cactus?", "Cactus.", "wrong"),
    (_exact("Einstein"), "Who wrote the 1905 relativity paper?", "Newton, building on Einsteins ideas.", "wrong"),
    (_exact("cell"), "What are living things made of?", "The cell's membrane.", "wrong"),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), OTHER_NUMBER)
def test_a_noun_in_the_other_number(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


def _case_kept(value: str) -> dict[str, Any]:
    return {"type": "exact", "value": value, "normalize": False}


CASE_KEPT_IN_A_SENTENCE = [
    # normalize: false keeps case and marks, but the value may stand in a short sentence
    (_case_kept("Na"), "Na (from the Latin natrium).", "correct"),
    (_case_kept("Na"), "S? No, that's sulfur. Sodium is Na.", "correct"),
    (_case_kept("K"), "Potassium's symbol is K, from kalium.", "correct"),
    (_case_kept("Fe"), "It is Fe.", "correct"),
    # another case, a longer token, a value inside code or a rejected one is not it
    (_case_kept("Na"), "Sodium is NA.", "wrong"),
    (_case_kept("Na"), "Table salt is NaCl.", "wrong"),
    (_case_kept("list"), "It prints `<class 'list'>`.", "wrong"),
    (_case_kept("Na"), "It is not Na, it is K.", "ambiguous"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), CASE_KEPT_IN_A_SENTENCE)
def test_a_case_kept_value_in_a_short_sentence(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


SIGNS = {"A": "cos x", "B": "−cos x", "C": "−sin x", "D": "tan x"}
DERIVATIVE = {"type": "choice", "answer": "A", "options": SIGNS}
RIVER_LETTERS = {"type": "choice", "answer": "A", "options": {"A": "Nile", "B": "Amazon", "C": "Yangtze"}}

WHOLE_ASIDE_SENTENCE = [
    # a sentence wholly in parentheses after the choice is a remark beside it
    (DERIVATIVE, "d/dx sin x = cos x, option A. (−cos x, option B, is the antiderivative of sin x.)", "correct"),
    (
        DERIVATIVE,
        "The derivative is cos x. (People often write −sin x here, which is the derivative of cos x.)",
        "correct",
    ),
    (RIVER_LETTERS, "It is the Nile, at about 6,650 km. (The Amazon comes close by some measurements.)", "correct"),
    # a sign tells expression options apart; a bare marker in parentheses is the answer, not an aside
    (DERIVATIVE, "d/dx sin x = −cos x, option B.", "wrong"),
    (RIVER_LETTERS, "The longest is debated.\n\n(B)", "wrong"),
    (RIVER_LETTERS, "(I would pick the Amazon, to be honest.)", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), WHOLE_ASIDE_SENTENCE)
def test_a_sentence_in_parentheses_is_an_aside(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


def _bool(value: bool) -> dict[str, Any]:
    return {"type": "boolean", "value": value}


OPEN_CONCLUSION = [
    # a last sentence whose conclusion leaves the verdict open, though it uses yes/no words
    (
        _bool(True),
        "Botanically it's a fruit, legally a vegetable, so it really depends on who you ask — yes or no.",
        "ambiguous",
    ),
    (
        _bool(True),
        "A tomato is a fruit to a botanist and a vegetable to a cook; both yes and no are defensible.",
        "ambiguous",
    ),
    (_bool(False), "Some say it is true and some false. Honestly the answer is yes and no.", "ambiguous"),
    (_bool(True), "Calling it a fruit is correct botanically, so ultimately it depends on the context.", "ambiguous"),
    (
        _bool(True),
        "Botanists would say it is true; chefs would not. So really it depends on who is asking.",
        "ambiguous",
    ),
    (_bool(True), "The statement is correct in botany, but cooks disagree, so it really depends.", "ambiguous"),
    # a committed verdict stays
    (_bool(True), "Yes. Botanically it is a fruit, whatever the kitchen says.", "correct"),
    (_bool(True), "It is a fruit botanically, so yes.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), OPEN_CONCLUSION)
def test_a_conclusion_that_leaves_it_open(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer, "Is a tomato a fruit?") == verdict


NAME_FORMS = [
    # a possessive name standing as the predicate names the person
    (
        _any("Einstein", "Albert Einstein"),
        "Newton laid the groundwork, but general relativity is Einstein's.",
        "correct",
    ),
    (_exact("Darwin"), "Wallace had the idea too, but the theory as published was mostly Darwin's.", "correct"),
    (_exact("Marie Curie"), "The discovery of polonium? That was Marie Curie's.", "correct"),
    # before a noun it is not the name
    (_any("Einstein", "Albert Einstein"), "Newton, building on Einstein's earlier ideas.", "wrong"),
    # a middle initial does not end the first sentence
    (_any("Neil Armstrong", "Armstrong"), "Commander Neil A. Armstrong, on 20 July 1969.", "correct"),
    (_exact("John F. Kennedy"), "President John F. Kennedy, in 1961, announced the Moon goal.", "correct"),
    (_exact("George W. Bush"), "George W. Bush, the 43rd president.", "correct"),
    (_exact("Kennedy"), "Vitamin C. Kennedy never said that.", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), NAME_FORMS)
def test_names_in_their_written_forms(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


THINKING_ALOUD = [
    # an answer that opens by thinking aloud commits at its end
    (_exact("Rust"), "Hmm, cargo. pip is Python, npm is JavaScript, cargo is Rust. So it is Rust. Rust.", "correct"),
    (
        _exact("Lisbon"),
        "Let me think. Porto is the second city and the seat of government is elsewhere. Lisbon, then.",
        "correct",
    ),
    (_exact("Au"), "Let's see — gold is aurum in Latin. Silver is Ag from argentum. It has to be Au.", "correct"),
    # its end decides the wrong way, too, and an open end gives nothing to accept
    (_exact("Rust"), "Hmm, cargo. Go has modules and Rust has crates, but cargo feels like Go. Go.", "wrong"),
    (_exact("Lisbon"), "Let me think. It is either Porto or Lisbon.", "ambiguous"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), THINKING_ALOUD)
def test_an_answer_thinking_aloud_commits_at_its_end(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


REASONING_BLOCK = [
    # a reasoning model's thinking block is not the reply: only what follows it is read
    (
        _bool(False),
        "<think>\nIt is a myth. So no.\nBut it is long… hmm.\n</think>\n\nYes — its length makes it visible.",
        "wrong",
    ),
    (_exact("Au"), "<think>\nGold = aurum, so Au. Not Ag.\n</think>\n\nAu", "correct"),
    (
        _any("descending"),
        "<think>\nASC vs DESC. So descending.\n</think>\n\nDescending, e.g. ORDER BY x DESC.",
        "correct",
    ),
    ({"type": "numeric", "value": 12}, "<thinking>3 × 4 = 12, or maybe 13?</thinking>\nAnswer: 12", "correct"),
    (_choice("Nile", RIVERS), "<think>Amazon? No — the Nile.</think>\nThe Amazon.", "wrong"),
    # a block that never closes gave no reply
    (_exact("Au"), "<think>\nGold is aurum, so the symbol is Au, unless", "unanswered"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), REASONING_BLOCK)
def test_a_thinking_block_is_not_the_reply(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


WORD_FORM_QUESTION = [
    # a question about a word's own form keeps the grammatical number significant
    (_exact("desserts"), 'What word do you get if you reverse the letters of "stressed"?', "Answer: dessert", "wrong"),
    (_exact("geese"), "What is the plural of goose?", "Goose.", "wrong"),
    (_exact("mice"), "Which word rhymes with 'dice' and names more than one mouse?", "A mouse.", "wrong"),
    (
        _exact("desserts"),
        'What word do you get if you reverse the letters of "stressed"?',
        "Answer: desserts",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), WORD_FORM_QUESTION)
def test_a_question_about_a_word_form(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


BS = {"type": "choice", "answer": "B", "options": {"A": "O(n)", "B": "O(log n)", "C": "O(n log n)", "D": "O(1)"}}

OPENED_AS_ALTERNATIVES = [
    # an answer that opens by offering two options and ends only leaning, the other conceded, commits to neither
    (BS, "Could be A or B, depending on the structure. I'd lean B but A is defensible.", "ambiguous"),
    (BS, "Maybe A or B. On balance B, though A is possible too.", "ambiguous"),
    (BS, "Perhaps A or B — it depends. Leaning B, but A can't be ruled out.", "ambiguous"),
    # a plain lean with a concession, or a firm choice after the opening, still commits
    (BS, "B is the usual answer. I'd lean B, but A is defensible for linked lists.", "correct"),
    (BS, "Could be A or B at first glance. It is B: each step halves the range.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), OPENED_AS_ALTERNATIVES)
def test_an_opening_between_two_options_then_a_lean(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


FINAL_LABEL_AND_HEADING = [
    # a "Final:" label states the result like "Final answer:"
    (_any("India"), "Round 1 split 2–1 for China. In round 2 the others conceded. Final: India.", "correct"),
    (_exact("Lisbon"), "Two members said Porto, one said Lisbon.\nFinal verdict: Lisbon", "correct"),
    (_exact("Lisbon"), "Members: Porto, Porto, Lisbon. Final pick: Porto.", "wrong"),
    # a heading that names the value, the rest only explaining it (a numbering "No." does not end it)
    (
        _any("Beethoven"),
        "Beethoven — Piano Sonata No. 14 in C-sharp minor, Op. 27 No. 2 (1801), named by a critic.",
        "correct",
    ),
    (
        _exact("Jupiter"),
        "Jupiter: more than twice as massive as all the other planets put together, by far.",
        "correct",
    ),
    (_exact("Paris"), "Paris — no, Lyon.", "wrong"),
    (_exact("Paris"), "Paris: the usual textbook answer.", "ambiguous"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), FINAL_LABEL_AND_HEADING)
def test_a_final_label_and_a_heading(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


SMALLEST = ["0.5", "0.45", "0.405", "0.54"]

LABELS_GLOSSES_VALUES = [
    # a symbol glossed after a dash, and a speaker's label before the reply, are not other values
    (_exact("iron"), "Fe — iron.", "correct"),
    (_exact("Hydrogen"), "H: hydrogen", "correct"),
    (_exact("mice"), "Model B: The plural is mice.", "correct"),
    (_exact("mice"), "Member 2 — the plural is mice.", "correct"),
    # a commitment to a lower-case noun is a commitment to something else
    (
        _exact("Skin"),
        'Council verdict: two members said "skin", one said "liver". On balance, I\'ll go with the liver.',
        "ambiguous",
    ),
    (_exact("skin"), "Skin, by area. Strictly though, I pick the liver.", "ambiguous"),
    # numeric options are named by an equal value in another notation
    (
        _choice("0.405", SMALLEST),
        "Padding to three decimals: 0.500, 0.450, 0.405, 0.540. The smallest is 0.450.",
        "wrong",
    ),
    (_choice("0.405", SMALLEST), "With four decimals, the smallest is 0.4050.", "correct"),
    (_choice("0.5", SMALLEST), "It is 0.50, once the trailing zero is written out.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), LABELS_GLOSSES_VALUES)
def test_labels_glosses_and_numeric_options(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


GASES = ["Oxygen", "Nitrogen", "Carbon dioxide", "Argon"]
YEARS = ["1944", "1945", "1946"]

STRUCTURED_OUTPUT = [
    # a result label or a JSON field states the answer
    (_bool(True), '{"final": "yes", "reasoning": "boiling point falls with pressure"}', "correct"),
    (_choice("Nitrogen", GASES), "choice: Nitrogen\nshare_by_volume: ~78%\nrunner_up: Oxygen (~21%)", "correct"),
    (_exact("Pacific"), "TL;DR: Pacific.\n\nIt covers about 165 million km².", "correct"),
    (_any("stack"), "| structure | order |\n|---|---|\n| queue | FIFO |\n| stack | LIFO |\n\nResult: stack", "correct"),
    (_exact("Pacific"), "Bottom line: the Atlantic.\n\nThe Pacific is larger, but I said Atlantic.", "wrong"),
    # the one list or table item marked as picked
    (_choice("1945", YEARS), "- 1944 — D-Day, not the end\n- 1945 ← end of the war\n- 1946 — post-war", "correct"),
    (
        _any("neon", "argon"),
        "Some options:\n- Helium (He)\n- Neon (Ne)  ← going with this one\n- Argon (Ar)",
        "correct",
    ),
    (_exact("stack"), "| structure | order |\n|---|---|\n| queue | FIFO |\n| stack | LIFO ✅ |", "correct"),
    (_choice("1945", YEARS), "- 1944 ✅\n- 1945\n- 1946", "wrong"),
    (_choice("1945", YEARS), "- 1944 ✅\n- 1945 ✅\n- 1946", "ambiguous"),
    # informal and other-language yes words, and an arrow to the verdict
    (_bool(True), "yep", "correct"),
    (_bool(True), "Sí, it was a Sunday.", "correct"),
    (_bool(True), "2024 ÷ 4 = 506 and it is not a century year → yes, leap year.", "correct"),
    (_bool(True), "1900 ÷ 4 = 475 but it is a century year not divisible by 400 → no.", "wrong"),
    # a clean radix prefix is notation, unless case and marks are kept (normalize: false)
    (_exact("FF"), "Answer: 0xFF", "correct"),
    (_exact("1010"), "It is 0b1010 in binary.", "correct"),
    (_case_kept("ff"), "Answer: 0xff", "wrong"),
    (_exact("FF"), "Answer: 0xFFF", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), STRUCTURED_OUTPUT)
def test_structured_and_marked_outputs(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


RGB = {"type": "choice", "answer": "C", "options": {"A": "Red", "B": "Green", "C": "Yellow", "D": "Blue"}}
NOT_PRIMARY = "Which of these is NOT a primary colour of light?\nA) Red\nB) Green\nC) Yellow\nD) Blue"

ODD_ONE_OUT = [
    # asked for the option that is not, the explanation names the others as the group that is
    (RGB, NOT_PRIMARY, "C — yellow light is what you get by mixing red and green.", "correct"),
    (
        RGB,
        NOT_PRIMARY,
        "Model A: The odd one out is Yellow (option C); red, green and blue are the primaries.",
        "correct",
    ),
    (RGB, NOT_PRIMARY, "Yellow (C): red, green and blue are the additive primaries.", "correct"),
    (
        RGB,
        NOT_PRIMARY,
        "Option C — red, green and blue are the additive primaries; yellow is mixed from red and green.",
        "correct",
    ),
    # a turn or a take-back, or the same reply to an ordinary question, leaves it open
    (RGB, NOT_PRIMARY, "Yellow — but red and green could also be argued.", "ambiguous"),
    (RGB, NOT_PRIMARY, "C. Actually, blue is the one.", "ambiguous"),
    (
        RGB,
        "Which is a primary colour of light?",
        "Yellow (C): red, green and blue are the additive primaries.",
        "ambiguous",
    ),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), ODD_ONE_OUT)
def test_the_odd_one_out_and_the_group(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


FIELDS_AND_CHECKS = [
    # a structured answer's field named as the question asks
    (
        _any("HTTPS"),
        "Which protocol normally runs on TCP port 443?",
        "port: 443\nprotocol: HTTPS\ntransport: TCP",
        "correct",
    ),
    (_exact("Au"), "What symbol does gold have?", "element: gold\nsymbol: Au\nnumber: 79", "correct"),
    (_exact("stack"), "Which data structure is LIFO?", "order: LIFO\ndata structure: stack", "correct"),
    (_exact("Au"), "What symbol does gold have?", "element: gold\nsymbol: Ag\nnumber: 47", "wrong"),
    # a checked list item that is (or is not) what the question asks
    (
        _bool(True),
        "Is a tomato botanically a fruit?",
        "- fruit ✅ (botanical sense: a berry)\n- vegetable (culinary)",
        "correct",
    ),
    (_bool(False), "Is a peanut a nut?", "- nut\n- legume ✅ (it grows in a pod)", "correct"),
    (_bool(True), "Is a whale a mammal?", "- fish\n- mammal ✓ (it breathes air)", "correct"),
    (_bool(True), "Is a tomato botanically a fruit?", "- fruit\n- vegetable ✅", "wrong"),
    (_bool(False), "Is a tomato a vegetable botanically?", "- vegetable\n- fruit ✅", "correct"),
    # a hedge that a turn settles ("It depends …, but yes") commits
    (_bool(True), "Is water wet?", "It depends on the definition, but yes — in everyday use, water is wet.", "correct"),
    (_bool(False), "Is a whale a fish?", "That depends on the era's taxonomy, but no: it is a mammal.", "correct"),
    (_bool(True), "Is Pluto round?", "It's hard to say from afar, but yes, it is round.", "correct"),
    (_bool(True), "Is water wet?", "It depends on the definition, but yes or no are both defensible.", "unanswered"),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), FIELDS_AND_CHECKS)
def test_fields_and_checked_items(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


FRANCE = "What is the capital of France?"
CANADA_Q = "What is the capital of Canada?"

ANOTHER_VALUE_AFTER = [
    # after a leading value, a clause or sentence that gives another value as what is asked
    (_exact("Paris"), FRANCE, "Paris — the tempting guess. Lyon is the capital.", "ambiguous"),
    (_exact("Paris"), FRANCE, "Paris — that's a trap. It's Lyon.", "ambiguous"),
    (_exact("Paris"), FRANCE, "Paris — what I thought at first, it's Lyon.", "ambiguous"),
    (_exact("Paris"), FRANCE, "Paris: that was the old answer, today it is Lyon.", "ambiguous"),
    (_exact("Paris"), FRANCE, "Paris. The capital is Lyon, strictly speaking.", "ambiguous"),
    # another value stated of something else, or a restatement, keeps the answer
    (_exact("Paris"), FRANCE, "Paris. Lyon is the second city.", "correct"),
    (_exact("Paris"), FRANCE, "Paris — it's the capital since 987.", "correct"),
    (_exact("Paris"), FRANCE, "Paris. The largest city is also Paris.", "correct"),
    # a predicate of another subject the question does not name is context
    (_exact("Ottawa"), CANADA_Q, "Ottawa. Toronto is the capital of Ontario.", "correct"),
    (_exact("Paris"), FRANCE, "Paris. Lyon is the capital of the Auvergne-Rhône-Alpes region.", "correct"),
    # another period's value is history, not the answer
    (
        _exact("Tokyo"),
        "What is the capital of Japan?",
        "Tokyo. Kyoto was the capital for a thousand years before 1869.",
        "correct",
    ),
    (
        _exact("Canberra"),
        "What is the capital of Australia?",
        "Canberra. Melbourne was the seat of government until 1927.",
        "correct",
    ),
    (_exact("Bonn"), "What was the capital of West Germany?", "Bonn. Berlin is the capital today.", "correct"),
    (
        _any("O negative"),
        "Which blood type is known as the universal donor?",
        "The universal donor is O negative; the universal recipient is AB positive.",
        "correct",
    ),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), ANOTHER_VALUE_AFTER)
def test_another_value_given_after_the_lead(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


CITIES = ["Oslo", "Rome", "Madrid", "Cairo"]
NORTH = "Which city is further north: Oslo, Rome, Madrid or Cairo?"

COMPARED_TERMS = [
    # options named as the term a comparison sets the answer against are not chosen
    (
        _choice("Oslo", CITIES),
        NORTH,
        "Oslo, at about 60° N, is far north of Rome (42° N), Madrid (40° N) and Cairo.",
        "correct",
    ),
    (_choice("Oslo", CITIES), NORTH, "Oslo lies further north than Rome, Madrid and Cairo.", "correct"),
    # a comparison on another scale ("shorter than" for "the longest") does not set the term aside
    (_choice("Nile", RIVERS), LONGEST, "The Nile is shorter than the Amazon.", "ambiguous"),
    (
        _choice("Nile", RIVERS),
        LONGEST,
        "The Nile, followed by the Amazon — but newer surveys put the Amazon first.",
        "wrong",
    ),
    (_choice("Oslo", CITIES), NORTH, "It is Oslo — colder and more northerly than Madrid or Cairo.", "correct"),
    (_choice("Nile", RIVERS), LONGEST, "The Nile is longer than the Amazon by most measurements.", "correct"),
    # the subject of the comparison is what the answer names, right or wrong
    (_choice("Oslo", CITIES), NORTH, "Rome is further north than Madrid and Cairo.", "wrong"),
    (_choice("Oslo", CITIES), NORTH, "Madrid is north of Cairo; Rome is north of Madrid.", "ambiguous"),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), COMPARED_TERMS)
def test_a_compared_term_is_not_chosen(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


CANADA = "What is the capital of Canada?"

DISMISSED_OR_RANKED = [
    # a heading that names the value only to dismiss it
    (_exact("Ottawa"), CANADA, "Ottawa — is a common mistake; Toronto.", "ambiguous"),
    (
        _any("Beethoven"),
        "Who composed the Moonlight Sonata?",
        "Beethoven — wrongly attributed; it was Mozart.",
        "ambiguous",
    ),
    (_exact("Ottawa"), CANADA, "Ottawa: a classic trap. Toronto.", "ambiguous"),
    (_exact("Ottawa"), CANADA, "Ottawa — the seat of government since 1857.", "correct"),
    # a value named only as ranked below another, in a clause after the lead
    (
        _any("Neil Armstrong"),
        "Who first walked on the Moon?",
        "Buzz E. Aldrin, with Neil Armstrong second.",
        "ambiguous",
    ),
    (_exact("Jupiter"), "What is the largest planet?", "Saturn, and Jupiter a close second.", "ambiguous"),
    (_exact("Jupiter"), "What is the largest planet?", "Saturn by volume, Jupiter next.", "ambiguous"),
    (_exact("Jupiter"), "What is the largest planet?", "Jupiter, with Saturn second.", "correct"),
    # several list items marked as picked commit to none
    (_exact("Ottawa"), CANADA, "- Ottawa ✅ (what people think)\n- Toronto ✅ (actual)", "ambiguous"),
    (_exact("Ottawa"), CANADA, "1. Ottawa ←\n2. Toronto ←", "ambiguous"),
    (_exact("Ottawa"), CANADA, "| city | capital? |\n| Ottawa | ✓ |\n| Toronto | ✓ |", "ambiguous"),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), DISMISSED_OR_RANKED)
def test_a_dismissed_or_ranked_value(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


PLANETS = ["Mercury", "Venus", "Earth", "Mars"]
PLANET_LETTERS = {"type": "choice", "answer": "A", "options": {"A": "Mercury", "B": "Venus", "C": "Earth", "D": "Mars"}}
CLOSEST = "Which planet is closest to the Sun?"

FIRST_ANSWERS_THE_ASKED = [
    # the first sentence answers what is asked; later ones name other options with other predicates
    (
        _choice("Mercury", PLANETS),
        CLOSEST,
        "Mercury is closest; Venus is much hotter, thanks to its atmosphere.",
        "correct",
    ),
    (PLANET_LETTERS, CLOSEST, "A. Mercury orbits at 0.39 AU; Venus (B) at 0.72 AU.", "correct"),
    (_choice("Mercury", PLANETS), CLOSEST, "Mercury. Mars is red because of iron oxide dust.", "correct"),
    (
        {"type": "choice", "answer": "C", "options": {"A": "Nucleus", "B": "Ribosome", "C": "Mitochondrion"}},
        "Which organelle is known as the powerhouse of the cell?",
        "The mitochondrion — it makes most of the cell's ATP. The nucleus (A) is more like the control centre than the "
        "powerhouse.",
        "correct",
    ),
    (
        _choice("Carbon dioxide", GASES),
        "Which gas do plants absorb for photosynthesis?",
        "CO₂ — carbon dioxide. They give off oxygen.",
        "correct",
    ),
    (
        _choice("Oxygen", GASES),
        "Which gas do plants absorb for photosynthesis?",
        "Oxygen. Plants absorb carbon dioxide, though.",
        "ambiguous",
    ),
    (_choice("Mercury", PLANETS), CLOSEST, "Mercury orbits closer to the Sun than Venus, Earth or Mars.", "correct"),
    # a later sentence that answers in other words, names a bare option, turns or hedges leaves it open
    (_choice("Venus", PLANETS), CLOSEST, "Venus is closest to us; Mercury orbits nearest the Sun.", "ambiguous"),
    (_choice("Venus", PLANETS), CLOSEST, "Venus is closest to Earth. Mercury.", "wrong"),
    (_choice("Venus", PLANETS), CLOSEST, "Venus is closest, I think. Mercury maybe.", "ambiguous"),
    (_choice("Venus", PLANETS), CLOSEST, "Venus is closest. Actually, Mercury orbits inside its path.", "ambiguous"),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), FIRST_ANSWERS_THE_ASKED)
def test_the_first_sentence_answers_what_is_asked(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


SPELLED_YEARS = [
    # numeric options named by spelled-out numbers, a year as two numbers together
    (_choice("1945", YEARS), "Nineteen forty-five.", "correct"),
    (_choice("1945", YEARS), "It ended in nineteen forty-five, with Japan's surrender.", "correct"),
    (_choice("1945", YEARS), "One thousand nine hundred and forty-five.", "correct"),
    (_choice("1945", YEARS), "Nineteen forty-four.", "wrong"),
    (_choice("1945", YEARS), "Nineteen forty-four or forty-five.", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), SPELLED_YEARS)
def test_spelled_out_numeric_options(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


LEAP = "Is 2024 a leap year?"

A_LEAD_AT_ONCE_TURNED = [
    # a leading yes/no at once followed by the opposite bare word commits to neither
    (_bool(True), LEAP, "Yeah, no.", "ambiguous"),
    (_bool(True), LEAP, "yep — no wait, it isn't", "ambiguous"),
    (_bool(True), LEAP, "Sí... no, I was wrong: not a leap year.", "ambiguous"),
    (_bool(False), LEAP, "No — yes, it is.", "ambiguous"),
    # "no" as a determiner, or the same word again, keeps the lead
    (_bool(True), LEAP, "Yes. No doubt about it.", "correct"),
    (_bool(True), LEAP, "Yes. No other year in the decade fits better.", "correct"),
    (_bool(False), "Is 2023 a leap year?", "No. No, it is not.", "correct"),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), A_LEAD_AT_ONCE_TURNED)
def test_a_lead_at_once_turned(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict


NUMBER_AND_LABEL_TRAPS = [
    # the other number only as the answer, not as a possessive or a modifier of another noun
    (
        _exact("mitochondria"),
        "Which organelle is the powerhouse?",
        "The mitochondrion's cousin, the chloroplast.",
        "wrong",
    ),
    (_exact("ohm"), "What is the SI unit of resistance?", "Ohms law uses volts.", "wrong"),
    (_exact("ohm"), "What is the SI unit of resistance?", "It is measured in ohms.", "correct"),
    (_exact("nucleus"), "Where is the DNA kept?", "In the nuclei of the cells.", "correct"),
    # a labelled later statement still gives another value as what is asked
    (_exact("Paris"), FRANCE, "Member 1 — Paris; chair: Lyon is the capital.", "ambiguous"),
]


@pytest.mark.parametrize(("block", "query", "answer", "verdict"), NUMBER_AND_LABEL_TRAPS)
def test_number_and_label_traps(block: dict[str, Any], query: str, answer: str, verdict: str) -> None:
    assert _verdict(block, answer, query) == verdict
