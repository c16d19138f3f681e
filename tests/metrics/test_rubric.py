"""Rubric scoring with the accuracy ceiling (seed 004), custom weights, and the peer breakdown."""

from __future__ import annotations

import math

import pytest

from harness.common.errors import ConfigError, HarnessError
from harness.config import RubricWeights, load_settings
from harness.council.ranking import aggregate_rankings, parse_ballot
from harness.metrics import weighted_score_with_ceiling
from harness.metrics.rubric import (
    HIGH_VARIANCE_FLAG,
    MissingAccuracyError,
    RubricScoreError,
    accuracy_ceiling,
    peer_composite,
    peer_rubric_breakdown,
    rubric_breakdown,
    score_with_ceiling,
    weights_from_env,
)
from harness.records.transcript import Answer, Ballot, Review, Transcript

DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")


def s(*values: float) -> dict[str, float]:
    return dict(zip(DIMS, values, strict=True))


# --- seed 004 worked examples ---------------------------------------------------------------


def test_well_written_hallucination_is_capped_at_4():
    # 0.35*3 + 0.10*10 + 0.20*9 + 0.15*9 + 0.20*10 = 1.05 + 1.0 + 1.8 + 1.35 + 2.0 = 7.2
    result = score_with_ceiling(s(3, 10, 9, 9, 10))
    assert result.base == 7.2
    assert result.ceiling == 4.0
    assert result.score == 4.0
    assert result.ceiling_applied is True
    assert result.effect == "capped_at_4"
    assert weighted_score_with_ceiling(s(3, 10, 9, 9, 10)) == 4.0


def test_canberra_scores_9_8_without_ceiling():
    # 3.5 + 1.0 + 1.8 + 1.5 + 2.0 = 9.8
    result = score_with_ceiling(s(10, 10, 9, 10, 10))
    assert result.base == 9.8
    assert result.score == 9.8
    assert result.ceiling_applied is False
    assert result.effect == "none"
    assert weighted_score_with_ceiling(s(10, 10, 9, 10, 10)) == 9.8


def test_sydney_6_8_is_capped_at_4():
    # 0.7 + 1.0 + 1.6 + 1.5 + 2.0 = 6.8
    result = score_with_ceiling(s(2, 10, 8, 10, 10))
    assert result.base == 6.8
    assert result.score == 4.0
    assert result.effect == "capped_at_4"


def test_accuracy_6_is_capped_at_7():
    # 2.1 + 1.0 + 2.0 + 1.5 + 2.0 = 8.6 -> 7.0
    result = score_with_ceiling(s(6, 10, 10, 10, 10))
    assert result.base == 8.6
    assert result.score == 7.0
    assert result.effect == "capped_at_7"
    assert weighted_score_with_ceiling(s(6, 10, 10, 10, 10)) == 7.0


def test_ceiling_that_does_not_bind_is_not_applied():
    # 2.1 + 0.5 + 1.0 + 0.75 + 1.0 = 5.35, under the 7.0 cap
    result = score_with_ceiling(s(6, 5, 5, 5, 5))
    assert result.score == 5.35
    assert result.ceiling == 7.0
    assert result.ceiling_applied is False
    assert result.effect == "none"


def test_ceiling_thresholds():
    assert accuracy_ceiling(1) == 4.0
    assert accuracy_ceiling(4.99) == 4.0
    assert accuracy_ceiling(5) == 7.0
    assert accuracy_ceiling(6.99) == 7.0
    assert accuracy_ceiling(7) == 10.0
    # accuracy 7 is uncapped: 2.45 + 1 + 2 + 1.5 + 2 = 8.95
    assert weighted_score_with_ceiling(s(7, 10, 10, 10, 10)) == 8.95
    # accuracy 5 is capped at 7: 1.75 + 6.5 = 8.25 -> 7.0
    assert weighted_score_with_ceiling(s(5, 10, 10, 10, 10)) == 7.0


def test_only_present_dimensions_count():
    # seed: base = sum over the present dimensions, no renormalization: 0.35*8 + 0.2*10 = 4.8
    assert weighted_score_with_ceiling({"accuracy": 8, "clarity": 10}) == 4.8
    # unknown keys are ignored
    assert weighted_score_with_ceiling({"accuracy": 8, "clarity": 10, "style": 1}) == 4.8


