"""The answer-format protocol: the declared ``Answer: ...`` line is read first, regex cases are
anchored to it, one reading for members and final answers, and compliance is counted per subject."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from harness.data.cases import Case
from harness.data.expected import Expected
from harness.gate.artifacts import arm_artifacts
from harness.metrics.correctness import check_case, check_expected
from harness.metrics.declared import declared_line, follows_format
from harness.metrics.extraction import extract_answer, extract_boolean, extract_choice, extract_number
from harness.records.transcript import Answer, Review
from harness.scorers.builtin import answer_correctness
from tests.builders import result, transcript

_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)


def _exp(block: dict[str, object]) -> Expected:
    return _EXPECTED.validate_python(block)


@pytest.mark.parametrize(
    ("text", "value", "last"),
    [
        ("Work.\n\nAnswer: 42", "42", True),
        ("Work.\n**Answer:** 17 cows\n", "17 cows", True),
        ("## Final answer: B\n\nHope this helps", "B", False),
        ("- **Answer**: yes.", "yes.", True),
        ("Answer: 3\nmore work\nAnswer: 5", "5", True),
    ],
)
def test_the_declared_line_is_the_last_line_initial_answer(text: str, value: str, last: bool) -> None:
    line = declared_line(text)
    assert line is not None and (line.value, line.last) == (value, last)


@pytest.mark.parametrize("text", ["The answer: is hard to say", "My answer is 4.", "no line here", "Answers vary"])
def test_no_declared_line_without_a_line_initial_answer_colon(text: str) -> None:
    line = declared_line(text)
    assert line is None or not line.value.startswith("4")


def test_the_declared_line_wins_over_boxes_bold_and_earlier_cues() -> None:
    num = extract_number("First I got \\boxed{12}. The answer is 12.\n**13**\nAnswer: 14")
    assert (num.value, num.method, num.declared) == ("14", "declared", True)
    choice = extract_choice("The answer is A. On reflection (C) fits.\nAnswer: C", {"A": "x", "B": "y", "C": "z"})
    assert (choice.value, choice.declared) == ("C", True)
    boolean = extract_boolean("Yes, at first sight. But no.\nAnswer: no")
    assert (boolean.value, boolean.method) == ("false", "declared")
    short = extract_answer("**Lyon** is tempting.\nAnswer: Marseille")
    assert (short.value, short.method) == ("Marseille", "declared")
    listed = extract_choice(
        "Hmm.\nAnswer: Not enough information",
        {"Yes": "Yes", "No": "No", "Not enough information": "Not enough information"},
        letters=False,
    )
    assert listed.value == "Not enough information" and listed.declared


def test_an_unreadable_declared_line_falls_back_to_the_rules() -> None:
    got = extract_number("Step 1: 6 × 7 = 42.\nAnswer: see above")
    assert (got.value, got.declared) == ("42", False)


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("The format is YYYY-MM-DD, e.g. 2024-01-31.\nAnswer: 31/01/2024", "wrong"),  # the right form only in passing
        ("Dates look like 31/01/2024 in Europe.\nAnswer: 2024-01-31", "correct"),
        ("Answer: 2024-1-31", "wrong"),
        ("I would write 2024-01-31.", "correct"),  # no declared line: the whole answer is searched
        ("I would write it the European way.", "unanswered"),
    ],
)
def test_regex_is_anchored_to_the_declared_line(answer: str, verdict: str) -> None:
    got = check_expected(_exp({"type": "regex", "pattern": r"\b\d{4}-\d{2}-\d{2}\b"}), answer)
    assert got.verdict == verdict, got.detail


def test_regex_extract_whole_still_searches_the_whole_answer() -> None:
    exp = _exp({"type": "regex", "pattern": r"\d{4}-\d{2}-\d{2}", "extract": "whole"})
    assert check_expected(exp, "Like 2024-01-31.\nAnswer: 31/01/2024").verdict == "correct"


def test_members_are_read_with_the_question_like_final_answers() -> None:
    case = Case(
        id="c",
        query="Tom has 3 apples and buys 5 more. How many apples does he have?",
        expected=_exp({"type": "numeric", "value": 8}),
    )
    text = "He ends with 8 apples after buying 5."
    assert check_expected(case.expected, text).verdict == "wrong"  # without the question: the last number, 5
    final = check_case(case, text)
    assert final is not None and final.correct
    tr = transcript(
        text,
        texts={"m1": text, "m2": "He has 3 + 5 = 9 apples."},
        reviews=(
            Review(
                reviewer="m1", model="m", raw_text="", presentation_order=(), shuffle_seed=0, ballot={"ranking": ()}
            ),
        ),
    )
    assert answer_correctness(case, tr) == {"m1": True, "m2": False}


@pytest.mark.parametrize(
    ("kind", "text", "ok"),
    [
        ("numeric", "So 8.\nAnswer: 8", True),
        ("numeric", "Answer: 8\nI hope that helps!", False),
        ("numeric", "It is 8.", False),
        ("numeric", "Answer:", False),
        ("python", "```python\ndef f():\n    return 1\n```", True),
        ("python", "def f():\n    return 1", False),
    ],
)
def test_follows_format(kind: str, text: str, ok: bool) -> None:
    assert follows_format(kind, text) is ok


def test_arm_artifacts_count_ambiguity_and_format_per_subject() -> None:
    exp = _exp({"type": "numeric", "value": 8})
    rows = []
    for i, (final, members) in enumerate(
        [
            ("Answer: 8", ("Answer: 8", "It is 8.")),
            ("It is 8 or maybe 9.", ("Answer: 9", "Answer: 8")),
            ("I cannot tell.", ("no idea", "Answer: 8")),
        ]
    ):
        checked = check_expected(exp, final)
        answers = tuple(Answer(member=f"m{j}", model="m", text=t) for j, t in enumerate(members))
        rows.append(
            result(
                f"c{i}",
                "council",
                answer=final,
                expected=exp,
                correctness=checked,
                transcript_fields={"answers": answers},
            )
        )
        rows.append(result(f"c{i}", "baseline", answer=final, expected=exp, correctness=checked))
    council = arm_artifacts(rows, "council")
    assert (council.checked, council.extraction_failed, council.ambiguous, council.followed_format) == (3, 1, 1, 1)
    assert (council.member_answers, council.member_followed) == (6, 4)
    baseline = arm_artifacts(rows, "baseline")
    assert (baseline.member_answers, baseline.followed_format) == (0, 1)

    from harness.gate.artifacts import arm_words

    assert arm_words(council) == (
        "council: truncated final answers n/a, extraction failed 1/3 (33%), "
        "ambiguous 1/3 (33%), answer line 1/3 (33%) (members 4/6 (67%))"
    )


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("In ISO form that would be 2024-03-15, but I would write 15/03/2024.", "ambiguous"),
        ("Some write 2024-03-15; however, the usual form here is 15.03.2024.", "ambiguous"),
        ("2024-03-15 is tempting, actually it's 15/03/2024", "ambiguous"),
        ("Not 15/03/2024, but 2024-03-15.", "correct"),
    ],
)
def test_regex_without_a_line_is_not_passed_by_a_pattern_the_answer_turns_away_from(answer: str, verdict: str) -> None:
    got = check_expected(_exp({"type": "regex", "pattern": r"\b\d{4}-\d{2}-\d{2}\b"}), answer)
    assert got.verdict == verdict, got.detail
