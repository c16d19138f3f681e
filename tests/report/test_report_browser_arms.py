"""Issue 15: the arms panel of a report built from a small real run, in headless Chromium.

The run is real: the CLI against the scripted loopback OpenAI-compatible server
(:mod:`tests.scripted_server`) with pricing and a declared selection split, so the report carries the
arm verdicts, the best member's choice, leave-one-out with its cross-check, the usage ledger and both
quality-per-cost charts. Skipped without Chromium unless ``HARNESS_REQUIRE_BROWSER=1`` (see
:mod:`tests.report.test_report_browser`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest

from tests.chromium import Browser, Tab, chromium_path
from tests.cli_env import run_cli
from tests.council.test_arms import N, _project
from tests.scripted_server import ScriptedServer

pytestmark = pytest.mark.skipif(
    chromium_path() is None and not os.environ.get("HARNESS_REQUIRE_BROWSER"),
    reason="chromium is not installed (Debian: apt-get install -y chromium); set HARNESS_REQUIRE_BROWSER=1 to fail",
)

SUBJECTS = "council,solo:a,solo:c,self-consistency:a,vote,council-without:c"
PRICING = (
    "pricing:\n  m-a: {input: 2.0, output: 10.0}\n  m-b: {input: 1.0, output: 1.0}\n  solo: {input: 0.5, output: 0.5}\n"
)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tab]:
    root = tmp_path_factory.mktemp("arms-browser")
    with ScriptedServer(council_right=range(N), baseline_right=range(3)) as server:
        _project(root, server.base_url, "primary_endpoint: correct\n" + PRICING)
        golden = root / "golden" / "sums.yaml"
        tagged = golden.read_text().replace("      - id: q00\n", "      - id: q00\n        tags: [selection]\n")
        golden.write_text(tagged)
        proc = run_cli(root, "--subjects", SUBJECTS)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    (run_dir,) = (root / "reports" / "runs").iterdir()
    with Browser() as browser:
        yield browser.open(run_dir / "index.html")


def _texts(page: Tab, selector: str) -> list[str]:
    return page.evaluate(f"Array.from(document.querySelectorAll({selector!r})).map(e => e.textContent.trim())")


def test_arm_rows_best_member_and_cross_check(page: Tab) -> None:
    arms = _texts(page, "#arm-verdicts tr td:first-child")
    assert arms == ["solo:a", "solo:c", "best-solo", "self-consistency:a", "vote"]
    # every arm row states its three budget ratios and the verdict sentence carries them too
    ratios = _texts(page, "#arm-verdicts tr td:nth-child(3)")
    # every model is priced here: the dollar ratio is stated too
    shape = r"\d+\.\d\dx tokens, \d+\.\d\dx completion tokens, \d+\.\d\dx dollars"
    assert all(re.fullmatch(shape, r) for r in ratios), ratios
    assert all(s.endswith(r) for s, r in zip(_texts(page, "#arm-verdicts tr td:nth-child(4)"), ratios, strict=True))
    best = page.evaluate("document.getElementById('best-member').textContent")
    # q00 is the split: c is right there (baseline_right 0-2), a is not; best-solo is scored on the 5 others
    assert best.startswith("best single member: c, chosen on the 1 case(s) tagged 'selection'")
    assert best.endswith("reported as best-solo on the other 5 case(s): 0.400 (n=5)")
    assert _texts(page, "#leave-one-out tr td:first-child") == ["c"]
    assert _texts(page, "#loo-cross-check tr td:first-child") == ["a", "b", "c"]


def test_ledger_rows_and_both_charts_are_drawn(page: Tab) -> None:
    subjects = _texts(page, "#usage-ledger tr td:first-child")
    assert sorted(subjects) == sorted(SUBJECTS.split(","))
    calls = dict(zip(subjects, (int(x) for x in _texts(page, "#usage-ledger tr td:nth-child(2)")), strict=True))
    assert calls["council"] == N * 7 and calls["solo:a"] == N and calls["vote"] == N * 3
    assert calls["council-without:c"] == N * 5
    for fig in ("quality-per-cost", "quality-per-dollar"):
        size = page.evaluate(
            f"(() => {{ const r = document.querySelector('#{fig} svg.chart')"
            ".getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; })()"
        )
        assert size[0] > 200 and size[1] > 100, (fig, size)
        frontier = page.evaluate(f"document.querySelector('#{fig} .frontier').textContent")
        assert frontier and set(frontier.split(", ")) <= set(SUBJECTS.split(",")), frontier
    assert page.errors() == []