def test_rounding_to_two_places():
    # 0.35*7 + 0.10*7 + 0.20*7 + 0.15*8 + 0.20*9 = 2.45 + .7 + 1.4 + 1.2 + 1.8 = 7.55
    assert weighted_score_with_ceiling(s(7, 7, 7, 8, 9)) == 7.55
    # 0.35*9 + 0.10*7 + 0.20*8 + 0.15*7 + 0.20*8 = 3.15 + .7 + 1.6 + 1.05 + 1.6 = 8.1
    assert weighted_score_with_ceiling(s(9, 7, 8, 7, 8)) == 8.1


def test_missing_accuracy_is_an_error():
    with pytest.raises(MissingAccuracyError) as info:
        weighted_score_with_ceiling({"relevance": 10, "clarity": 10})
    assert isinstance(info.value, KeyError)
    assert isinstance(info.value, HarnessError)
    assert "accuracy score is required" in str(info.value)


@pytest.mark.parametrize("bad", [0, 11, -3, math.nan, "7", True])
def test_score_outside_1_to_10_is_an_error(bad):
    with pytest.raises(RubricScoreError) as info:
        weighted_score_with_ceiling({"accuracy": 8, "clarity": bad})
    assert "rubric score 'clarity'" in str(info.value)
    assert "from 1 to 10" in str(info.value)


# --- weights -----------------------------------------------------------------------------------


def test_custom_weights_mapping_and_model():
    weights = {"accuracy": 0.5, "relevance": 0.1, "completeness": 0.1, "conciseness": 0.1, "clarity": 0.2}
    # 0.5*8 + 0.1*10 + 0.1*10 + 0.1*10 + 0.2*10 = 4 + 1 + 1 + 1 + 2 = 9.0
    assert weighted_score_with_ceiling(s(8, 10, 10, 10, 10), weights) == 9.0
    assert weighted_score_with_ceiling(s(8, 10, 10, 10, 10), RubricWeights(**weights)) == 9.0


def test_weights_not_summing_to_one_name_the_problem():
    # missing dimensions take the defaults: 0.5 + 0.1 + 0.2 + 0.15 + 0.2 = 1.15
    with pytest.raises(ConfigError) as info:
        weighted_score_with_ceiling(s(8, 8, 8, 8, 8), {"accuracy": 0.5})
    assert "sum to 1" in str(info.value)
    assert "1.1500" in str(info.value)


def test_negative_or_unknown_weights_are_errors():
    with pytest.raises(ConfigError, match="non-negative"):
        # sums to 1.0 but one weight is negative
        weighted_score_with_ceiling(s(8, 8, 8, 8, 8), {"accuracy": -0.1, "relevance": 0.55})
    with pytest.raises(ConfigError, match="style"):
        weighted_score_with_ceiling(s(8, 8, 8, 8, 8), {"style": 0.0})


def test_weights_from_env_absent():
    assert weights_from_env({}) is None
    assert weights_from_env({"LLM_COUNCIL_WEIGHTS": "x", "LLM_COUNCIL_RUBRIC_SCORING": "true"}) is None


def test_weights_from_env_all_five():
    env = {
        "LLM_COUNCIL_WEIGHT_ACCURACY": "0.40",
        "LLM_COUNCIL_WEIGHT_RELEVANCE": "0.10",
        "LLM_COUNCIL_WEIGHT_COMPLETENESS": "0.20",
        "LLM_COUNCIL_WEIGHT_CONCISENESS": "0.10",
        "LLM_COUNCIL_WEIGHT_CLARITY": " 0.20 ",
    }
    assert weights_from_env(env) == {
        "accuracy": 0.40,
        "relevance": 0.10,
        "completeness": 0.20,
        "conciseness": 0.10,
        "clarity": 0.20,
    }


