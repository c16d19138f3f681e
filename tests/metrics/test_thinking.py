"""A reasoning model's visible thinking is not its answer (harness.metrics.thinking)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from harness.data.expected import Expected
from harness.metrics.correctness import check_expected
from harness.metrics.thinking import AFTER_THINKING, CUT_OFF_THINKING, visible_reply

_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)


def test_the_reply_after_the_last_closing_tag_is_what_is_read() -> None:
    text = "<think>\nMaybe 12? No, 14.\n</think>\n\nThe answer is 14."
    assert visible_reply(text) == ("The answer is 14.", AFTER_THINKING)
    # a server that drops the opening tag; two blocks (a second thought after a draft); odd spacing and case
    assert visible_reply("hmm, 3 or 4...\n</think>\n4")[0] == "4"
    assert visible_reply("<think>a</think>draft 3<think>b</think> final 4")[0] == "final 4"
    assert visible_reply("<Thinking>x</ thinking >Paris")[0] == "Paris"
    assert visible_reply("<reasoning>x</REASONING>\nOslo") == ("Oslo", AFTER_THINKING)


def test_an_answer_cut_off_inside_its_thinking_reads_only_what_came_before() -> None:
    assert visible_reply("<think>\nLet me compute 6*7 = 42, so the answer is") == ("", CUT_OFF_THINKING)
    assert visible_reply("Quick note first. <think> the capital is Paris") == ("Quick note first.", CUT_OFF_THINKING)
    assert visible_reply("No tags at all: 42.") == ("No tags at all: 42.", None)


@pytest.mark.parametrize(
    ("expected", "answer", "verdict"),
    [
        # the thinking passes through wrong values; the reply commits to the right one
        (
            dict(type="numeric", value=14),
            "<think>\n3 + 4 = 8? no, 7. Times 2 is 14. Or 16?\n</think>\n\n**14**",
            "correct",
        ),
        (dict(type="exact", value="Au"), "<think>\nGold = aurum -> Au. Not Ag, not Go.\n</think>\n\nAu", "correct"),
        (
            dict(type="any_of", values=["descending", "decreasing"]),
            "<think>\nASC vs DESC. Largest first.\n</think>\nDescending — `ORDER BY score DESC`.",
            "correct",
        ),
        # the thinking reaches the right value; the reply commits to a wrong one
        (
            dict(type="numeric", value=14),
            "<think>\n7 * 2 = 14\n</think>\nHmm, on reflection: the answer is 16.",
            "wrong",
        ),
        (dict(type="boolean", value=True), "<think>\nYes, it is prime.\n</think>\n\nNo.", "wrong"),
        (
            dict(type="choice", options=["Mars", "Venus", "Jupiter"], answer="Jupiter"),
            "<think>Jupiter is the largest... but Saturn's rings</think>\nAnswer: Venus",
            "wrong",
        ),
        # cut off inside the thinking, however right the thinking was
        (dict(type="numeric", value=42), "<think>\n6 * 7 = 42, so the answer is 42", "unanswered"),
        (dict(type="exact", value="Paris"), "<think>The capital of France is Paris. Let me double-check", "unanswered"),
        (dict(type="boolean", value=True), "<think>\nTrue, because", "unanswered"),
    ],
)
def test_the_verdict_is_the_replys(expected: dict[str, Any], answer: str, verdict: str) -> None:
    result = check_expected(_EXPECTED.validate_python(expected), answer)
    assert result.outcome == verdict, result.detail
    note = CUT_OFF_THINKING if "</think>" not in answer else AFTER_THINKING
    assert result.detail.endswith(f"({note})") and note in result.extraction.detail


def test_code_drafted_in_the_thinking_does_not_count() -> None:
    tests = "assert add(2, 3) == 5"
    drafted = "<think>\n```python\ndef add(a, b):\n    return a + b\n```\nhmm, maybe subtract?\n</think>\n"
    wrong = drafted + "```python\ndef add(a, b):\n    return a - b\n```"
    draft = "<think>\n```python\ndef add(a, b):\n    return a - b\n```\n</think>\n"
    right = draft + "```python\ndef add(a, b):\n    return a + b\n```"
    assert check_expected(_EXPECTED.validate_python({"type": "python", "tests": tests}), wrong).outcome == "wrong"
    assert check_expected(_EXPECTED.validate_python({"type": "python", "tests": tests}), right).outcome == "correct"
