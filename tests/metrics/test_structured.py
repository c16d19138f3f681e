"""A JSON object answer is read by its answer field (issue 26, the eleventh corpus's tool-shaped
outputs): phrasings of our own for every read type, and the objects that are read as written."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from harness.data.expected import Expected
from harness.metrics.correctness import check_expected
from harness.metrics.structured import structured_answer

_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)


def _verdict(block: dict[str, Any], answer: str, query: str | None = None) -> str:
    got = check_expected(_EXPECTED.validate_python(block), answer, query)
    assert got.verdict is not None
    return got.verdict


_FORTY_TWO = {"type": "numeric", "value": 42}
_CHOICE = {"type": "choice", "answer": "C", "options": {"A": "1", "B": "2", "C": "3", "D": "4"}}
_LANDING = {"type": "regex", "pattern": r"\b1969-07-20\b"}
STRUCTURED = [
    # the answer field is read, its companions (a confidence, a reason, units) are not
    (_FORTY_TWO, '{"answer": 42, "confidence": 0.6}', "correct"),
    ({"type": "numeric", "value": 3.5}, '```json\n{"final_answer": 3.5, "units": "h", "steps": 4}\n```', "correct"),
    ({"type": "boolean", "value": False}, '{"Answer": false, "reason": "91 = 7 × 13, so yes it factors"}', "correct"),
    (
        _CHOICE,
        '{"result": "C", "why": "not A or B"}',
        "correct",
    ),
    ({"type": "exact", "value": "Paris"}, '{"answer": "Paris", "alternatives": ["Lyon"]}', "correct"),
    # a wrong field stays wrong, and a companion that matches is not the answer
    (_FORTY_TWO, '{"answer": 41, "confidence": 42}', "wrong"),
    (
        {"type": "regex", "pattern": r"\b1969-07-20\b"},
        '{"answer": "1969-07-21", "note": "not 1969-07-20"}',
        "unanswered",
    ),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), STRUCTURED)
def test_a_json_answer_is_read_by_its_answer_field(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


def test_only_a_single_object_with_a_scalar_answer_field_is_structured() -> None:
    assert structured_answer('{"answer": 0.25}') == ("0.25", "answer")
    assert structured_answer(' {"VALUE": "B"} ') == ("B", "VALUE")
    assert structured_answer('{"answer": [3, 4]}') is None
    assert structured_answer('{"answer": ""}') is None
    assert structured_answer('{"answer": 42,}') is None  # not JSON: the rules read it as written
    assert structured_answer('The answer is {"answer": 42}') is None
    assert structured_answer('["answer", 42]') is None


def test_the_detail_names_the_field() -> None:
    got = check_expected(_EXPECTED.validate_python(_FORTY_TWO), '{"final_answer": 42}')
    assert got.correct and "'final_answer' field" in got.detail
