"""Property-based tests (hypothesis): the parsers and metrics hold their invariants for any input.

Domains, decided here and documented:

* ballots: any text, and any JSON-like structure serialized into a reply (with or without fences);
* aggregate positions for CSS: finite floats or ``None`` (a member with no votes). Real positions
  are mean ranks in ``[1, k]`` with ``k <= 26``; moderately large finite values (``|x| <= 1e6``)
  are also in range. NaN and infinities are out of the domain (no ballot produces them), and so
  are magnitudes near the float limit, where ``statistics.pvariance`` overflows;
* YAML: any text or bytes, and generated YAML documents shaped like (broken) datasets.
"""

from __future__ import annotations

import json
import math
import string
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.common.errors import DatasetError
from harness.common.text import jaccard, tokens
from harness.council.ranking import aggregate_rankings, labels_for, parse_ballot
from harness.data.cases import load_datasets
from harness.metrics.tier1 import (
    consensus_strength_score,
    deliberation_depth_index,
    quality_warnings,
    synthesis_attribution_score,
)
from harness.records.transcript import Ballot, Review

MODEST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- strategies ------------------------------------------------------------------------------

label_counts = st.integers(min_value=1, max_value=26)
FRAGMENTS = [
    "Response A",
    "Response B",
    "Response C",
    "Response Z",
    "response b",
    "FINAL RANKING:",
    "\n",
    "1. ",
    "2) ",
    "{",
    "}",
    "[",
    "]",
    '"ranking"',
    '"scores"',
    '"critique"',
    ":",
    ",",
    '"A"',
    '"Response B"',
    "```json",
    "```",
    "I cannot",
    "I'm sorry",
    " ",
    "NaN",
    "7",
    "11",
    "null",
    "\\",
    '"',
    "\u200b",
    "Ответ",
]
fragment_text = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
ballot_texts = st.one_of(st.text(max_size=400), fragment_text)
label_like = st.one_of(
    st.sampled_from(["Response A", "Response B", "Response C", "Response D", "A", "b", "Response Z", "response c"]),
    st.text(max_size=12),
)
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-20, 20), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=10)
)
json_values = st.recursive(
    st.one_of(json_scalars, label_like),
    lambda children: st.one_of(st.lists(children, max_size=5), st.dictionaries(label_like, children, max_size=5)),
    max_leaves=20,
)
ballot_objects = st.fixed_dictionaries(
    {"ranking": st.one_of(st.lists(label_like, max_size=8), json_values)},
    optional={
        "scores": st.one_of(
            st.dictionaries(
                label_like,
                st.one_of(
                    json_values,
                    st.dictionaries(st.sampled_from(["accuracy", "clarity", "x"]), json_scalars, max_size=3),
                ),
                max_size=4,
            ),
            json_values,
        ),
        "critique": json_values,
    },
)


def wrapped(obj: object, how: str, before: str, after: str) -> str:
    body = json.dumps(obj)
    if how == "fenced":
        body = f"```json\n{body}\n```"
    return f"{before}{body}{after}"


def check_ballot(ballot: Ballot, labels: list[str]) -> None:
    assert set(ballot.ranking) <= set(labels)
    assert len(set(ballot.ranking)) == len(ballot.ranking)
    assert ballot.abstained == (not ballot.ranking)
    assert set(ballot.scores) <= set(labels)
    for dims in ballot.scores.values():
        assert all(math.isfinite(v) and 1 <= v <= 10 for v in dims.values())
    if ballot.holistic:
        assert ballot.scores == {}


# --- ballots ---------------------------------------------------------------------------------


@MODEST
@given(text=ballot_texts, k=label_counts)
def test_parse_ballot_never_raises_on_text(text: str, k: int) -> None:
    labels = labels_for(k)
    check_ballot(parse_ballot(text, labels), labels)


@MODEST
@given(
    obj=st.one_of(ballot_objects, json_values),
    how=st.sampled_from(["raw", "fenced"]),
    before=ballot_texts,
    after=ballot_texts,
    k=label_counts,
)
def test_parse_ballot_never_raises_on_json_structures(obj: object, how: str, before: str, after: str, k: int) -> None:
    labels = labels_for(k)
    check_ballot(parse_ballot(wrapped(obj, how, before, after), labels), labels)


def label_of(item: str) -> str | None:
    """The label a JSON ranking item names: one ASCII letter, optionally after 'Response' (any case), within
    surrounding whitespace."""
    words = item.split()
    if len(words) == 2 and words[0].casefold() == "response" and item.strip()[len("response") :][:1].isspace():
        words = words[1:]
    if len(words) != 1 or len(words[0]) != 1 or not (words[0].isascii() and words[0].isalpha()):
        return None
    return f"Response {words[0].upper()}"


