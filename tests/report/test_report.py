"""The HTML report (no browser): what it shows, worked out by hand from a hand-made run.

The run: dataset ``mini``, subjects council and baseline, five cases

=========  ============  ===============  ==========  =====================================
case       category      council          baseline    notes
=========  ============  ===============  ==========  =====================================
arith-1    math          passed           failed      baseline check: expected '4', got '5'
arith-2    math          passed           passed
boom-1     facts & ...   error            passed      council has no transcript
capital-x  facts & ...   failed           passed      council texts are hostile HTML/JS/jinja
essay-1    facts & ...   awaiting review  awaiting    expert_review
=========  ============  ===============  ==========  =====================================

and a baseline in which capital-x [council] passed (now regressed), arith-2 [council] failed (now
improved), arith-1 is unchanged for both subjects.
"""

from __future__ import annotations

import base64
import hashlib
import html as htmllib
import math
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markupsafe import escape

from harness.council.consensus_types import AgreementLevel, ConsensusResult
from harness.gate.baselines import Baseline, BaselineEntry, Comparison, compare
from harness.metrics.quality_metrics import core_quality_metrics
from harness.records.expert_review_types import ReviewVerdict
from harness.records.transcript import AggregateRank, Answer, Ballot, CallRecord, Review, Transcript
from harness.report import view as v
from harness.report.drilldown import subject_detail
from harness.report.html import SCRIPT, render_run, script_hash, write_report
from harness.report.plots import inline_svg, interval_axis
from harness.run.result import CaseResult, CheckResult
from harness.run.runs import Manifest, ModelFile, Run, RunWriter, load_run
from harness.stats import PredictionReport, PredictionVerdict
from tests.builders import result, run_folder

HOSTILE = (
    '<script>window.__pwned=1;alert(1)</script> <img src=x onerror="window.__pwned=2;alert(2)"> '
    '[click me](javascript:window.__pwned=3) <a href="javascript:alert(3)">link</a> '
    'MARK {{ 7*7 }} END {% raw %}raw{% endraw %} </pre></details></table><svg onload="window.__pwned=4"> '
    "https://evil.example/x.png"
)
FACTS = "facts & <figures>"


def _council_transcript(query: str, texts: tuple[str, str, str], synthesis: str, *, voting: bool = False) -> Transcript:
    """Three members m1..m3; every reviewer ranks Response A (m1) > B (m2) > C (m3); 3 calls of 10/5 tokens."""
    labels = {"Response A": "m1", "Response B": "m2", "Response C": "m3"}
    answers = tuple(
        Answer(member=m, model="smollm2-135m", text=t) for m, t in zip(("m1", "m2", "m3"), texts, strict=True)
    )
    reviews = tuple(
        Review(
            reviewer=m,
            model="smollm2-135m",
            raw_text=f"{texts[0]} is best.\nFINAL RANKING:\n1. Response A\n2. Response B\n3. Response C",
            ballot=Ballot(
                ranking=("Response A", "Response B", "Response C"),
                method="final_ranking",
                scores={"Response A": {"accuracy": 8.0, "clarity": 7.0}},
                critique=texts[1],
            ),
            presentation_order=("Response B", "Response A", "Response C"),
            shuffle_seed=1234 + i,
        )
        for i, m in enumerate(("m1", "m2", "m3"))
    )
    aggregate = (
        AggregateRank(member="m1", borda=1.0, average_position=1.0, votes=3),
        AggregateRank(member="m2", borda=0.5, average_position=2.0, votes=3),
        AggregateRank(member="m3", borda=0.0, average_position=3.0, votes=3),
    )
    calls = tuple(
        CallRecord(stage=s, member="m1", model="smollm2-135m", latency_s=0.5, tokens_in=10, tokens_out=5)
        for s in ("stage1", "stage2", "stage3")
    )
    vote = (
        ConsensusResult(
            consensus_id="c0ffee",
            agreement_level=AgreementLevel.WEAK_AGREEMENT,
            winning_member="m1",
            winning_response=texts[0],
            confidence_score=0.5,
            model_votes={"m1": 60.0, "m2": 40.0},
            reasoning=texts[2],
        )
        if voting
        else None
    )
    return Transcript(
        subject="council",
        query=query,
        answers=answers,
        label_to_member=labels,
        reviews=reviews,
        aggregate=aggregate,
        synthesis=synthesis,
        final_answer=synthesis,
        chairman="m1",
        calls=calls,
        duration_s=2.5,
        voting=vote,
    )


def _baseline_transcript(query: str, text: str) -> Transcript:
    return Transcript(
        subject="baseline",
        query=query,
        answers=(Answer(member="m1", model="smollm2-135m", text=text),),
        final_answer=text,
        calls=(CallRecord(stage="answer", member="m1", model="smollm2-135m", tokens_in=7, tokens_out=3),),
    )


def _council(
    case_id: str,
    category: str,
    status: str,
    texts: tuple[str, str, str],
    synthesis: str,
    scores: dict[str, float],
    **kw,
) -> CaseResult:
    t = _council_transcript(f"question {case_id}?", texts, synthesis, voting=kw.pop("voting", False))
    qm = core_quality_metrics(t)
    sas = qm.core.synthesis_attribution
    tier1 = {"consensus_strength": qm.core.consensus_strength, "hallucination_risk": sas.hallucination_risk}
    return CaseResult(
        case_id=case_id,
        dataset="mini",
        subject="council",
        category=category,
        status=status,
        transcript=t,
        quality_metrics=qm,
        scores={**tier1, **scores},
        **kw,
    )


