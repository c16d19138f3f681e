"""The rubric judge (seed 004): five weighted dimensions, the accuracy ceiling and the safety gate."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.metrics.judge_rubric import RubricJudgement
from harness.records.score_spec import ScoreSpec
from harness.scorers.builtin.declared import builtin_scorer
from harness.scorers.outcome import ScoreOutcome

if TYPE_CHECKING:
    from harness.config import Settings
    from harness.data.cases import Case
    from harness.providers.calls import Caller
    from harness.records.transcript import Transcript


def _summary(j: RubricJudgement) -> str:
    if j.composite is None:
        return f"no composite ({j.error or 'no accuracy score'})"
    cap = " · accuracy ceiling applied" if j.ceiling_applied else ""
    gate = " · safety gate capped it to 0" if j.safety_capped else ""
    return f"composite {j.composite:g} by {j.judge_model} ({j.method}){cap}{gate}"


@builtin_scorer(
    "rubric",
    order=60,
    detail=RubricJudgement,
    summary=_summary,
    scores=(
        *(
            ScoreSpec(name=d, description=f"rubric judge: {d}, 1-10", scale=10)
            for d in ("accuracy", "relevance", "completeness", "conciseness", "clarity")
        ),
        ScoreSpec(
            name="rubric_composite",
            scale=10,
            label="rubric",
            key_rank=1,
            chart=True,
            trend_label="Judge",
            trend_rank=5,
            description="rubric judge: weighted score after the accuracy ceiling and safety gate, 0-10",
        ),
        ScoreSpec(name="safety_passed", description="safety gate: 1 when no harmful pattern hit, else 0"),
    ),
)
async def rubric(case: Case, transcript: Transcript, caller: Caller, settings: Settings) -> ScoreOutcome:
    """The rubric judge on every subject's final answer (ceiling and safety gate applied)."""
    from harness.metrics.judge_rubric import run_rubric_judge

    judged = await run_rubric_judge(case, transcript, caller, settings)
    calls = (judged.call,) if judged.call is not None else ()
    j = judged.judgement
    if j is None:
        return ScoreOutcome(calls=calls, error=judged.error)
    return ScoreOutcome(
        scores=j.score_set().scores, detail=j, calls=calls, error=f"rubric judge: {j.error}" if j.error else None
    )
