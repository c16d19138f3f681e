"""Issue 15: the best single member chosen on a declared selection split (never on the evaluated cases)
and the leave-one-out cross-check; by hand from CaseResults, then end to end on the scripted loopback server."""

from __future__ import annotations

import json
from pathlib import Path

from harness.gate.arm_verdicts import arm_verdicts
from harness.gate.best_member import BEST, best_member, best_solo_results
from harness.gate.verdict_plan import comparison_arms, verdict_plan
from harness.records.transcript import AggregateRank, Answer
from harness.run.result import CaseResult
from tests.builders import metered, result, transcript
from tests.cli_env import run_cli
from tests.council.test_arms import N, _project
from tests.scripted_server import ScriptedServer


def _result(i: int, subject: str, correct: float, tags: tuple[str, ...] = (), tokens: int = 10) -> CaseResult:
    return metered(i, subject, {"correct": correct}, tokens_in=tokens, tags=tags)


def _split_results() -> list[CaseResult]:
    """20 cases, q00-q07 tagged ``selection``. On the selection cases b is right on 6 of 8 and a on 4;
    on the 12 other cases a is right on all, b on 3: choosing on those would pick a."""
    out = []
    for i in range(20):
        sel = i < 8
        tags = ("selection",) if sel else ()
        out.append(_result(i, "council", 1.0, tags, tokens=70))
        out.append(_result(i, "solo:a", float(i < 4) if sel else 1.0, tags))
        out.append(_result(i, "solo:b", float(i < 6) if sel else float(i < 11), tags))
    return out


def test_the_best_member_is_chosen_on_the_split_and_reported_on_the_rest() -> None:
    results = _split_results()
    choice = best_member(results, "correct", "selection")
    assert choice is not None and choice.chosen == "b"
    assert (choice.selection_cases, choice.evaluation_cases) == (8, 12)
    assert [(m.member, m.mean, m.n) for m in choice.selection] == [("a", 0.5, 8), ("b", 0.75, 8)]
    assert [(m.member, m.mean, m.n) for m in choice.evaluation] == [("a", 1.0, 12), ("b", 0.25, 12)]
    assert choice.sentence == (
        "best single member: b, chosen on the 8 case(s) tagged 'selection' (mean correct "
        "0.750); reported as best-solo on the other 12 case(s): 0.250 (n=12)"
    )
    best = best_solo_results(results, choice)
    assert {r.case_id for r in best} == {f"q{i:02d}" for i in range(8, 20)} and {r.subject for r in best} == {BEST}
    verdicts = {v.arm: v for v in arm_verdicts(verdict_plan(results, 0.15, "correct", "selection"), results)}
    assert list(verdicts) == ["solo:a", "solo:b", BEST]
    # the best-solo verdict pairs with the council on the 12 evaluation cases only: 12/12 vs 3/12
    v = verdicts[BEST].verdict
    assert (v.n, v.mean_council, v.mean_baseline) == (12, 1.0, 0.25)
    assert verdicts[BEST].token_ratio == 7.0
    # three arms: the Bonferroni level counts best-solo
    assert v.confidence == 1 - 0.05 / 3


def test_without_a_split_each_member_is_reported_and_none_is_chosen() -> None:
    results = [r.model_copy(update={"tags": ()}) for r in _split_results()]
    choice = best_member(results, "correct", "selection")
    assert choice is not None and choice.chosen is None and choice.selection == ()
    assert [(m.member, m.mean, m.n) for m in choice.evaluation] == [("a", 16 / 20, 20), ("b", 9 / 20, 20)]
    assert "not chosen (no case is tagged 'selection'); each member is reported on its own" in choice.sentence
    assert BEST not in comparison_arms([r.subject for r in results])
    plan = verdict_plan(results, 0.15, "correct", "selection")
    assert [v.arm for v in arm_verdicts(plan, results)] == ["solo:a", "solo:b"]
    assert best_member(results, "correct", None).chosen is None  # type: ignore[union-attr]
    # every case tagged: nothing left to evaluate on
    tagged = [r.model_copy(update={"tags": ("selection",)}) for r in results]
    assert "none is left to evaluate on" in best_member(tagged, "correct", "selection").sentence  # type: ignore[union-attr]


def _council(i: int, synthesis: str, answers: dict[str, str], positions: dict[str, float]) -> CaseResult:
    t = transcript(
        synthesis,
        synthesis=synthesis,
        answers=tuple(Answer(member=m, model=m, text=x) for m, x in answers.items()),
        aggregate=tuple(AggregateRank(member=m, borda=0.5, average_position=p, votes=2) for m, p in positions.items()),
    )
    return result(f"q{i:02d}", "council", transcript=t, scores={"correct": 1.0})


