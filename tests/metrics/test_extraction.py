"""Answer extraction: what is extracted, by which rule, and the detail shown."""

from __future__ import annotations

import pytest

from harness.metrics.extraction import (
    BLOCKING_WORDS,
    MAX_ANSWER_CHARS,
    SHORT_ANSWER_WORDS,
    answer_cues,
    cap_text,
    code_blocks,
    extract_answer,
    extract_boolean,
    extract_choice,
    extract_code,
    extract_number,
    find_numbers,
    normalize_answer,
    parse_number,
    phrase_match,
)
from harness.metrics.numbers import math_value

# ------------------------------------------------------------------------------------ numbers


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        ("there are 12 apples, 3 eaten, so 9 remain", "9", "conclusion_cue"),
        ("The answer is 9 (12 minus 3).", "9", "answer_cue"),
        ("Answer: 42", "42", "declared"),
        ("**Final Answer:**\n\n42", "42", "answer_cue"),
        ("The answer is 12 - 3 = 9.", "9", "answer_cue"),
        ("The answer is not 5, it is 6.", "6", "last_number"),
        ("First 5 + 4.\n\n**9**", "9", "bold"),
        ("**Step 2:** add them.\nWe get 11 apples.", "11", "last_number"),
        ("Therefore, 12 - 3 = 9", "9", "equals"),
        ("\\boxed{\\frac{3}{4}}", "3/4", "boxed"),
        ("It is -7 degrees.", "-7", "last_number"),
        ("The answer is seven.", "seven", "answer_cue"),
        ("There are seven days in a week", "seven", "last_number"),
        ("We had 3 boxes. In total we sold 1,234,567 units.", "1,234,567", "conclusion_cue"),
        ("12-3", "3", "last_number"),
    ],
)
def test_extract_number_value_and_method(text: str, value: str, method: str) -> None:
    got = extract_number(text)
    assert (got.value, got.method) == (value, method)


def test_extract_number_detail_says_what_and_why() -> None:
    got = extract_number("The total is $1,234.50.")
    assert got.value == "$1,234.50"
    assert got.detail.startswith("'$1,234.50' (thousands separators, currency) = 1234.5")
    frac = extract_number("The answer is 3/4.")
    assert frac.detail == (
        "'3/4' (fraction) = 0.75, after the cue 'answer is' (last of 1 cue with a number) (first number in the clause)"
    )


def test_extract_number_last_cue_wins() -> None:
    got = extract_number("The answer is 5. Wait, I miscounted: the answer is 6.")
    assert got.value == "6"
    assert "last of 2 cues" in got.detail


def test_extract_number_none() -> None:
    got = extract_number("I do not know.")
    assert (got.value, got.method) == (None, "none")


@pytest.mark.parametrize(
    ("text", "value", "percent", "kind"),
    [
        ("$1,234.50", 1234.5, False, "thousands separators, currency"),
        ("-$5", -5.0, False, "currency"),
        ("$-5", -5.0, False, "currency"),
        ("\u22123", -3.0, False, "plain"),
        ("3/4", 0.75, False, "fraction"),
        (".5", 0.5, False, "plain"),
        ("25%", 25.0, True, "percentage"),
        ("12.5 percent", 12.5, True, "percentage"),
        ("1.5e-3", 0.0015, False, "scientific"),
        ("2 x 10^3", 2000.0, False, "scientific"),
        ("1.5 million", 1_500_000.0, False, "scale word"),
        ("seven", 7.0, False, "spelled out"),
        ("twenty-one", 21.0, False, "spelled out"),
        ("**42**.", 42.0, False, "plain"),
    ],
)
def test_parse_number(text: str, value: float, percent: bool, kind: str) -> None:
    got = parse_number(text)
    assert got is not None
    assert got.value == pytest.approx(value)
    assert (got.percent, got.kind) == (percent, kind)


@pytest.mark.parametrize("text", ["42 apples", "1/0", "Paris", "", "3 4"])
def test_parse_number_rejects_non_numbers(text: str) -> None:
    assert parse_number(text) is None


def test_find_numbers_separators_and_signs() -> None:
    values = [n.value for _, n in find_numbers("From 12-3 we get 9; then x = -5, and 1,2345 is not grouped")]
    assert values == [12.0, 3.0, 9.0, -5.0, 1.0, 2345.0]
    assert find_numbers("one two") == []
    assert [n.value for _, n in find_numbers("one two", words=True)] == [1.0, 2.0]


