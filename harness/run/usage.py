"""Where a run's model time goes: every call's stage, tokens and seconds, summed per stage.

Definitions (the one place for each):

* **Stage** of a call (:func:`stage_of`): the recorded ``CallRecord.stage`` mapped to one of
  :data:`STAGES`: ``answer`` (council stage 1, the voting council's first round, the baseline's
  answer), ``review`` (stage-2 ballots), ``synthesis`` (stage 3), ``judge`` (the rubric judge),
  ``second_round`` (the voting council's second round), ``external_metrics`` (DeepEval/RAGAS
  judge calls). A name not in the table is kept as it is.
* **Stage totals** (:func:`stage_usage`): per stage the number of calls, prompt tokens,
  completion tokens and seconds, over the subjects' calls and the scoring calls of every result.
  Calls served from the record/replay cache are counted in ``cached_calls`` and their seconds are
  left out of ``seconds`` (they cost no model time in this run).
* **Share** of a stage: its seconds over the seconds of all stages (``None`` when no time at all).
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.common.model import Frozen
from harness.records.transcript import CallRecord
from harness.run.result import CaseResult

STAGES: tuple[str, ...] = ("answer", "review", "synthesis", "judge", "second_round", "external_metrics")
_STAGE_OF: dict[str, str] = {
    "stage1": "answer",
    "baseline": "answer",
    "answer": "answer",
    "stage1.5": "review",
    "stage2": "review",
    "review": "review",
    "stage3": "synthesis",
    "synthesis": "synthesis",
    "judge": "judge",
    "round2": "second_round",
    "second_round": "second_round",
    "external": "external_metrics",
    "external_metrics": "external_metrics",
}


def stage_of(record: CallRecord) -> str:
    """The stage of one call (see the module docstring)."""
    return _STAGE_OF.get(record.stage, record.stage)


class StageTotals(Frozen):
    """One stage's sums over a run.

    Args:
        calls: calls made (failed ones included).
        cached_calls: of those, served from the record/replay cache.
        tokens_in, tokens_out: prompt and completion tokens of the calls that were not cached.
        seconds: model seconds of the calls that were not cached.
    """

    calls: int = 0
    cached_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0


def result_calls(result: CaseResult) -> list[CallRecord]:
    """The subject's calls and the scoring calls of one result."""
    own = list(result.transcript.calls) if result.transcript is not None else []
    return own + list(result.scoring_calls)


def stage_usage(results: Iterable[CaseResult]) -> dict[str, StageTotals]:
    """Totals per stage over ``results``, stages in :data:`STAGES` order (then any others)."""
    sums: dict[str, dict[str, float]] = {}
    for result in results:
        for call in result_calls(result):
            s = sums.setdefault(stage_of(call), dict.fromkeys(StageTotals.model_fields, 0))
            s["calls"] += 1
            if call.cached:
                s["cached_calls"] += 1
                continue
            s["tokens_in"] += call.tokens_in
            s["tokens_out"] += call.tokens_out
            s["seconds"] += call.latency_s
    order = [s for s in STAGES if s in sums] + sorted(s for s in sums if s not in STAGES)
    return {
        s: StageTotals(
            calls=int(sums[s]["calls"]),
            cached_calls=int(sums[s]["cached_calls"]),
            tokens_in=int(sums[s]["tokens_in"]),
            tokens_out=int(sums[s]["tokens_out"]),
            seconds=round(float(sums[s]["seconds"]), 4),
        )
        for s in order
    }


def stage_shares(usage: dict[str, StageTotals]) -> dict[str, float | None]:
    """Each stage's share of the run's model seconds (``None`` when the run took no model time)."""
    total = sum(t.seconds for t in usage.values())
    return {s: (t.seconds / total if total > 0 else None) for s, t in usage.items()}