def test_weights_from_env_partial_and_base():
    # 0.30 + 0.10 + 0.20 + 0.15 + 0.25 = 1.0: the others keep their defaults
    got = weights_from_env({"LLM_COUNCIL_WEIGHT_ACCURACY": "0.30", "LLM_COUNCIL_WEIGHT_CLARITY": "0.25"})
    assert got == {"accuracy": 0.30, "relevance": 0.10, "completeness": 0.20, "conciseness": 0.15, "clarity": 0.25}
    # the config file's weights are the base: 0.40 + 0.05 + 0.20 + 0.15 + 0.20 = 1.0
    got = weights_from_env({"LLM_COUNCIL_WEIGHT_CLARITY": "0.2"}, base={"accuracy": 0.40, "relevance": 0.05})
    assert got is not None and got["accuracy"] == 0.40 and got["relevance"] == 0.05


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("abc", "expected a number"),
        ("", "expected a number"),
        ("-0.1", "non-negative"),
        ("nan", "finite"),
        ("inf", "finite"),
    ],
)
def test_weights_from_env_bad_value_names_the_variable(value, expected):
    with pytest.raises(ConfigError) as info:
        weights_from_env({"LLM_COUNCIL_WEIGHT_CONCISENESS": value})
    assert info.value.where == "environment variable LLM_COUNCIL_WEIGHT_CONCISENESS"
    assert expected in info.value.message


def test_weights_from_env_bad_sum_names_the_variables():
    env = {"LLM_COUNCIL_WEIGHT_ACCURACY": "0.5", "LLM_COUNCIL_WEIGHT_CLARITY": "0.3"}
    with pytest.raises(ConfigError) as info:
        weights_from_env(env)
    # 0.5 + 0.1 + 0.2 + 0.15 + 0.3 = 1.25
    assert info.value.where == "environment variable(s) LLM_COUNCIL_WEIGHT_ACCURACY, LLM_COUNCIL_WEIGHT_CLARITY"
    assert "1.2500" in info.value.message


def test_load_settings_reads_the_seed_variables(tmp_path, monkeypatch):
    config = tmp_path / "council-harness.yaml"
    config.write_text("weights:\n  accuracy: 0.40\n  relevance: 0.05\n")
    monkeypatch.setenv("LLM_COUNCIL_WEIGHT_CONCISENESS", "0.10")
    monkeypatch.setenv("LLM_COUNCIL_WEIGHT_CLARITY", "0.25")
    settings = load_settings(config)
    # YAML accuracy/relevance, default completeness, env conciseness/clarity: .40+.05+.20+.10+.25 = 1
    assert settings.weights == RubricWeights(
        accuracy=0.40, relevance=0.05, completeness=0.20, conciseness=0.10, clarity=0.25
    )
    monkeypatch.setenv("LLM_COUNCIL_WEIGHT_CLARITY", "lots")
    with pytest.raises(ConfigError, match="LLM_COUNCIL_WEIGHT_CLARITY"):
        load_settings(config)
    # explicit overrides win over the environment (which is then not read)
    explicit = {"accuracy": 0.35, "relevance": 0.10, "completeness": 0.20, "conciseness": 0.15, "clarity": 0.20}
    assert load_settings(config, weights=explicit).weights == RubricWeights()


# --- breakdown ---------------------------------------------------------------------------------


def test_breakdown_of_one_member_population_std():
    sets = [s(6, 7, 7, 5, 9), s(8, 9, 7, 9, 9), s(10, 8, 7, 7, 9)]
    b = rubric_breakdown("d", sets)
    assert b.mode == "rubric" and b.n_reviews == 3
    acc = b.dimensions["accuracy"]
    # mean 8; population variance ((-2)^2 + 0 + 2^2)/3 = 8/3; std = 1.633 > 1.0 -> flagged
    assert (acc.mean, acc.std, acc.n, acc.weight) == (8.0, 1.633, 3, 0.35)
    assert acc.flag == HIGH_VARIANCE_FLAG
    rel = b.dimensions["relevance"]
    # 7, 9, 8: mean 8, variance 2/3, std 0.816
    assert (rel.mean, rel.std, rel.flag) == (8.0, 0.816, None)
    assert b.dimensions["completeness"].std == 0.0
    assert b.dimensions["conciseness"].flag == HIGH_VARIANCE_FLAG  # 5, 9, 7 -> std 1.633
    # composite of the means: .35*8 + .1*8 + .2*7 + .15*7 + .2*9 = 2.8+.8+1.4+1.05+1.8 = 7.85
    assert b.weighted_composite == 7.85
    assert b.accuracy_ceiling_effect == "none"
    assert acc.ceiling_applied is False
    assert b.dimensions["relevance"].ceiling_applied is None


