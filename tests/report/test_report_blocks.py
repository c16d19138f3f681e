"""Drill-down blocks as sections with summaries, not one raw row per leaf (issue 17: "77 rows of bias
detail, 21 of peer rubric", ``scores[0].reviewer``)."""

from __future__ import annotations

import re
from pathlib import Path

from harness.bias.audit import audit_session
from harness.records.transcript import AggregateRank, Answer, Ballot, Review, Transcript
from harness.report.blocks import MAX_COLUMNS, field_groups, gist, make_block
from harness.report.html import render_run
from harness.run.runs import load_run
from tests.builders import result, run_folder

BIAS_LIKE = {
    "risk": "medium",
    "risk_factors": ["position_bias", "length"],
    "scores": [
        {"reviewer": r, "candidate": c, "score": s}
        for r, c, s in (("a", "b", 7), ("a", "c", 5), ("b", "a", 8), ("b", "c", 6), ("c", "a", 9), ("c", "b", 4))
    ],
    "position_bias": {
        "detected": True,
        "variance": 2.25,
        "position_means": [{"position": 1, "mean_score": 8.0, "n": 3}, {"position": 2, "mean_score": 5.0, "n": 3}],
    },
    "empty": [],
}


def test_records_become_tables_and_nested_records_titled_sections() -> None:
    block = make_block("bias", BIAS_LIKE)
    assert block is not None
    # every leaf stays on the block (its field count): risk, 2 risk factors, 6 x 3 scores, 2 position
    # fields, 2 x 3 position means; the empty list has none
    assert len(block.rows) == 1 + 2 + 6 * 3 + 2 + 2 * 3
    assert [(g.title, g.summary) for g in block.groups] == [
        ("", "risk medium · risk_factors position_bias, length"),
        ("scores", "6 rows"),
        ("position_bias", "detected yes · variance 2.25"),
        ("position_bias.position_means", "2 rows"),
    ]
    scores = block.groups[1]
    assert scores.columns == ("reviewer", "candidate", "score") and not scores.rows
    assert [tuple(c.value for c in row) for row in scores.table][:2] == [("a", "b", "7"), ("a", "c", "5")]
    means = block.groups[3]
    assert means.columns == ("position", "mean_score", "n")
    assert [tuple(c.value for c in row) for row in means.table] == [("1", "8", "3"), ("2", "5", "3")]
    # no section lists a raw indexed path such as scores[0].reviewer
    paths = [r.path for g in block.groups for r in (*g.rows, *(c for row in g.table for c in row))]
    assert not [p for p in paths if "[" in p]
    assert block.summary == "risk medium · risk_factors position_bias, length"
    assert not block.open  # 29 leaves > OPEN_BLOCK_ROWS


def test_map_of_records_is_a_keyed_table_and_wide_tables_transpose() -> None:
    narrow = field_groups({"m1": {"composite": 7.5, "n": 2}, "m2": {"composite": 6.0, "n": 3}})
    assert [(g.title, g.summary, g.columns) for g in narrow] == [("", "2 entries: m1, m2", ("key", "composite", "n"))]
    assert [tuple(c.value for c in row) for row in narrow[0].table] == [("m1", "7.5", "2"), ("m2", "6", "3")]
    wide_record = {f"f{i}": i for i in range(MAX_COLUMNS + 2)}
    wide = field_groups({"m1": wide_record, "m2": wide_record})
    assert wide[0].columns == ("field", "m1", "m2")
    assert [tuple(c.value for c in row) for row in wide[0].table][:2] == [("f0", "0", "0"), ("f1", "1", "1")]
    many = field_groups({"rows": [wide_record] * (MAX_COLUMNS + 1)})  # wide and long: one section per item
    assert [g.title for g in many] == [f"rows[{i}]" for i in range(MAX_COLUMNS + 1)]
    assert many[0].summary.startswith("f0 0 · f1 1 · ")


def test_gist_stops_at_the_limit_and_cuts_long_values() -> None:
    block = make_block("x", {"a": "1", "b": "two\nlines", "c": "z" * 60})
    assert block is not None
    # parts "a 1" (3), "b two…" (6), "c " + 40 z + "…" (43), 3 more per separator: 6 + 9 + 43 = 58 <= 90
    assert block.groups[0].summary == f"a 1 · b two… · c {'z' * 40}…"
    assert gist(block.groups[0].rows, limit=30) == "a 1 · b two… · …"  # 15 + 43 > 30
    assert make_block("nothing", {"a": [], "b": {}}) is None


def _council_transcript() -> Transcript:
    texts = ("alpha answer text", "beta answer words here", "gamma")
    answers = tuple(Answer(member=m, model=m, text=x) for m, x in zip(("m1", "m2", "m3"), texts, strict=True))
    labels = {"Response A": "m1", "Response B": "m2", "Response C": "m3"}
    reviews = tuple(
        Review(
            reviewer=m,
            model=m,
            raw_text="ranking",
            presentation_order=tuple(labels),
            shuffle_seed=1,
            ballot=Ballot(
                ranking=tuple(lb for lb in labels if labels[lb] != m),
                scores={lb: {"overall": float(5 + i)} for i, lb in enumerate(labels) if labels[lb] != m},
            ),
        )
        for m in ("m1", "m2", "m3")
    )
    return Transcript(
        subject="council",
        query="q?",
        answers=answers,
        label_to_member=labels,
        reviews=reviews,
        aggregate=tuple(AggregateRank(member=m, borda=1.0, average_position=1.5, votes=1) for m in ("m1", "m2", "m3")),
        synthesis="alpha answer text",
        final_answer="alpha answer text",
        chairman="m1",
    )


def test_report_drill_down_shows_bias_scores_as_a_collapsed_table(tmp_path: Path) -> None:
    t = _council_transcript()
    audit = audit_session(t)
    assert audit is not None and len(audit.scores) == 6
    run = run_folder(tmp_path, "r", [result("c1", transcript=t, bias=audit)], datasets=(), finished_at=None)
    html = render_run(load_run(run))
    drill = html[html.index('id="case-d-c1"') :]
    assert "scores[0]" not in drill and "reviewers[0]" not in drill
    scores = re.search(
        r'<details class="group"><summary><span class="mono">scores</span> '
        r'<span class="muted">6 rows</span></summary>\s*<div class="scroll"><table class="inner">'
        r"<tr>(.*?)</tr>",
        drill,
        re.S,
    )
    assert scores is not None
    assert re.findall(r'<th class="mono">(\w+)</th>', scores.group(1))[:3] == ["reviewer", "candidate", "label"]
