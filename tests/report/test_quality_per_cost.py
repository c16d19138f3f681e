"""Issue 15 item 4: the quality-per-cost chart against tokens and, when priced, dollars, with the
Pareto frontier marked; by hand from CaseResults."""

from __future__ import annotations

from harness.gate.run_verdicts import RunVerdicts, run_verdicts
from harness.gate.verdict_plan import plan_from_config
from harness.report.arms_view import arms_view
from harness.report.plots import pareto_frontier, subject_colour
from harness.run.result import CaseResult
from tests.builders import metered


def test_pareto_frontier_by_definition() -> None:
    points = [
        ("council", 500.0, 0.9, 0.8, 1.0),
        ("solo:a", 100.0, 0.6, 0.5, 0.7),
        ("solo:b", 100.0, 0.5, 0.4, 0.6),  # same cost as solo:a, lower mean: dominated
        ("vote", 300.0, 0.6, 0.5, 0.7),  # dearer than solo:a for the same mean: dominated
        ("self-consistency:a", 450.0, 0.95, 0.9, 1.0),
    ]
    assert pareto_frontier(points) == ["solo:a", "self-consistency:a"]  # council: dearer and worse than SC
    assert pareto_frontier([("x", 1.0, 0.5, 0, 1), ("y", 1.0, 0.5, 0, 1)]) == ["x", "y"]  # ties dominate neither


def _result(i: int, subject: str, correct: float, model: str, tokens_in: int, tokens_out: int) -> CaseResult:
    return metered(i, subject, {"correct": correct}, model=model, tokens_in=tokens_in, tokens_out=tokens_out)


def _verdicts(results: list[CaseResult], config: dict[str, object]) -> RunVerdicts:
    return run_verdicts(plan_from_config(results, config), results)


def test_dollar_chart_when_priced_with_its_frontier() -> None:
    results = []
    for i in range(10):
        results.append(_result(i, "council", 1.0 if i < 9 else 0.0, "big", 1000, 100))  # 0.9 at $0.003/case
        results.append(_result(i, "solo:a", 1.0 if i < 5 else 0.0, "small", 1000, 100))  # 0.5 at $0.0002/case
        results.append(_result(i, "solo:b", 1.0 if i < 4 else 0.0, "unpriced", 10, 10))  # 0.4, cheapest in tokens
    config = {
        "primary_endpoint": "correct",
        "pricing": {"big": {"input": 2.0, "output": 10.0}, "small": {"input": 0.1, "output": 0.4}},
    }
    view = arms_view(results, _verdicts(results, config))
    assert view is not None
    # tokens per case: council 1100, solo:a 1100, solo:b 20: solo:a is dominated by the council
    assert view.frontier == ("solo:b", "council")
    # dollars: solo:b has an unpriced call and is left out; solo:a is cheaper, the council better
    assert view.dollar_frontier == ("solo:a", "council")
    assert '<svg class="chart"' in view.dollar_chart and 'id="quality-per-dollar-' in view.dollar_chart
    assert "quality-per-cost-" not in view.dollar_chart
    assert arms_view(results, _verdicts(results, {"primary_endpoint": "correct"})).dollar_chart == ""  # type: ignore[union-attr]


def test_the_modes_command_subjects_get_colours_told_apart() -> None:
    """The five subjects of issue 29's command, in its order: five colours, each pair at least 75 apart in
    RGB (self-consistency, fifth, was #0550ae beside the council's #0969da: 48 apart, two blues)."""
    subjects = ["council", "council+dissent", "council:debate", "debate:2", "self-consistency:smollm2-precise"]
    rgb = [
        tuple(int(c[k : k + 2], 16) for k in (1, 3, 5)) for c in (subject_colour(s, i) for i, s in enumerate(subjects))
    ]
    gaps = [
        sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5 for i, a in enumerate(rgb) for b in rgb[i + 1 :]
    ]
    assert len(set(rgb)) == 5 and min(gaps) >= 75, gaps
