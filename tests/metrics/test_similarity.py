"""Seed 002 similarity: token overlap (the team Jaccard), difflib sequence ratio, their weighted mix."""

from __future__ import annotations

import pytest

from harness.metrics.similarity import (
    SEQUENCE_MAX_CHARS,
    combined_similarity,
    sequence_similarity,
    token_overlap_similarity,
)


def test_token_overlap_is_jaccard_of_two_letter_tokens() -> None:
    # {the, cat, sat} vs {the, cat, ran}: 2 shared of 4 distinct.
    assert token_overlap_similarity("The cat sat", "the cat ran") == pytest.approx(0.5)
    # single letters are not tokens: {is, on} vs {is, on, mat} -> 2/3
    assert token_overlap_similarity("A is on", "is on a mat") == pytest.approx(2 / 3)


def test_token_overlap_empty_sets() -> None:
    assert token_overlap_similarity("", "a b") == 1.0  # neither has a token
    assert token_overlap_similarity("", "word") == 0.0


def test_sequence_similarity_is_difflib_ratio() -> None:
    # "abc" matches: 2*3/(4+4)
    assert sequence_similarity("abcd", "abce") == pytest.approx(0.75)
    # "he cat " (7) + "a" (1) matched: 2*8/(11+11); case matters ("T" != "t")
    assert sequence_similarity("The cat sat", "the cat ran") == pytest.approx(16 / 22)
    assert sequence_similarity("", "") == 1.0
    assert sequence_similarity("abc", "") == 0.0
    assert sequence_similarity("abc", "xyz") == 0.0


def test_sequence_similarity_bounds_cost_by_comparing_prefixes() -> None:
    assert sequence_similarity("abcdef", "abcxyz", max_chars=3) == 1.0
    assert sequence_similarity("abcdef", "abcxyz", max_chars=None) == pytest.approx(0.5)
    long_a = "a" * SEQUENCE_MAX_CHARS + "X" * 10
    long_b = "a" * SEQUENCE_MAX_CHARS + "Y" * 10
    assert sequence_similarity(long_a, long_b) == 1.0  # only the first SEQUENCE_MAX_CHARS compared
    with pytest.raises(ValueError, match="max_chars"):
        sequence_similarity("a", "b", max_chars=0)


def test_combined_similarity_default_weights() -> None:
    # 0.6 * 0.5 + 0.4 * 16/22
    assert combined_similarity("The cat sat", "the cat ran") == pytest.approx(0.3 + 0.4 * 16 / 22)
    assert combined_similarity("same text", "same text") == pytest.approx(1.0)


def test_combined_similarity_custom_weights() -> None:
    assert combined_similarity("The cat sat", "the cat ran", 1.0, 0.0) == pytest.approx(0.5)
    assert combined_similarity("The cat sat", "the cat ran", 0.0, 1.0) == pytest.approx(16 / 22)


@pytest.mark.parametrize(
    ("tw", "sw", "message"),
    [(0.5, 0.6, "must be 1"), (-0.1, 1.1, "token_weight"), (float("nan"), 1.0, "token_weight"), (1.0, -0.0001, "seq")],
)
def test_combined_similarity_rejects_bad_weights(tw: float, sw: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        combined_similarity("a", "b", tw, sw)
