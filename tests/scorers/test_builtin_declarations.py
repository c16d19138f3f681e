"""Each built-in scorer is declared in one module: its place, its coroutine, its score specs (declared into
the registry), its detail type, its drill-down summary, and how its detail settles (Tier 1's tier); the
package finds the modules itself; a user scorer that cannot run is a typed record whose outcome is its
scoring error."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from harness.config import Settings
from harness.data.cases import Case
from harness.metrics.correctness import check_case
from harness.providers.calls import Caller
from harness.records.score_spec import SCORES, ScoreRegistry, ScoreSpec
from harness.records.transcript import Answer, Ballot, Review, Transcript
from harness.report.drilldown import block_summary
from harness.run.scoring import score_case
from harness.scorers import ScoreOutcome, Scorer
from harness.scorers.builtin import BUILTIN_SCORERS, BY_NAME, builtin_scorer, declare_scores, discover, tier_of
from harness.scorers.details import DETAIL_TYPES
from harness.scorers.user import UnavailableScorer, configured_user_scorers

ROOT = Path(__file__).resolve().parents[2]


def test_the_registry_holds_exactly_the_scores_the_scorers_declare_in_their_order() -> None:
    declared = [s.name for scorer in BUILTIN_SCORERS for s in scorer.scores]
    assert len(declared) == len(set(declared)) == 27
    assert SCORES.builtin == frozenset(declared)
    assert all(SCORES[s.name] is s for scorer in BUILTIN_SCORERS for s in scorer.scores)
    assert list(SCORES)[: len(declared)] == declared  # the scorers' order
    # the trend table's columns keep their order: each column states its place (trend_rank)
    assert list(SCORES.trended().values()) == ["CSS", "DDI", "SAS", "Risk", "Peer", "Judge"]
    with pytest.raises(ValueError, match="trend_label and trend_rank are given together"):
        ScoreSpec(name="x", description="x", trend_label="X")


_BREVITY = textwrap.dedent(
    """
    from harness.records.score_spec import ScoreSpec
    from harness.scorers.builtin.declared import builtin_scorer
    from harness.scorers.outcome import ScoreOutcome


    @builtin_scorer("brevity", order=ORDER, scores=(ScoreSpec(name="brevity", description="shortness, 0-1"),))
    async def brevity(case, transcript, caller, settings):
        return ScoreOutcome(scores={"brevity": 1.0 / (1 + len(transcript.final_answer.split()))})
    """
)


def _copy_with(tmp_path: Path, name: str, module: str) -> tuple[str, list[str]]:
    """A copy of :mod:`harness.scorers.builtin` named ``name`` under ``tmp_path`` with ``module`` dropped in."""
    package = tmp_path / name
    shutil.copytree(ROOT / "harness" / "scorers" / "builtin", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "brevity.py").write_text(module, encoding="utf-8")
    return name, [str(package)]


def test_a_scorer_module_dropped_into_the_package_is_found_in_its_declared_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the shipped package: its modules are found and sorted by their declared order (the order scoring uses)
    assert discover("harness.scorers.builtin", [str(ROOT / "harness" / "scorers" / "builtin")]) == BUILTIN_SCORERS
    assert [s.order for s in BUILTIN_SCORERS] == [10, 20, 30, 40, 50, 60, 70, 80, 90]
    # a copy of the package with one module more (one file, nothing else edited): found, at its place
    monkeypatch.syspath_prepend(str(tmp_path))
    package, path = _copy_with(tmp_path, "copied_builtin", _BREVITY.replace("ORDER", "45"))
    found = discover(package, path)
    assert [s.name for s in found] == [
        "quality_metrics",
        "mentions",
        "correctness",
        "answer_correct",
        "brevity",
        "heuristic_quality",
        "rubric",
        "peer_rubric",
        "external_validation",
        "bias",
    ]
    brevity = found[4]
    assert brevity.fn.__module__ == "copied_builtin.brevity" and [s.name for s in brevity.scores] == ["brevity"]
    registry = ScoreRegistry()
    declare_scores(found, registry)
    assert list(registry)[:6] == [s.name for s in BUILTIN_SCORERS[0].scores] + ["required_mentions"]
    assert "brevity" in registry.builtin and list(registry).index("brevity") == 1 + list(registry).index("correct")
    t = Transcript(subject="baseline", query="q", answers=(), final_answer="one two three")
    settings = Settings(rubric_scoring=False)
    out = asyncio.run(brevity(Case(id="c", query="q"), t, Caller({}, settings), settings))
    assert out.scores == {"brevity": 0.25}
    # a module that takes a place already taken is refused, naming both modules
    package, path = _copy_with(tmp_path, "clashing_builtin", _BREVITY.replace("ORDER", "30"))
    with pytest.raises(
        ValueError, match=r"clashing_builtin.brevity and clashing_builtin.correctness share the order 30"
    ):
        discover(package, path)


def test_a_lower_layer_reading_the_registry_first_sees_the_builtin_scores() -> None:
    # data/, gate/ and report/ read the registry without importing the scorers: the first read declares them
    code = (
        "import sys; from harness.records.score_spec import SCORES, spec; "
        "assert 'harness.scorers.builtin' not in sys.modules; "
        "print(spec('hallucination_risk').higher_is_better, spec('rubric_composite').scale, "
        "'harness.scorers.builtin' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "10.0", "True"]


def test_a_scorer_declared_in_one_place_registers_its_scores_and_carries_its_summary() -> None:
    registry = ScoreRegistry()
    spec = ScoreSpec(name="length_ok", description="the answer is under 200 characters, 1 or 0")

    @builtin_scorer("length", order=1, scores=(spec,), detail=int, summary=lambda n: f"{n} characters")
    async def length(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
        n = len(transcript.final_answer)
        return ScoreOutcome(scores={"length_ok": float(n < 200)}, detail=n)

    assert isinstance(length, Scorer) and length.name == "length" and length.detail is int
    declare_scores((length,), registry)
    assert list(registry) == ["length_ok"] and registry.builtin == {"length_ok"} and "length_ok" not in SCORES
    case = Case(id="c", query="q")
    t = Transcript(subject="baseline", query="q", answers=(), final_answer="x" * 250)
    settings = Settings(rubric_scoring=False)
    out = asyncio.run(length(case, t, Caller({}, settings), settings))
    assert (out.scores, out.detail, length.summarise(out.detail)) == ({"length_ok": 0.0}, 250, "250 characters")
    with pytest.raises(ValueError, match="'length_ok' is declared twice"):
        declare_scores((builtin_scorer("again", order=2, scores=(spec,))(length.fn),), registry)
    with pytest.raises(ValueError, match="built-in score and cannot be redefined"):
        registry.register(ScoreSpec(name="length_ok", description="other", scale=10))


def test_the_drilldown_summary_is_the_scorers_own() -> None:
    case = Case(id="c", query="What is 6 x 7?", expected={"type": "numeric", "value": 42})
    result = check_case(case, "It is 41.")
    assert result is not None
    assert (
        block_summary("correctness", result)
        == BY_NAME["correctness"].summarise(result)
        == "wrong: expected 42 (± 1e-06)"
    )
    # a scorer without a summary, the expert's verdict and a user scorer's detail have none
    assert block_summary("answer_correct", {"m": True}) == "" and block_summary("userscore:brevity", {"a": 1}) == ""
    assert [n for n, s in BY_NAME.items() if s.summary is not None] == [
        "correctness",
        "heuristic_quality",
        "rubric",
        "peer_rubric",
        "external_validation",
        "bias",
    ]
    # the detail map: every scorer that keeps a detail, in scoring order, then the expert's verdict
    assert list(DETAIL_TYPES) == [
        "quality_metrics",
        "correctness",
        "answer_correct",
        "heuristic_quality",
        "rubric",
        "peer_rubric",
        "external_validation",
        "bias",
        "review",
    ]


def _council(scored: bool) -> Transcript:
    ballot = Ballot(
        ranking=("Response A", "Response B"),
        scores={
            "Response A": {"accuracy": 8, "relevance": 7, "completeness": 6, "conciseness": 7, "clarity": 8},
            "Response B": {"accuracy": 4, "relevance": 5, "completeness": 5, "conciseness": 6, "clarity": 5},
        }
        if scored
        else {},
    )
    reviews = tuple(
        Review(
            reviewer=m,
            model=m,
            raw_text="A is better",
            ballot=ballot,
            presentation_order=("Response A", "Response B"),
            shuffle_seed=1,
        )
        for m in ("m1", "m2")
    )
    return Transcript(
        subject="council",
        query="What is 2+2?",
        answers=(Answer(member="m1", model="m1", text="2+2 is 4"), Answer(member="m2", model="m2", text="2+2 is 5")),
        label_to_member={"Response A": "m1", "Response B": "m2"},
        reviews=reviews,
        synthesis="2+2 is 4",
        final_answer="2+2 is 4",
    )


def test_tier1s_tier_settles_from_the_other_scorers_details() -> None:
    settings = Settings(rubric_scoring=False)
    case = Case(id="c", query="What is 2+2?")
    result = asyncio.run(score_case(case, _council(True), Caller({}, settings), settings))
    qm = result.quality_metrics
    assert qm is not None and "peer_rubric" in result.details and "consensus_strength" in result.scores
    assert qm.tier == "standard"  # the peer rubric scored; the scorer returned it as "core"
    settle = BY_NAME["quality_metrics"].settled
    assert settle(qm, {"quality_metrics": qm}).tier == "core"
    assert settle(qm, {"rubric": object()}).tier == "standard"
    assert settle(qm, {"external_validation": object(), "rubric": object()}).tier == "enterprise"
    assert tier_of({"peer_rubric": {}}) == "core"  # an empty peer rubric is none


def test_a_scorer_that_cannot_run_is_a_typed_record_whose_outcome_is_its_scoring_error() -> None:
    settings = Settings(rubric_scoring=False)
    case = Case(id="c", dataset="d", query="What is 2+2?", scorers=("not_declared",))
    (unavailable,) = configured_user_scorers(case, settings)
    assert isinstance(unavailable, UnavailableScorer) and isinstance(unavailable, Scorer)
    assert unavailable.name == "not_declared" and "scorer 'not_declared' named by dataset 'd'" in unavailable.reason
    t = Transcript(subject="baseline", query=case.query, answers=(), final_answer="4")
    result = asyncio.run(score_case(case, t, Caller({}, settings), settings))
    assert result.scoring_errors == (unavailable.reason,) and result.status == "passed"
    assert "not_declared" not in result.details
