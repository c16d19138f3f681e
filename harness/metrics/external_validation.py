"""External validation (seed 001 section 3.1): DeepEval and RAGAS metrics with the harness's judge.

Both frameworks are optional extras, imported lazily and only here, fully offline (telemetry
off, no ``.env`` loading) and always through :class:`~harness.metrics.judge.Judge` - the embedded
SmolLM2 by default, any OpenAI-compatible endpoint otherwise. A metric that fails (the judge
returned something unusable, a score came out undefined) records its error and is left out;
a framework that is not installed records how to install it. Neither stops the run.

The block has the seed's shape per framework::

    {"validation_framework": "deepeval",
     "metrics": {"relevancy": {"score": 0.91, "reason": "..."}, ...},
     "overall_pass": true}

and its scores are also returned as named scores (``deepeval_relevancy``, ``ragas_faithfulness``,
...) so ``minimum_scores`` can gate on them.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from typing import Literal

from harness.common.errors import ConfigError
from harness.common.model import Frozen
from harness.data.cases import Case
from harness.metrics.external_validation_outcome import PASS_THRESHOLD, MetricOutcome, offline_env
from harness.metrics.judge import Judge
from harness.records.scoreset import ScoreSet
from harness.records.transcript import Transcript

Framework = Literal["deepeval", "ragas"]
FRAMEWORKS: tuple[Framework, ...] = ("deepeval", "ragas")
RAG_QUALITY_THRESHOLD = 0.8  # seed 001: rag_quality_pass = faithfulness >= 0.8

#: metric names per framework (the seed's names); ``<framework>_<metric>`` is the score name
METRIC_NAMES: dict[Framework, tuple[str, ...]] = {
    "deepeval": ("relevancy", "correctness", "hallucination_free"),
    "ragas": ("faithfulness", "answer_relevancy", "context_precision"),
}


def install_hint(framework: Framework) -> str:
    return f"not installed: pip install -e '.[{framework}]'"


class MetricScore(Frozen):
    """One metric of the seed's block: ``{"score": ..., "reason": ...}``."""

    score: float
    reason: str | None = None


class FrameworkValidation(Frozen):
    """One framework's block in the seed's shape, plus what could not be scored.

    Args:
        validation_framework: ``deepeval`` or ``ragas``.
        metrics: metric name -> score and reason, for the metrics that produced a score.
        overall_pass: every score >= 0.7 (``False`` when no metric produced a score).
        errors: metric name -> why it produced no score.
        skipped: metric name -> why it did not apply (e.g. the case has no ``context``).
        note: a framework-level note (e.g. ``not installed: pip install -e '.[ragas]'``).
        rag_quality_pass: RAGAS only (seed 001): faithfulness >= 0.8, ``None`` without one.
    """

    validation_framework: Framework
    metrics: dict[str, MetricScore] = {}
    overall_pass: bool = False
    errors: dict[str, str] = {}
    skipped: dict[str, str] = {}
    note: str | None = None
    rag_quality_pass: bool | None = None


class ExternalValidation(Frozen):
    """The ``external_validation`` block of a case result.

    Args:
        judge: which judge model scored (``local:smollm2-135m``, ``openai:gpt-4o-mini``, ...).
        embedding: the embedding RAGAS answer relevancy used (``None`` when RAGAS did not run).
        deepeval, ragas: each framework's block, ``None`` when it was not requested.
    """

    judge: str
    embedding: str | None = None
    deepeval: FrameworkValidation | None = None
    ragas: FrameworkValidation | None = None

    def scores(self) -> dict[str, float]:
        """Flat named scores (``deepeval_relevancy``, ...), as seed 001's enterprise block shows them."""
        out: dict[str, float] = {}
        for block in (self.deepeval, self.ragas):
            if block is not None:
                for name, metric in block.metrics.items():
                    out[f"{block.validation_framework}_{name}"] = metric.score
        return out


#: how far past 0 or 1 a score may fall by floating-point rounding (a cosine of identical vectors is
#: 1.0000000000000002) and still be read as that end of the scale
ROUNDING = 1e-9


def _clean(outcome: MetricOutcome) -> MetricOutcome:
    """Reject scores that are not finite numbers in [0, 1] (an undefined or out-of-range result);
    scores past an end by rounding only (:data:`ROUNDING`) are clamped to it."""
    if outcome.score is None or outcome.error is not None:
        return outcome
    if not math.isfinite(outcome.score):
        return MetricOutcome(name=outcome.name, error="the metric was undefined (NaN) for this answer")
    if not -ROUNDING <= outcome.score <= 1.0 + ROUNDING:
        return MetricOutcome(name=outcome.name, error=f"score {outcome.score!r} is outside 0..1")
    if not 0.0 <= outcome.score <= 1.0:
        return outcome.model_copy(update={"score": min(max(outcome.score, 0.0), 1.0)})
    return outcome


