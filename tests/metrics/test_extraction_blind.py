"""The blind corpora (issue 26) as regression sets: written by people who had not read the extractor,
their dev halves guided rule changes and their holdouts were scored once before being kept here as
spent sets; every set must keep its score (no false positive beyond its own, recall at its floor)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bench.bench_extraction import (
    BLIND2_DEV,
    BLIND2_DEV_FIRST,
    BLIND_DEV,
    BLIND_DEV_FIRST,
    load_corpus_file,
    score_row,
    summarize,
)
from tests.paths import TEST_DATA

ROWS = load_corpus_file(BLIND_DEV)


def _scored(rows: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[tuple[Any, Any, str]]]:
    """Every row scored (python rows wait on sandbox subprocesses, hence the threads): the per-type
    summary and the rows read otherwise than labelled (id, label, detail)."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        scored = list(pool.map(score_row, rows))
    misses = [(r["id"], r["correct"], r["detail"][:160]) for r in scored if r["scored"] != r["correct"]]
    return summarize(scored), misses


def test_the_blind_dev_half_is_all_there() -> None:
    assert len(ROWS) == BLIND_DEV_FIRST["all"][0] == 254
    assert sum(r["correct"] for r in ROWS) == BLIND_DEV_FIRST["all"][1]
    assert {r["expected"]["type"] for r in ROWS} == set(BLIND_DEV_FIRST) - {"all"}


def test_the_blind_dev_half_scores_without_false_positives() -> None:
    stats, misses = _scored(ROWS)
    assert stats["all"]["fp"] == 0, misses
    assert stats["all"]["recall"] >= 0.99, misses
    for kind, s in stats.items():
        assert s["precision"] == 1.0, (kind, misses)
        assert s["recall"] >= BLIND_DEV_FIRST[kind][3], (kind, misses)  # never below the first score


def test_the_second_blind_dev_half_scores_without_false_positives() -> None:
    """The dev half of the second blind corpus: its first score (bc1e952) had 5 false positives and
    4 misses; after the classes behind them were fixed it reads every answer as labelled. No false
    positive may come back, and recall stays at that floor (141 of 141) and never below the first
    score per type."""
    rows = load_corpus_file(BLIND2_DEV)
    assert len(rows) == BLIND2_DEV_FIRST["all"][0] and sum(r["correct"] for r in rows) == BLIND2_DEV_FIRST["all"][1]
    stats, misses = _scored(rows)
    assert stats["all"]["fp"] == 0, misses
    assert stats["all"]["tp"] >= 141, misses
    for kind, s in stats.items():
        assert s["precision"] == 1.0, (kind, misses)
        assert s["recall"] >= BLIND2_DEV_FIRST[kind][3], (kind, misses)


