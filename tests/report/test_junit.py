"""``run --junitxml``: one JUnit test case per (case, subject), failures carry the readable report."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import partial
from pathlib import Path

from harness.data.cases import Case
from harness.report.junit import write_junit, xml_safe
from harness.run.result import CheckResult
from tests.builders import result


def _case(case_id: str) -> Case:
    return Case(
        id=case_id,
        query=f"question {case_id}?",
        ground_truth="Paris",
        dataset="geo",
        source=f"golden/geo.yaml:{3 + int(case_id[-1])}",
    )


_result = partial(result, dataset="geo", answer="Paris", transcript_fields={"duration_s": 1.25})


def test_junit_has_one_testcase_per_case_and_subject(tmp_path: Path) -> None:
    hostile = "Lyon \x1b[31m\x00 \ud800 <b>&"
    results = [
        _result("c1", "council", "passed", scores={"correct": 1.0}),
        _result(
            "c1",
            "baseline",
            "failed",
            answer=hostile,
            scores={"correct": 0.0},
            checks=(
                CheckResult(
                    kind="required_mention",
                    target="Paris",
                    passed=False,
                    detail="'Paris' does not appear in the answer",
                ),
            ),
        ),
        _result("c2", "council", "error", error="endpoint unreachable"),
        _result("c2", "baseline", "awaiting_review"),
    ]
    out = write_junit(tmp_path / "junit.xml", results, [_case("c1"), _case("c2")], "council-harness r1")
    root = ET.parse(out).getroot()  # parses: no forbidden characters reached the file
    suite = root.find("testsuite")
    assert suite is not None
    counts = (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped"))
    assert counts == ("4", "1", "1", "1")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["c1[baseline]", "c1[council]", "c2[baseline]", "c2[council]"]
    assert {c.get("classname") for c in cases} == {"geo"}
    assert cases[0].get("file") == "golden/geo.yaml" and cases[0].get("line") == "4"
    assert cases[0].get("time") == "1.250"
    failure = cases[0].find("failure")
    assert failure is not None
    assert failure.get("message") == "required_mention 'Paris': 'Paris' does not appear in the answer"
    assert "geo::c1 through 'baseline': FAILED  (golden/geo.yaml:4)" in (failure.text or "")
    assert "got: Lyon \\x1b[31m\\x00 \\ud800 <b>&" in (failure.text or "")
    props = {p.get("name"): p.get("value") for p in cases[0].iter("property")}
    assert props == {"correct": "0"}
    assert cases[1].find("failure") is None and cases[1].find("error") is None
    assert cases[2].find("skipped") is not None
    err = cases[3].find("error")
    assert err is not None and err.get("message") == "endpoint unreachable"


def test_xml_safe() -> None:
    assert xml_safe("a\x07b\ufffec\td\n") == "a\\x07b\\ufffec\td\n"