def framework_block(
    framework: Framework, outcomes: Sequence[MetricOutcome], skipped: dict[str, str] | None = None
) -> FrameworkValidation:
    """Assemble a framework's block from its metric outcomes.

    Args:
        framework: ``deepeval`` or ``ragas``.
        outcomes: one per metric that was run.
        skipped: metric name -> why it was not run.
    """
    cleaned = [_clean(o) for o in outcomes]
    metrics = {o.name: MetricScore(score=o.score, reason=o.reason) for o in cleaned if o.score is not None}
    errors = {o.name: o.error or "no score" for o in cleaned if o.score is None}
    rag_pass = None
    if framework == "ragas" and "faithfulness" in metrics:
        rag_pass = metrics["faithfulness"].score >= RAG_QUALITY_THRESHOLD
    return FrameworkValidation(
        validation_framework=framework,
        metrics=metrics,
        overall_pass=bool(metrics) and all(m.score >= PASS_THRESHOLD for m in metrics.values()),
        errors=errors,
        skipped=dict(skipped or {}),
        rag_quality_pass=rag_pass,
    )


def _unavailable(framework: Framework, note: str) -> FrameworkValidation:
    return FrameworkValidation(validation_framework=framework, note=note)


async def _run_framework(
    framework: Framework, case: Case, transcript: Transcript, judge: Judge
) -> tuple[FrameworkValidation, str | None]:
    """Run one framework; returns its block and the embedding it used (RAGAS only)."""
    if importlib.util.find_spec(framework) is None:
        return _unavailable(framework, install_hint(framework)), None
    offline_env()
    if framework == "deepeval":
        try:
            from harness.metrics import deepeval_adapter
        except Exception as exc:  # noqa: BLE001 - a broken install is recorded, not fatal
            return _unavailable(framework, _import_failed(framework, exc)), None
        outcomes, skipped = await deepeval_adapter.run_deepeval(case, transcript, judge)
        return framework_block("deepeval", outcomes, skipped), None
    try:
        from harness.metrics import ragas_adapter
    except Exception as exc:  # noqa: BLE001 - a broken install is recorded, not fatal
        return _unavailable(framework, _import_failed(framework, exc)), None
    embedding = ragas_adapter.default_embedding()
    outcomes, skipped = await ragas_adapter.run_ragas(case, transcript, judge, embedding)
    return framework_block("ragas", outcomes, skipped), ragas_adapter.embedding_name(embedding)


def _import_failed(framework: Framework, exc: Exception) -> str:
    return f"cannot be imported ({type(exc).__name__}: {exc}); reinstall with: pip install -e '.[{framework}]'"


async def external_validation(
    case: Case,
    transcript: Transcript,
    judge: Judge,
    frameworks: Sequence[str] = FRAMEWORKS,
) -> tuple[ExternalValidation | None, ScoreSet]:
    """Score a transcript's final answer with DeepEval and/or RAGAS metrics.

    Args:
        case: the case (``query``; ``ground_truth`` enables correctness and context precision;
            ``context`` enables hallucination, faithfulness and context precision).
        transcript: what the subject produced; its ``final_answer`` is scored.
        judge: the judge every metric calls (see :func:`harness.metrics.judge.judge_from_settings`).
        frameworks: which frameworks to run (``deepeval``, ``ragas``); empty -> ``(None, ScoreSet())``.

    Returns:
        The ``external_validation`` block and the named scores it produced.

    Raises:
        ConfigError: an unknown framework name.
        CacheMiss: a judge call missing from the replay cache (replay must stay honest).
    """
    unknown = sorted(set(frameworks) - set(FRAMEWORKS))
    if unknown:
        raise ConfigError(f"unknown framework(s) {unknown}; expected any of {list(FRAMEWORKS)}", "frameworks")
    if not frameworks:
        return None, ScoreSet()
    blocks: dict[str, FrameworkValidation] = {}
    embedding: str | None = None
    for framework in FRAMEWORKS:
        if framework in frameworks:
            blocks[framework], used = await _run_framework(framework, case, transcript, judge)
            embedding = used or embedding
    block = ExternalValidation(judge=judge.name, embedding=embedding, **blocks)
    return block, ScoreSet(scores=block.scores())
