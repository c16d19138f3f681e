"""The golden datasets in golden/: they load, have the seed 001 section 3.2 shape, and their answers are right."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from harness.data.cases import Case, Dataset, is_dataset_file, load_datasets
from harness.data.expected import ExpectAnyOf, ExpectNumeric
from harness.metrics.checks import mention_checks
from tests.paths import REPO

GOLDEN_DIR = REPO / "golden"
GOLDEN_FILES = sorted(GOLDEN_DIR.glob("*.yaml"))
EXPERT_REVIEW_FILE = GOLDEN_DIR / "architecture_review.yaml"
MAX_QUERY_CHARS = 200  # the embedded models have small context budgets

#: every numeric golden answer, recomputed
NUMERIC = {
    "fact-005": lambda: 7,
    "fact-009": lambda: 8,
    "fact-010": lambda: 0,
    "arith-001": lambda: 12 + 7,
    "arith-002": lambda: 9 * 6,
    "arith-003": lambda: 100 - 37,
    "arith-004": lambda: 81 / 9,
    "arith-005": lambda: 15 + 28,
    "arith-006": lambda: 6 * 7,
    "arith-007": lambda: 50 / 2,
    "arith-008": lambda: 3 * (4 + 5),
    "arith-009": lambda: 1000 - 1,
    "arith-010": lambda: 80 * 25 / 100,
    "arith-011": lambda: 2**5,
    "arith-012": lambda: math.isqrt(144),
    "arith-013": lambda: 11 * 11,
    "arith-014": lambda: 4 * 6,
}


def _all() -> list[Dataset]:
    return [d for f in GOLDEN_FILES for d in load_datasets(f)]


def _cases() -> list[Case]:
    return [c for d in _all() for c in d.cases]


def test_golden_folder_has_the_expected_files() -> None:
    names = {f.name for f in GOLDEN_FILES}
    assert {"facts.yaml", "arithmetic.yaml", "architecture_review.yaml"} <= names


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.name)
def test_every_golden_file_loads_as_golden_datasets(path: Path) -> None:
    assert is_dataset_file(path), "collection must recognize the file from its first lines"
    datasets = load_datasets(path)
    assert datasets
    assert all(d.kind == "golden" for d in datasets)
    assert all(d.description for d in datasets)


def test_at_least_two_automatic_datasets_with_ten_cases() -> None:
    big = [d.name for d in _all() if d.evaluation_mode == "automatic" and len(d.cases) >= 10]
    assert len(big) >= 2, big


def test_dataset_names_and_case_ids_are_unique_across_files() -> None:
    names = [d.name for d in _all()]
    assert len(names) == len(set(names))
    ids = [c.id for c in _cases()]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_every_case_has_a_ground_truth_and_a_short_query() -> None:
    for case in _cases():
        assert case.ground_truth and case.ground_truth.strip(), case.id
        if case.evaluation_mode == "automatic":
            assert len(case.query) <= MAX_QUERY_CHARS, f"{case.id}: query is {len(case.query)} characters"


def test_ground_truth_passes_its_own_mention_checks() -> None:
    for case in _cases():
        for mention in case.required_mentions:
            assert " " not in mention.strip(), f"{case.id}: required mention {mention!r} should be one word"
        result = mention_checks(case, case.ground_truth or "")
        failed = [c.target for c in result.checks if not c.passed]
        assert failed == [], f"{case.id}: the ground truth fails {failed}"
        if case.required_mentions:
            assert result.scores["required_mentions"] == 1.0


def test_forbidden_claims_context_and_expected_blocks_are_used() -> None:
    cases = _cases()
    with_forbidden = [c.id for c in cases if c.forbidden_claims]
    with_context = [c.id for c in cases if c.context]
    with_expected = [c.id for c in cases if c.expected is not None]
    assert len(with_forbidden) >= 3, with_forbidden
    assert len(with_context) >= 3, with_context
    assert len(with_expected) >= 20, with_expected
    assert "Sydney is the capital" in {claim for c in cases for claim in c.forbidden_claims}


def test_every_numeric_answer_is_recomputed() -> None:
    numeric = {c.id: c.expected for c in _cases() if isinstance(c.expected, ExpectNumeric)}
    assert set(numeric) == set(NUMERIC)
    for case_id, exp in numeric.items():
        assert isinstance(exp, ExpectNumeric)
        computed = float(NUMERIC[case_id]())
        assert abs(exp.value - computed) <= exp.tolerance, f"{case_id}: YAML {exp.value}, computed {computed}"


def test_numeric_and_any_of_answers_appear_in_the_ground_truth() -> None:
    for case in _cases():
        truth = case.ground_truth or ""
        if isinstance(case.expected, ExpectNumeric):
            numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", truth)]
            assert case.expected.value in numbers, f"{case.id}: {truth!r}"
        elif isinstance(case.expected, ExpectAnyOf):
            assert any(v.lower() in truth.lower() for v in case.expected.values), f"{case.id}: {truth!r}"


def test_expert_review_dataset() -> None:
    datasets = load_datasets(EXPERT_REVIEW_FILE)
    assert [d.name for d in datasets] == ["technical_architecture"]
    dataset = datasets[0]
    assert dataset.evaluation_mode == "expert_review"
    assert 2 <= len(dataset.cases) <= 3
    for case in dataset.cases:
        assert case.evaluation_mode == "expert_review", case.id
        assert len(case.rubric) >= 3, case.id
        assert math.isclose(sum(r.weight for r in case.rubric), 1.0), case.id
    seed_case = next(c for c in dataset.cases if c.id == "arch-001")
    assert [(r.dimension, r.weight) for r in seed_case.rubric] == [
        ("trade_off_coverage", 0.3),
        ("context_awareness", 0.3),
        ("actionability", 0.4),
    ]