def test_ceiling_is_applied_per_reviewer_then_averaged():
    # reviewer 1: accuracy 4 -> base .35*4 + (.1+.2+.15+.2)*10 = 1.4 + 6.5 = 7.9, capped at 4.0
    # reviewer 2: all 10 -> 10.0 (no cap). Mean of the capped composites: (4.0 + 10.0) / 2 = 7.0.
    # (The mean accuracy is 7, which would set no cap: .35*7 + 6.5 = 8.95 if the ceiling came last.)
    b = rubric_breakdown("a", [s(4, 10, 10, 10, 10), s(10, 10, 10, 10, 10)])
    assert b.weighted_composite == 7.0
    assert (b.accuracy_ceiling_effect, b.n_capped) == ("capped_at_4", 1)
    assert b.dimensions["accuracy"].ceiling_applied is True
    # accuracy 6 caps one reviewer at 7: base .35*6 + 6.5 = 8.6 -> 7.0; other 10.0 -> mean 8.5
    b7 = rubric_breakdown("a", [s(6, 10, 10, 10, 10), s(10, 10, 10, 10, 10)])
    assert (b7.weighted_composite, b7.accuracy_ceiling_effect, b7.n_capped) == (8.5, "capped_at_7", 1)
    # a cap that does not bind (base 2.0 below the 4.0 ceiling) is not counted
    low = rubric_breakdown("a", [s(2, 2, 2, 2, 2), s(10, 10, 10, 10, 10)])
    assert (low.weighted_composite, low.accuracy_ceiling_effect, low.n_capped) == (6.0, "none", 0)


def test_std_of_exactly_one_is_not_flagged():
    b = rubric_breakdown("a", [s(7, 8, 8, 8, 8), s(9, 8, 8, 8, 8)])
    assert b.dimensions["accuracy"].std == 1.0  # population std of 7, 9
    assert b.dimensions["accuracy"].flag is None
    assert b.weighted_composite == 8.0


def test_seed_json_shape():
    b = rubric_breakdown("a", [s(3, 10, 10, 10, 10)])
    out = b.seed_json()
    assert out["accuracy"] == {"mean": 3.0, "std": 0.0, "n": 1, "weight": 0.35, "ceiling_applied": True}
    assert out["clarity"] == {"mean": 10.0, "std": 0.0, "n": 1, "weight": 0.2}
    # 1.05 + 6.5 = 7.55 -> capped at 4
    assert out["weighted_composite"] == 4.0
    assert out["accuracy_ceiling_effect"] == "capped_at_4"
    assert out["mode"] == "rubric" and out["n_reviews"] == 1


def _review(reviewer: str, ballot: Ballot, error: str | None = None) -> Review:
    return Review(
        reviewer=reviewer,
        model="m",
        raw_text="",
        ballot=ballot,
        presentation_order=("Response A", "Response B", "Response C", "Response D"),
        shuffle_seed=0,
        error=error,
    )


def _council() -> Transcript:
    labels = {"Response A": "a", "Response B": "b", "Response C": "c", "Response D": "d"}
    order = ("Response D", "Response A", "Response B", "Response C")
    reviews = (
        _review(
            "a",
            Ballot(
                ranking=order,
                method="json_raw",
                scores={
                    "Response A": s(10, 10, 10, 10, 10),  # self-score: excluded
                    "Response B": s(3, 10, 10, 10, 10),
                    "Response C": {"relevance": 9.0, "clarity": 9.0},  # no accuracy: ranking only
                    "Response D": s(6, 7, 7, 5, 9),
                },
            ),
        ),
        _review(
            "b",
            Ballot(
                ranking=order,
                method="json_raw",
                scores={
                    "Response A": s(7, 8, 8, 8, 8),
                    "Response D": s(8, 9, 7, 9, 9),  # no scores for C: ranking only
                },
            ),
        ),
        _review(
            "c",
            Ballot(
                ranking=order,
                method="json_raw",
                scores={
                    "Response A": s(9, 8, 8, 8, 8),
                    "Response B": s(4, 10, 10, 10, 10),
                    "Response D": s(10, 8, 7, 7, 9),
                },
            ),
        ),
        _review("d", Ballot(ranking=order, method="json_raw", holistic=True)),  # holistic: ranking only
        _review("d", Ballot(ranking=order, scores={"Response A": s(1, 1, 1, 1, 1)}), error="timed out"),
        _review("c", Ballot(abstained=True, scores={"Response A": s(1, 1, 1, 1, 1)})),
    )
    answers = tuple(Answer(member=m, model="m", text=f"answer {m}") for m in "abcd")
    aggregate = aggregate_rankings(reviews, labels, list("abcd"))
    return Transcript(
        subject="council",
        query="q",
        answers=answers,
        label_to_member=labels,
        reviews=reviews,
        aggregate=aggregate,
        final_answer="final",
    )


