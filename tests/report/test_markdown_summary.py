"""The run's Markdown summary (issue 30 item 2): ``summary.md`` in every run folder and ``run --markdown PATH``,
with the gate verdict, the >15% verdict lines, the regressed cases linked to the report's drill-downs and
usage; model text in it is inert (no table break, no HTML, no link, no code span)."""

from __future__ import annotations

import re
from pathlib import Path

from harness.gate.regression import gate_outcome
from harness.report.markdown import md_text, write_markdown
from harness.run.runs import load_run
from tests.builders import result, run_folder
from tests.cli_env import run_cli, scripted_project
from tests.scripted_server import SOLO, ScriptedServer

N = 6
HOSTILE = "bad | cell <script>alert(1)</script> `code` [click](http://evil.example) **bold**\n# heading\r\nx\u202ey"


def test_every_run_writes_summary_md_and_markdown_path_with_the_regressed_cases(tmp_path: Path) -> None:
    with ScriptedServer(range(4), range(4)) as server:
        root = scripted_project(tmp_path, server.base_url, N, extra=f"baseline: {SOLO}\n")
        config = root / "council-harness.yaml"
        config.write_text(re.sub(r"model: (m-[abc])", r"model: \1, temperature: 0", config.read_text()))
        stored = run_cli(root, "--update-baseline")
    first = stored.stdout.split("report: ")[1].split("\n")[0]
    first_md = (Path(first).parent / "summary.md").read_text()
    assert first_md.startswith("## council-harness: gate FAIL\n")  # 2 failing cases per subject, no baseline yet
    with ScriptedServer(range(3), range(4)) as server:  # case 3 regresses through the council
        config.write_text(config.read_text().replace("base_url: ", f"base_url: {server.base_url}\n#", 1))
        done = run_cli(root, "--markdown", "out/pr.md")
    assert done.returncode == 1, done.stdout + done.stderr
    report = Path(done.stdout.split("report: ")[1].split("\n")[0])
    assert "markdown: out/pr.md" in done.stdout
    in_run = (report.parent / "summary.md").read_text()
    for_pr = (root / "out" / "pr.md").read_text()
    assert in_run.startswith("## council-harness: gate FAIL\n")
    assert "- primary endpoint: council vs single model on " in in_run  # the >15% verdict lines
    assert "| sums | [q03](index.html#case-sums-q03) | council | newly\\_failing |" in in_run
    assert "| sums | [q04](index.html#case-sums-q04) | council | failing |" in in_run
    rows = [line for line in in_run.splitlines() if line.startswith("| sums |")]
    assert {line.split(" | ")[1].split("]")[0].lstrip("[") for line in rows} == {"q03", "q04", "q05"}
    assert "### Usage" in in_run and "- usage: 48 calls" in in_run
    link = f"../reports/runs/{report.parent.name}/index.html"
    assert f"[HTML report]({link})" in for_pr and f"({link}#case-sums-q03)" in for_pr
    assert for_pr.replace(link, "index.html") == in_run


def test_model_text_is_inert_in_the_summary(tmp_path: Path) -> None:
    run = load_run(
        run_folder(tmp_path, "r", [result("c1", "council", "error", error=HOSTILE), result("c2", "council", "passed")])
    )
    gate = gate_outcome(run, [])
    path = write_markdown(tmp_path / "s.md", run, gate, run.run_dir / "index.html", [f"scope {HOSTILE}"], [])
    text = path.read_text()
    (row,) = [line for line in text.splitlines() if line.startswith("| d |")]
    assert row.count(" | ") == 4 and row.endswith(" |")  # five cells: the model's `|` and newlines did not split it
    assert "<script" not in text and "&lt;script&gt;" in text
    assert "[click](http" not in text and "\\[click\\](http://evil.example)" in text and "\\*\\*bold" in text
    assert "`code`" not in text and "\\`code\\`" in text
    assert "\n# heading" not in text and "\u202e" not in text and "⟨U+202E⟩" in text
    assert "[c1](r/index.html#case-d-c1)" in row  # the report's link, relative to the summary's folder
    assert md_text("a|b\nc") == "a\\|b c"
    assert [md_text(t) for t in ("# h", "- x", "12. x", "> q", "a - b")] == [
        "\\# h",
        "\\- x",
        "\\12. x",
        "&gt; q",
        "a - b",
    ]