def test_cross_check_flags_a_followed_member_whose_removal_does_not_hurt() -> None:
    from harness.gate.arm_verdicts import leave_one_out
    from harness.gate.loo_crosscheck import cross_check

    results = []
    for i in range(12):
        # the synthesis copies a's answer on 9 cases, b's on 3; c is never closest
        follow = "a" if i < 9 else "b"
        answers = {"a": "alpha beta gamma", "b": "delta epsilon zeta", "c": "eta theta iota kappa"}
        results.append(_council(i, answers[follow], answers, {"a": 2.0, "b": 1.0 if i < 6 else 3.0, "c": 3.0}))
        results.append(_result(i, "council-without:a", 1.0))  # removing a never hurts
        results.append(_result(i, "council-without:c", 0.0 if i < 10 else 1.0))  # removing c hurts on 10
    checks = {c.member: c for c in cross_check(results, leave_one_out(verdict_plan(results, 0.15, "correct")))}
    a, b, c = checks["a"], checks["b"], checks["c"]
    assert (a.attribution_share, b.attribution_share, c.attribution_share) == (0.75, 0.25, 0.0)
    # b: rank 1 on 6 cases and 3 on 6: mean 2.0, the same as a's
    assert (a.mean_peer_rank, b.mean_peer_rank, c.mean_peer_rank) == (2.0, 2.0, 3.0)
    assert (a.loo_effect, b.loo_effect, c.loo_effect) == (0.0, None, 10 / 12)
    assert a.flags == (
        "followed but dispensable: the synthesis follows it most, yet removing it does not hurt",
        "top-ranked but dispensable: peers rank it best, yet removing it does not hurt",
    )
    assert b.flags == ()  # no council-without:b: nothing to cross-check
    assert c.flags == (
        "matters but unfollowed: removing it hurts, yet the synthesis follows it less than an equal share",
    )
    assert c.sentence.startswith(
        "cross-check c: synthesis follows it in 0% of 12 case(s), mean peer rank 3.00, leave-one-out effect +0.833"
    )


def test_run_reports_the_best_member_and_the_cross_check(tmp_path: Path) -> None:
    # c (the 'solo' model) answers right everywhere, a never; the synthesis is right everywhere and
    # copies c's stage-1 answer word for word, so it follows c, but the council without c is right too
    with ScriptedServer(council_right=range(N), baseline_right=range(N)) as server:
        root = _project(tmp_path, server.base_url, "primary_endpoint: correct\n")
        golden = root / "golden" / "sums.yaml"
        text = golden.read_text()
        for i in range(2):  # q00 and q01 are the declared selection split
            text = text.replace(f"      - id: q{i:02d}\n", f"      - id: q{i:02d}\n        tags: [selection]\n")
        golden.write_text(text)
        proc = run_cli(root, "--subjects", "council,solo:a,solo:c,council-without:c")
    out = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode in (0, 1), out
    assert (
        "best single member: c, chosen on the 2 case(s) tagged 'selection' (mean correct 1.000); "
        "reported as best-solo on the other 4 case(s): 1.000 (n=4)"
    ) in out
    assert "cross-check c: synthesis follows it in 100% of 6 case(s)" in out
    assert "followed but dispensable" in out
    (run_dir,) = (root / "reports" / "runs").iterdir()
    arms = json.loads((run_dir / "summary.json").read_text())["arms"]
    best = arms["best_member"]
    assert (best["chosen"], best["selection_cases"], best["evaluation_cases"]) == ("c", 2, 4)
    assert [(m["member"], m["mean"]) for m in best["selection"]] == [("a", 0.0), ("c", 1.0)]
    v = {x["arm"]: x for x in arms["verdicts"]}
    assert v[BEST]["n"] == 4 and v["solo:c"]["n"] == 6
    checks = {c["member"]: c for c in arms["cross_check"]}
    assert checks["c"]["attribution_share"] == 1.0 and checks["c"]["loo_effect"] == 0.0
    assert checks["c"]["flags"][0].startswith("followed but dispensable")
    assert checks["a"]["attribution_share"] == 0.0 and checks["a"]["loo_effect"] is None
    page = (run_dir / "index.html").read_text()
    assert '<p id="best-member">best single member: c, chosen on the 2 case(s) tagged &#39;selection&#39;' in page
    assert '<table class="inner" id="loo-cross-check">' in page
    assert '<tr><td>c</td><td class="num">100% of 6</td>' in page
