"""Objective correctness: hand-written answer / expected pairs of every type, right and wrong."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from harness.data.cases import Case
from harness.data.expected import Expected
from harness.metrics.correctness import check_expected, correctness_scores
from harness.records.score_spec import SCORES, higher_is_better
from harness.run.result import ScoreSet
from tests.builders import transcript

_EXPECTED: TypeAdapter[Any] = TypeAdapter(Expected)


def expect(**fields: Any) -> Any:
    return _EXPECTED.validate_python(fields)


OPTIONS = {"A": "Paris", "B": "London", "C": "Rome", "D": "Berlin"}
LONG_FRANCE = "Many people think about it and most of them would say that the capital of France is Paris today."

# (expected block, answer, correct, extraction method)
PAIRS: list[tuple[dict[str, Any], str, bool, str]] = [
    # numeric
    ({"type": "numeric", "value": 9}, "There are 12 apples, 3 are eaten, so 9 remain.", True, "conclusion_cue"),
    ({"type": "numeric", "value": 12}, "There are 12 apples, 3 are eaten, so 9 remain.", False, "conclusion_cue"),
    ({"type": "numeric", "value": 9}, "The answer is 9 (12 minus 3).", True, "answer_cue"),
    ({"type": "numeric", "value": 9}, "First, 12 - 3 = 9.", True, "equals"),
    ({"type": "numeric", "value": 1234.5}, "The total comes to $1,234.50.", True, "last_number"),
    ({"type": "numeric", "value": 1234.0}, "The total comes to $1,234.50.", False, "last_number"),
    ({"type": "numeric", "value": 0.75}, "3/4", True, "last_number"),
    ({"type": "numeric", "value": -7}, "The temperature dropped to -7 degrees.", True, "last_number"),
    ({"type": "numeric", "value": 7}, "The temperature dropped to -7 degrees.", False, "last_number"),
    ({"type": "numeric", "value": 0.25}, "About 25% of voters agreed.", True, "last_number"),
    ({"type": "numeric", "value": 25}, "About 25% of voters agreed.", True, "last_number"),
    ({"type": "numeric", "value": 3.14, "rel_tolerance": 0.001}, "Pi is roughly 3.14159.", True, "last_number"),
    ({"type": "numeric", "value": 3.14, "tolerance": 0.01}, "Pi is roughly 3.2.", False, "last_number"),
    ({"type": "numeric", "value": 3e8, "rel_tolerance": 0.01}, "Light travels at 2.998e8 m/s.", True, "last_number"),
    ({"type": "numeric", "value": 7}, "The answer is seven.", True, "answer_cue"),
    ({"type": "numeric", "value": 4}, "I do not know.", False, "none"),
    ({"type": "numeric", "value": 42, "extract": "whole"}, "42", True, "whole"),
    ({"type": "numeric", "value": 42, "extract": "whole"}, "It is 42.", False, "none"),
    # exact
    ({"type": "exact", "value": "Paris"}, "paris.", True, "whole"),
    ({"type": "exact", "value": "Paris"}, "The capital of France is Paris.", True, "whole"),
    ({"type": "exact", "value": "Paris"}, "It is not Paris.", False, "whole"),
    ({"type": "exact", "value": "Paris"}, "Paris or Lyon", False, "ambiguous"),
    ({"type": "exact", "value": "Paris"}, "London", False, "whole"),
    ({"type": "exact", "value": "Paris"}, LONG_FRANCE, False, "whole"),
    ({"type": "exact", "value": "pacific ocean"}, "Answer: The Pacific Ocean!", True, "declared"),
    ({"type": "exact", "value": "Paris", "normalize": False}, "paris", False, "whole"),
    ({"type": "exact", "value": "Paris", "normalize": False}, " Paris ", True, "whole"),
    # any_of
    ({"type": "any_of", "values": ["New York City", "NYC"]}, "It's NYC.", True, "whole"),
    ({"type": "any_of", "values": ["New York City", "NYC"]}, "NEW YORK CITY", True, "whole"),
    ({"type": "any_of", "values": ["New York City", "NYC"]}, "Boston", False, "whole"),
    # regex
    ({"type": "regex", "pattern": r"O\(n log n\)"}, "Merge sort runs in O(n log n) time.", True, "regex_search"),
    ({"type": "regex", "pattern": r"O\(n log n\)"}, "Merge sort runs in O(n^2) time.", False, "regex_search"),
    ({"type": "regex", "pattern": "DNA", "ignore_case": False}, "it is dna", False, "regex_search"),
    (
        {"type": "regex", "pattern": r"^\d{4}$", "extract": "auto"},
        "The answer is 1969.\nApollo 11.",
        True,
        "regex_search",
    ),
    ({"type": "regex", "pattern": r"^\d{4}$"}, "The answer is 1969.\nApollo 11.", False, "regex_search"),
    # choice
    ({"type": "choice", "answer": "B", "options": OPTIONS}, "the answer is B", True, "answer_cue"),
    ({"type": "choice", "answer": "B", "options": OPTIONS}, "(C)", False, "bare_letter"),
    ({"type": "choice", "answer": "B", "options": OPTIONS}, "I'd go with option B.", True, "last_mention"),
    ({"type": "choice", "answer": "B", "options": OPTIONS}, "London", True, "whole"),
    (
        {"type": "choice", "answer": "12/25/2006", "options": ["12/24/2006", "12/25/2006"]},
        "The answer is 12/25/2006 (not 12/24/2006).",
        True,
        "answer_cue",
    ),
    (
        {"type": "choice", "answer": "12/25/2006", "options": ["12/24/2006", "12/25/2006"]},
        "It is 12/24/2006, not 12/25/2006.",
        False,
        "last_mention",
    ),
    ({"type": "choice", "answer": "B", "options": OPTIONS}, "Either B or C.", False, "ambiguous"),
    # boolean
    ({"type": "boolean", "value": True}, "True — you turn around and walk back.", True, "leading"),
    ({"type": "boolean", "value": True}, "Yes, you return to the starting point.", True, "leading"),
    ({"type": "boolean", "value": False}, "Answer: no", True, "declared"),
    ({"type": "boolean", "value": False}, "The statement is not true.", True, "conclusion"),
    ({"type": "boolean", "value": False}, "Yes, it is.", False, "leading"),
    ({"type": "boolean", "value": True}, "Yes. Wait, no. So it is false.", False, "ambiguous"),
    ({"type": "boolean", "value": True}, "It depends on the day.", False, "none"),
    # numeric: zero words only when the expected value is 0
    ({"type": "numeric", "value": 0}, "David has **no** brothers: his three sisters share him.", True, "bold"),
    ({"type": "numeric", "value": 0}, "Answer: none", True, "declared"),
    ({"type": "numeric", "value": 2}, "None of 20, 21, 22 is prime, so there are 2 primes.", True, "conclusion_cue"),
    ({"type": "numeric", "value": 8}, "chairs (6) + couches (2 more) = eight.", True, "equals"),
    ({"type": "numeric", "value": 3.5}, "Each piece is three and a half metres.", True, "last_number"),
    ({"type": "numeric", "value": 0.8660254, "tolerance": 1e-6}, "$\\boxed{\\frac{\\sqrt{3}}{2}}$", True, "boxed"),
    ({"type": "numeric", "value": 8}, "It is 8 or 9.", False, "ambiguous"),
    ({"type": "choice", "answer": "B", "options": OPTIONS}, "A) Paris B) London", False, "ambiguous"),
    ({"type": "choice", "answer": "B", "options": OPTIONS}, "b", True, "bare_letter"),
]


@pytest.mark.parametrize(("block", "answer", "correct", "method"), PAIRS)
def test_answer_expected_pairs(block: dict[str, Any], answer: str, correct: bool, method: str) -> None:
    result = check_expected(expect(**block), answer)
    assert (result.correct, result.extraction.method) == (correct, method), result.detail


def test_pairs_cover_every_type_both_ways() -> None:
    seen = {(block["type"], correct) for block, _, correct, _ in PAIRS}
    assert seen == {(t, c) for t in ("numeric", "exact", "any_of", "regex", "choice", "boolean") for c in (True, False)}
    assert len(PAIRS) >= 30


def test_numeric_detail_shows_expected_and_extraction() -> None:
    r = check_expected(expect(type="numeric", value=9), "There are 12 apples, 3 are eaten, so 9 remain.")
    assert r.expected_display == "9 (± 1e-06)"
    assert r.detail == (
        "expected 9 (± 1e-06), got 9 from '9' (conclusion_cue: '9' = 9, after the cue 'so' "
        "(first number in the clause)); |difference| 0 <= 1e-06"
    )
    assert (r.verdict, r.extraction.confidence) == ("correct", 0.7)
    wrong = check_expected(expect(type="numeric", value=12), "There are 12 apples, 3 are eaten, so 9 remain.")
    assert wrong.detail.endswith("; 9 differs by 3 > 1e-06")


def test_percentage_detail_names_the_reading() -> None:
    r = check_expected(expect(type="numeric", value=0.25), "About 25% of voters agreed.")
    assert "got 0.25 (the percentage as a fraction) from '25%'" in r.detail


def test_relative_tolerance_bound() -> None:
    r = check_expected(expect(type="numeric", value=200, tolerance=0, rel_tolerance=0.01), "It is 202.")
    assert r.correct  # |202 - 200| = 2 <= 0.01 * 200
    r = check_expected(expect(type="numeric", value=200, tolerance=0, rel_tolerance=0.01), "It is 202.5.")
    assert not r.correct
    assert r.expected_display == "200 (± 0 or ± 0.01 × |value|)"


def test_exact_detail_explains_negation() -> None:
    r = check_expected(expect(type="exact", value="Paris"), "It is not Paris.")
    assert r.expected_display == "'Paris'"
    assert r.detail == (
        "expected 'Paris', got 'It is not Paris' (whole: the whole answer: 'It is not Paris'): "
        "'paris' appears, but the answer also says ['not'] (negation or alternative)"
    )


def test_choice_detail() -> None:
    r = check_expected(expect(type="choice", answer="B", options=OPTIONS), "The answer is A")
    assert not r.correct
    assert r.expected_display == "B (London)"
    assert r.detail.startswith("expected B (London), got A (Paris) (answer_cue:")


def test_regex_detail() -> None:
    r = check_expected(expect(type="regex", pattern=r"\bH2O\b"), "Water is H2O.")
    assert (r.correct, r.extraction.value, r.expected_display) == (True, "H2O", r"/\bH2O\b/i")
    assert r.extraction.detail == "matched 'H2O' at 9-12 in the whole answer"


# ---------------------------------------------------------------------------------- python

ADD_TESTS = "assert add(1, 2) == 3\nassert add(-1, 1) == 0\n"


def test_python_code_that_passes() -> None:
    answer = "Here you go:\n```python\ndef add(a, b):\n    return a + b\n```\nExample: `add(1, 2)`."
    r = check_expected(expect(type="python", function="add", tests=ADD_TESTS, timeout_s=2), answer)
    assert r.correct
    assert r.sandbox is not None and r.sandbox.passed
    assert r.extraction.method == "fenced_defines"
    assert r.expected_display == "code defining add() that passes 2 asserts"
    assert r.detail.endswith("the tests passed")


def test_python_code_that_fails_an_assert() -> None:
    answer = "```python\ndef add(a, b):\n    return a - b\n```"
    r = check_expected(expect(type="python", function="add", tests=ADD_TESTS, timeout_s=2), answer)
    assert not r.correct
    assert r.sandbox is not None and (r.sandbox.returncode, r.sandbox.timed_out) == (1, False)
    assert r.detail.endswith(
        "the tests did not pass: exit code 1: AssertionError: assert failed: -1 == 3 "
        "(at tests.py line 1, in <module>: assert add(1, 2) == 3)"
    )


def test_python_infinite_loop_times_out() -> None:
    answer = "```python\ndef add(a, b):\n    while True:\n        pass\n```"
    r = check_expected(expect(type="python", function="add", tests=ADD_TESTS, timeout_s=1), answer)
    assert not r.correct
    assert r.sandbox is not None and r.sandbox.timed_out


def test_python_without_code() -> None:
    r = check_expected(expect(type="python", function="add", tests=ADD_TESTS, timeout_s=1), "Just add them.")
    assert not r.correct
    assert r.sandbox is None
    assert r.extraction.method == "none"


def test_python_whole_answer_code() -> None:
    r = check_expected(
        expect(type="python", function="add", tests=ADD_TESTS, timeout_s=2), "def add(a, b):\n    return b + a\n"
    )
    assert (r.correct, r.extraction.method) == (True, "whole_answer")


# ------------------------------------------------------------------------------- scorer


_transcript = partial(transcript, subject="baseline")


def test_correctness_scores_produces_score_and_check() -> None:
    case = Case(id="apples", query="12 apples, 3 eaten?", expected={"type": "numeric", "value": 9})
    result, scores = correctness_scores(case, _transcript("So 9 remain."))
    assert result is not None and result.correct
    assert scores.scores == {"correct": 1.0}
    (check,) = scores.checks
    assert (check.kind, check.target, check.passed) == ("correctness", "numeric: 9 (± 1e-06)", True)
    assert check.detail == result.detail

    _, wrong = correctness_scores(case, _transcript("So 8 remain."))
    assert wrong.scores == {"correct": 0.0}
    assert not wrong.checks[0].passed
    assert wrong.checks[0].detail == (
        "expected 9 (± 1e-06), got '8' (conclusion_cue: '8' = 8, after the cue 'so' "
        "(first number in the clause)); 8 differs by 1 > 1e-06"
    )


def test_correctness_scores_without_expected() -> None:
    case = Case(id="open", query="Tell me about Paris.")
    assert correctness_scores(case, _transcript("Paris is nice.")) == (None, ScoreSet())


def test_correct_is_a_registered_gated_score() -> None:
    assert "correct" in SCORES and higher_is_better("correct")
    case = Case(id="g", query="q", minimum_scores={"correct": 1.0}, expected={"type": "exact", "value": "x"})
    assert case.minimum_scores == {"correct": 1.0}


def test_extract_hint_is_validated() -> None:
    assert expect(type="regex", pattern="x").extract is None  # the declared line, else the whole answer
    assert expect(type="exact", value="x").extract == "auto"
    with pytest.raises(ValidationError):
        expect(type="exact", value="x", extract="first_line")


# ------------------------------------------------------------------------- verdicts and python setup


def test_ambiguous_is_a_verdict_apart_from_wrong() -> None:
    amb = check_expected(expect(type="numeric", value=8), "It is either 8 or 9.")
    wrong = check_expected(expect(type="numeric", value=8), "It is 9.")
    none = check_expected(expect(type="numeric", value=8), "No idea.")
    assert (amb.correct, amb.verdict, amb.outcome) == (False, "ambiguous", "ambiguous")
    assert amb.detail.startswith("ambiguous: expected 8 (± 1e-06), got nothing (the last sentence")
    assert (wrong.verdict, none.verdict) == ("wrong", "unanswered")


def test_old_results_without_verdict_still_load_and_get_an_outcome() -> None:
    from harness.metrics.correctness import CorrectnessResult

    old = {
        "correct": False,
        "expected_display": "B (London)",
        "detail": "expected B",
        "extraction": {"value": None, "method": "ambiguous", "detail": "several options"},
    }
    r = CorrectnessResult.model_validate(old)
    assert (r.verdict, r.outcome, r.extraction.confidence, r.extraction.capped) == (None, "ambiguous", None, False)


SQUARE_TESTS = "assert square(3) == 9\nassert square(-2) == 4\n"


@pytest.mark.parametrize(
    ("answer", "method"),
    [
        ("def square(x):\n    return x * x\n```\n", "unfenced_defines"),
        ("Squaring multiplies a number by itself:\ndef square(x):\n    return x * x", "unfenced_defines"),
        (
            "```python\ndef square(x):\n    raise NotImplementedError\n```\nFixed:\n```python\ndef square(x):\n"
            "    return x ** 2\n```",
            "fenced_defines",
        ),
        ("Use this:\n\n    def square(x):\n        return x * x\n", "unfenced_defines"),
    ],
)
def test_python_code_in_every_shape_runs(answer: str, method: str) -> None:
    r = check_expected(expect(type="python", function="square", tests=SQUARE_TESTS, timeout_s=5), answer)
    assert (r.correct, r.extraction.method) == (True, method), r.detail


def test_python_setup_and_entry_point_humaneval_style() -> None:
    setup = (
        "from typing import List\n\n\ndef encode_shift(s: str) -> str:\n"
        "    return ''.join(chr((ord(c) + 5 - 97) % 26 + 97) for c in s)\n"
    )
    tests = (
        "def check(candidate):\n    for word in ['abc', 'xyz', 'hello']:\n"
        "        assert candidate(encode_shift(word)) == word\n    assert candidate('') == ''\n"
    )
    code = (
        "```python\ndef decode_shift(s: str) -> str:\n"
        "    return ''.join(chr((ord(c) - 5 - 97) % 26 + 97) for c in s)\n```"
    )
    with_setup = check_expected(expect(type="python", entry_point="decode_shift", setup=setup, tests=tests), code)
    assert with_setup.correct, with_setup.detail
    assert with_setup.expected_display == "code defining decode_shift() that passes 2 asserts"
    assert "after the case's setup code" in with_setup.detail
    # without the setup the helper the tests call is missing, as it would be without HumanEval's prompt
    bare = check_expected(expect(type="python", entry_point="decode_shift", tests=tests), code)
    assert not bare.correct and "NameError" in bare.detail
    # check(candidate) is called only because the tests never call it: a wrong body fails
    wrong = code.replace("- 5 - 97", "- 4 - 97")
    assert not check_expected(
        expect(type="python", entry_point="decode_shift", setup=setup, tests=tests), wrong
    ).correct


def test_python_names_must_agree() -> None:
    with pytest.raises(ValidationError, match="differ"):
        expect(type="python", function="f", entry_point="g", tests="assert True")
    with pytest.raises(ValidationError, match="identifier"):
        expect(type="python", function="not a name", tests="assert True")


def test_choice_and_boolean_blocks_are_validated() -> None:
    with pytest.raises(ValidationError, match="not one of the options"):
        expect(type="choice", answer="Lyon", options=["Paris", "Rome"])
    with pytest.raises(ValidationError, match="repeats"):
        expect(type="choice", answer="Paris", options=["Paris", "Paris"])
    with pytest.raises(ValidationError):
        expect(type="boolean", value="yes")
    assert expect(type="boolean", value=False).value is False