@MODEST
@given(ranking=st.lists(label_like, max_size=10), how=st.sampled_from(["raw", "fenced"]), k=label_counts)
def test_a_json_ballot_keeps_the_valid_labels_in_order(ranking: list[str], how: str, k: int) -> None:
    """Alone in the reply, a JSON ballot's ranking is exactly its valid labels, first occurrence, in order."""
    labels = labels_for(k)
    ballot = parse_ballot(wrapped({"ranking": ranking}, how, "", ""), labels)
    expected: list[str] = []
    for item in ranking:
        label = label_of(item)
        if label in labels and label not in expected:
            expected.append(label)
    assert list(ballot.ranking) == expected
    assert ballot.method == ("json_fenced" if how == "fenced" else "json_raw")


# --- aggregation -----------------------------------------------------------------------------


@st.composite
def councils(draw: st.DrawFn) -> tuple[list[str], dict[str, str], list[Review]]:
    n = draw(st.integers(min_value=1, max_value=8))
    members = [f"m{i}" for i in range(n)]
    labels = labels_for(n)
    shuffled = draw(st.permutations(members))
    label_to_member = dict(zip(labels, shuffled, strict=True))
    reviews = []
    for i in range(draw(st.integers(min_value=0, max_value=10))):
        reviewer = draw(st.sampled_from([*members, "judge"]))
        ranking = draw(st.lists(st.sampled_from([*labels, "Response Z"]), unique=True, max_size=n + 1))
        abstained = draw(st.booleans()) or not ranking
        error = draw(st.sampled_from([None, None, None, "timeout"]))
        reviews.append(
            Review(
                reviewer=reviewer,
                model="m",
                raw_text="",
                presentation_order=tuple(labels),
                shuffle_seed=i,
                ballot=Ballot(ranking=() if abstained else tuple(ranking), abstained=abstained),
                error=error,
            )
        )
    return members, label_to_member, reviews


@MODEST
@given(council=councils())
def test_aggregate_rankings_bounds_and_counts(council: tuple[list[str], dict[str, str], list[Review]]) -> None:
    members, label_to_member, reviews = council
    ranks = aggregate_rankings(reviews, label_to_member, members)
    assert sorted(r.member for r in ranks) == sorted(members)
    n = len(members)
    for r in ranks:
        assert 0.0 <= r.borda <= 1.0
        assert (r.average_position is None) == (r.votes == 0)
        if r.average_position is not None:
            assert 1.0 <= r.average_position <= n
    cast = sum(
        1
        for rv in reviews
        if rv.ok and not rv.ballot.abstained
        for label in rv.ballot.ranking
        if label in label_to_member and label_to_member[label] != rv.reviewer
    )
    assert sum(r.votes for r in ranks) == cast
    voted = [r for r in ranks if r.votes]
    assert ranks[: len(voted)] == tuple(voted)  # members with votes come first, best Borda first
    assert [r.borda for r in voted] == sorted((r.borda for r in voted), reverse=True)


# --- Tier 1 metrics --------------------------------------------------------------------------

rank_positions = st.one_of(st.none(), st.floats(min_value=1.0, max_value=26.0))
wide_positions = st.one_of(st.none(), st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))


@MODEST
@given(
    pairs=st.lists(st.tuples(st.text(max_size=5), st.one_of(rank_positions, wide_positions)), max_size=12),
    seed=st.randoms(),
)
def test_css_is_in_unit_interval_and_order_free(pairs: list[tuple[str, float | None]], seed) -> None:  # noqa: ANN001
    css = consensus_strength_score(pairs)
    assert 0.0 <= css <= 1.0 and round(css, 3) == css
    shuffled = list(pairs)
    seed.shuffle(shuffled)
    assert consensus_strength_score(shuffled) == css
    assert consensus_strength_score([p for p in pairs if p[1] is not None]) == css  # None = no votes, left out
    present = [p for _, p in pairs if p is not None]
    if len(present) <= 1 or len(set(present)) == 1:
        assert css == (1.0 if present else 0.0)


words = st.lists(
    st.sampled_from(["paris", "capital", "france", "the", "is", "of", "a", "Lyon", "x", "42", "été"]), max_size=12
).map(" ".join)
metric_text = st.one_of(words, st.text(max_size=120))


@MODEST
@given(answers=st.lists(metric_text, max_size=5), reviews=st.lists(st.one_of(metric_text, fragment_text), max_size=6))
def test_ddi_is_in_unit_interval(answers: list[str], reviews: list[str]) -> None:
    ddi, parts = deliberation_depth_index(answers, reviews)
    assert 0.0 <= ddi <= 1.0 and all(0.0 <= v <= 1.0 for v in parts.values())
    if not answers:
        assert (ddi, parts) == (0.0, {"diversity": 0.0, "coverage": 0.0, "richness": 0.0})
    else:
        assert parts["coverage"] == round(min(1.0, len(reviews) / len(answers)), 3)
        weighted = 0.35 * parts["diversity"] + 0.35 * parts["coverage"] + 0.30 * parts["richness"]
        assert abs(ddi - weighted) <= 0.0011  # the components are rounded, DDI is computed before rounding


