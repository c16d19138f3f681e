"""Where a regex match stands in an answer (issue 26, the seventh and ninth corpora's classes): a
match in a commenting parenthesis after another value, and a turn that only reaffirms the match.
Phrasings of our own, with the answers that must keep their verdict."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from harness.data.expected import Expected
from harness.metrics.correctness import check_expected

_EXPECTED: TypeAdapter[Expected] = TypeAdapter(Expected)


def _verdict(pattern: str, answer: str) -> str:
    got = check_expected(_EXPECTED.validate_python({"type": "regex", "pattern": pattern}), answer)
    assert got.verdict is not None
    return got.verdict


ASIDES: list[tuple[str, str, str]] = [
    # a parenthesis that comments after another value, whatever sentence marks it holds
    (r"\b1776-07-04\b", "1776-07-02. (The better-known 1776-07-04 is when the text was adopted.)", "wrong"),
    (r"\.js\b", "Answer: .ts (TypeScript; plain .js also runs in the browser)", "wrong"),
    (r"\b443\b", "8443. (Port 443 is the usual HTTPS port; this server listens elsewhere.)", "wrong"),
    # a parenthesis after words that are not a value of the match's kind, a bare restatement, or a
    # parenthesis after the match, still states it
    (r"\b1969-07-20\b", "The landing came that summer. (It was 1969-07-20, UTC.)", "correct"),
    (r"\b1969-07-20\b", "The Apollo 11 landing date. (1969-07-20)", "correct"),
    (r"\b1776-07-04\b", "Answer: 1776-07-04 (adopted; the vote came two days earlier)", "correct"),
]


@pytest.mark.parametrize(("pattern", "answer", "verdict"), ASIDES)
def test_a_match_in_a_commenting_parenthesis_is_an_aside(pattern: str, answer: str, verdict: str) -> None:
    assert _verdict(pattern, answer) == verdict


REAFFIRMED: list[tuple[str, str, str]] = [
    # a turn whose clause only points back to the match as the standard or correct one
    (
        r"\b127\.0\.0\.1\b",
        "Use 127.0.0.1 (all of 127.0.0.0/8 loops back, but that's the standard one).",
        "correct",
    ),
    (r"\b443\b", "Port 443 — other ports can serve HTTPS too, but that is the default one.", "correct"),
    (
        r"\bH2O\b",
        "Water is H2O; heavy water exists too, but it's the correct formula for plain water.",
        "correct",
    ),
    # a turn that goes on, or calls it only the usual answer, still turns away
    (r"\b127\.0\.0\.1\b", "It's 127.0.0.1, but that's the standard one only on Linux; elsewhere use ::1.", "ambiguous"),
    (r"\b1969\b", "1969, but that's the usual answer — it was really 1970.", "ambiguous"),
]


@pytest.mark.parametrize(("pattern", "answer", "verdict"), REAFFIRMED)
def test_a_turn_that_reaffirms_the_match(pattern: str, answer: str, verdict: str) -> None:
    assert _verdict(pattern, answer) == verdict


FRAGMENTS_AND_SECTIONS: list[tuple[str, str, str]] = [
    # a match that is only part of a signed or longer number is not stated
    (r"\b2\b.*\b3\b", "Answer: x = −2 and x = −3", "wrong"),
    (r"\b5\b", "The root is x = -5.", "wrong"),
    (r"\b2\b", "The ratio comes to 2.5.", "wrong"),
    (r"\b2\b.*\b3\b", "Answer: x = 2 and x = 3", "correct"),
    (r"\b7\b", "The range is 3-7.", "correct"),
    # a turn in a later section comments on other things
    (r"\b404\b", "## Answer\n**404 Not Found**\n\n## See also\n- 410 Gone — it existed but was removed.", "correct"),
    (r"\bPUT\b", "**Answer**\nPUT\n\n**Notes**\nPATCH is close, but it updates only part of a resource.", "correct"),
    (r"\b404\b", "404 Not Found, but 410 is the right code when it is gone for good.", "ambiguous"),
    # "e.g." opening an example is not a short answer of its own
    (r"192\.168\.\d{1,3}\.\d{1,3}", "e.g. 192.168.1.20, a typical address on a home network.", "correct"),
    (r"\b10\.\d{1,3}\.\d{1,3}\.\d{1,3}\b", "i.e. 10.0.0.7 — any 10.x address is private.", "correct"),
]


@pytest.mark.parametrize(("pattern", "answer", "verdict"), FRAGMENTS_AND_SECTIONS)
def test_fragments_later_sections_and_example_openings(pattern: str, answer: str, verdict: str) -> None:
    assert _verdict(pattern, answer) == verdict


MEMBERS_AND_DATES: list[tuple[str, str, str]] = [
    # what a council participant gave is reported, not stated; the decision states
    (r"\b404\b", "Member A said 404 and member B said 410; the chairman sides with B.", "ambiguous"),
    (r"\b404\b", "Summary. Response 1: 404. Response 2: 410. The chair goes with Response 2.", "ambiguous"),
    (r"\b404\b", "Two jurors answered 404, one answered 410. Verdict: 404.", "correct"),
    (r"\b404\b", "Member A: 404. Member B: 410. The council agrees with A: 404.", "correct"),
    # a day written as an ordinal before a month name does not end a sentence
    (r"\b1776-07-04\b", "Am 4. Juli 1776, also 1776-07-04.", "correct"),
    (r"\b1814-05-17\b", "Den 17. mai 1814, altså 1814-05-17.", "correct"),
    (r"\b1776-07-04\b", "Am 2. Juli 1776, also 1776-07-02.", "unanswered"),
]


@pytest.mark.parametrize(("pattern", "answer", "verdict"), MEMBERS_AND_DATES)
def test_member_reports_and_ordinal_days(pattern: str, answer: str, verdict: str) -> None:
    assert _verdict(pattern, answer) == verdict


ENDORSED_AND_CORRECTED: list[tuple[str, str, str]] = [
    # a participant's report that the answer endorses right after it is stated
    (r"\b404\b", "Member A said 404. That's correct.", "correct"),
    (r"\b404\b", "Juror 2 answered 404, which is right.", "correct"),
    (r"\b404\b", "Member A said 404. That's not correct: it is 410.", "ambiguous"),
    # a later section that corrects is a turn, unlike one that comments
    (r"\b404\b", "## Answer\n404\n\n## Correction\nActually, it's 410.", "ambiguous"),
    (r"\b404\b", "**Answer**\n404\n\n**Update:**\nOn reflection, 410 fits better.", "ambiguous"),
    # "X is not." rejects X
    (r"\b2\b", "x = −2 is the only root; 2 is not.", "wrong"),
    (r"\bPUT\b", "PATCH is the one; PUT is not.", "wrong"),
]


@pytest.mark.parametrize(("pattern", "answer", "verdict"), ENDORSED_AND_CORRECTED)
def test_endorsed_reports_correcting_sections_and_bare_rejections(pattern: str, answer: str, verdict: str) -> None:
    assert _verdict(pattern, answer) == verdict