def _base(case_id: str, category: str, status: str, text: str, scores: dict[str, float], **kw) -> CaseResult:
    return CaseResult(
        case_id=case_id,
        dataset="mini",
        subject="baseline",
        category=category,
        status=status,
        transcript=_baseline_transcript(f"question {case_id}?", text),
        scores=scores,
        **kw,
    )


def make_results() -> list[CaseResult]:
    """The ten results of the table in the module docstring."""
    return [
        _council(
            "arith-1",
            "math",
            "passed",
            ("It is 4.", "Four.", "2+2=4"),
            "The answer is 4.",
            {"correct": 1.0, "heuristic_quality": 82.0},
        ),
        _base(
            "arith-1",
            "math",
            "failed",
            "It is 5.",
            {"correct": 0.0, "heuristic_quality": 41.0},
            checks=(
                CheckResult(
                    kind="correctness", target="expected", passed=False, detail="expected '4', got '5' (last_number)"
                ),
            ),
        ),
        _council(
            "arith-2",
            "math",
            "passed",
            ("Nine.", "9", "It is nine."),
            "Nine (9).",
            {"correct": 1.0, "heuristic_quality": 75.0},
        ),
        _base("arith-2", "math", "passed", "9", {"correct": 1.0, "heuristic_quality": 70.0}),
        CaseResult(
            case_id="boom-1",
            dataset="mini",
            subject="council",
            category=FACTS,
            status="error",
            error="member timeout after 30 s",
        ),
        _base("boom-1", FACTS, "passed", "Fine.", {"correct": 1.0}),
        _council(
            "capital-x",
            FACTS,
            "failed",
            (HOSTILE, "Paris.", HOSTILE),
            HOSTILE,
            {"correct": 0.0, "heuristic_quality": 20.0},
            voting=True,
            checks=(CheckResult(kind="required_mention", target="Paris", passed=False, detail=HOSTILE),),
            error=None,
        ),
        _base("capital-x", FACTS, "passed", "Paris.", {"correct": 1.0, "heuristic_quality": 65.0}),
        _council(
            "essay-1",
            FACTS,
            "awaiting_review",
            ("Essay one.", "Essay two.", "Essay three."),
            "An essay.",
            {},
            evaluation_mode="expert_review",
        ),
        _base("essay-1", FACTS, "awaiting_review", "An essay.", {}, evaluation_mode="expert_review"),
    ]


def make_manifest() -> Manifest:
    return Manifest(
        run_id="20250101-100000-abcd",
        started_at="2025-01-01T10:00:00Z",
        finished_at="2025-01-01T10:03:25Z",
        datasets=("mini",),
        subjects=("council", "baseline"),
        config={
            "models": [
                {"id": "m1", "provider": "local", "model": "smollm2-135m"},
                {"id": "m2", "provider": "local", "model": "smollm2-135m"},
                {"id": "m3", "provider": "local", "model": "gemma3-270m"},
            ],
            "chairman": "m1",
            "seed": 42,
            "cache_mode": "readwrite",
            "safety_gate": True,
        },
        models=(
            ModelFile(name="smollm2-135m", path="/m/s.gguf", sha256="abcdef0123456789" * 4, size=1),
            ModelFile(name="gemma3-270m", path="/m/g.gguf", sha256="fedcba9876543210" * 4, size=2),
        ),
        git_revision="0123456789abcdef0123",
        git_dirty=True,
        cache_hits=5,
        cache_misses=7,
    )


def written(folder: Path, results: list[CaseResult]) -> Run:
    """``results`` written under ``folder`` with :func:`make_manifest`'s manifest, read back with ``load_run``."""
    writer = RunWriter(folder)
    writer.write_manifest(make_manifest())
    writer.add(results)
    return load_run(folder)


def build_run(root: Path) -> Run:
    """Write the hand-made run with :class:`RunWriter` under ``root`` and read it back with ``load_run``."""
    return written(root / "run", make_results())


def make_comparison(run: Run) -> Comparison:
    stamp = datetime(2025, 1, 1, tzinfo=UTC)
    baseline = Baseline(
        dataset="mini",
        created_at=stamp,
        entries=(
            BaselineEntry(
                case_id="capital-x", subject="council", category=FACTS, status="passed", scores={"correct": 1.0}
            ),
            BaselineEntry(
                case_id="arith-2", subject="council", category="math", status="failed", scores={"correct": 0.0}
            ),
            BaselineEntry(
                case_id="arith-1", subject="council", category="math", status="passed", scores={"correct": 1.0}
            ),
            BaselineEntry(
                case_id="arith-1", subject="baseline", category="math", status="failed", scores={"correct": 0.0}
            ),
        ),
    )
    return compare(run.results, baseline, tolerances=0.05, gated_scores=["correct"])


def _verdict(family: str, **kw) -> PredictionVerdict:
    return PredictionVerdict(family=family, summary="-", **kw)


MC = "Monte-Carlo paired sign-flip test (2000 random sign patterns, seed 7)"


