"""Issue 15's baseline arms on a scripted loopback OpenAI-compatible server and the selection rules.

The server (:class:`tests.scripted_server.ScriptedServer`) gives members the wrong answer ``7`` and the
``solo`` model the right one for the listed questions; :class:`VaryingUsage` reports token counts that
differ per stage so self-consistency's n has to be worked out, not fall out of equal call sizes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.council.arms import dither, select_answer
from harness.data.cases import Case
from harness.data.expected import ExpectNumeric
from harness.run.runs import load_run
from tests.cli_env import run_cli, scripted_project
from tests.scripted_server import SOLO, ScriptedServer

N = 6


class VaryingUsage(ScriptedServer):
    """Reviews cost 90 + 40 tokens, the synthesis 50 + 30, every other call 20 + 11 (31)."""

    def usage(self, body: dict[str, Any]) -> tuple[int, int]:
        content = str(body["messages"][-1]["content"])
        if content.startswith("You are reviewing anonymized answers"):
            return 90, 40
        if content.startswith("Several assistants answered"):
            return 50, 30
        return 20, 11


def _project(root: Path, base_url: str, extra: str = "") -> Path:
    return scripted_project(root, base_url, N, third_model=SOLO, extra=extra)


def _results(root: Path) -> dict[tuple[str, str], Any]:
    (run_dir,) = (root / "reports" / "runs").iterdir()
    return {(r.case_id, r.subject): r for r in load_run(run_dir).results}


def test_self_consistency_matches_the_councils_tokens(tmp_path: Path) -> None:
    with VaryingUsage(council_right=range(N), baseline_right=range(N)) as server:
        root = _project(tmp_path, server.base_url)
        proc = run_cli(root, "--subjects", "self-consistency:a,council,vote,solo:c,chairman")
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    results = _results(root)
    for i in range(N):
        council = results[(f"q{i:02d}", "council")].transcript
        sc = results[(f"q{i:02d}", "self-consistency:a")].transcript
        # council: 3 answers (31 each), 3 reviews (130 each), 1 synthesis (80) = 563 tokens
        target = sum(c.tokens_in + c.tokens_out for c in council.calls)
        assert target == 3 * 31 + 3 * 130 + 80
        assert sc.arm is not None and sc.arm.target_tokens == target
        # waves of 1, 13, 3, 1 reach 18 x 31 = 558; the 5 tokens left are 5/31 of a sample: a 19th is
        # drawn when the case's dither falls below 5/31 (unbiased rounding)
        extra = dither(f"sums::q{i:02d}|self-consistency:a") < 5 / 31
        assert sc.arm.samples == 18 + extra == len(sc.calls) == sc.arm.matched_samples
        assert sc.arm.match_on == "tokens" and sc.arm.target == 563 and sc.arm.spent == 31 * sc.arm.samples
        assert sc.arm.rule == "majority" and sc.arm.votes == {"7": sc.arm.samples}
        assert {c.member for c in sc.calls} == {"a"}
        # the stage-1 vote: members a and b say 7, c (the solo model) the right answer: 7 wins 2-1
        vote = results[(f"q{i:02d}", "vote")]
        assert vote.transcript.arm is not None and vote.transcript.arm.samples == 3
        assert vote.transcript.final_answer == "The answer is 7."
        assert [c.stage for c in vote.transcript.calls] == ["stage1"] * 3
        # solo:c answers alone with the final-answer cap; chairman alone is member a
        solo = results[(f"q{i:02d}", "solo:c")].transcript
        assert solo.final_answer == f"The answer is {i + 100}." and len(solo.calls) == 1
        assert results[(f"q{i:02d}", "chairman")].transcript.calls[0].member == "a"


def test_self_consistency_without_the_council_uses_the_configured_samples(tmp_path: Path) -> None:
    with ScriptedServer(council_right=(), baseline_right=()) as server:
        root = _project(tmp_path, server.base_url, "self_consistency_samples: 5\n")
        proc = run_cli(root, "--subjects", "self-consistency:b,council-without:c")
        assert server.requests == N * (5 + (2 + 2 + 1))  # 5 samples; a 2-member council: 2 + 2 + 1 calls
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    results = _results(root)
    sc = results[("q00", "self-consistency:b")].transcript
    assert sc.arm is not None and sc.arm.samples == 5 and sc.arm.target_tokens is None
    assert sc.arm.matched_samples is None and sc.arm.tokens == 5 * 26
    without = results[("q00", "council-without:c")].transcript
    assert sorted(a.member for a in without.answers) == ["a", "b"] and without.chairman == "a"


@pytest.mark.parametrize("subjects", ["solo:zz", "self-consistency", "council-without:"])
def test_unknown_arm_is_a_usage_error(tmp_path: Path, subjects: str) -> None:
    root = _project(tmp_path, "http://127.0.0.1:9/v1")
    proc = run_cli(root, "--subjects", subjects)
    assert proc.returncode == 2
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out
    assert "solo:<model>" in out or "no configured model; expected a member, the chairman or the baseline" in out


def test_self_consistency_and_solo_of_the_baseline_model_outside_the_council(tmp_path: Path) -> None:
    with ScriptedServer(council_right=(), baseline_right=()) as server:
        root = _project(tmp_path, server.base_url, "baseline: d\nself_consistency_samples: 3\n")
        proc = run_cli(root, "--subjects", "self-consistency:d,solo:baseline,solo:m-b")
        assert server.requests == N * (3 + 1 + 1)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    results = _results(root)
    assert {s for _, s in results} == {"self-consistency:d", "solo:baseline", "solo:m-b"}
    sc = results[("q00", "self-consistency:d")].transcript
    assert sc.arm is not None and sc.arm.samples == 3
    assert {(c.member, c.model) for c in sc.calls} == {("d", "d")}
    assert [(c.member, c.model) for c in results[("q00", "solo:baseline")].transcript.calls] == [("d", "d")]
    assert [(c.member, c.model) for c in results[("q00", "solo:m-b")].transcript.calls] == [("b", "m-b")]


def _case(expected: ExpectNumeric | None) -> Case:
    return Case(id="q", dataset="d", query="What is 3 + 4?", ground_truth="7", expected=expected)


def test_majority_uses_the_extracted_answer_not_the_expected_value() -> None:
    case = _case(ExpectNumeric(type="numeric", value=7, tolerance=0))
    texts = ["I think it is 8.", "The answer is 12.", "So 3 + 4 = 12.", "It is 7."]
    chosen, rule, votes = select_answer(texts, case)
    assert (chosen, rule) == (1, "majority")  # 12 twice beats the right 7 once: the vote is not an oracle
    assert sorted(votes.values()) == [1, 1, 2]
    # a tie between values: the value given first wins
    assert select_answer(["It is 8.", "It is 7.", "It is 7.", "It is 8."], case)[0] == 0


def test_medoid_without_expected() -> None:
    texts = ["paris is the capital of france", "the capital of france is paris", "bananas are yellow fruit"]
    chosen, rule, votes = select_answer(texts, _case(None))
    # Jaccard means: text0 (1.0 + 0.0) / 2, text1 the same (first wins on ties), text2 0
    assert (chosen, rule, votes) == (0, "medoid", {})
    assert select_answer(["only one"], _case(None)) == (0, "medoid", {})


def test_token_board_waits_only_when_told() -> None:
    import asyncio

    from harness.council.arms import TokenBoard
    from harness.records.transcript import CallRecord

    first = (CallRecord(stage="stage1", member="a", model="m", tokens_in=100, tokens_out=82),)
    second = (CallRecord(stage="stage1", member="a", model="m", tokens_in=500, tokens_out=63),)

    async def scenario() -> tuple[object, object, object]:
        plugin = TokenBoard(council_runs=True, waits=False)
        before = await plugin.wait("d::q")  # the council's case has not finished: no waiting, no target
        plugin.publish("d::q", first)
        run = TokenBoard(council_runs=True)
        waiter = asyncio.create_task(run.wait("d::q"))
        await asyncio.sleep(0)
        assert not waiter.done()  # the run's board waits for the council
        run.publish("d::q", second)
        return before, await plugin.wait("d::q"), await waiter

    assert asyncio.run(scenario()) == (None, first, second)
    assert asyncio.run(TokenBoard(council_runs=False).wait("d::q")) is None
