"""Self-consistency matched on a declared budget (issue 28): ``arms.match_on: tokens | completion_tokens | cost``.

On the scripted loopback server the council's calls are prompt-heavy (reviews 90 + 40 tokens, the
synthesis 50 + 30, answers 20 + 11) and the samples of the baseline model ``d`` (outside the council)
are completion-heavy with a length that varies with the seed (10 + 7 x (seed mod 9) completion tokens
after a 20-token prompt), so the adaptive n is exercised and matching on tokens, completion tokens or
dollars gives different n. Output is priced at twice input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.run.runs import load_run
from tests.cli_env import run_cli, scripted_project
from tests.scripted_server import ScriptedServer

N = 6
PRICING = (
    "pricing:\n  m-a: {input: 1.0, output: 2.0}\n  m-b: {input: 1.0, output: 2.0}\n"
    "  m-c: {input: 1.0, output: 2.0}\n  d: {input: 1.0, output: 2.0}\n"
)


class LongSamples(ScriptedServer):
    def usage(self, body: dict[str, Any]) -> tuple[int, int]:
        content = str(body["messages"][-1]["content"])
        if content.startswith("You are reviewing anonymized answers"):
            return 90, 40
        if content.startswith("Several assistants answered"):
            return 50, 30
        if body.get("model") == "d":
            return 20, 10 + 7 * (int(body.get("seed", 0)) % 9)
        return 20, 11


def _run(tmp_path: Path, match_on: str) -> tuple[dict[str, Any], str]:
    with LongSamples(council_right=range(N), baseline_right=()) as server:
        extra = f"baseline: d\nprimary_endpoint: correct\narms: {{match_on: {match_on}}}\n" + PRICING
        root = scripted_project(tmp_path, server.base_url, N, extra=extra)
        proc = run_cli(root, "--subjects", "council,self-consistency:d")
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out
    (run_dir,) = (root / "reports" / "runs").iterdir()
    run = load_run(run_dir)
    (verdict,) = json.loads((run_dir / "summary.json").read_text())["arms"]["verdicts"]
    for r in run.results:
        if r.subject == "self-consistency:d":
            assert r.transcript is not None and r.transcript.arm is not None
            assert r.transcript.arm.match_on == match_on
            # adaptive n: within one sample of the council's budget on every case
            arm = r.transcript.arm
            assert arm.target is not None and arm.spent is not None
            per = arm.spent / arm.samples
            assert abs(arm.spent - arm.target) <= per, (arm.spent, arm.target)
    return verdict, " ".join(out.split())


@pytest.mark.parametrize(
    ("match_on", "ratio"),
    [("tokens", "token_ratio"), ("cost", "cost_ratio"), ("completion_tokens", "completion_ratio")],
)
def test_the_arm_lands_within_5_percent_of_the_councils_budget(tmp_path: Path, match_on: str, ratio: str) -> None:
    verdict, out = _run(tmp_path, match_on)
    assert verdict[ratio] is not None and abs(1 / verdict[ratio] - 1) <= 0.05, verdict
    # every ratio is stated, in summary.json and on the verdict line
    assert None not in (verdict["token_ratio"], verdict["completion_ratio"], verdict["cost_ratio"])
    words = (
        f"at {verdict['token_ratio']:.2f}x tokens, {verdict['completion_ratio']:.2f}x completion tokens, "
        f"{verdict['cost_ratio']:.2f}x dollars"
    )
    assert words in out
    if match_on == "cost":
        # matched on dollars, the completion-heavy arm spends fewer tokens than the council
        assert verdict["token_ratio"] > 1.05 and verdict["completion_ratio"] < 1


def test_cost_matching_needs_every_model_priced(tmp_path: Path) -> None:
    root = scripted_project(
        tmp_path,
        "http://127.0.0.1:9/v1",
        1,
        extra="baseline: d\narms: {match_on: cost}\npricing:\n  d: {input: 1, output: 2}\n",
    )
    proc = run_cli(root, "--subjects", "council,self-consistency:d")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2 and "Traceback" not in out
    assert "arms.match_on is 'cost' but 'm-a', 'm-b', 'm-c' has no positive price" in " ".join(out.split())