# ------------------------------------------------------------------------------ short answers


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        ("Paris", "Paris", "whole"),
        ("The capital of France is Paris.", "The capital of France is Paris", "whole"),
        ("Answer: Paris", "Paris", "declared"),
        ("The final answer is: Mount Everest. It is 8,849 m tall.", "Mount Everest", "answer_cue"),
        ("## Answer\n\nThe Nile", "The Nile", "answer_cue"),
        ("The capital of France is **Paris**.", "Paris", "bold"),
        ("**Note:** capitals change.\nIt is Paris.", "Note: capitals change", "first_sentence"),
        ("Paris.\n\nIt has been the capital since 987.", "Paris", "first_sentence"),
        ("- Rome is the answer. It is old.", "Rome is the answer", "first_sentence"),
        ("\\boxed{\\text{Paris}}", "Paris", "boxed"),
        ("   \n  ", None, "none"),
    ],
)
def test_extract_answer(text: str, value: str | None, method: str) -> None:
    got = extract_answer(text)
    assert (got.value, got.method) == (value, method)


def test_answer_cues_skip_negated_and_keep_order() -> None:
    assert answer_cues("The answer is not Lyon. The correct answer is Paris.") == [("correct answer is", "Paris")]
    assert answer_cues("To answer this question, think.") == []


def test_normalize_answer() -> None:
    assert normalize_answer("  The U.S.A.'s 1,000 cats, don't cost 3.14! ") == "usas 1,000 cats dont cost 3.14"
    assert normalize_answer("**Trick-or-Treat**") == "trick or treat"
    assert normalize_answer("An apple a day") == "apple day"


@pytest.mark.parametrize(
    ("expected", "candidate", "ok"),
    [
        ("Paris", "paris.", True),
        ("Paris", "It is Paris.", True),
        ("Paris", "not Paris", False),
        ("Paris", "Lyon, not Paris", False),
        ("Paris", "It isn't Paris", False),
        ("Paris", "Paris or Lyon", False),
        ("Paris", "Parisian", False),
        ("trick or treat", "Trick-or-treat!", True),
        ("The Pacific Ocean", "pacific ocean", True),
        ("Paris", " ".join(["word"] * SHORT_ANSWER_WORDS) + " Paris", False),
    ],
)
def test_phrase_match(expected: str, candidate: str, ok: bool) -> None:
    assert phrase_match(expected, candidate)[0] is ok


def test_phrase_match_reasons() -> None:
    assert phrase_match("Paris", "It is Paris.") == (
        True,
        "'paris' appears as a whole phrase in the 3-word answer 'it is paris'",
    )
    assert phrase_match("Paris", "not Paris") == (
        False,
        "'paris' appears, but the answer also says ['not'] (negation or alternative)",
    )
    assert phrase_match("Paris", "paris", normalize=False) == (
        False,
        "'Paris' is not in 'paris' as written (exact comparison, not normalized)",
    )
    assert phrase_match("Paris", "It is Paris.", normalize=False)[0] is True
    assert {"not", "or", "never"} <= BLOCKING_WORDS


# ------------------------------------------------------------------------------------ choices

OPTIONS = {"A": "Paris", "B": "London", "C": "Rome", "D": "Berlin"}


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        ("The answer is B", "B", "answer_cue"),
        ("Answer: (c) Rome", "C", "declared"),
        ("The correct answer is option D, Berlin.", "D", "answer_cue"),
        ("The answer is London (B).", "B", "answer_cue"),
        ("The answer is a city in England: London.", "B", "answer_cue"),
        ("(B)", "B", "bare_letter"),
        ("B)", "B", "bare_letter"),
        ("b", "B", "bare_letter"),
        ("**C**", "C", "bare_letter"),
        ("I would pick Option B here.", "B", "last_mention"),
        ("London", "B", "whole"),
        ("I choose D.", "D", "last_mention"),
        ("\\boxed{B}", "B", "boxed"),
        ("A) Paris is wrong; B) London is right", "B", "last_mention"),
        ("I think it's London, not Paris.", "B", "last_mention"),
        ("Paris is wrong; it is London.", "B", "last_mention"),
        ("It is either A or B.", None, "ambiguous"),
        ("Not B — London is a trap. The answer is Rome.", "C", "answer_cue"),
        ("London. Paris (A) and Rome (C) are other capitals.", "B", "leading"),
        ("Option A looks right. So the answer must be Berlin.", "D", "conclusion"),
        ("A city", None, "none"),
    ],
)
def test_extract_choice(text: str, value: str | None, method: str) -> None:
    got = extract_choice(text, OPTIONS)
    assert (got.value, got.method) == (value, method)


