"""DeepEval metrics (seed 001 section 3.1) judged by the harness's :class:`~harness.metrics.judge.Judge`.

Imported only by :mod:`harness.metrics.external_validation`, and only when DeepEval is installed.
Answer relevancy always; GEval correctness when the case has a ``ground_truth``; hallucination
when it has ``context``. Every metric runs on its own: one that fails records its error.

DeepEval >= 4 scores ``HallucinationMetric`` as the share of contexts the answer agrees with
(1 is a pass), so ``hallucination_free`` is that score; older releases scored the share of
contradicted contexts and ``hallucination_free`` is then ``1 - score`` (the seed's formula).
"""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import BaseModel

from harness.metrics.external_validation_outcome import offline_env

offline_env()  # before DeepEval is imported: telemetry off, no .env loading

from deepeval.metrics import AnswerRelevancyMetric, BaseMetric, GEval, HallucinationMetric  # noqa: E402
from deepeval.models import DeepEvalBaseLLM  # noqa: E402
from deepeval.test_case import LLMTestCase, RetrievedContextData, SingleTurnParams  # noqa: E402

from harness.common.errors import CacheMiss  # noqa: E402
from harness.data.cases import Case  # noqa: E402
from harness.metrics.external_validation_outcome import PASS_THRESHOLD, MetricOutcome  # noqa: E402
from harness.metrics.judge import Judge, restrict_property, run_sync  # noqa: E402
from harness.records.transcript import Transcript  # noqa: E402

CORRECTNESS_CRITERIA = "Factual accuracy compared to ground truth"
_GEVAL_SCORES = list(range(0, 11))  # GEval without a rubric asks for an integer score 0..10


def _hallucination_score_is_pass() -> bool:
    """Whether this DeepEval scores hallucination as agreement (>= 4) rather than contradiction."""
    from deepeval.metrics import utils

    return hasattr(utils, "warn_score_direction_flipped")


class JudgeLLM(DeepEvalBaseLLM):
    """DeepEval's model interface on top of a harness :class:`~harness.metrics.judge.Judge`.

    Args:
        judge: the judge every call goes to (no DeepEval-native model, so no network client).
    """

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        super().__init__(model=judge.name)

    # DeepEval's base declares DeepEvalBaseLLM, yet its own custom-model guide returns the wrapped client
    def load_model(self) -> Judge:  # type: ignore[override]
        return self.judge

    def get_model_name(self) -> str:
        return self.judge.name

    async def a_generate(self, prompt: str, schema: type[BaseModel] | None = None) -> Any:
        """Text, or an instance of ``schema`` decoded under its JSON schema when one is given."""
        if schema is None:
            return await self.judge.generate_text(prompt)
        constraint = schema.model_json_schema()
        if set(schema.model_fields) == {"reason", "score"}:  # GEval's ReasonScore: integer 0..10
            constraint = restrict_property(constraint, "score", _GEVAL_SCORES)
        return await self.judge.generate_json(prompt, schema, json_schema=constraint)

    def generate(self, prompt: str, schema: type[BaseModel] | None = None) -> Any:
        """The synchronous path: the same call, run to completion (also inside a running loop)."""
        return run_sync(lambda: self.a_generate(prompt, schema))


def _test_case(case: Case, transcript: Transcript) -> LLMTestCase:
    context = list(case.context) or None
    retrieval: list[str | RetrievedContextData] | None = list(case.context) or None
    return LLMTestCase(
        input=case.query,
        actual_output=transcript.final_answer,
        expected_output=case.ground_truth,
        context=context,
        retrieval_context=retrieval,
    )


def _metrics(case: Case, model: JudgeLLM) -> tuple[list[tuple[str, BaseMetric]], dict[str, str]]:
    metrics: list[tuple[str, BaseMetric]] = []
    skipped: dict[str, str] = {}
    common: dict[str, Any] = {"model": model, "async_mode": True, "include_reason": True}
    metrics.append(("relevancy", AnswerRelevancyMetric(threshold=PASS_THRESHOLD, eval_mode="llm", **common)))
    if case.ground_truth:
        metrics.append(
            (
                "correctness",
                GEval(
                    name="Correctness",
                    criteria=CORRECTNESS_CRITERIA,
                    evaluation_params=[SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.EXPECTED_OUTPUT],
                    threshold=PASS_THRESHOLD,
                    model=model,
                    async_mode=True,
                ),
            )
        )
    else:
        skipped["correctness"] = "the case has no ground_truth"
    if case.context:
        with warnings.catch_warnings():  # DeepEval's notice that the score direction flipped in 4.0
            warnings.simplefilter("ignore", DeprecationWarning)
            metrics.append(("hallucination_free", HallucinationMetric(threshold=0.5, eval_mode="llm", **common)))
    else:
        skipped["hallucination_free"] = "the case has no context"
    return metrics, skipped


async def _measure(name: str, metric: BaseMetric, test_case: LLMTestCase) -> MetricOutcome:
    try:
        await metric.a_measure(test_case, _show_indicator=False)
    except CacheMiss:
        raise
    except Exception as exc:  # noqa: BLE001 - a judge reply DeepEval cannot use is recorded, not fatal
        return MetricOutcome(name=name, error=f"{type(exc).__name__}: {exc}")
    score = metric.score
    if score is None:
        return MetricOutcome(name=name, error=metric.error or "DeepEval produced no score")
    score = float(score)
    if name == "hallucination_free" and not _hallucination_score_is_pass():
        score = 1.0 - score
    return MetricOutcome(name=name, score=score, reason=metric.reason)


async def run_deepeval(case: Case, transcript: Transcript, judge: Judge) -> tuple[list[MetricOutcome], dict[str, str]]:
    """Run the seed's DeepEval metrics on ``transcript.final_answer``, one after another.

    Args:
        case: supplies ``query``, ``ground_truth`` (correctness) and ``context`` (hallucination).
        transcript: supplies the answer scored.
        judge: the judge behind every metric.

    Returns:
        One outcome per metric run, and metric name -> why it was skipped.
    """
    model = JudgeLLM(judge)
    metrics, skipped = _metrics(case, model)
    test_case = _test_case(case, transcript)
    return [await _measure(name, metric, test_case) for name, metric in metrics], skipped
