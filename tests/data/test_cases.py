"""Golden dataset loading and its errors (file:line, expected shape)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.common.errors import DatasetError
from harness.data.cases import load_datasets

GOOD = """\
golden_datasets:
  - name: compliance_queries
    description: "Regulatory compliance questions"
    queries:
      - id: gdpr-001
        query: "What are the key requirements for GDPR data portability?"
        ground_truth: "Article 20 requires..."
        minimum_scores:
          required_mentions: 0.5
        required_mentions: ["Article 20", "machine-readable format"]
        forbidden_claims: ["automatic"]
  - name: technical_architecture
    evaluation_mode: "expert_review"
    queries:
      - id: arch-001
        query: "Microservices vs monolith for a 10-person startup?"
        rubric:
          - dimension: trade_off_coverage
            weight: 0.3
            criteria: "Mentions both approaches' pros/cons"
          - dimension: context_awareness
            weight: 0.3
            criteria: "Considers team size"
          - dimension: actionability
            weight: 0.4
            criteria: "Clear recommendation"
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "data.yaml"
    p.write_text(text)
    return p


def test_seed_shape_loads(tmp_path: Path) -> None:
    ds = load_datasets(write(tmp_path, GOOD))
    assert [d.name for d in ds] == ["compliance_queries", "technical_architecture"]
    gdpr = ds[0].cases[0]
    assert gdpr.required_mentions == ("Article 20", "machine-readable format")
    assert gdpr.dataset == "compliance_queries" and gdpr.source.endswith("data.yaml:5")
    arch = ds[1].cases[0]
    assert arch.evaluation_mode == "expert_review"  # inherited from the dataset
    assert [c.weight for c in arch.rubric] == [0.3, 0.3, 0.4]


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("golden_datasets:\n  - name: x\n    queries: [\n", "data.yaml:4", "YAML syntax error"),
        (
            "golden_datasets:\n  - name: x\n    queries:\n      - id: a\n        query: q\n        qeury: z\n",
            "data.yaml:6",
            "unknown key",
        ),
        ("golden_datasets:\n  - name: x\n    queries:\n      - id: a\n", "data.yaml:4", "'query': required"),
        (
            "golden_datasets:\n  - name: x\n    queries:\n      - id: a\n        query: q\n"
            "      - id: a\n        query: r\n",
            "data.yaml:6",
            "duplicate case id 'a'",
        ),
        ("golden_datasets:\n  - name: x\n    queries: []\n", "data.yaml:3", "no cases"),
        (
            "golden_datasets:\n  - name: x\n    queries:\n      - id: a\n        query: q\n        query: r\n",
            "data.yaml:6",
            "duplicate key 'query'",
        ),
        (
            "golden_datasets:\n  - name: x\n    queries:\n      - id: a\n        query: q\n        minimum_scores:\n"
            "          acuracy: 8\n",
            "data.yaml:6",
            "valid names are",
        ),
        (
            "golden_datasets:\n  - name: x\n    queries:\n      - id: a\n        query: q\n"
            "        required_mentions: 5\n",
            "data.yaml:6",
            "required_mentions",
        ),
        ("queries: []\n", "data.yaml:1", "top-level 'golden_datasets:'"),
        (
            "golden_datasets:\n  - name: x\n    queries:\n      - id: a\n        query: q\n        rubric:\n"
            "          - {dimension: d, weight: 0.5, criteria: c}\n",
            "data.yaml:4",
            "sum to 1",
        ),
        (
            "golden_datasets:\n  - name: x\n    queries:\n      - id: a\n        query: q\n        expected:\n"
            "          type: numeric\n          value: ten\n",
            "data.yaml:8",
            "expected.value",
        ),
        (
            "golden_datasets:\n  - name: x\n    queries:\n      - id: a\n        query: q\n        expected:\n"
            "          type: regex\n          pattern: '(['\n",
            "data.yaml:8",
            "does not compile",
        ),
    ],
)
def test_errors_name_the_line(tmp_path: Path, text: str, where: str, what: str) -> None:
    with pytest.raises(DatasetError) as err:
        load_datasets(write(tmp_path, text))
    message = str(err.value)
    assert where in message, message
    assert what in message, message
    assert "Traceback" not in message


