"""The labelled extraction corpus: precision and recall of objective scoring per expected type.

Each triple (expected block, answer, truly correct?) in ``tests/fixtures/extraction_corpus*.{jsonl,yaml}``
goes through :func:`harness.metrics.correctness.check_expected` with its question, as a run scores it.
Precision = scored-correct answers that are truly correct / scored-correct answers; recall = truly
correct answers scored correct / truly correct answers. ``bench/bench_extraction.py`` prints the same
figures (``python bench/run.py --only extraction``).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bench.bench_extraction import HOSTILE, HOSTILE_EXPECTED, load_corpus, score_row, summarize
from harness.metrics.extraction import MAX_ANSWER_CHARS
from tests.paths import REPO

MIN_PRECISION = 0.99
MIN_RECALL = 0.97
ROWS = load_corpus()
TYPES = ("numeric", "choice", "boolean", "exact", "any_of", "python")


def _scored(kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    rows = [r for r in ROWS if r["expected"]["type"] in kinds]
    with ThreadPoolExecutor(max_workers=4) as pool:  # python rows wait on sandbox subprocesses
        return list(pool.map(score_row, rows))


def _misses(scored: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{r['id']} ({'truly correct' if r['correct'] else 'truly wrong'}): {r['detail'][:200]}"
        for r in scored
        if r["scored"] != r["correct"]
    )


def test_corpus_shape() -> None:
    assert len(ROWS) >= 400
    wrong = sum(not r["correct"] for r in ROWS)
    assert wrong >= len(ROWS) / 3
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    assert {r["expected"]["type"] for r in ROWS} == set(TYPES)
    for kind in TYPES:  # every type has right and wrong answers
        assert {r["correct"] for r in ROWS if r["expected"]["type"] == kind} == {True, False}, kind


@pytest.mark.parametrize("kinds", [("numeric",), ("choice", "boolean"), ("exact", "any_of"), ("python",)])
def test_precision_and_recall_per_type(kinds: tuple[str, ...]) -> None:
    scored = _scored(kinds)
    stats = summarize(scored)
    for kind in kinds:
        s = stats[kind]
        assert s["precision"] >= MIN_PRECISION, f"{kind}: precision {s['precision']:.3f}\n{_misses(scored)}"
        assert s["recall"] >= MIN_RECALL, f"{kind}: recall {s['recall']:.3f}\n{_misses(scored)}"
        assert s["truly_correct"] >= 20 and s["n"] - s["truly_correct"] >= 10, kind
    # an ambiguous answer is never scored correct, and is reported as ambiguous rather than wrong
    assert all(not r["scored"] for r in scored if r["verdict"] == "ambiguous")


def test_every_issue_example_is_scored_right() -> None:
    examples = [r for r in ROWS if r["id"].startswith("issue12-")]
    assert len(examples) >= 10
    for row in examples:
        got = score_row(row)
        assert got["scored"] == row["correct"], (row["id"], got["detail"])


def test_hedged_answers_are_ambiguous_not_wrong() -> None:
    hedges = [r for r in ROWS if r["style"] in ("hedge", "list_hedge")]
    assert len(hedges) >= 40 and {r["expected"]["type"] for r in hedges} == {
        "numeric",
        "choice",
        "boolean",
        "exact",
        "any_of",
    }
    verdicts = {score_row(r)["verdict"] for r in hedges}
    assert verdicts == {"ambiguous"}


@pytest.mark.parametrize("unit", sorted(HOSTILE))
def test_hostile_answers_are_capped_and_recorded(unit: str) -> None:
    text = HOSTILE[unit] * (1024 * 1024 // len(HOSTILE[unit]))
    assert len(text) > MAX_ANSWER_CHARS
    for block in HOSTILE_EXPECTED:
        got = score_row({"id": "hostile", "expected": block, "answer": text, "correct": False})
        assert got["scored"] is False
        assert "only its start and end were read" in got["detail"], (unit, block["type"], got["detail"][:300])


def test_the_reasoning_suite_ground_truths_pass_their_own_checks() -> None:
    """Every numeric, choice and boolean challenge's ground-truth explanation scores correct."""

    from harness.data.cases import load_datasets
    from harness.metrics.correctness import check_expected

    suite = REPO / "suites" / "reasoning-100.yaml"
    cases = [
        c
        for d in load_datasets(suite)
        for c in d.cases
        if c.expected is not None and c.expected.type in ("numeric", "choice", "boolean") and c.ground_truth
    ]
    assert len(cases) == 28
    wrong = [
        (c.id, check_expected(c.expected, c.ground_truth, c.query).detail)
        for c in cases
        if not check_expected(c.expected, c.ground_truth, c.query).correct
    ]
    assert wrong == []
