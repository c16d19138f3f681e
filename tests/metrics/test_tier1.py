"""Tier 1 metrics against hand-worked values from the definitions in DESIGN.md."""

from __future__ import annotations

import pytest

from harness.common.text import jaccard, tokens
from harness.metrics import (
    consensus_band,
    consensus_strength_score,
    deliberation_depth_index,
    quality_warnings,
    review_justification,
    synthesis_attribution_score,
)
from harness.metrics.tier1 import SynthesisAttribution


def test_tokenizer_and_jaccard_conventions() -> None:
    assert tokens("A cat, THE cat; x y 42") == {"cat", "the", "42"}
    assert jaccard("", "") == 1.0  # two empty token sets
    assert jaccard("a b", "x") == 1.0  # single characters are not tokens: both empty
    assert jaccard("", "cat") == 0.0
    assert jaccard("the cat sat", "the dog sat") == pytest.approx(2 / 4)


@pytest.mark.parametrize(
    ("positions", "expected"),
    [
        ([], 0.0),
        ([("a", 2.0)], 1.0),
        ([("a", 2.0), ("b", 2.0), ("c", 2.0)], 1.0),
        ([("a", 1.5), ("b", 1.5)], 1.0),
        # seed 000 "strong" example: wm=2.5/3, rr=1, gaps [2.5,0,.5] pvar 3.5/3 -> gc=1/2.1667,
        # oc=.5+.2308=.7308, non_tie=.75 -> .3333+.2923+.15 = .7756
        ([("a", 1.0), ("b", 3.5), ("c", 3.5), ("d", 4.0)], 0.776),
        # seed 000 "split" example: wm=0, rr=2/3, gaps [0,2,0] pvar 8/9 -> gc=.5294, oc=.5980,
        # non_tie=.5 -> .2392+.1 = .3392 (the blog's "~0.45" does not follow from the formula)
        ([("a", 1.5), ("b", 1.5), ("c", 3.5), ("d", 3.5)], 0.339),
        # perfect order 1,2,3: wm=.5, rr=1, gc=1, oc=1, non_tie=1 -> .2+.4+.2
        ([("a", 1.0), ("b", 2.0), ("c", 3.0)], 0.8),
        # unsorted input is sorted first
        ([("c", 3.0), ("a", 1.0), ("b", 2.0)], 0.8),
        # a member with no votes has no position and is left out: [1,2] -> 1.0
        ([("a", 1.0), ("b", None), ("c", 2.0)], 1.0),
    ],
)
def test_css_hand_worked(positions: list, expected: float) -> None:
    assert consensus_strength_score(positions) == expected


def test_css_bands() -> None:
    assert consensus_band(0.85) == "strong"
    assert consensus_band(0.849) == "moderate"
    assert consensus_band(0.70) == "moderate"
    assert consensus_band(0.5) == "weak"
    assert consensus_band(0.499) == "significant disagreement"


def test_ddi_partial_reviews() -> None:
    answers = ["the cat sat", "the dog sat"]
    reviews = ["Response A is correct because it names the cat. FINAL RANKING:\n1. Response A\n2. Response B"]
    ddi, comp = deliberation_depth_index(answers, reviews)
    # diversity 1-.5=.5; coverage 1/2; richness 9 words/50=.18 -> .175+.175+.054
    assert comp == {"diversity": 0.5, "coverage": 0.5, "richness": 0.18}
    assert ddi == 0.404


def test_ddi_empty_and_single() -> None:
    assert deliberation_depth_index([], ["x"]) == (0.0, {"diversity": 0.0, "coverage": 0.0, "richness": 0.0})
    ddi, comp = deliberation_depth_index(["only one answer"], [])
    assert (ddi, comp) == (0.0, {"diversity": 0.0, "coverage": 0.0, "richness": 0.0})


def test_ddi_json_ballot_justification_and_empty_ones_skipped() -> None:
    review = 'Preface text. ```json\n{"critique": "B is wrong about the date", "ranking": ["Response A"]}\n```'
    assert review_justification(review) == "Preface text. B is wrong about the date"
    answers = ["alpha beta", "gamma delta"]
    ddi, comp = deliberation_depth_index(answers, [review, "FINAL RANKING:\n1. Response A"])
    # justifications: 8 words and "" (skipped) -> richness 8/50; coverage 2/2; diversity 1-0=1
    assert comp == {"diversity": 1.0, "coverage": 1.0, "richness": 0.16}
    assert ddi == round(0.35 + 0.35 + 0.30 * 0.16, 3)


def test_ddi_richness_caps_and_coverage_caps() -> None:
    long_review = " ".join(["word"] * 120)
    ddi, comp = deliberation_depth_index(["aa", "bb"], [long_review, long_review, long_review])
    assert comp["richness"] == 1.0 and comp["coverage"] == 1.0
    assert ddi == 1.0


def test_raw_json_review_without_critique_uses_outside_text() -> None:
    assert review_justification('{"ranking": ["Response B", "Response A"]}') == ""
    assert review_justification('I prefer B. {"ranking": ["Response B"]}') == "I prefer B."


def test_sas_hand_worked() -> None:
    synthesis = "Paris is the capital of France"
    answers = ["Paris is the capital", "Berlin is a city"]
    sas = synthesis_attribution_score(synthesis, [answers[0]], answers)
    # syn {paris,is,the,capital,of,france}; A {paris,is,the,capital} -> 4/6; B {berlin,is,city} -> 1/8
    assert sas == SynthesisAttribution(
        winner_alignment=0.667, max_source_alignment=0.667, hallucination_risk=0.333, grounded=True
    )


def test_sas_empty_and_default_winner() -> None:
    empty = SynthesisAttribution(winner_alignment=0.0, max_source_alignment=0.0, hallucination_risk=1.0, grounded=False)
    assert synthesis_attribution_score("", ["x"], ["x"]) == empty
    assert synthesis_attribution_score("text here", [], []) == empty
    # no winners: the first answer stands in -> winner alignment 1/8 from "Berlin is a city"
    answers = ["Berlin is a city", "Paris is the capital"]
    sas = synthesis_attribution_score("Paris is the capital of France", [], answers)
    assert sas.winner_alignment == 0.125
    assert sas.max_source_alignment == 0.667


def test_sas_threshold_compared_unrounded() -> None:
    # max alignment 2/3 = .6667 rounds to .667 but is below a .667 threshold
    sas = synthesis_attribution_score("aa bb cc", ["aa bb"], ["aa bb"], grounding_threshold=0.667)
    assert sas.max_source_alignment == 0.667
    assert sas.grounded is False
    assert synthesis_attribution_score("aa bb cc", ["aa bb"], ["aa bb"], grounding_threshold=0.6666).grounded


def test_warnings() -> None:
    good = SynthesisAttribution(winner_alignment=0.9, max_source_alignment=0.9, hallucination_risk=0.1, grounded=True)
    assert quality_warnings(0.9, 0.8, good) == []
    bad = SynthesisAttribution(winner_alignment=0.1, max_source_alignment=0.3, hallucination_risk=0.7, grounded=False)
    assert quality_warnings(0.49, 0.39, bad) == [
        "low_consensus",
        "shallow_deliberation",
        "hallucination_risk",
        "synthesis_not_grounded",
    ]
    edge = SynthesisAttribution(winner_alignment=0.6, max_source_alignment=0.6, hallucination_risk=0.4, grounded=True)
    assert quality_warnings(0.5, 0.4, edge) == []