def test_suite_requires_category(tmp_path: Path) -> None:
    text = "suite:\n  name: s\n  challenges:\n    - id: a\n      query: q\n"
    with pytest.raises(DatasetError, match="'category': required"):
        load_datasets(write(tmp_path, text))
    ok = load_datasets(write(tmp_path, text + "      category: logical\n"))
    assert ok[0].kind == "suite" and ok[0].cases[0].category == "logical"


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "bin.yaml"
    p.write_bytes(b"golden_datasets:\n  - name: \xff\xfe\n")
    with pytest.raises(DatasetError, match="not UTF-8"):
        load_datasets(p)


ANSWER_FORMAT = """\
golden_datasets:
  - name: fmt
    answer_format: {fmt}
    queries:
      - id: num
        query: "How many legs do 3 spiders have?"
        expected: {{type: numeric, value: 24}}
      - id: letter
        query: "Capital of the UK? A) Paris B) London"
        expected: {{type: choice, answer: B, options: {{A: Paris, B: London}}}}
      - id: listed
        query: "Which is a fruit?"
        expected: {{type: choice, answer: apple, options: [apple, carrot]}}
      - id: yesno
        query: "Is 91 prime?"
        expected: {{type: boolean, value: false}}
      - id: code
        query: "Write add(a, b)."
        expected: {{type: python, function: add, tests: "assert add(1, 2) == 3"}}
      - id: text
        query: "Capital of France?"
        expected: {{type: exact, value: Paris}}
      - id: asked-already
        query: "What is 2 + 2? Give the final answer on the last line as 'Answer: ...'."
        expected: {{type: numeric, value: 4}}
      - id: open
        query: "Tell me about Paris."
"""


def test_answer_format_auto_appends_the_instruction_for_each_type(tmp_path: Path) -> None:
    (ds,) = load_datasets(write(tmp_path, ANSWER_FORMAT.format(fmt="auto")))
    tail = {c.id: c.query.split("\n\n")[-1] for c in ds.cases}
    assert ds.answer_format == "auto"
    assert tail == {
        "num": "Give the final answer on the last line as 'Answer: <number>'.",
        "letter": "Give the final answer on the last line as 'Answer: <letter>'.",
        "listed": "Give the final answer on the last line as 'Answer: <the option's text>'.",
        "yesno": "Give the final answer on the last line as 'Answer: yes' or 'Answer: no'.",
        "code": "Give the complete Python code defining `add` in one ```python code block.",
        "text": "Give the final answer on the last line as 'Answer: ...'.",
        "asked-already": "What is 2 + 2? Give the final answer on the last line as 'Answer: ...'.",
        "open": "Tell me about Paris.",
    }


def test_answer_format_none_opts_out_and_the_default_is_auto(tmp_path: Path) -> None:
    (ds,) = load_datasets(write(tmp_path, ANSWER_FORMAT.format(fmt="none")))
    assert ds.answer_format == "none"
    assert [c.query for c in ds.cases[:2]] == [
        "How many legs do 3 spiders have?",
        "Capital of the UK? A) Paris B) London",
    ]
    without = ANSWER_FORMAT.format(fmt="none").replace("    answer_format: none\n", "")
    (default,) = load_datasets(write(tmp_path, without))
    (auto,) = load_datasets(write(tmp_path, ANSWER_FORMAT.format(fmt="auto")))
    assert default.answer_format == "auto"
    assert [c.query for c in default.cases] == [c.query for c in auto.cases]
    assert default.cases[0].query == (
        "How many legs do 3 spiders have?\n\nGive the final answer on the last line as 'Answer: <number>'."
    )
    assert default.cases[-1].query == "Tell me about Paris."  # no expected: block, no instruction


def test_answer_format_bad_value_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as err:
        load_datasets(write(tmp_path, ANSWER_FORMAT.format(fmt="always")))
    assert str(err.value).endswith("data.yaml:3: 'answer_format' must be 'auto' or 'none', got 'always'")
