"""Council modes (issue 29) end to end on a scripted loopback OpenAI-compatible server.

:class:`ModeServer` scripts a four-member council (``a`` the chairman, ``b``, ``c``, ``d``) on the
arithmetic questions of :func:`tests.scripted_server.question` (``Qnn``, answer ``nn + 100``):

* stage 1: ``a`` "The answer is 7.", ``b`` "It is 7." (wrong), ``c`` "The answer is N.", ``d`` "It is N.";
* stage 2: reviewers order answers by camp, then by text; on even questions every reviewer ranks the ``7``
  answers first (one order b, a, d, c: CSS 0.622, the seed's weak band); on odd questions ``a`` and ``b``
  rank ``7`` first and ``c`` and ``d`` the right answers first (two camps: CSS 0.326, below 0.50). The CSS
  values are the seed formula's, worked by hand from the average positions (self-votes left out): one order
  gives b 1, a 5/3, d 7/3, c 3; two camps b 5/3, d 5/3, a 7/3, c 7/3 (b and d tied at the top);
* stage 3: the plain synthesis repeats the answer ranked #1; the debate verdict lays out the two positions
  and picks the right number; the tie-breaker picks the candidate with the right number; with minority
  views the chairman writes the right number;
* the jury: ``a`` yes 0.6, ``b`` no 0.9, ``c`` no 0.8, ``d`` yes 0.7 (a 2-2 count that summed confidence
  decides), on the boolean and two-option questions of :func:`_binary_dataset`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

from harness.gate.paired_difference import paired_difference
from harness.gate.remediation import council_css
from harness.records.mode_types import (
    DebateVerdict,
    DissentRecord,
    JuryRecord,
    MultiRoundRecord,
    PackageVerdictRecord,
    TieBreakRecord,
)
from harness.run.runs import load_run
from harness.stats.signflip import sign_flip_test
from tests.cli_env import run_cli, scripted_project
from tests.scripted_server import QID, ScriptedServer

N = 16
BLOCK = re.compile(r"<<<(Response [A-Z])>>>\n(.*?)\n<<<end Response [A-Z]>>>", re.DOTALL)
JURY = {"m-a": ("yes", 0.6), "m-b": ("no", 0.9), "m-c": ("no", 0.8), "m-d": ("yes", 0.7)}
CHOICE = {"m-a": ("A", 0.6), "m-b": ("B", 0.9), "m-c": ("B", 0.8), "m-d": ("A", 0.7)}


def _right(content: str) -> tuple[str, str]:
    m = QID.search(content)
    qid = m.group(1) if m else "Q00"
    return qid, str(int(qid[1:]) + 100)


class ModeServer(ScriptedServer):
    """The council of the module docstring."""

    def __init__(self) -> None:
        super().__init__(council_right=(), baseline_right=())

    def reply(self, body: dict[str, Any]) -> tuple[str, str]:
        content = str(body["messages"][-1]["content"])
        model = str(body.get("model"))
        qid, right = _right(content)
        blocks = BLOCK.findall(content)
        if "You are a juror" in content:
            vote, conf = (CHOICE if "'A' or 'B'" in content else JURY)[model]
            return json.dumps({"reason": f"{model} thinks {vote}", "verdict": vote, "confidence": conf}), "stop"
        if content.startswith("You are reviewing anonymized answers"):
            odd = int(qid[1:]) % 2 == 1
            wrong_first = not odd or model in ("m-a", "m-b")
            ranked = sorted(blocks, key=lambda b: ((" 7." in b[1]) != wrong_first, b[1]))
            return json.dumps(
                {"critique": f"{model} prefers {ranked[0][1]}", "ranking": [lab for lab, _ in ranked]}
            ), "stop"
        if "lay out the competing positions" in content:
            held_right = [lab for lab, t in blocks if right in t]
            held_wrong = [lab for lab, t in blocks if right not in t]
            return json.dumps(
                {
                    "positions": [
                        {"position": f"the sum is {right}", "held_by": held_right, "why": "adds the numbers"},
                        {"position": "the sum is 7", "held_by": held_wrong, "why": "a slip"},
                    ],
                    "rationale": "the addition checks out",
                    "pick": f"The answer is {right}.",
                }
            ), "stop"
        if "break the tie" in content:
            pick = next((lab for lab, t in blocks if right in t), blocks[0][0])
            return json.dumps({"rationale": f"{pick} adds correctly", "pick": pick}), "stop"
        if content.startswith("Several assistants answered"):
            if "Minority views" in content:
                return f"The answer is {right}.", "stop"
            first = content.split("Answer ranked #1:\n", 1)[1].split("\n", 1)[0]
            return first, "stop"
        return {"m-a": "The answer is 7.", "m-b": "It is 7.", "m-c": f"The answer is {right}."}.get(
            model, f"It is {right}."
        ), "stop"


def _binary_dataset(root: Path) -> None:
    (root / "golden" / "binary.yaml").write_text(
        "golden_datasets:\n  - name: binary\n    queries:\n"
        '      - {id: yes1, query: "Q01: Is 101 even?", expected: {type: boolean, value: false}}\n'
        '      - {id: two1, query: "Q04: Is 104 odd or even?", expected: {type: choice, answer: B, '
        "options: {A: odd, B: even}}}\n"
        '      - {id: three1, query: "Q05: Pick one", expected: {type: choice, answer: A, '
        "options: {A: x, B: y, C: z}}}\n"
    )


def _results(root: Path) -> tuple[Path, dict[tuple[str, str], Any]]:
    (run_dir,) = (root / "reports" / "runs").iterdir()
    return run_dir, {(r.case_id, r.subject): r for r in load_run(run_dir).results}


def test_every_mode_end_to_end_with_its_record_ledger_report_and_band_table(tmp_path: Path) -> None:
    subjects = "council,council:debate,council+dissent,council:tie-breaker"
    with ModeServer() as server:
        root = scripted_project(tmp_path, server.base_url, N, fourth_model="m-d")
        proc = run_cli(root, "--subjects", subjects)
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out
    assert "Traceback" not in out
    run_dir, results = _results(root)

    css = council_css(list(results.values()))
    for i in range(N):
        assert css[f"sums::q{i:02d}"] == (0.326 if i % 2 else 0.622)
        council = results[(f"q{i:02d}", "council")]
        assert council.transcript.final_answer == "It is 7."  # b is ranked #1 either way
        assert council.scores["correct"] == 0.0

        # council:debate: two positions, who holds each (labels mapped back to members), the pick scored
        debate = results[(f"q{i:02d}", "council:debate")]
        mode = debate.transcript.mode
        assert isinstance(mode, DebateVerdict) and mode.parsed
        assert [(p.position, sorted(p.held_by)) for p in mode.positions] == [
            (f"the sum is {i + 100}", ["c", "d"]),
            ("the sum is 7", ["a", "b"]),
        ]
        assert debate.transcript.final_answer == mode.pick == f"The answer is {i + 100}."
        assert debate.scores["correct"] == 1.0

        # council+dissent: on odd questions b, c and d ranked against the aggregate
        dissent = results[(f"q{i:02d}", "council+dissent")]
        rec = dissent.transcript.mode
        assert isinstance(rec, DissentRecord)
        if i % 2:
            # (reviewer, its first other than itself, the aggregate's best other than itself)
            assert {(v.reviewer, v.preferred, v.aggregate_winner) for v in rec.minority} == {
                ("b", "a", "d"),
                ("c", "d", "b"),
                ("d", "c", "b"),
            }
            assert all(v.critique.startswith(f"m-{v.reviewer} prefers") for v in rec.minority)
            assert "Minority views" in rec.section and dissent.scores["correct"] == 1.0
        else:
            assert rec.minority == () and rec.section == "" and dissent.scores["correct"] == 0.0

        # council:tie-breaker: two camps tie b and d at the top (Borda 2/3 each); one order does not
        tb = results[(f"q{i:02d}", "council:tie-breaker")]
        rec_tb = tb.transcript.mode
        assert isinstance(rec_tb, TieBreakRecord) and rec_tb.band == 0.5
        if i % 2:
            assert rec_tb.trigger == "tie" and rec_tb.candidates == ("b", "d") and rec_tb.pick == "d"
            assert "adds correctly" in rec_tb.rationale and tb.transcript.synthesis is None
            assert tb.transcript.final_answer == f"It is {i + 100}."
        else:
            assert rec_tb.trigger == "none" and rec_tb.css == 0.622 and rec_tb.pick is None
            assert tb.transcript.final_answer == "It is 7."
        # every council mode makes the plain council's calls: 4 answers, 4 reviews, 1 chairman call
        for subject in ("council", "council:debate", "council+dissent", "council:tie-breaker"):
            stages = [c.stage for c in results[(f"q{i:02d}", subject)].transcript.calls]
            assert stages == ["stage1"] * 4 + ["stage2"] * 4 + ["stage3"], subject

    # the band table: summary.json, the console and the report
    summary = json.loads((run_dir / "summary.json").read_text())
    bands = {b["mode"]: b for b in summary["remediation"]["bands"]}
    assert summary["remediation"]["label"] == "exploratory"
    assert bands["council+dissent"]["n"] == 8 and bands["council+dissent"]["cases"] == 8  # even questions
    assert bands["council+dissent"]["difference"] == 0.0  # no dissent on one shared order
    assert (bands["council+dissent"]["ci_low"], bands["council+dissent"]["ci_high"]) == (0.0, 0.0)
    deb = bands["council:debate"]
    assert deb["n"] == 8 and deb["difference"] == 1.0 and deb["confidence"] == 0.975  # Bonferroni over 2 bands
    # all eight differences are 1: the 0.975 sign-flip interval over 2**8 patterns is [1, 1]
    assert (deb["ci_low"], deb["ci_high"]) == (1.0, 1.0)
    assert "below CSS 0.50 (n=8): council:debate − council (synthesis) on correct = +1.00 (+1.00 to +1.00" in out
    # ledger rows: every mode's calls are in the usage section by subject
    usage = summary["usage"]["by_subject"]
    assert usage["council:debate"]["calls"] == usage["council"]["calls"] == N * 9
    html = (run_dir / "index.html").read_text()
    assert 'id="remediation-bands"' in html and 'id="mode-summaries"' in html
    assert "chairman decided 8 of" in html and "minority views on 8 of" in html


def test_jury_gives_binary_verdicts_and_refuses_other_cases(tmp_path: Path) -> None:
    with ModeServer() as server:
        root = scripted_project(tmp_path, server.base_url, 2, fourth_model="m-d")
        _binary_dataset(root)
        proc = run_cli(root, "--subjects", "council:jury")
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out
    assert "Traceback" not in out
    run_dir, results = _results(root)
    # council:jury: a 2-2 count decided by summed confidence (no 1.7 > yes 1.3); P(no) = mean(.4,.9,.8,.3)
    jury = results[("yes1", "council:jury")]
    rec_j = jury.transcript.mode
    assert isinstance(rec_j, JuryRecord)
    assert rec_j.counts == {"yes": 2, "no": 2} and rec_j.verdict == "no" and rec_j.tie_rule == "summed confidence"
    assert rec_j.confidence == 0.6 and jury.status == "passed" and jury.scores["correct"] == 1.0
    assert [c.stage for c in jury.transcript.calls] == ["jury"] * 4
    two = results[("two1", "council:jury")].transcript.mode
    assert isinstance(two, JuryRecord) and two.options == ("A", "B") and two.verdict == "B"
    # refused per case, with a clear message: three options, and every numeric case
    for case_id, words in (("three1", "a choice of 3 options"), ("q00", "'numeric'")):
        r = results[(case_id, "council:jury")]
        assert r.status == "error" and "Traceback" not in (r.error or "")
        assert f"case {case_id}: council:jury gives binary verdicts: this case has {words}" in (r.error or "")

    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["usage"]["by_subject"]["council:jury"]["calls"] == 2 * 4  # refused cases make no call
    html = (run_dir / "index.html").read_text()
    assert 'id="mode-summaries"' in html and "2 verdicts, mean confidence" in html


def test_debate_rounds_fix_a_wrong_majority_and_beat_self_consistency(tmp_path: Path) -> None:
    """a and b say 7, c the right number; after reading c's answer a and b take the right number,
    so debate:1 is right on every case and self-consistency of a never is."""

    class Fixing(ScriptedServer):
        def reply(self, body: dict[str, Any]) -> tuple[str, str]:
            content = str(body["messages"][-1]["content"])
            _, right = _right(content)
            if "answers to the question from other agents" in content:
                fixed = right in content or body.get("model") == "m-c"  # c keeps its right answer
                return (f"The answer is {right}." if fixed else "The answer is 7."), "stop"
            return ("The answer is 7." if body.get("model") != "m-c" else f"The answer is {right}."), "stop"

    with Fixing(council_right=(), baseline_right=()) as server:
        root = scripted_project(tmp_path, server.base_url, N, extra="self_consistency_samples: 3\n")
        proc = run_cli(root, "--subjects", "debate:1,self-consistency:a")
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    run_dir, results = _results(root)
    for i in range(N):
        t = results[(f"q{i:02d}", "debate:1")].transcript
        rec = t.mode
        assert isinstance(rec, MultiRoundRecord) and rec.rounds == 1 and rec.rule == "majority"
        assert [[a.stated for a in r.answers] for r in rec.history] == [["7", "7", str(i + 100)], [str(i + 100)] * 3]
        assert rec.changed == 2 and rec.votes == {str(i + 100): 3}
        assert [c.stage for c in t.calls] == ["stage1"] * 3 + ["debate"] * 3
        assert t.final_answer == f"The answer is {i + 100}."
    diff = paired_difference(list(results.values()), "debate:1", "self-consistency:a", "correct")
    assert diff.n == N and diff.mean == 1.0 and diff.low > 0
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["usage"]["by_subject"]["debate:1"]["calls"] == N * 6
    assert 'id="quality-per-cost"' in (run_dir / "index.html").read_text()


def _copy_says_right(qid: str, seed: object, turn: str) -> bool:
    return hashlib.sha256(f"{qid}|{seed}|{turn}".encode()).digest()[0] % 2 == 0


def test_debate_of_copies_of_one_model_matches_self_consistency(tmp_path: Path) -> None:
    """Every member and sample is the same model: right or wrong by a coin drawn from (question, seed, turn),
    and it ignores what the others said; debate's majority and self-consistency's majority are then two
    draws from one distribution, so their difference is near 0 with an interval containing 0."""

    class Copies(ScriptedServer):
        def reply(self, body: dict[str, Any]) -> tuple[str, str]:
            content = str(body["messages"][-1]["content"])
            qid, right = _right(content)
            turn = "revise" if "answers to the question from other agents" in content else "first"
            ok = _copy_says_right(qid, body.get("seed"), turn)
            return (f"The answer is {right}." if ok else "The answer is 7."), "stop"

    n = 30
    with Copies(council_right=(), baseline_right=()) as server:
        root = scripted_project(tmp_path, server.base_url, n, third_model="m-a", extra="self_consistency_samples: 3\n")
        proc = run_cli(root, "--subjects", "debate:2,self-consistency:a")
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    _, results = _results(root)
    rs = list(results.values())
    diff = paired_difference(rs, "debate:2", "self-consistency:a", "correct")
    # the same numbers from the definitions: per case, 1 when 2 of 3 final draws are right, minus the same for SC
    debate = [results[(f"q{i:02d}", "debate:2")].scores["correct"] for i in range(n)]
    sc = [results[(f"q{i:02d}", "self-consistency:a")].scores["correct"] for i in range(n)]
    d = [x - y for x, y in zip(debate, sc, strict=True)]
    assert diff.n == n and math.isclose(diff.mean, sum(d) / n)
    test = sign_flip_test(d)
    assert (diff.low, diff.high) == (test.low, test.high)
    assert abs(diff.mean) <= 0.2 and diff.low <= 0 <= diff.high


def test_llm_council_runs_the_seed_modes_itself(tmp_path: Path) -> None:
    """``llm-council:debate`` runs llm-council-core with ``synthesis_mode: debate`` (its chairman prompt asks
    for "Axes of Disagreement" and "Position Summaries"), ``llm-council+dissent`` with
    ``include_dissent=True``; both on the loopback scripted endpoint, under their own names."""

    class Recording(ScriptedServer):
        def __init__(self) -> None:
            super().__init__(council_right=(), baseline_right=())
            self.prompts: list[str] = []

        def reply(self, body: dict[str, Any]) -> tuple[str, str]:
            with self._lock:
                self.prompts.append(str(body["messages"][-1]["content"]))
            return super().reply(body)

    with Recording() as server:
        root = scripted_project(tmp_path, server.base_url, 1, concurrency=1)
        proc = run_cli(root, "--subjects", "llm-council:debate,llm-council+dissent")
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out
    assert "Traceback" not in out
    _, results = _results(root)
    debate, dissent = results[("q00", "llm-council:debate")], results[("q00", "llm-council+dissent")]
    assert debate.status != "error" and dissent.status != "error", (debate.error, dissent.error)
    assert debate.transcript.subject == "llm-council:debate" and debate.transcript.external is not None
    assert debate.transcript.mode is None
    assert isinstance(dissent.transcript.mode, DissentRecord)  # the package found none: ranking-only ballots
    debate_prompts = [p for p in server.prompts if "Axes of Disagreement" in p and "Position Summaries" in p]
    assert len(debate_prompts) == 1  # one chairman call in debate mode, none for the +dissent run


def test_jury_votes_and_tally_rules() -> None:
    from harness.council.modes import tally
    from harness.council.modes.jury import read_vote
    from harness.records.mode_types import JuryVote

    opts = ("yes", "no")
    assert read_vote("a", '{"reason": "r", "verdict": "YES", "confidence": 0.8}', opts) == JuryVote(
        member="a", value="yes", confidence=0.8, reason="r"
    )
    assert read_vote("a", "No. Confidence: 70", opts).confidence == 0.7  # a percentage read from the text
    assert read_vote("a", "yes or no, hard to say", opts).value is None  # both named: no vote
    assert read_vote("a", '{"verdict": "yes", "confidence": 3000}', opts).confidence is None  # out of range
    # an exact tie (counts and summed confidence) goes to the chairman's vote, then to the first option
    votes = (JuryVote(member="a", value="no", confidence=0.5), JuryVote(member="b", value="yes", confidence=0.5))
    assert (tally(votes, opts, "a").verdict, tally(votes, opts, "a").tie_rule) == ("no", "the chairman's vote")
    assert (tally(votes, opts, "z").verdict, tally(votes, opts, "z").tie_rule) == ("yes", "first option")
    # majority 2-1; P(yes) = mean(0.9, 0.6, 1 - 0.8) = 0.5667; a missing confidence counts as 0.5
    three = (
        JuryVote(member="a", value="yes", confidence=0.9),
        JuryVote(member="b", value="yes", confidence=0.6),
        JuryVote(member="c", value="no", confidence=0.8),
        JuryVote(member="d", value=None, error="x"),
    )
    rec = tally(three, opts, "a")
    assert (rec.verdict, rec.counts, rec.confidence, rec.tie_rule) == ("yes", {"yes": 2, "no": 1}, 0.5667, "")
    assert tally((JuryVote(member="a", value="no"),), opts, "a").confidence == 0.5
    assert tally((), opts, "a").verdict is None


def test_debate_pick_by_label_and_unreadable_verdict(tmp_path: Path) -> None:
    """On odd questions the chairman's pick is a response label (its answer is scored); on even ones its
    verdict is cut off mid-JSON (the top-ranked answer is scored, an error noted)."""

    class Chair(ModeServer):
        def reply(self, body: dict[str, Any]) -> tuple[str, str]:
            content = str(body["messages"][-1]["content"])
            if "lay out the competing positions" in content:
                qid, right = _right(content)
                if int(qid[1:]) % 2 == 0:
                    return '{"positions": [{"position": "the sum', "length"
                label = next(lab for lab, t in BLOCK.findall(content) if right in t)
                return json.dumps(
                    {
                        "positions": [{"position": right, "held_by": [label], "why": "w"}],
                        "rationale": "r",
                        "pick": label,
                    }
                ), "stop"
            return super().reply(body)

    with Chair() as server:
        root = scripted_project(tmp_path, server.base_url, 4, fourth_model="m-d")
        proc = run_cli(root, "--subjects", "council:debate")
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    _, results = _results(root)
    for i in range(4):
        t = results[(f"q{i:02d}", "council:debate")].transcript
        mode = t.mode
        assert isinstance(mode, DebateVerdict)
        stage3 = [c for c in t.calls if c.stage == "stage3"]
        assert len(stage3) == 1
        if i % 2:
            assert mode.parsed and mode.pick_member in ("c", "d") and mode.pick.startswith("Response ")
            assert t.final_answer == t.answer_of(mode.pick_member).text  # type: ignore[union-attr]
            assert t.final_answer.endswith(f"{i + 100}.")
        else:
            assert not mode.parsed and mode.pick_member is None
            assert t.final_answer == "It is 7."  # b, top-ranked on one shared order
            assert any("no readable debate verdict; the top-ranked answer is kept" in e for e in t.errors)


PACKAGE_CANDIDATE = re.compile(r'<candidate_response id="([A-Z])">\n(.*?)\n</candidate_response>', re.DOTALL)
NEXT_MEMBER = {"m-a": "m-b", "m-b": "m-c", "m-c": "m-a"}


class PackageVerdictServer(ScriptedServer):
    """llm-council-core's own prompts, scripted: members answer "yes (<model>)"; the package's reviewers
    rank a, b, c on every question except ``Q02``, where each prefers the next member (a cycle: every
    Borda score equal, so the package escalates BINARY to TIE_BREAKER); its BINARY chairman approves
    ``Q01`` (0.8) and writes no JSON on ``Q03``; its TIE_BREAKER chairman approves (0.55) except on
    ``Q03``, which it rejects (0.7). On ``Q05`` the reviewers write no ballot at all."""

    def __init__(self) -> None:
        super().__init__(council_right=(), baseline_right=())
        self.prompts: list[str] = []

    def reply(self, body: dict[str, Any]) -> tuple[str, str]:
        content = str(body["messages"][-1]["content"])
        model = str(body.get("model"))
        qid, _ = _right(content)
        with self._lock:
            self.prompts.append(content)
        if content.startswith("You are evaluating different responses"):
            if qid == "Q05":
                return "No opinion.", "stop"
            owner = {
                f"Response {c}": text.split("(")[-1].rstrip(").") for c, text in PACKAGE_CANDIDATE.findall(content)
            }
            order = (
                [NEXT_MEMBER[model], NEXT_MEMBER[NEXT_MEMBER[model]], model] if qid == "Q02" else ["m-a", "m-b", "m-c"]
            )
            ranking = [lab for m in order for lab, o in owner.items() if o == m]
            return "Fine answers.\n```json\n" + json.dumps({"ranking": ranking}) + "\n```", "stop"
        if "DEADLOCKED deliberation" in content:
            verdict, conf = ("rejected", 0.7) if qid == "Q03" else ("approved", 0.55)
            return json.dumps(
                {
                    "verdict": verdict,
                    "confidence": conf,
                    "rationale": f"tie broken on {qid}",
                    "deadlock_resolution": "r",
                }
            ), "stop"
        if "BINARY VERDICT" in content:
            if qid == "Q03":
                return "Pending.", "stop"
            return json.dumps({"verdict": "approved", "confidence": 0.8, "rationale": f"sound on {qid}"}), "stop"
        return f"The answer is yes ({model}).", "stop"


def test_llm_council_runs_its_binary_and_tie_breaker_verdicts(tmp_path: Path) -> None:
    """``llm-council:jury`` (the package's VerdictType.BINARY, escalated by the package itself on a Borda
    deadlock) and ``llm-council:tie-breaker`` (TIE_BREAKER) on boolean cases: records, final answers,
    stage-3 calls in the ledger; other types refused per case before any call; a mode the package does
    not offer refused at start-up."""
    with PackageVerdictServer() as server:
        root = scripted_project(tmp_path, server.base_url, 1, concurrency=1)
        (root / "golden" / "binary.yaml").write_text(
            "golden_datasets:\n  - name: binary\n    queries:\n"
            '      - {id: odd, query: "Q01: Is 101 odd?", expected: {type: boolean, value: true}}\n'
            '      - {id: dead, query: "Q02: Is 102 even?", expected: {type: boolean, value: true}}\n'
            '      - {id: mute, query: "Q03: Is 103 even?", expected: {type: boolean, value: false}}\n'
            '      - {id: two, query: "Q04: Is 104 odd or even?", expected: {type: choice, answer: B, '
            "options: {A: odd, B: even}}}\n"
            '      - {id: unranked, query: "Q05: Is 105 odd?", expected: {type: boolean, value: true}}\n'
        )
        proc = run_cli(root, "--subjects", "llm-council:jury,llm-council:tie-breaker")
        refused = run_cli(root, "--subjects", "llm-council:debate:2")
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out
    assert "Traceback" not in out
    run_dir, results = _results(root)

    odd = results[("odd", "llm-council:jury")]
    rec = odd.transcript.mode
    assert isinstance(rec, PackageVerdictRecord)
    assert (rec.requested, rec.effective, rec.verdict, rec.answer, rec.confidence, rec.deadlocked) == (
        "binary",
        "binary",
        "approved",
        "yes",
        0.8,
        False,
    )
    assert odd.transcript.final_answer.startswith("Answer: yes\n") and odd.status == "passed"
    # the transcript keeps the case's query; the package got it framed
    assert odd.transcript.query.startswith("Q01: Is 101 odd?") and "APPROVED" not in odd.transcript.query
    assert [c.stage for c in odd.transcript.calls] == ["stage1"] * 3 + ["stage2"] * 3 + ["stage3"]
    # the package's deadlock (every Borda score equal) escalated BINARY to its tie-breaker prompt
    dead = results[("dead", "llm-council:jury")].transcript.mode
    assert isinstance(dead, PackageVerdictRecord)
    assert (dead.requested, dead.effective, dead.verdict, dead.deadlocked, dead.confidence) == (
        "binary",
        "tie_breaker",
        "approved",
        True,
        0.55,
    )
    assert results[("dead", "llm-council:jury")].status == "passed"
    # no JSON verdict: nothing substituted, the chairman's reply is the answer, the error noted
    mute = results[("mute", "llm-council:jury")]
    assert isinstance(mute.transcript.mode, PackageVerdictRecord) and mute.transcript.mode.verdict is None
    assert mute.transcript.final_answer == "Pending." and mute.status != "passed"
    assert any("parsed no binary verdict" in e for e in mute.transcript.errors)

    for case_id, answer in (("odd", "yes"), ("dead", "yes"), ("mute", "no")):
        r = results[(case_id, "llm-council:tie-breaker")]
        tie = r.transcript.mode
        assert isinstance(tie, PackageVerdictRecord)
        assert (tie.requested, tie.effective, tie.answer, tie.deadlocked) == (
            "tie_breaker",
            "tie_breaker",
            answer,
            True,
        )
        assert r.status == "passed", (case_id, r.transcript.final_answer)
    framed = [p for p in server.prompts if p.startswith("Q01: Is 101 odd?")]
    assert framed and all("APPROVED means the answer is yes" in p for p in framed)
    chair = [p for p in server.prompts if ("BINARY VERDICT" in p or "DEADLOCKED deliberation" in p) and "Q05:" not in p]
    assert len(chair) == 6  # one per boolean case and subject: Q02's BINARY went straight to the tie-breaker

    # refused per case, before any call: a numeric case and a two-option choice (approved names no option)
    for subject in ("llm-council:jury", "llm-council:tie-breaker"):
        for case_id, words in (("q00", "'numeric'"), ("two", "'choice'")):
            r = results[(case_id, subject)]
            assert r.status == "error" and "Traceback" not in (r.error or "")
            assert f"case {case_id}: {subject} runs llm-council-core's" in (r.error or "")
            assert f"this case has {words}; expected a boolean case" in (r.error or "")
    assert not any(p.startswith(("Q00:", "Q04:")) for p in server.prompts)
    # llm-council-core 0.53 itself fails when no reviewer's ballot parses: its deadlock check sorts the
    # missing (None) Borda scores; the case is an error naming the package, the run goes on
    for subject in ("llm-council:jury", "llm-council:tie-breaker"):
        r = results[("unranked", subject)]
        assert r.status == "error" and "llm-council-core failed: TypeError" in (r.error or ""), r.error
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["usage"]["by_subject"]["llm-council:jury"]["calls"] == 3 * 7
    html = (run_dir / "index.html").read_text()
    assert "llm-council-core binary verdicts: 2 of 3 read as yes/no (2 approved), 1 deadlocked" in html

    assert refused.returncode == 2 and "llm-council-core does not offer this mode" in refused.stderr, refused.stderr