#: Spent and tuned blind sets kept at their floors: (file, answers, truly correct, most false positives,
#: fewest read correctly). See docs/extraction.md and bench/extraction_blind for each one's history.
FLOORS = [
    # the first holdout, spent after its single final score (121 of 129); its eight misses' classes fixed after
    pytest.param("extraction_corpus_blind_holdout_spent.yaml", 246, 129, 0, 129, id="first-holdout-spent"),
    # the second holdout, spent at P 0.993, R 0.957 (1 fp, 6 misses); their classes fixed after
    pytest.param("extraction_corpus_blind2_holdout_spent.yaml", 276, 139, 0, 139, id="second-holdout-spent"),
    # the third dev half: first score (c760b25) 2 false positives, no miss; fixed after
    pytest.param("extraction_corpus_blind3_dev.yaml", 215, 111, 0, 111, id="third-dev"),
    # the third holdout, spent at 145c7d2 (P 0.991, R 0.981; 1 fp, 2 misses): an attribution framing and
    # a trailing appositive fixed after
    pytest.param("extraction_corpus_blind3_holdout_spent.yaml", 209, 107, 0, 107, id="third-holdout-spent"),
    # the fourth corpus, scored once on the final rules with nothing changed for it (43162fb: P 0.995,
    # R 0.979; 1 fp, "It's usually credited to Einstein", and 4 misses); hedged reports and booleans fixed after
    pytest.param("extraction_corpus_blind4_spent.yaml", 363, 195, 0, 195, id="fourth-spent"),
    # the fifth corpus's dev half: first score (3b60ab2) P 0.950, R 0.958 (6 fp, 5 misses); its classes fixed after
    pytest.param("extraction_corpus_blind5_dev.yaml", 221, 120, 0, 120, id="fifth-dev"),
    # the fifth holdout, spent at 2bb48bb (first at 3b60ab2: P 0.960, R 0.933; final: P 1.000, R 0.933; 0 fp,
    # 7 misses); classes fixed after, the floor is the tuned score
    pytest.param("extraction_corpus_blind5_holdout_spent.yaml", 198, 104, 0, 102, id="fifth-holdout-spent"),
    # the sixth corpus (no split), scored once on 3b60ab2 and once on 2bb48bb with nothing changed for it
    # (P 0.992, R 0.992: 2 fp, 'O' for 'O negative' and a 'but' that concedes, and 2 misses); both fp
    # classes fixed after
    pytest.param("extraction_corpus_blind6_spent.yaml", 409, 241, 0, 240, id="sixth-spent"),
    # the seventh corpus (no split), scored on 4dbf3f7 and once on a3939e9 with nothing changed for it (both
    # P 0.987, R 0.936: 3 fp, 15 misses); classes fixed after, the floor is the tuned score
    pytest.param("extraction_corpus_blind7_spent.yaml", 425, 235, 0, 235, id="seventh-spent"),
    # the eighth corpus's dev half (four writers): first score (dee42bc) P 1.000, R 0.961 (0 fp, 10 misses);
    # its holdout half is untouched until the round's single final score
    # (classes fixed after: numeric — a check after the result, a value before a dash, a bold unit symbol;
    # exact — a case-kept symbol in a sentence, a turn to what is asked, a predicate possessive, a middle
    # initial, an answer thinking aloud)
    pytest.param("extraction_corpus_blind8_dev.yaml", 451, 256, 0, 256, id="eighth-dev"),
    # the ninth corpus's dev half (two writers, one trying to make a grader err both ways): first score
    # (dee42bc) P 0.967, R 0.967 (4 fp, 4 misses); its holdout half is untouched
    pytest.param("extraction_corpus_blind9_dev.yaml", 217, 123, 0, 123, id="ninth-dev"),
    # the tenth corpus's dev half (two writers: reasoning models' visible thinking, council chairmen and debate
    # rounds citing the members' values): first score (dee42bc) P 0.967, R 0.967 (4 fp, 4 misses); visible
    # thinking set aside after (harness.metrics.thinking), a question about a word form, a "Final:" label, a
    # heading that names the value, a lean after an opening between two options
    pytest.param("extraction_corpus_blind10_dev.yaml", 213, 121, 0, 121, id="tenth-dev"),
    # the eleventh corpus (657 answers, three writers: structured and tool-shaped outputs, other locales'
    # conventions, long sectioned answers with context after the answer), all of it dev data: first score
    # (dee42bc) P 0.994, R 0.924 (2 fp, 28 misses); classes fixed after (a choice fp on numeric options; a JSON
    # answer read by its answer field; result labels, a marked list item, informal yes words, a radix prefix,
    # the odd one out named apart from the group, the field the question asks for in a JSON object or a
    # key: value record, a checked predicate)
    pytest.param("extraction_corpus_blind11_dev.yaml", 657, 367, 0, 366, id="eleventh-dev"),
    # this round's untouched sets, each first scored on dee42bc and scored once on the final code 365bec0:
    # the eighth holdout (the done-when set): P 1.000 / R 0.962 first, P 1.000 / R 0.973 (256/263) final
    pytest.param("extraction_corpus_blind8_holdout_spent.yaml", 452, 263, 0, 256, id="eighth-holdout-spent"),
    # the ninth holdout: P 0.975 / R 0.958 first, P 0.983 / R 0.967 final (2 fp: "a tie between India and
    # China" for India, "C++" for C); both classes fixed after (a mark the answer adds, a tie), fp floor 0
    pytest.param("extraction_corpus_blind9_holdout_spent.yaml", 217, 120, 0, 116, id="ninth-holdout-spent"),
    # the tenth holdout: P 0.975 / R 0.959 first, P 0.984 / R 0.976 final (2 fp: "C++ — …" for C, a name
    # that is only the object of another subject's sentence); the "C++" class fixed after, fp floor 1
    pytest.param("extraction_corpus_blind10_holdout_spent.yaml", 219, 123, 1, 120, id="tenth-holdout-spent"),
    # the twelfth corpus (no split, a probe of how the round's rules generalise): P 0.994 / R 0.972 first,
    # 0.994 / 0.975 mid-round (ea8df73) and final
    pytest.param("extraction_corpus_blind12_spent.yaml", 648, 357, 2, 348, id="twelfth-spent"),
]


@pytest.mark.parametrize(("name", "answers", "right", "max_fp", "min_tp"), FLOORS)
def test_a_spent_or_tuned_blind_set_keeps_its_floor(
    name: str, answers: int, right: int, max_fp: int, min_tp: int
) -> None:
    """No false positive beyond the set's own, and never fewer answers read correctly than its floor."""
    rows = load_corpus_file(TEST_DATA / name)
    assert len(rows) == answers and sum(r["correct"] for r in rows) == right
    stats, misses = _scored(rows)
    assert stats["all"]["fp"] <= max_fp, misses
    assert stats["all"]["tp"] >= min_tp, misses
