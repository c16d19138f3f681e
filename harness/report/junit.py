"""JUnit XML for CLI runs: one ``<testcase>`` per (case, subject), as ``pytest --junitxml`` writes them.

CI systems that show JUnit results (GitHub, GitLab, Jenkins) then show per-case results for
``council-harness run --junitxml PATH`` too. A failed or errored case carries the same readable report
as the failing pytest item (:func:`harness.report.failure_report.format_failure`); an ``awaiting_review``
case is ``<skipped>``. Scores are ``<property>`` elements. Model text is untrusted: characters that
XML 1.0 cannot hold (C0 controls, lone surrogates) are written as visible ``\\xNN`` escapes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.common.fsutil import atomic_write_text
from harness.data.cases import Case
from harness.report.failure_report import format_failure
from harness.run.result import CaseResult

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """``text`` with every character XML 1.0 forbids shown as ``\\xNN`` (or ``\\uNNNN``)."""
    return _NOT_XML.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


def junit_xml(results: Sequence[CaseResult], cases: Mapping[tuple[str, str], Case], suite_name: str) -> str:
    """The JUnit document for ``results`` (``cases`` maps (dataset, case id) to its case)."""
    ordered = sorted(results, key=lambda r: r.key)
    failures = sum(r.status == "failed" for r in ordered)
    errors = sum(r.status == "error" for r in ordered)
    skipped = sum(r.status == "awaiting_review" for r in ordered)
    total_time = sum(r.transcript.duration_s for r in ordered if r.transcript is not None)
    root = ET.Element("testsuites")
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": xml_safe(suite_name),
            "tests": str(len(ordered)),
            "failures": str(failures),
            "errors": str(errors),
            "skipped": str(skipped),
            "time": f"{total_time:.3f}",
        },
    )
    for r in ordered:
        case = cases.get((r.dataset, r.case_id))
        attrs = {
            "classname": xml_safe(r.dataset),
            "name": xml_safe(f"{r.case_id}[{r.subject}]"),
            "time": f"{r.transcript.duration_s if r.transcript is not None else 0.0:.3f}",
        }
        if case is not None and ":" in case.source:
            file, _, line = case.source.rpartition(":")
            attrs.update(file=xml_safe(file), line=line)
        tc = ET.SubElement(suite, "testcase", attrs)
        if r.scores:
            props = ET.SubElement(tc, "properties")
            for name, value in sorted(r.scores.items()):
                ET.SubElement(props, "property", {"name": xml_safe(name), "value": f"{value:g}"})
        if r.status in ("failed", "error"):
            report = format_failure(r, case) if case is not None else (r.error or r.status)
            first = next((c for c in r.checks if not c.passed), None)
            message = (
                r.error
                if r.status == "error"
                else (f"{first.kind} '{first.target}': {first.detail}" if first else "failed")
            )
            el = ET.SubElement(
                tc, "failure" if r.status == "failed" else "error", {"message": xml_safe((message or r.status)[:500])}
            )
            el.text = xml_safe(report)
        elif r.status == "awaiting_review":
            ET.SubElement(tc, "skipped", {"message": "awaiting expert review"})
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=False)


def write_junit(path: Path, results: Sequence[CaseResult], cases: Sequence[Case], suite_name: str) -> Path:
    """Write the JUnit XML atomically to ``path``."""
    by_key = {(c.dataset, c.id): c for c in cases}
    atomic_write_text(
        Path(path), '<?xml version="1.0" encoding="utf-8"?>\n' + junit_xml(results, by_key, suite_name) + "\n"
    )
    return Path(path)