def test_extract_choice_detail() -> None:
    got = extract_choice("The answer is B", OPTIONS)
    assert got.detail == "'B' after the cue 'answer is': 'B' (the letter leading the clause)"
    assert (got.confidence, got.capped) == (0.9, False)
    amb = extract_choice("(A) or (B)", OPTIONS)
    assert amb.detail == "the last sentence naming options offers ['A', 'B'] as alternatives"
    assert (amb.value, amb.confidence) == (None, 0.0)


# --------------------------------------------------------------------------------------- code

TWO_BLOCKS = (
    "Usage first:\n```python\nprint(add(1, 2))\n```\nThe function:\n```python\ndef add(a, b):\n    return a + b\n```\n"
)


def test_extract_code_picks_the_block_that_defines_the_function() -> None:
    got = extract_code(TWO_BLOCKS, "add")
    assert got.value == "def add(a, b):\n    return a + b\n"
    assert (got.method, got.detail) == ("fenced_defines", "code block 2 of 2 defines add()")


def test_extract_code_without_function_takes_the_first_python_block() -> None:
    got = extract_code("```text\nhello\n```\n```python\nx = 1\n```", None)
    assert (got.value, got.method) == ("x = 1\n", "first_python_block")
    other = extract_code("```js\nlet x = 1;\n```", "add")
    assert (other.value, other.method) == ("let x = 1;\n", "first_block")
    assert other.detail == "code block 1 of 1 (js); no block defines add()"


def test_extract_code_unclosed_fence_runs_to_the_end() -> None:
    assert code_blocks("```python\ndef f():\n    return 1\n") == [("python", "def f():\n    return 1\n")]


def test_extract_code_whole_answer_is_parsed_not_run(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = "open('pwned.txt', 'w').write('x')\ndef f():\n    return 1\n"
    got = extract_code(code, "f")
    assert (got.value, got.method) == (code, "whole_answer")
    assert not (tmp_path / "pwned.txt").exists()


def test_extract_code_prose_is_not_code() -> None:
    assert extract_code("Paris", None).method == "none"
    assert extract_code("Use a loop.", "f").value is None


# ------------------------------------------------------------------ spelled-out numbers, zero words, LaTeX


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("three and a half cups", [3.5]),
        ("one million people", [1_000_000.0]),
        ("two hundred and five", [205.0]),
        ("minus seven degrees", [-7.0]),
        ("three eighths of the pie", [0.375]),
        ("half a million units", [500_000.0]),
        ("the one that is left, one of them, no one", []),  # "one" as a pronoun is not a number
        ("couches (2 more) = eight", [2.0, 8.0]),
        ("24 hours = 86 400 seconds", [24.0, 86400.0]),  # spaced thousands
    ],
)
def test_find_numbers_reads_words_through_text2num(text: str, values: list[float]) -> None:
    assert [n.value for _, n in find_numbers(text, words=True)] == pytest.approx(values)


def test_zero_words_only_when_asked() -> None:
    text = "David has no brothers; none at all. No matter what, there is no way."
    assert [n.text for _, n in find_numbers(text, zeros=True)] == ["no", "none"]
    assert find_numbers(text) == []
    assert extract_number("David has **no** brothers.").value is None
    got = extract_number("David has **no** brothers.", zeros=True)
    assert (got.value, got.method) == ("no", "bold")


@pytest.mark.parametrize(
    ("latex", "value"),
    [(r"\frac{\sqrt{3}}{2}", 0.8660254), (r"2\pi", 6.2831853), (r"1\frac{1}{2}", 1.5), ("10^{-3}", 0.001)],
)
def test_math_expressions_through_math_verify(latex: str, value: float) -> None:
    assert math_value(latex) == pytest.approx(value, rel=1e-6)
    got = extract_number(f"So the answer is $\\boxed{{{latex}}}$.")
    assert got.method == "boxed" and parse_number(got.value).value == pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize(
    "text",
    [
        "x + 1",
        r"(1, 5]",
        "10^{99999}",
        "9^9^9^9",
        "1000000!",
        "a" * 300 + "^2",
        "(10^{999})^{999}",
        "(99999999)!",
        r"\binom{99999999}{5000000}",
        r"\sum_{k=1}^{n} k",
        "2**99999",
    ],
)
def test_math_value_refuses_non_numbers_and_huge_work(text: str) -> None:
    assert math_value(text) is None


