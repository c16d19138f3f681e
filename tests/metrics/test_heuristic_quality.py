"""Seed 002's five-component heuristic quality, checked on hand-made texts and the seed's appendix examples."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.metrics.heuristic_quality import (
    HeuristicWeights,
    answer_completeness,
    citation_density,
    count_contradictions,
    detect_citations,
    error_freedom,
    has_transition,
    heuristic_quality,
    heuristic_quality_scores,
    semantic_coherence,
    semantic_richness,
)
from harness.records.score_spec import SCORES

# The three responses of the seed's appendix, verbatim.
EXAMPLE_1 = (
    "The relationship between the variables demonstrates a complex feedback loop that creates emergent "
    "properties. First, variable A directly influences B through a positive feedback mechanism (source: Smith "
    "2023). Second, B's response generates a lagged effect on C, which then modulates A through a negative "
    "feedback loop (Jones 2024). The system reaches dynamic equilibrium at a point where the sum of feedback "
    "forces equals zero. This mathematical isomorphism with predator-prey dynamics (Lotka-Volterra equations) "
    "suggests the system exhibits periodic oscillations with a specific frequency predictable from the coupling "
    "constants."
)
EXAMPLE_2 = (
    "The variables interact in several ways. Variable A affects B, and B affects C. The system seems to go "
    "through cycles where it repeats patterns. This reminds me of simple predator-prey models from ecology. The "
    "equilibrium point is where the forces balance out."
)
EXAMPLE_3 = (
    "The variables like do stuff and there is a feedback loop. It goes up and down. Kind of like nature you know?"
)

# 15 words; four of them make 4 sentences + the empty piece after the last period: 60/5 = 12 words.
SENTENCE_15 = "Therefore the answer follows from the three facts that are listed in the first part."


def words(n: int) -> str:
    return " ".join(["word"] * n)


# --- component 1: semantic coherence ----------------------------------------------------------


def test_coherence_full_marks() -> None:
    text = f"{SENTENCE_15} {SENTENCE_15}\n\n{SENTENCE_15} {SENTENCE_15}"
    # 10 (2 paragraphs) + 15 (5 pieces > 3) + 20 (avg 12.0, the lower bound) + 20 (no contradiction)
    # + 15 ("therefore") + min(20, 7*3)
    assert semantic_coherence(text, citation_count=7) == 100.0
    assert semantic_coherence(text, citation_count=0) == 80.0
    assert semantic_coherence(text, citation_count=2) == 86.0


def test_coherence_empty_piece_counts_as_a_sentence() -> None:
    # "One two three four" + empty piece: 2 pieces (not > 3), avg 2 words; 20 (no contradiction) only.
    assert semantic_coherence("One two three four.", 0) == 20.0
    # four periods -> 5 pieces > 3: +15
    assert semantic_coherence("One. Two. Three. Four.", 0) == 35.0


def test_coherence_contradiction_penalty() -> None:
    text = "Cats sleep a lot. However, dogs definitely bark."
    # 3 pieces, avg 8/3 words; 1 contradiction -> -5; "however" is a transition -> +15
    assert count_contradictions(text) == 1
    assert semantic_coherence(text, 0) == 10.0


def test_coherence_clamped_at_zero() -> None:
    text = " ".join(
        f"It is {a} but obviously {b}."
        for a, b in [("red", "blue"), ("hot", "cold"), ("big", "small"), ("up", "down"), ("new", "old")]
    )
    # 6 pieces -> +15; 5 contradictions -> -min(20, 25); no transition: 15 - 20 = -5 -> 0
    assert count_contradictions(text) == 5
    assert semantic_coherence(text, 0) == 0.0
    assert semantic_coherence(text, 2) == 1.0  # -5 + 6


def test_contradictions_need_order_within_one_sentence() -> None:
    assert count_contradictions("However, it rains. Definitely wet.") == 0
    assert count_contradictions("Definitely wet, however it rains.") == 0
    assert count_contradictions("Although odd, it certainly works; but it is obviously slow.") == 2


def test_transitions_are_whole_words() -> None:
    assert not has_transition("The enthusiast waited.")  # "thus" inside a word
    assert has_transition("Thus it holds.")
    assert not has_transition("It was the first time.")
    assert has_transition("First, we boil the water.")
    assert has_transition("In addition to salt.")
    assert not has_transition("in additional cases")


# --- component 2: citation density -------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_words", "n_citations", "expected"),
    [
        (100, 1, 100.0),  # 1.0 per 100 words
        (125, 1, 100.0),  # 0.8, lower bound of the ideal range
        (200, 1, 85.0),  # 0.5
        (100, 2, 70.0),  # 2.0
        (40, 1, 50.0),  # 2.5: cited, but outside every range
        (100, 5, 50.0),
        (100, 0, 30.0),  # unsourced
        (0, 3, 0.0),  # no words
    ],
)
def test_citation_density_tiers(n_words: int, n_citations: int, expected: float) -> None:
    assert citation_density(words(n_words), n_citations) == expected


# --- component 3: semantic richness ------------------------------------------------------------


def test_richness_components() -> None:
    # diversity 2/4 = 0.5 -> 40; average word length 4.5 -> 30; no markers
    assert semantic_richness("alpha beta alpha beta") == 70.0
    # 3/10 = 0.3 -> 30; length 4.0 -> 20
    assert semantic_richness("cats cats cats cats cats cats cats cats dogs mice") == 50.0
    # words "(a):", "b;", "c": diversity 1.0 -> 20; length 7/3 -> 0; markers ( : ; -> 3*2 = 6
    assert semantic_richness("(a): b; c") == 26.0
    # one word of 20 "(": diversity 1 -> 20; length 20 -> 10; markers min(30, 40) -> 30
    assert semantic_richness("(" * 20) == 60.0
    # diversity 1/6 < 0.2 -> 0; length 2 -> 0
    assert semantic_richness("go go go go go go") == 0.0


# --- component 4: answer completeness ----------------------------------------------------------


def test_completeness_counts_non_blank_lines() -> None:
    assert answer_completeness("one") == 70.0  # 1 >= 3-2
    assert answer_completeness("one\ntwo") == 85.0
    assert answer_completeness("one\ntwo\n\n   \nthree") == 100.0
    assert answer_completeness("a\nb", expected_aspects=5) == 50.0  # only reachable for 5+ aspects
    assert answer_completeness("a", expected_aspects=5) == 25.0
    assert answer_completeness("   \n ") == 0.0
    with pytest.raises(ValueError, match="expected_aspects"):
        answer_completeness("a", expected_aspects=0)


# --- component 5: error freedom ----------------------------------------------------------------


def test_error_freedom_penalties() -> None:
    assert error_freedom("We went to the store and. Then home.") == 95.0
    assert error_freedom("First, second, third,") == 95.0
    assert error_freedom("I like this color. And the doctor.") == 100.0  # words ending in "or" are whole
    assert error_freedom("the the cat sat sat") == 94.0  # two doubled words
    assert error_freedom("[1 is open") == 90.0
    assert error_freedom(" ".join(f"{c} and." for c in "abcdefgh")) == 70.0  # 8 incomplete, capped at 30
    assert error_freedom("go go go go go go go go") == 80.0  # 7 doubled, capped at 20


# --- citations, weights, overall ----------------------------------------------------------------


def test_detect_citations() -> None:
    text = (
        "See https://example.org/a. Also (Smith 2023) and (source: Jones 2024), plus "
        "(Lee et al., 2021; Kim 2020) and [1] and [2, 3]. Not (Lotka-Volterra equations) nor (1999)."
    )
    assert detect_citations(text) == [
        "https://example.org/a",
        "Smith 2023",
        "Jones 2024",
        "Lee et al., 2021",
        "Kim 2020",
        "[1]",
        "[2, 3]",
    ]
    assert detect_citations("No sources here.") == []


def test_weights_validated() -> None:
    with pytest.raises(ValidationError, match="sum to 1"):
        HeuristicWeights(semantic_coherence=0.30)
    with pytest.raises(ValidationError, match="non-negative"):
        HeuristicWeights(semantic_coherence=-0.05, error_freedom=0.45)
    only_coherence = HeuristicWeights(
        semantic_coherence=1.0, citation_density=0, semantic_richness=0, answer_completeness=0, error_freedom=0
    )
    assert heuristic_quality(EXAMPLE_2, weights=only_coherence).overall == 35.0


def test_empty_text_scores_zero() -> None:
    q = heuristic_quality("  \n ")
    assert q.model_dump(exclude={"capped_at"}) == dict.fromkeys(q.model_dump(exclude={"capped_at"}), 0.0)
    assert q.capped_at is None


# --- the seed's appendix examples --------------------------------------------------------------


def test_appendix_example_1() -> None:
    # By hand: 87 words; citations (source: Smith 2023) and (Jones 2024) -> 2 (the parenthetical
    # "(Lotka-Volterra equations)" has no year). '.' pieces: 14, 14, 20, 16, 23, 0 words -> 6
    # pieces, avg 14.5.
    #   coherence  = 15 (6 > 3) + 20 (14.5 in 12-20) + 20 (no contradiction) + 15 ("first,")
    #                + 6 (2 citations) = 76
    #   density    = 2/87*100 = 2.30 per 100 words > 2.0, cited -> 50
    #   richness   = 20 (68/87 = 0.78 unique) + 10 (6.26 letters) + 8 (3 "(" + 1 ":") = 38
    #   complete   = 1 line -> 70;  errors = 100
    #   overall    = .25*76 + .2*50 + .2*38 + .2*70 + .15*100 = 65.6   (the seed says 91)
    assert detect_citations(EXAMPLE_1) == ["Smith 2023", "Jones 2024"]
    q = heuristic_quality(EXAMPLE_1)
    assert (q.semantic_coherence, q.citation_density, q.semantic_richness) == (76.0, 50.0, 38.0)
    assert (q.answer_completeness, q.error_freedom) == (70.0, 100.0)
    assert q.overall == pytest.approx(65.6)


def test_appendix_example_2() -> None:
    # coherence 15 + 20 = 35 (avg 43/6 = 7.2 words, no transition); density 30 (no citation);
    # richness 20 (38/43 = 0.88) + 30 (5.05 letters) = 50; 70; 100 -> overall 53.75 (seed: 65)
    q = heuristic_quality(EXAMPLE_2)
    assert q.model_dump(exclude={"capped_at"}) == {
        "semantic_coherence": 35.0,
        "citation_density": 30.0,
        "semantic_richness": 50.0,
        "answer_completeness": 70.0,
        "error_freedom": 100.0,
        "overall": 53.75,
    }


def test_appendix_example_3() -> None:
    # coherence 20 (3 pieces, no transition); density 30; richness 20 (20/22) + 10 (3.95 letters);
    # 70; 100 (no piece ends in a dangling word) -> overall 46 (seed: 27)
    q = heuristic_quality(EXAMPLE_3)
    assert q.model_dump(exclude={"capped_at"}) == {
        "semantic_coherence": 20.0,
        "citation_density": 30.0,
        "semantic_richness": 30.0,
        "answer_completeness": 70.0,
        "error_freedom": 100.0,
        "overall": 46.0,
    }


def test_explicit_citation_count_overrides_detection() -> None:
    q = heuristic_quality(EXAMPLE_1, citation_count=3)
    assert q.semantic_coherence == 79.0  # 76 - 6 + 9
    assert q.overall == pytest.approx(65.6 + 0.25 * 3)


def test_scores_for_any_final_answer() -> None:
    q, score_set = heuristic_quality_scores(EXAMPLE_2)
    assert score_set.scores == {
        "heuristic_quality": 53.75,
        "hq_semantic_coherence": 35.0,
        "hq_citation_density": 30.0,
        "hq_semantic_richness": 50.0,
        "hq_answer_completeness": 70.0,
        "hq_error_freedom": 100.0,
    }
    assert q.overall == 53.75
    assert set(score_set.scores) <= set(SCORES)


# --- issue 10 item 9: hostile answers are scored in linear time, on a capped text ------------------------


@pytest.mark.timeout(60)  # fails instead of hanging (quadratic on this input?)
def test_a_megabyte_of_but_is_capped_and_scored_by_hand() -> None:
    """1 MB of "but " (37 s for 128 KB before): only the first 50,000 characters are scored.

    Capped text: 12,500 words "but", no period, no newline. Coherence: no paragraphs, 1 piece, average
    12,500 words, no contradiction (+20), no transition, no citation = 20. Density: no citation = 30.
    Richness: diversity 1/12,500 < 0.2 (0), word length 3 (0), no markers = 0. Completeness: 1 line
    of 3 expected = 70. Error freedom: the one piece ends with "but" (-5), 12,499 doubled words
    (-20) = 75. Overall .25*20 + .2*30 + .2*0 + .2*70 + .15*75 = 36.25.
    """
    from harness.metrics.heuristic_quality import TEXT_LIMIT

    q = heuristic_quality("but " * 262_144)
    assert q.capped_at == TEXT_LIMIT == 50_000
    assert (q.semantic_coherence, q.citation_density, q.semantic_richness, q.answer_completeness, q.error_freedom) == (
        20.0,
        30.0,
        0.0,
        70.0,
        75.0,
    )
    assert q.overall == pytest.approx(36.25)
    assert heuristic_quality("but it is fine.").capped_at is None


@pytest.mark.parametrize(
    "text",
    [
        "a." * 200_000,
        "however " * 6000 + "definitely",
        "http" * 100_000,
        "(Smith " * 60_000,
        "[1," * 100_000,
    ],
)
@pytest.mark.timeout(60)  # fails instead of hanging (quadratic on this input?)
def test_hostile_patterns_finish(text: str) -> None:
    q = heuristic_quality(text)
    assert (q.capped_at is not None) == (len(text) > 50_000)
    assert 0.0 <= q.overall <= 100.0


def test_contradictions_keep_their_meaning() -> None:
    """A pair counts when its second word follows the first one in the same '.' piece (as the old regex)."""
    assert count_contradictions("However, it is definitely true.") == 1
    assert count_contradictions("Definitely. However true") == 0
    assert count_contradictions("definitely however") == 0
    assert count_contradictions("but but but obviously") == 1
    assert count_contradictions("butobviously but") == 0
    assert count_contradictions("however definitely but obviously. although certainly") == 3
    assert count_contradictions("however " * 6000 + "definitely") == 1
