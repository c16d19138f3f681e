"""A JSON object answer is read by its answer field (issue 26, the eleventh corpus's tool-shaped
outputs): phrasings of our own for every read type, and the objects that are read as written."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from harness.data.expected import Expected
from harness.metrics.correctness import check_expected
from harness.metrics.extraction_base import marked_item
from harness.metrics.structured import asked_field, structured_answer, without_speaker

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


_NOBLE = {"type": "any_of", "values": ["Lisbon"]}
_LISTED = {"type": "choice", "answer": "Copper", "options": ["Glass", "Copper", "Rubber"]}
_YES = {"type": "boolean", "value": True}
RECORDS = [
    # a record of key: value lines is read by its answer field, its companions are not
    (_FORTY_TWO, "bags: 7\napples_per_bag: 6\nresult: 42", None, "correct"),
    (_FORTY_TWO, "- total: 41\n- verdict: 41\n- note: 42 if you count the spare", None, "wrong"),
    (_LISTED, "choice: Copper\nreason: free electrons\nrunner_up: Glass (an insulator)", None, "correct"),
    (_YES, "verdict: true\nsource: the 1998 survey\nconfidence: high", None, "correct"),
    # with the question known, the field it asks for
    (_NOBLE, "country: Portugal\ncapital: Lisbon\npopulation: 545000", "What is the capital of Portugal?", "correct"),
    (_NOBLE, "country: Portugal\ncapital: Porto", "What is the capital of Portugal?", "wrong"),
    (
        {"type": "any_of", "values": ["SMTP"]},
        "port: 25\nprotocol: SMTP\nlayer: application",
        "Which protocol normally uses port 25?",
        "correct",
    ),
    (_FORTY_TWO, '{"edges": 42, "faces": 7}', "How many edges does the solid have?", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "query", "verdict"), RECORDS)
def test_a_record_of_key_value_lines_is_read_by_its_answer_field(
    block: dict[str, Any], answer: str, query: str | None, verdict: str
) -> None:
    assert _verdict(block, answer, query) == verdict


@pytest.mark.parametrize(
    ("answer", "query"),
    [
        ("capital: Lisbon\ncountry: Portugal", None),  # no answer field, and no question to ask for one
        ("country: Portugal\nlargest city: Lisbon", "What is the capital of Portugal?"),  # not the asked field
        ("result: 42", None),  # one line is a label, not a record
        ("Step 1: 6 × 7\nresult: 42", None),  # "Step 1" is no field name
        ("result: 42\nThat is six bags of seven.", None),  # prose after it
        ("Answer: 42\nconfidence: high", None),  # the protocol's own line, read as the declared line
        ("```\nresult: 42\nok: yes\n```", None),  # code
    ],
)
def test_what_is_not_a_record_with_an_answer_field(answer: str, query: str | None) -> None:
    assert structured_answer(answer, query) is None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("Which protocol normally uses port 25?", "protocol"),
        ("What is the capital of Portugal?", "capital"),
        ("How many edges does a cube have?", "edges"),
        ("Name the largest ocean.", "largest"),
        ("What does HTTP 404 mean?", None),
        ("Is 91 prime?", None),
    ],
)
def test_the_field_a_question_asks_for(query: str, field: str | None) -> None:
    assert asked_field(query) == field


SPEAKERS = [
    (_CHOICE, "Model A: The answer has to be 3 (option C).", "correct"),
    ({"type": "choice", "answer": "B", "options": {"A": "Venus", "B": "Mercury"}}, "Model A: Mercury.", "correct"),
    ({"type": "exact", "value": "Lisbon"}, "Assistant: The capital is Lisbon.", "correct"),
    (_FORTY_TWO, "Response 2: the members converge on 42.", "correct"),
    (_YES, "AI: Yes — it holds for every n.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), SPEAKERS)
def test_a_speaker_label_opening_the_reply_is_set_aside(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


@pytest.mark.parametrize(
    "answer",
    [
        "Model A: 41\nModel B: 42\nMember C: 41",  # a transcript of several speakers, not closed by a chair
        "Member answers: 41, 42, 42.",  # not a speaker's label
        "The model: 42",  # no role word opening the line
        "Model: ",  # nothing after it
    ],
)
def test_a_speaker_label_is_kept_in_a_transcript_or_when_it_is_none(answer: str) -> None:
    assert without_speaker(answer) == (answer, None)


TAGS_AND_TRUTH_FIELDS = [
    # an answer tag is read alone
    (_YES, "<answer>yes</answer>", None, "correct"),
    (_YES, "Thinking it over: cookies add state.\n<answer>no</answer>", None, "wrong"),
    (_CHOICE, "<final_answer>C</final_answer>\n(A and B are too small.)", None, "correct"),
    (_FORTY_TWO, "<result> 42 </result>", None, "correct"),
    # for a yes/no question, the one field named by its predicate and holding a truth value
    (_YES, '{"stateless": true, "reason": "each request stands alone"}', "Is HTTP a stateless protocol?", "correct"),
    (
        {"type": "boolean", "value": False},
        "prime: no\nfactors: 7 × 13",
        "Is 91 a prime number?",
        "correct",
    ),
    (_YES, "visible: false\ndistance_km: 384400", "Is the Great Wall visible from the Moon?", "wrong"),
    (
        _YES,
        '{"stateless": true, "secure": false}',
        "Which protocol is stateless?",
        "unanswered",
    ),  # not a yes/no question
]


@pytest.mark.parametrize(("block", "answer", "query", "verdict"), TAGS_AND_TRUTH_FIELDS)
def test_answer_tags_and_the_predicate_field_of_a_yes_no_question(
    block: dict[str, Any], answer: str, query: str | None, verdict: str
) -> None:
    assert _verdict(block, answer, query) == verdict


COUNCIL_LABELS = [
    (_FORTY_TWO, "Ruling: 41. Members B and C said 42, but A's count is the right one.", "wrong"),
    (_FORTY_TWO, "Consensus: 42 (member C dissented with 41).", "correct"),
    (_FORTY_TWO, "**Council answer:** 42\n\nA said 40; B and C agreed on 42.", "correct"),
    (_FORTY_TWO, "Majority view: 41. The chair's own count gives 42.", "wrong"),
    (_CHOICE, "Jury verdict: C — two of three jurors picked A at first.", "correct"),
]


@pytest.mark.parametrize(("block", "answer", "verdict"), COUNCIL_LABELS)
def test_a_council_s_ruling_label_is_an_answer_cue(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


@pytest.mark.parametrize(
    "answer",
    [
        'Council verdict: two members said "Lisbon", one said "Porto". I side with Porto.',
        "Consensus: A and B voted Lisbon; C picked Porto. Porto it is.",
        "Result: members answered Lisbon twice, but the chair goes with Porto.",
    ],
)
def test_a_label_that_reports_the_members_answers_is_not_the_answer(answer: str) -> None:
    assert _verdict(_NOBLE, answer) != "correct"


@pytest.mark.parametrize(
    "answer",
    [
        'Two members said "Lisbon", one said "Porto". I will go with Porto.',
        "Members A and B answered Lisbon; I side with C: Porto.",
        "Lisbon was the majority's pick, but I will pick Porto.",
    ],
)
def test_a_commitment_after_the_members_answers_overrides_them(answer: str) -> None:
    assert _verdict(_NOBLE, answer) != "correct"


_PLANET = {"type": "choice", "answer": "B", "options": {"A": "Venus", "B": "Mercury", "C": "Mars"}}
_CAPITAL = {"type": "exact", "value": "Canberra"}
PICKED = [
    # a checked box among empty ones
    (_PLANET, "[ ] A\n[x] B\n[ ] C", None, "correct"),
    (_PLANET, "- [ ] Venus\n- [x] Mercury — closest to the Sun\n- [ ] Mars", None, "correct"),
    (_PLANET, "- [x] Venus\n- [ ] Mercury\n- [ ] Mars", None, "wrong"),
    (_CAPITAL, "* [ ] Sydney\n* [X] Canberra\n* [ ] Melbourne", None, "correct"),
    # one positive verdict among rejected candidates: a keyed value, a table cell, a tick among crosses
    (_PLANET, "Option A: no\nOption B: yes — by far the closest\nOption C: no", None, "correct"),
    (_PLANET, "A: ✗\nB: ✓\nC: ✗", None, "correct"),
    (_PLANET, "A: ✓\nB: ✗\nC: ✗", None, "wrong"),
    (
        _CAPITAL,
        "| City | Capital? |\n|---|---|\n| Sydney | no |\n| Canberra | yes |\n| Melbourne | no |",
        None,
        "correct",
    ),
    (_CAPITAL, "| City | Capital? |\n|---|---|\n| Sydney | yes |\n| Canberra | no |", None, "wrong"),
    # numbers read a picked item too, strictly: a tick only among crossed-out candidates
    (_FORTY_TWO, "- 40 ❌ (one bag short)\n- 42 ✔️ (6 × 7)\n- 48 ❌", None, "correct"),
    (_FORTY_TWO, "Candidates:\n- 36\n- 42 ✅ six bags of seven\n- 48", None, "correct"),
    (_FORTY_TWO, "- 41 ← my pick\n- 42\n- 43", None, "wrong"),
    # a yes/no question answered by a list that checks one item: the checked item decides before the
    # opening word does
    ({"type": "boolean", "value": False}, "- prime\n- composite ✅ (7 × 13)", "Is 91 prime?", "correct"),
    ({"type": "boolean", "value": True}, "- mammal ✅\n- fish", "Is a whale a mammal?", "correct"),
    ({"type": "boolean", "value": True}, "- fish ✅\n- mammal", "Is a whale a mammal?", "wrong"),
]


@pytest.mark.parametrize(("block", "answer", "query", "verdict"), PICKED)
def test_the_one_picked_candidate_of_a_list_table_or_verdict_record(
    block: dict[str, Any], answer: str, query: str | None, verdict: str
) -> None:
    assert _verdict(block, answer, query) == verdict


@pytest.mark.parametrize(
    ("answer", "strict"),
    [
        ("- Check: 6 × 7 = 42 ✓\n- Bags: 7", True),  # a tick on a checked step is not a pick
        ("- 42 ✓\n- 48", True),  # a tick among unmarked candidates, for numbers
        ("- 40 ✅\n- 42 ✅\n- 48", False),  # two picks
        ("| City | Capital? |\n|---|---|\n| Sydney | yes |\n| Canberra | yes |", False),  # two positive verdicts
        ("| Planet | Closest? |\n|---|---|\n| Mercury | yes |\n| Venus | maybe |", False),  # a verdict among unjudged
        ("[x] done", False),  # one line is no list
        ("- Total: 6 × 7 = 42 ✅\n- 48", True),  # a computed item, for numbers
    ],
)
def test_no_picked_item_without_one_pick_among_candidates(answer: str, strict: bool) -> None:
    assert marked_item(answer, strict=strict) is None


@pytest.mark.parametrize(
    "answer",
    [
        "- Member 1: B ✅\n- Member 2: C\n- Member 3: C\n\nMajority goes to C.",
        "- A ✅ (member 1)\n- B\n- C\n\nThe chair overrules that: B.",
        "- Canberra ✅\n- Sydney\n\nBut the jury's decision was Sydney.",
        "- 42 ✅ (member 2)\n- 48\n\nSo the council's figure is 48.",
    ],
)
def test_prose_after_a_list_that_concludes_decides_instead_of_its_mark(answer: str) -> None:
    assert marked_item(answer) is None and marked_item(answer, strict=True) is None


def test_the_chair_overruling_a_marked_member_is_read() -> None:
    assert _verdict(_PLANET, "- A ✅ (member 1)\n- B\n- C\n\nThe chair overrules that: B.") == "correct"


_CANBERRA = {"type": "any_of", "values": ["Canberra"]}


@pytest.mark.parametrize(
    "answer",
    [
        "Member answers: Canberra, Canberra, Sydney.\nThe chair picks Sydney.",
        "Members said Canberra twice. The council goes with Sydney.",
        "Canberra, say two members; the jury settles on Sydney.",
    ],
)
def test_a_chair_committing_after_the_members_answers_is_not_their_answer(answer: str) -> None:
    assert _verdict(_CANBERRA, answer) != "correct"


_PATCH = {"type": "regex", "pattern": r"\bPATCH\b"}


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        # without a declared line, a regex case is anchored to the last result label's clause
        ("Round one: PATCH (2), PUT (1). Round two: the PATCH members concede. Consensus: PUT.", "unanswered"),
        ("Members split between PUT and PATCH.\nVerdict: PATCH, since PUT replaces the whole resource.", "correct"),
        ("PATCH was my first thought, but no. Final: PUT.", "unanswered"),
        ("Council verdict: two members said PATCH, one said PUT.", "ambiguous"),  # a report: the whole answer
        ("It's PATCH.", "correct"),  # no label: the whole answer
    ],
)
def test_a_regex_case_is_anchored_to_a_result_label(answer: str, verdict: str) -> None:
    assert _verdict(_PATCH, answer) == verdict


@pytest.mark.parametrize(
    ("block", "answer", "verdict"),
    [
        # a speaker named by a letter inside a sentence names the speaker, not an option
        (_PLANET, "Member A argued for Mercury.", "correct"),
        (_PLANET, "Model C backs Mercury, the closest planet.", "correct"),
        (_PLANET, "Responses A and C both land on Mars.", "wrong"),
        (_PLANET, "Response B picked B (Mercury); Responses A and C picked A. The majority stands.", "ambiguous"),
        # a transcript naming several speakers keeps its opening label
        (_FORTY_TWO, "Response A: 42. Response B: 41. Response C: 41.", "wrong"),
    ],
)
def test_a_speaker_s_letter_is_not_an_option(block: dict[str, Any], answer: str, verdict: str) -> None:
    assert _verdict(block, answer) == verdict


def test_an_opening_label_is_kept_when_other_speakers_are_named() -> None:
    text = "Response A: $50. Response B: $48."
    assert without_speaker(text) == (text, None)
    assert without_speaker("Model 2: 48, unlike model 3")[1] is None
    assert without_speaker("Assistant: 48, as the others said")[1] is not None


@pytest.mark.parametrize(
    ("block", "answer", "verdict"),
    [
        # a transcript closed by its chair's turn is read from that turn
        (_YES, "Member A: yes\nMember B: no\nMember C: yes\n\nChair: yes", "correct"),
        (_YES, "Model 1: yes, by design\nModel 2: yes\nChairman: no — sessions make it stateful", "wrong"),
        (_FORTY_TWO, "Juror 1: 42\nJuror 2: 41\nJuror 3: 41\nForeperson: 42, after recounting the bags", "correct"),
        (_FORTY_TWO, "Member A: 42\nMember B: 41\nModerator: the bags hold 41 in total.", "wrong"),
        (_PLANET, "Model A: C\nModel B: B\nJudge: B — Mercury is closest.", "correct"),
    ],
)
def test_a_transcript_closed_by_its_chair_is_read_from_the_chair_s_turn(
    block: dict[str, Any], answer: str, verdict: str
) -> None:
    assert _verdict(block, answer) == verdict


def test_a_transcript_not_closed_by_its_chair_keeps_its_labels() -> None:
    for text in ("Chairman: opening.\nModel A: 42\nModel B: 41", "Member A: 42\nMember B: 41"):
        assert without_speaker(text) == (text, None)