def make_prediction() -> PredictionReport:
    overall = (
        _verdict(
            "correct",
            role="primary",
            n=40,
            n_informative=22,
            mean_council=0.75,
            mean_baseline=0.6,
            relative_improvement=0.25,
            ci_low=0.1,
            ci_high=0.42,
            mean_difference=0.06,
            diff_low=-0.02,
            diff_high=0.15,
            p_value=0.0123,
            mcnemar_p=0.031,
            method=MC,
            verdict="inconclusive",
        ),
        _verdict(
            "heuristic_quality",
            n=40,
            n_informative=40,
            mean_council=72.5,
            mean_baseline=55.0,
            relative_improvement=0.3182,
            ci_low=0.2,
            ci_high=0.45,
            mean_difference=9.25,
            diff_low=2.1,
            diff_high=16.0,
            p_value=0.0004,
            confidence=0.975,
            method=MC,
            verdict="supported",
        ),
    )
    math_cat = (
        _verdict(
            "correct",
            scope="math",
            n=1,
            n_informative=1,
            mean_council=1.0,
            mean_baseline=0.0,
            relative_improvement=math.nan,
            ci_low=math.nan,
            ci_high=math.nan,
            verdict="insufficient_data",
            reason="only 1 informative pair(s) (cases where council != 1.15 x baseline); at least 10 are "
            "needed to decide",
            note="baseline mean is 0: the relative improvement is undefined",
        ),
    )
    return PredictionReport(
        threshold=0.15,
        confidence=0.95,
        n_resamples=2000,
        seed=7,
        overall=overall,
        primary="correct",
        primary_reason="configured (primary_endpoint)",
        n_secondary=2,
        secondary_confidence=0.975,
        by_category={"math": math_cat},
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return build_run(tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def full_html(run: Run) -> str:
    return render_run(run, prediction=make_prediction(), comparison=make_comparison(run))


def _section(html: str, section_id: str) -> str:
    start = html.index(f'id="{section_id}"')
    return html[start : html.index("</section>", start)]


class _Rows(HTMLParser):
    """Collects the matrix rows: their attributes and the text of each cell."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] = []
        self._in_matrix = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("id") == "matrix":
            self._in_matrix = True
        elif self._in_matrix and tag == "tr" and "data-case-id" in a:
            self.rows.append({"attrs": a, "cells": []})
        elif self._in_matrix and tag == "td" and self.rows:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._in_matrix:
            self._in_matrix = False
        elif tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append(" ".join(" ".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _matrix(html: str) -> list[dict]:
    p = _Rows()
    p.feed(html)
    return p.rows


# ---------------------------------------------------------------- header and gate


def test_header_shows_run_git_models_duration_tokens_and_cache(full_html: str) -> None:
    header = full_html[full_html.index('<header class="top">') : full_html.index("</header>")]
    assert "20250101-100000-abcd" in header
    assert "0123456789</span>" in header and "dirty" in header  # the revision's first 10 characters
    assert "3 min 25 s" in header  # 10:00:00 -> 10:03:25
    # council transcripts: 4 x 3 calls x (10 in, 5 out) = 120 / 60; baseline: 5 x (7, 3) = 35 / 15
    assert "155 / 75" in header
    assert "5 / 7" in header  # cache hits / misses
    assert "sha256 abcdef012345" in header and "sha256 fedcba987654" in header
    assert re.search(r"m1 <span class=\"m\">= </span>smollm2-135m.*?chairman", header)
    assert "seed <b>42</b>" in header and "safety_gate <b>yes</b>" in header


def test_gate_banner_counts_per_subject_and_comparison(full_html: str, run: Run) -> None:
    gate = _section(full_html, "gate")
    assert 'class="gate fail"' in gate
    assert "Gate failed: 10 result(s), 2 failed, 1 error(s), 1 regression(s), 1 improvement(s) vs baseline" in gate
    # council: arith-1, arith-2 passed; capital-x failed; boom-1 error; essay-1 awaiting review
    council = gate[gate.index("<h3>council</h3>") : gate.index("<h3>baseline</h3>")]
    assert '<div class="big">2 of 5 passed</div>' in council
    for text in ("2 passed", "1 failed", "1 error", "1 awaiting review"):
        assert text in council
    baseline = gate[gate.index("<h3>baseline</h3>") :]
    assert "3 passed" in baseline and "1 failed" in baseline and "1 awaiting review" in baseline
    assert '<div class="big">3 of 5 passed</div>' in baseline
    # baseline entries: capital-x council regressed, arith-2 council improved, arith-1 x2 unchanged; 6 new
    for text in ("1 regressed", "1 improved", "2 unchanged", "6 new"):
        assert text in gate
    assert "case capital-x [council]: newly failed (baseline passed)" in gate
    comparison = make_comparison(run)
    assert all(str(escape(line)) in gate for line in comparison.failures)


def test_gate_passes_without_failures_and_write_report_takes_a_path(tmp_path: Path) -> None:
    run = written(tmp_path / "ok", [r for r in make_results() if r.case_id == "arith-2"])
    out = write_report(run, tmp_path / "elsewhere" / "r.html")
    html = out.read_text(encoding="utf-8")
    assert out == tmp_path / "elsewhere" / "r.html" and not (tmp_path / "ok" / "index.html").exists()
    assert 'class="gate pass"' in html and "Gate passed: 2 result(s), 0 failed, 0 error(s)" in html
    assert "vs baseline" not in html and 'id="prediction"' not in html  # no comparison, no prediction
    assert 'id="expert-review"' not in html


# ---------------------------------------------------------------- prediction panel


def test_prediction_panel_leads_with_the_primary_verdict_in_words(full_html: str) -> None:
    assert full_html.count('<section id="prediction"') == 1 and full_html.count('id="gate"') == 1
    panel = _section(full_html, "prediction")
    assert "more than +15.0% better" in panel
    card = panel[panel.index('id="primary-verdict"') : panel.index('<div class="legend">')]
    head = " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", card)).split())
    assert "primary endpoint: correct (configured (primary_endpoint))" in head
    assert (
        "not enough evidence either way council vs single model on correctness: +25.0% (n=40), better by more "
        "than 15%: not enough evidence either way"
    ) in head
    assert "mean(council − (1 + +15.0%) × baseline) = +0.06, 95% interval [-0.02, +0.15]" in head
    assert "0.95 one-sided p = 0.0123; effect +25.0% with interval [+10.0%, +42.0%]; McNemar p = 0.031" in head
    assert f"Method: {MC}." in head
    # the primary verdict comes before the secondary table
    assert panel.index('id="primary-verdict"') < panel.index("Secondary verdicts (exploratory)")
    assert "each interval\n      Bonferroni-adjusted to 0.975" in panel
    assert "exact up to 14 pairs, else 2000 random sign patterns, seed 7" in panel


def test_prediction_secondary_rows_format_every_figure(full_html: str) -> None:
    panel = _section(full_html, "prediction")
    rows = re.findall(r'<tr class="family-row">(.*?)</tr>', panel, re.DOTALL)
    assert len(rows) == 1  # the primary is not repeated in the secondary table
    hq = re.sub(r"<svg.*?</svg>", "", rows[0], flags=re.DOTALL)
    cells = [
        htmllib.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", hq, re.DOTALL)
    ]
    assert cells == [
        "supported",
        "overall",
        "heuristic_quality",
        "40, 40 informative",
        "72.5",
        "55.0",
        "+31.8%",
        "[+20.0%, +45.0%]",
        "",
        "+9.25",
        "[+2.1, +16]",
        "<0.001",
        "—",
    ]
    category = re.findall(
        r'<tr class="category-row has-note">(.*?)</tr>\s*<tr class="note-row">(.*?)</tr>', panel, re.DOTALL
    )
    assert len(category) == 1 and "<td>math</td>" in category[0][0]
    assert "badge insufficient_data" in category[0][0] and "insufficient data" in category[0][0]
    assert "only 1 informative pair(s)" in category[0][1]
    assert "baseline mean is 0: the relative improvement is undefined" in category[0][1]
    assert "1 supported, 0 refuted, 1 not enough evidence, 0 insufficient data" in panel


def test_interval_glyphs_share_one_axis_with_the_threshold_line(full_html: str) -> None:
    # values: 0.25 [0.10, 0.42] and 0.3182 [0.20, 0.45]; with 0 and 0.15: span 0..0.45, pad 0.05
    assert interval_axis([0.25, 0.1, 0.42, 0.3182, 0.2, 0.45, math.nan], 0.15) == pytest.approx((-0.05, 0.5))
    panel = _section(full_html, "prediction")
    glyphs = re.findall(r'<svg class="interval".*?</svg>', panel, re.DOTALL)
    assert len(glyphs) == 2  # the secondary rows (the primary is stated in words)
    # 150 px wide, 6 px padding: x(v) = 6 + (v + 0.05) / 0.55 * 138
    # threshold 0.15 -> 56.2, interval 0.10 -> 43.6 .. 0.42 -> 123.9, estimate 0.25 -> 81.3
    # threshold 0.15 -> 56.2, heuristic_quality's interval 0.20 -> 68.7 .. 0.45 -> 131.5, estimate 0.3182 -> 98.4
    assert 'x1="56.2"' in glyphs[0] and 'x1="68.7" y1="11.0" x2="131.5"' in glyphs[0]
    assert '<circle cx="98.4"' in glyphs[0]
    assert "<circle" not in glyphs[1] and 'stroke-width="4"' not in glyphs[1]  # NaN: no estimate, no interval


# ---------------------------------------------------------------- matrix, deltas, expert review


def test_matrix_rows_flags_and_cells(full_html: str) -> None:
    rows = _matrix(full_html)
    assert [r["attrs"]["data-case-id"] for r in rows] == ["arith-1", "arith-2", "boom-1", "capital-x", "essay-1"]
    flags = {
        r["attrs"]["data-case-id"]: (
            r["attrs"]["data-failing"],
            r["attrs"]["data-regressed"],
            r["attrs"]["data-differ"],
        )
        for r in rows
    }
    assert flags == {
        "arith-1": ("1", "0", "1"),
        "arith-2": ("0", "0", "0"),
        "boom-1": ("1", "0", "1"),
        "capital-x": ("1", "1", "1"),
        "essay-1": ("0", "0", "0"),
    }
    by_id = {r["attrs"]["data-case-id"]: r["cells"] for r in rows}
    # case, category, council, baseline, delta
    assert by_id["arith-1"][1] == "math"
    assert by_id["arith-1"][2].startswith("passed correct 1.00 HQ 82 CSS ")
    assert by_id["arith-1"][3] == "failed correct 0.00 HQ 41"
    assert by_id["boom-1"][1] == FACTS and by_id["boom-1"][2] == "error"
    assert by_id["essay-1"][2].startswith("awaiting review CSS ")
    assert by_id["arith-2"][3] == "passed correct 1.00 HQ 70"


def test_delta_column_reports_each_subject_with_reasons(full_html: str) -> None:
    cells = {r["attrs"]["data-case-id"]: r["cells"][-1] for r in _matrix(full_html)}
    assert cells["capital-x"].startswith("baseline: new not in the baseline council: regressed")
    assert "newly failing (baseline passed, now failed); correct dropped 1.000 > tolerance 0.05" in cells["capital-x"]
    assert cells["arith-2"] == (
        "baseline: new not in the baseline council: improved "
        "newly passing (baseline failed, now passed); correct rose 1.000 (improved)"
    )
    assert cells["arith-1"] == "baseline: unchanged council: unchanged"


def test_expert_review_section_lists_awaiting_cases(full_html: str) -> None:
    section = _section(full_html, "expert-review")
    rows = re.findall(r'<tr class="review-row">(.*?)</tr>', section, re.DOTALL)
    texts = [" ".join(re.sub(r"<[^>]+>", " ", r).split()) for r in rows]
    assert texts == ["essay-1 mini council awaiting review —", "essay-1 mini baseline awaiting review —"]
    assert 'href="#case-mini-essay-1"' in rows[0]  # the case's drill-down, anchored by dataset and id


def test_expert_review_shows_a_merged_verdict(tmp_path: Path) -> None:
    verdict = ReviewVerdict(
        verdict="fail", note="misses the cost of ops", who="ana", when=datetime(2025, 1, 2, 9, 30, tzinfo=UTC)
    )
    results = [
        r.with_detail("review", verdict, status="failed") if (r.case_id, r.subject) == ("essay-1", "baseline") else r
        for r in make_results()
    ]
    view = v.build_view(Run(run_dir=tmp_path, manifest=make_manifest(), results=results))
    items = [(e.case_id, e.subject, e.label, e.verdict, e.by, e.note) for e in view.expert_review]
    assert items == [
        ("essay-1", "council", "awaiting review", "", "", ""),
        ("essay-1", "baseline", "failed", "fail", "ana, 2025-01-02T09:30:00+00:00", "misses the cost of ops"),
    ]


def test_drill_down_has_ballots_checks_synthesis_and_vote(full_html: str) -> None:
    start = full_html.index('<details class="case" id="case-mini-arith-1">')
    arith1 = full_html[start : full_html.index('id="case-mini-arith-2"')]
    assert "question arith-1?" in arith1
    assert "ranking <b>Response A &gt; Response B &gt; Response C</b>" in arith1
    assert "= m1 &gt; m2 &gt; m3" in arith1 and "parsed by final_ranking" in arith1
    assert "presented Response B, Response A, Response C (shuffle seed 1234)" in arith1
    assert "(shuffle seed 1236)" in arith1
    assert "accuracy 8 · clarity 7" in arith1  # the ballot's rubric scores
    # positions 1, 2, 3: margin 0.5, clarity 0.5 * 1 + 0.5 * 1, no ties -> 0.4*0.5 + 0.4*1 + 0.2*1 = 0.8
    assert "Consensus Strength: 0.80 [████████░░] moderate" in arith1
    assert "expected &#39;4&#39;, got &#39;5&#39; (last_number)" in arith1  # the baseline's failed check
    assert "Stage 3 synthesis (m1)" in arith1 and "The answer is 4." in arith1
    capital = full_html[full_html.index('id="case-mini-capital-x"') : full_html.index('id="case-mini-essay-1"')]
    assert "consensus vote (seed 002)" in capital and "agreement_level" in capital and "weak_agreement" in capital
    boom = full_html[full_html.index('id="case-mini-boom-1"') : full_html.index('id="case-mini-capital-x"')]
    assert "member timeout after 30 s" in boom and "no transcript" in boom


def test_charts_are_inline_svg_per_family_and_tier1_histograms(full_html: str) -> None:
    charts = _section(full_html, "charts")
    titles = re.findall(r"<figure[^>]*><h3>(.*?)</h3>", charts)
    assert titles == ["correct by category", "heuristic_quality by category", "Tier 1 distributions"]
    assert charts.count('<svg class="chart"') == 3
    # 4 council results have Tier 1 metrics (boom-1 has none)
    assert "4 council result(s)" in charts


# ---------------------------------------------------------------- safety and determinism


def test_hostile_model_output_is_escaped_and_never_evaluated(full_html: str) -> None:
    assert str(escape(HOSTILE)) in full_html
    assert "&lt;script&gt;window.__pwned=1" in full_html and "&lt;img src=x onerror=" in full_html
    assert "MARK {{ 7*7 }} END" in full_html and "MARK 49 END" not in full_html
    assert "{% raw %}raw{% endraw %}" in full_html
    rest = full_html.replace(str(escape(HOSTILE)), "")
    low = rest.lower()
    assert "javascript:" not in low and "onerror" not in low and "onload" not in low and "__pwned" not in low
    assert low.count("<script") == 1  # the report's own, in <head>


def test_no_url_reference_outside_escaped_model_text(full_html: str) -> None:
    rest = full_html.replace(str(escape(HOSTILE)), "")
    assert "http:" not in rest.lower() and "https:" not in rest.lower()
    assert "@import" not in rest and "url(" not in rest.replace("url(#", "")
    srcs = re.findall(r'\b(?:src|href)="([^"]*)"', rest)
    assert all(s.startswith("#") or s == "data:," for s in srcs), srcs


def test_csp_allows_exactly_the_inline_script_by_hash(full_html: str) -> None:
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', full_html)
    assert meta is not None
    csp = htmllib.unescape(meta.group(1))
    script = re.search(r"<script>(.*?)</script>", full_html, re.DOTALL).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert script == SCRIPT and script_hash(SCRIPT) == f"'sha256-{digest}'"
    assert csp == (
        f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
        "base-uri 'none'; form-action 'none'"
    )
    assert re.findall(r"<[a-z]+\s[^>]*\bon[a-z]+=", full_html) == []  # no inline event handler anywhere
    assert full_html.split("</head>")[1].lower().count("<script") == 0


def test_render_is_deterministic_and_write_report_defaults_to_index_html(
    run: Run, full_html: str, tmp_path: Path
) -> None:
    out = write_report(run, prediction=make_prediction(), comparison=make_comparison(run))
    assert out == run.run_dir / "index.html"
    assert out.read_text(encoding="utf-8") == full_html  # rendered again: byte-identical
    other = build_run(tmp_path)  # the same data written and read again elsewhere
    assert render_run(other, prediction=make_prediction(), comparison=make_comparison(other)) == full_html


def test_inline_svg_rejects_external_references_and_prefixes_ids() -> None:
    with pytest.raises(ValueError, match="refers outside itself"):
        inline_svg('<svg width="1pt" height="1pt"><image href="https://x.example/a.png"/></svg>', "c")
    with pytest.raises(ValueError, match="chart id"):
        inline_svg('<svg width="1pt" height="1pt"></svg>', 'x" onload="1')
    out = inline_svg(
        '<?xml version="1.0"?>\n<svg width="3pt" height="3pt" xmlns="http://www.w3.org/2000/svg" '
        'xmlns:xlink="http://www.w3.org/1999/xlink"><defs><path id="g1"/></defs>'
        '<use xlink:href="#g1"/><g clip-path="url(#p9)"/></svg>',
        "k",
    )
    assert out == (
        '<svg class="chart" width="100%" style="max-width: 4px" stroke-linejoin="round" '
        'stroke-linecap="butt"><defs><path id="k-g1"/></defs><use href="#k-g1"/>'
        '<g clip-path="url(#k-p9)"/></svg>'
    )


# ---------------------------------------------------------------- view helpers


def test_formatting_helpers() -> None:
    assert v.fmt_duration(3725) == "1 h 02 min 05 s" and v.fmt_duration(65) == "1 min 05 s"
    assert v.fmt_duration(9.4) == "9 s" and v.fmt_duration(None) == "n/a"
    assert v.fmt_p(0.0004) == "<0.001" and v.fmt_p(0.04567) == "0.0457" and v.fmt_p(math.nan) == "n/a"
    assert v.fmt_pct(0.15) == "+15.0%" and v.fmt_pct(-0.031) == "-3.1%"
    assert v.score_scale("heuristic_quality") == 100 and v.score_scale("rubric_composite") == 10
    assert v.score_scale("accuracy") == 10 and v.score_scale("correct") == 1 and v.score_scale("unknown") == 1
    assert v.fmt_score(82.4, 100) == "82" and v.fmt_score(7.25, 10) == "7.2" and v.fmt_score(0.5) == "0.50"
    # hallucination risk is lower-is-better: 0.2 of 1 -> 0.8 good; correct 0.5 -> mid
    assert v.score_tone("hallucination_risk", 0.2) == "good" and v.score_tone("correct", 0.5) == "mid"
    assert v.score_tone("heuristic_quality", 30.0) == "bad" and v.score_tone("correct", math.nan) == "none"


def test_flatten_renders_any_optional_block() -> None:
    rows = v.flatten(
        {
            "judge": {"reason": "short", "scores": {"accuracy": 7}},
            "tags": ["a", "b"],
            "x": None,
            "long": "line one\nline two",
            "ok": True,
            "p": 0.123456,
        }
    )
    assert [(r.path, r.value, r.long) for r in rows] == [
        ("judge.reason", "short", False),
        ("judge.scores.accuracy", "7", False),
        ("tags[0]", "a", False),
        ("tags[1]", "b", False),
        ("x", "—", False),
        ("long", "line one\nline two", True),
        ("ok", "yes", False),
        ("p", "0.1235", False),
    ]


def test_unknown_result_fields_become_generic_blocks() -> None:
    class Extended(CaseResult):
        judge_reason: str | None = None

    r = Extended(case_id="c", dataset="d", subject="council", status="passed", judge_reason=HOSTILE)
    detail = subject_detail(r)
    assert [(b.title, b.rows[0].value) for b in detail.blocks] == [("judge reason", HOSTILE)]


def test_bias_section_charts_reviewer_profiles_and_positions(tmp_path: Path) -> None:
    from harness.bias.audit import audit_session

    t = _council_transcript("q?", ("alpha answer text", "beta answer words here", "gamma"), "alpha answer text")
    audit = audit_session(t)
    assert audit is not None
    audited = result("c1", transcript=t, quality_metrics=core_quality_metrics(t), bias=audit)
    html = render_run(load_run(run_folder(tmp_path, "r", [audited], datasets=(), finished_at=None)))
    assert "Bias: reviewer profiles" in html and "Bias: display position" in html
    assert 'id="biasrev' in html and 'id="biaspos' in html
    assert "over 1 audited session(s)" in html and "position bias flagged in" in html
    bare = run_folder(tmp_path, "b", [result("c1", transcript=t)], datasets=(), finished_at=None)
    assert "Bias:" not in render_run(load_run(bare))  # no audit, no bias section


# --- issue 10 items 16 and 17: visible control characters, bounded report size ---------------------------


def _one_run(root: Path, council_text: str, base_text: str) -> Run:
    return written(
        root / "run",
        [
            _council("c-1", "math", "failed", (council_text, "Two.", council_text), council_text, {"correct": 0.0}),
            _base("c-1", "math", "failed", base_text, {"correct": 0.0}),
        ],
    )


def test_bidi_and_control_characters_are_shown_visibly(tmp_path: Path) -> None:
    """U+202E made "24 si rewsna ehT" display as "The answer is 42"; now every such character is a token."""
    text = (
        "\u202e24 si rewsna ehT\u202c \u2066iso\u2069 \u200emark\u200f bell\x07 esc\x1b[31m c1\x85 \x00nul\tTab\nLine"
    )
    html = render_run(_one_run(tmp_path, text, "a\u2067b\r\nc\rd"))
    for ch in "\u202e\u202c\u2066\u2069\u200e\u200f\x07\x1b\x85\x00\u2067\r":
        assert ch not in html, f"U+{ord(ch):04X} reached the report"
    assert "⟨U+202E⟩24 si rewsna ehT⟨U+202C⟩ ⟨U+2066⟩iso⟨U+2069⟩ ⟨U+200E⟩mark⟨U+200F⟩ bell⟨U+0007⟩ " in html
    assert "esc⟨U+001B⟩[31m c1⟨U+0085⟩ ⟨U+0000⟩nul\tTab\nLine" in html
    assert "a⟨U+2067⟩b\nc⟨U+000D⟩d" in html  # a CRLF line end stays a line end, a lone CR shows
    assert "⟨U+" not in render_run(_one_run(tmp_path / "plain", "Plain answer.", "Also plain.\n\tIndented."))


def test_a_megabyte_answer_keeps_the_report_small(tmp_path: Path) -> None:
    """A 1 MB answer made index.html 19 MB: each text is cut at 20,000 characters with a note."""
    from harness.common.visible import DISPLAY_LIMIT

    big = "".join(f"word{i % 97} " for i in range(150_000))[:1_000_000] + "THE-END"
    run = _one_run(tmp_path, big, big)
    path = write_report(run)
    size = path.stat().st_size
    small = write_report(_one_run(tmp_path / "small", "short", "short"), tmp_path / "small.html").stat().st_size
    # the answer shows up in 8 texts (3 answers, synthesis, final answer, critiques, baseline); each is capped
    assert size < small + 12 * (DISPLAY_LIMIT + 400)
    html = path.read_text(encoding="utf-8")
    assert "THE-END" not in html
    note = (
        f"[… {len(big) - DISPLAY_LIMIT:,} more characters not shown (first 20,000 of {len(big):,}); "
        "the full text is in results.jsonl in the run folder]"
    )
    assert htmllib.escape(note, quote=True) in html or note in html
    assert "THE-END" in (run.run_dir / "results.jsonl").read_text(encoding="utf-8")  # nothing lost on disk


def test_ambiguous_answers_are_shown_and_counted_apart_from_wrong(tmp_path: Path) -> None:
    from pydantic import TypeAdapter

    from harness.data.expected import Expected
    from harness.metrics.correctness import check_expected

    block = TypeAdapter(Expected).validate_python({"type": "numeric", "value": 8})
    texts = {"amb": "It is either 8 or 9.", "ok": "Answer: 8", "bad": "Answer: 7", "none": "No idea."}
    results = []
    for cid, text in texts.items():
        c = check_expected(block, text)
        results.append(
            _base(
                cid,
                "math",
                "passed" if c.correct else "failed",
                text,
                {"correct": 1.0 if c.correct else 0.0},
                correctness=c,
            )
        )
    loaded = written(tmp_path / "run", results)
    view = v.build_view(loaded)
    card = next(s for s in view.gate.subjects if s.subject == "baseline")
    assert [(c.label, c.count) for c in card.answers] == [
        ("correct", 1),
        ("wrong", 1),
        ("ambiguous", 1),
        ("unanswered", 1),
    ]
    html = render_run(loaded)
    gate = _section(html, "gate")
    assert ">1 ambiguous</span>" in gate and ">1 wrong</span>" in gate
    row = next(r for r in view.rows if r.case_id == "amb")
    cell = next(c for c in row.cells if c.subject == "baseline")
    (badge,) = [b for b in cell.badges if b.label == "correct"]
    assert (badge.value, badge.tone) == ("ambiguous", "mid")
    assert badge.title.startswith("the answer commits to two different values: ambiguous: expected 8")


def test_model_extracted_answers_are_labelled(tmp_path: Path) -> None:
    from harness.metrics.correctness import CorrectnessResult
    from harness.metrics.extraction import Extraction

    c = CorrectnessResult(
        correct=True,
        expected_display="true",
        verdict="correct",
        extraction=Extraction(
            value="true", method="model", confidence=0.5, detail="model-extracted by the judge m1 (smollm2-135m): 'yes'"
        ),
        detail="model-extracted: expected true, got true",
    )
    run = written(
        tmp_path / "run", [_base("odd", "math", "passed", "Seventeen is not even.", {"correct": 1.0}, correctness=c)]
    )
    view = v.build_view(run)
    cell = next(c for c in view.rows[0].cells if c.subject == "baseline")
    (badge,) = [b for b in cell.badges if b.label == "correct"]
    assert badge.value == "1.00 (model-extracted)"
    assert badge.title.endswith("; the judge model extracted the answer")
    assert "model-extracted by the judge m1" in render_run(run)


def test_cached_calls_show_their_recorded_latency(tmp_path: Path) -> None:
    calls = (
        CallRecord(
            stage="stage1", member="m1", model="smollm2-135m", latency_s=2.5, tokens_in=40, tokens_out=12, cached=True
        ),
        CallRecord(stage="stage3", member="m1", model="smollm2-135m", latency_s=1.25, tokens_in=90, tokens_out=30),
    )
    t = Transcript(
        subject="baseline",
        query="q?",
        answers=(Answer(member="m1", model="smollm2-135m", text="4"),),
        final_answer="4",
        calls=calls,
    )
    result = CaseResult(case_id="c", dataset="d", subject="baseline", status="passed", transcript=t)
    view = v.build_view(Run(run_dir=tmp_path, manifest=make_manifest(), results=[result]))
    shown = [(c.latency, c.cached) for c in view.cases[0].subjects[0].calls]
    assert shown == [("2.50 s (recorded)", True), ("1.25 s", False)]


def test_breakdowns_by_category_and_tag(tmp_path: Path) -> None:
    def r(case_id: str, subject: str, status: str, tags: tuple[str, ...], category: str | None = None) -> CaseResult:
        return CaseResult(
            case_id=case_id,
            dataset="d",
            subject=subject,
            status=status,
            tags=tags,  # type: ignore[arg-type]
            category=category,
        )

    results = [
        r("a", "council", "passed", ("mt-bench", "writing")),
        r("a", "baseline", "failed", ("mt-bench", "writing")),
        r("b", "council", "passed", ("mt-bench",)),
        r("b", "baseline", "passed", ("mt-bench",)),
        r("c", "council", "failed", ("humaneval",)),
        r("c", "baseline", "awaiting_review", ("humaneval",)),
    ]
    view = v.build_view(Run(run_dir=tmp_path, manifest=make_manifest(), results=results))
    assert [b.by for b in view.breakdowns] == ["tag"]  # no categories: that table would repeat the totals
    table = view.breakdowns[0]
    assert table.subjects == ("council", "baseline")
    assert [(row.group, row.cases, row.cells) for row in table.rows] == [
        ("humaneval", 1, ("0 of 1", "0 of 1")),
        ("mt-bench", 2, ("2 of 2", "1 of 2")),
        ("writing", 1, ("1 of 1", "0 of 1")),
    ]
    matrix = {row.case_id: (row.category, row.search) for row in view.rows}
    assert matrix["a"] == ("mt-bench · writing", "d a mt-bench writing")
    html = render_run(Run(run_dir=tmp_path, manifest=make_manifest(), results=results))
    assert 'id="breakdown-tag"' in html and "<td>mt-bench</td>" in html and 'id="breakdown-category"' not in html


def test_breakdown_by_category_in_the_full_report(full_html: str) -> None:
    section = _section(full_html, "breakdowns")
    assert 'id="breakdown-category"' in section and 'id="breakdown-tag"' not in section
    assert "<td>math</td>" in section


def test_drill_down_blocks_say_what_they_found_in_their_summary() -> None:
    import math

    from harness.config import load_settings
    from harness.data.cases import Case
    from harness.metrics.correctness import correctness_scores
    from harness.metrics.heuristic_quality import heuristic_quality_scores
    from harness.metrics.judge_rubric import judgement_from_logprobs

    case = Case.model_validate(
        {"id": "c", "query": "What is 6 x 7?", "dataset": "d", "expected": {"type": "numeric", "value": 42}}
    )
    t = Transcript(
        subject="baseline",
        query=case.query,
        answers=(Answer(member="m", model="x", text="It is 41."),),
        final_answer="It is 41.",
    )
    correctness, _ = correctness_scores(case, t)
    assert v.block_summary("correctness", correctness) == "wrong: expected 42 (± 1e-06)"
    quality, _ = heuristic_quality_scores("It is 41.")
    assert v.block_summary("heuristic_quality", quality) == f"overall {quality.overall:g} of 100"
    uniform = {f" {k}": math.log(0.1) for k in range(1, 11)}
    dims = ("accuracy", "relevance", "completeness", "conciseness", "clarity")
    judged = judgement_from_logprobs(
        {d: dict(uniform) for d in dims},
        "It is 41.",
        load_settings(cache_mode="off"),
        judge="j",
        judge_model="smollm2-135m",
        used_reference=False,
    )
    # every dimension 5.5; accuracy 5.5 < 7 caps the composite at 7.0, which 5.5 is already under
    assert v.block_summary("rubric", judged) == "composite 5.5 by smollm2-135m (logprobs)"
    assert v.block_summary("something_new", {"a": 1}) == ""