def test_number_rules_added_for_issue_12() -> None:
    assert extract_number("−15 < x < 5, so x runs from −14 to 4: 19 integers.").value == "19"
    assert extract_number("chairs (6) + couches (2 more) = eight.").value == "eight"
    assert extract_number("The intuitive answer is 10, but that's wrong. It is 5.").value == "5"
    assert extract_number("The smallest prime is 2 (1 is not prime).").value == "2"
    truncated = extract_number("We start with 12 apples and then")
    assert (truncated.value, truncated.method) == (None, "none")
    hedge = extract_number("It is either 8 or 9.")
    assert (hedge.value, hedge.method, hedge.confidence) == (None, "ambiguous", 0.0)
    boxed_vs_cue = extract_number("$\\boxed{5}$ ... Final answer: 6")
    assert boxed_vs_cue.method == "ambiguous"


def test_leading_rule_needs_the_question() -> None:
    text = "There are 19 integers. Since -15 < x < 5, x runs from -14 to 4."
    assert extract_number(text).value == "4"  # without the question: the last number
    got = extract_number(text, givens=[-15, 5])
    assert (got.value, got.method) == ("19", "leading")
    # a number the question gave is not taken for a leading answer
    assert extract_number("We have 12 apples. Then 3 are eaten and 9 remain.", givens=[12, 3]).value == "9"


# ----------------------------------------------------------------------------------- booleans


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        ("True — you turn around and walk back.", "true", "leading"),
        ("Yes, you return to the starting point.", "true", "leading"),
        ("No doubt about it: the answer is yes.", "true", "answer_cue"),
        ("Absolutely not — it is round.", "false", "leading"),
        ("That claim is a myth; it is incorrect.", "false", "conclusion"),
        ("The statement is not true.", "false", "conclusion"),
        ("Answer: False", "false", "declared"),
        ("$\\boxed{\\text{Yes}}$", "true", "boxed"),
        ("Penguins cannot fly.\n\n**False**", "false", "bold"),
        ("Yes. Wait, no. So the statement is false.", None, "ambiguous"),
        ("It could be true or false.", None, "ambiguous"),
        ("It depends.", None, "none"),
    ],
)
def test_extract_boolean(text: str, value: str | None, method: str) -> None:
    got = extract_boolean(text)
    assert (got.value, got.method) == (value, method), got.detail


# ------------------------------------------------------------------------------ capped answers


def test_long_answers_are_capped_and_say_so() -> None:
    text = "Answer: 7\n" + "but " * 100_000 + "\nAnswer: 9"
    assert len(text) > MAX_ANSWER_CHARS
    got = extract_number(text)
    assert (got.value, got.capped) == ("9", True)
    assert got.detail.endswith(
        f"(the answer was longer than {MAX_ANSWER_CHARS} characters: only its start and end were read)"
    )
    head, capped = cap_text(text)
    assert capped and head.startswith("Answer: 7") and head.endswith("Answer: 9") and len(head) < MAX_ANSWER_CHARS + 4
    short = extract_number("Answer: 7")
    assert short.capped is False and "longer than" not in short.detail


# ---------------------------------------------------------------------------------- more code


def test_extract_code_unfenced_after_prose_and_stray_fence() -> None:
    prose = "Squaring multiplies a number by itself:\ndef square(x):\n    return x * x\nThat's all."
    got = extract_code(prose, "square")
    assert (got.value, got.method) == ("def square(x):\n    return x * x\n", "unfenced_defines")
    stray = extract_code("import math\n\ndef root(x):\n    return math.sqrt(x)\n```\n", "root")
    assert (stray.value, stray.method) == ("import math\n\ndef root(x):\n    return math.sqrt(x)\n", "unfenced_defines")
    indented = extract_code("Use:\n\n    def f():\n        return 1\n", "f")
    assert (indented.value, indented.method) == ("def f():\n    return 1\n", "unfenced_defines")