def test_peer_rubric_breakdown_per_member():
    t = _council()
    out = peer_rubric_breakdown(t)
    assert set(out) == {"a", "b", "c", "d"}
    a, b, c, d = out["a"], out["b"], out["c"], out["d"]
    # a: scored by b and c (own 10s and the failed/abstained reviews' 1s excluded); d was holistic
    assert (a.mode, a.n_reviews, a.n_ranking_only) == ("rubric", 2, 1)
    assert a.dimensions["accuracy"].mean == 8.0 and a.dimensions["accuracy"].std == 1.0
    assert a.weighted_composite == 8.0
    # b: accuracy 3 and 4 -> mean 3.5 -> capped at 4
    assert (b.mode, b.n_reviews, b.n_ranking_only) == ("rubric", 2, 1)
    assert b.weighted_composite == 4.0 and b.accuracy_ceiling_effect == "capped_at_4"
    assert b.dimensions["accuracy"].ceiling_applied is True
    # c: a gave no accuracy, b no scores, d holistic -> ranking-only fallback with its Borda
    assert (c.mode, c.n_reviews, c.n_ranking_only) == ("ranking_only", 3, 3)
    assert c.dimensions == {} and c.weighted_composite is None
    # every ballot ranks D, A, B, C; c's re-indexed ballots (without c) rank it last -> Borda 0
    assert c.borda == 0.0
    # d: scored by a, b, c -> the hand-worked 7.85 above
    assert (d.mode, d.n_reviews, d.n_ranking_only) == ("rubric", 3, 0)
    assert d.weighted_composite == 7.85
    assert d.borda == 1.0
    # peer_composite: mean of 8.0, 4.0 and 7.85 = 6.6166.. -> 6.62
    assert peer_composite(out) == 6.62


def test_all_holistic_falls_back_to_ranking_only():
    labels = ["Response A", "Response B", "Response C"]
    # a reviewer who gives single holistic scores instead of the rubric
    holistic = parse_ballot(
        '{"ranking": ["Response B", "Response C", "Response A"], "scores": {"Response B": 8, "Response C": 6}}',
        labels,
    )
    assert holistic.holistic is True
    ranking_only = parse_ballot("FINAL RANKING:\n1. Response C\n2. Response B\n3. Response A", labels)
    reviews = (_review("a", holistic), _review("b", ranking_only))
    members = {"Response A": "a", "Response B": "b", "Response C": "c"}
    t = Transcript(
        subject="council",
        query="q",
        answers=(),
        label_to_member=members,
        reviews=reviews,
        aggregate=aggregate_rankings(reviews, members, ["a", "b", "c"]),
        final_answer="x",
    )
    out = peer_rubric_breakdown(t)
    assert all(b.mode == "ranking_only" and b.weighted_composite is None for b in out.values())
    # c: a's ballot without a is (B, C): c last -> 0.0; b's without b is (C, A): c first -> 1.0
    assert out["c"].n_reviews == 2 and out["c"].borda == 0.5
    # b: ranked by a only (b's own ballot drops itself): 1st of 2 -> 1.0
    assert out["b"].n_reviews == 1 and out["b"].n_ranking_only == 1
    assert peer_composite(out) is None


def test_out_of_range_peer_scores_are_dropped_not_fatal():
    members = {"Response A": "a", "Response B": "b"}
    ballot = Ballot(ranking=("Response B", "Response A"), scores={"Response B": {"accuracy": 42.0, "clarity": 8.0}})
    t = Transcript(
        subject="council",
        query="q",
        answers=(),
        label_to_member=members,
        reviews=(_review("a", ballot),),
        final_answer="x",
    )
    out = peer_rubric_breakdown(t)
    assert out["b"].mode == "ranking_only" and out["b"].n_ranking_only == 1
