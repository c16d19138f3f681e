"""The dev half of the blind corpus (issue 26) as a regression set: written by someone who had not
read the extractor, it guided issue 26's rule changes; every answer must keep its score."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from bench.bench_extraction import (
    BLIND2_DEV,
    BLIND2_DEV_FIRST,
    BLIND_DEV,
    BLIND_DEV_FIRST,
    load_corpus_file,
    score_row,
    summarize,
)

ROWS = load_corpus_file(BLIND_DEV)


def test_the_blind_dev_half_is_all_there() -> None:
    assert len(ROWS) == BLIND_DEV_FIRST["all"][0] == 254
    assert sum(r["correct"] for r in ROWS) == BLIND_DEV_FIRST["all"][1]
    assert {r["expected"]["type"] for r in ROWS} == set(BLIND_DEV_FIRST) - {"all"}


def test_the_blind_dev_half_scores_without_false_positives() -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:  # python rows wait on sandbox subprocesses
        scored = list(pool.map(score_row, ROWS))
    stats = summarize(scored)
    misses = [(r["id"], r["correct"], r["detail"][:160]) for r in scored if r["scored"] != r["correct"]]
    assert stats["all"]["fp"] == 0, misses
    assert stats["all"]["recall"] >= 0.99, misses
    for kind, s in stats.items():
        assert s["precision"] == 1.0, (kind, misses)
        assert s["recall"] >= BLIND_DEV_FIRST[kind][3], (kind, misses)  # never below the first score


def test_the_spent_holdout_keeps_its_final_score() -> None:
    """The holdout half, spent after its single final score (docs/extraction.md): no false positive, and
    recall never below 129 of 129 (121 at that score; the classes behind its eight misses were fixed after)."""
    from tests.paths import TEST_DATA

    rows = load_corpus_file(TEST_DATA / "extraction_corpus_blind_holdout_spent.yaml")
    assert len(rows) == 246 and sum(r["correct"] for r in rows) == 129
    with ThreadPoolExecutor(max_workers=4) as pool:
        scored = list(pool.map(score_row, rows))
    stats = summarize(scored)
    misses = [(r["id"], r["correct"], r["detail"][:160]) for r in scored if r["scored"] != r["correct"]]
    assert stats["all"]["fp"] == 0, misses
    assert stats["all"]["tp"] >= 129, (
        misses
    )  # 121 at its final score; 129 after the classes behind its misses were fixed


def test_the_second_blind_dev_half_scores_without_false_positives() -> None:
    """The dev half of the second blind corpus: its first score (bc1e952) had 5 false positives and
    4 misses; after the classes behind them were fixed it reads every answer as labelled. No false
    positive may come back, and recall stays at that floor (141 of 141) and never below the first
    score per type."""
    rows = load_corpus_file(BLIND2_DEV)
    assert len(rows) == BLIND2_DEV_FIRST["all"][0] and sum(r["correct"] for r in rows) == BLIND2_DEV_FIRST["all"][1]
    with ThreadPoolExecutor(max_workers=4) as pool:
        scored = list(pool.map(score_row, rows))
    stats = summarize(scored)
    misses = [(r["id"], r["correct"], r["detail"][:160]) for r in scored if r["scored"] != r["correct"]]
    assert stats["all"]["fp"] == 0, misses
    assert stats["all"]["tp"] >= 141, misses
    for kind, s in stats.items():
        assert s["precision"] == 1.0, (kind, misses)
        assert s["recall"] >= BLIND2_DEV_FIRST[kind][3], (kind, misses)


def test_the_second_spent_holdout_keeps_its_score() -> None:
    """The second blind corpus's holdout half, spent after its single final score (P 0.993, R 0.957:
    1 false positive, 6 misses; docs/extraction.md). After the classes behind them were fixed it reads
    139 of 139: no false positive may come back and recall stays at that floor."""
    from tests.paths import TEST_DATA

    rows = load_corpus_file(TEST_DATA / "extraction_corpus_blind2_holdout_spent.yaml")
    assert len(rows) == 276 and sum(r["correct"] for r in rows) == 139
    with ThreadPoolExecutor(max_workers=4) as pool:
        scored = list(pool.map(score_row, rows))
    stats = summarize(scored)
    misses = [(r["id"], r["correct"], r["detail"][:160]) for r in scored if r["scored"] != r["correct"]]
    assert stats["all"]["fp"] == 0, misses
    assert stats["all"]["tp"] >= 139, misses


def test_the_third_blind_dev_half_scores_without_false_positives() -> None:
    """The dev half of the third blind corpus: its first score (c760b25) had 2 false positives and no
    miss; after the classes behind them were fixed it reads 111 of 111 with no false positive."""
    from tests.paths import TEST_DATA

    rows = load_corpus_file(TEST_DATA / "extraction_corpus_blind3_dev.yaml")
    assert len(rows) == 215 and sum(r["correct"] for r in rows) == 111
    with ThreadPoolExecutor(max_workers=4) as pool:
        scored = list(pool.map(score_row, rows))
    stats = summarize(scored)
    misses = [(r["id"], r["correct"], r["detail"][:160]) for r in scored if r["scored"] != r["correct"]]
    assert stats["all"]["fp"] == 0, misses
    assert stats["all"]["tp"] >= 111, misses


def test_the_third_spent_holdout_keeps_its_score() -> None:
    """The third blind corpus's holdout half, spent after its single final score at 145c7d2 (P 0.991,
    R 0.981: 1 false positive, 2 misses; docs/extraction.md). After the classes behind them were fixed
    (a value named only as what others think; a trailing appositive) it reads 107 of 107: no false
    positive may come back and recall stays at that floor."""
    from tests.paths import TEST_DATA

    rows = load_corpus_file(TEST_DATA / "extraction_corpus_blind3_holdout_spent.yaml")
    assert len(rows) == 209 and sum(r["correct"] for r in rows) == 107
    with ThreadPoolExecutor(max_workers=4) as pool:
        scored = list(pool.map(score_row, rows))
    stats = summarize(scored)
    misses = [(r["id"], r["correct"], r["detail"][:160]) for r in scored if r["scored"] != r["correct"]]
    assert stats["all"]["fp"] == 0, misses
    assert stats["all"]["tp"] >= 107, misses


def test_the_fourth_blind_corpus_keeps_its_single_score() -> None:
    """The fourth blind corpus (363 answers, 168 wrong), written while round 5 closed and scored once on
    the final code with no rule changed for it (43162fb: P 0.995 (191 of 192), R 0.979; 1 false positive,
    "It's usually credited to Einstein", and 4 misses; bench/extraction_blind). Kept as it was scored: no
    new false positive, no recall lost."""
    from tests.paths import TEST_DATA

    rows = load_corpus_file(TEST_DATA / "extraction_corpus_blind4_spent.yaml")
    assert len(rows) == 363 and sum(r["correct"] for r in rows) == 195
    with ThreadPoolExecutor(max_workers=4) as pool:
        scored = list(pool.map(score_row, rows))
    stats = summarize(scored)
    misses = [(r["id"], r["correct"], r["detail"][:160]) for r in scored if r["scored"] != r["correct"]]
    assert stats["all"]["fp"] <= 1, misses
    assert stats["all"]["tp"] >= 191, misses