@MODEST
@given(
    synthesis=metric_text,
    winners=st.lists(metric_text, max_size=2),
    others=st.lists(metric_text, max_size=4),
    threshold=st.floats(min_value=0.0, max_value=1.0),
    css=st.floats(0.0, 1.0),
    ddi=st.floats(0.0, 1.0),
)
def test_sas_and_warnings_are_consistent(
    synthesis: str, winners: list[str], others: list[str], threshold: float, css: float, ddi: float
) -> None:
    answers = winners + others
    sas = synthesis_attribution_score(synthesis, winners, answers, threshold)
    for v in (sas.winner_alignment, sas.max_source_alignment, sas.hallucination_risk):
        assert 0.0 <= v <= 1.0
    if not synthesis.strip() or not answers:
        fields = (sas.winner_alignment, sas.max_source_alignment, sas.hallucination_risk, sas.grounded)
        assert fields == (0.0, 0.0, 1.0, False)
    else:
        best = max(jaccard(synthesis, a) for a in answers)
        assert sas.max_source_alignment == round(best, 3) and sas.hallucination_risk == round(1 - best, 3)
        assert sas.grounded == (best >= threshold)
        assert sas.winner_alignment <= sas.max_source_alignment or not winners
    warnings = quality_warnings(css, ddi, sas)
    assert ("low_consensus" in warnings) == (css < 0.5)
    assert ("shallow_deliberation" in warnings) == (ddi < 0.4)
    assert ("hallucination_risk" in warnings) == (sas.hallucination_risk > 0.4)
    assert ("synthesis_not_grounded" in warnings) == (not sas.grounded)


@MODEST
@given(a=metric_text, b=metric_text)
def test_jaccard_is_symmetric_and_bounded(a: str, b: str) -> None:
    j = jaccard(a, b)
    assert j == jaccard(b, a) and 0.0 <= j <= 1.0
    assert jaccard(a, a) == 1.0
    assert jaccard(a, "") == (1.0 if not tokens(a) else 0.0)


# --- the YAML loader -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("yaml") / "data.yaml"


def load_or_dataset_error(path: Path, data: bytes) -> None:
    """Loading either works or raises DatasetError naming the file; nothing else escapes."""
    path.write_bytes(data)
    try:
        datasets = load_datasets(path)
    except DatasetError as exc:
        assert str(path) in str(exc) and "Traceback" not in str(exc)
    else:
        assert datasets and all(d.cases for d in datasets)


KEYS = [
    "golden_datasets",
    "suite",
    "name",
    "queries",
    "challenges",
    "id",
    "query",
    "required_mentions",
    "forbidden_claims",
    "rubric",
    "dimension",
    "weight",
    "criteria",
    "expected",
    "type",
    "value",
    "minimum_scores",
    "evaluation_mode",
    "category",
    "tags",
    "context",
    "ground_truth",
    "correct",
]
yaml_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(["exact", "numeric", "regex", "automatic", "expert_review", "q1", "geo", "[", "(a"]),
)
yaml_docs = st.recursive(
    yaml_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.sampled_from(KEYS), children, max_size=5)
    ),
    max_leaves=25,
)
dataset_docs = st.builds(
    lambda name, cases: {"golden_datasets": [{"name": name, "queries": cases}]},
    st.one_of(st.sampled_from(["geo", "my set", ""]), yaml_scalars),
    st.lists(st.dictionaries(st.sampled_from(KEYS), yaml_docs, max_size=5), max_size=3),
)
GOOD = (
    'golden_datasets:\n  - name: geo\n    queries:\n      - id: geo-001\n        query: "Capital of France?"\n'
    "        required_mentions: [Paris]\n        rubric:\n          - {dimension: a, weight: 1.0, criteria: c}\n"
)


@MODEST
@given(text=st.text(max_size=300))
def test_yaml_loader_only_raises_dataset_error_on_text(scratch: Path, text: str) -> None:
    load_or_dataset_error(scratch, text.encode("utf-8", errors="surrogatepass"))


@FEWER
@given(data=st.binary(max_size=200))
def test_yaml_loader_only_raises_dataset_error_on_bytes(scratch: Path, data: bytes) -> None:
    load_or_dataset_error(scratch, data)


@MODEST
@given(doc=st.one_of(yaml_docs, dataset_docs), style=st.sampled_from([None, True, False]))
def test_yaml_loader_only_raises_dataset_error_on_structures(scratch: Path, doc: object, style: bool | None) -> None:
    load_or_dataset_error(scratch, yaml.safe_dump(doc, default_flow_style=style, allow_unicode=True).encode())


@MODEST
@given(
    cut=st.integers(min_value=0, max_value=len(GOOD)),
    junk=st.text(alphabet=string.printable + "\t\x00é", max_size=6),
    at=st.integers(min_value=0, max_value=len(GOOD)),
)
def test_yaml_loader_only_raises_dataset_error_on_mangled_files(scratch: Path, cut: int, junk: str, at: int) -> None:
    mangled = (GOOD[:at] + junk + GOOD[at:])[: cut + len(junk)]
    load_or_dataset_error(scratch, mangled.encode("utf-8"))
