"""RAGAS 0.4 metrics (seed 001 section 3.1) judged by the harness's :class:`~harness.metrics.judge.Judge`.

Imported only by :mod:`harness.metrics.external_validation`, and only when RAGAS is installed. Uses the
``ragas.metrics.collections`` metrics with a judge-backed ``InstructorBaseRagasLLM`` and a
local embedding; never the deprecated ``evaluate()``, testset generation or the langchain
embeddings (they fetch tokenizer files at run time and fail offline).

- ``answer_relevancy`` always (needs embeddings; see :class:`LexicalHashEmbedding`);
- ``faithfulness`` when the case has ``context``;
- ``context_precision`` when the case has ``context`` and a ``ground_truth`` (the reference).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from pydantic import BaseModel

from harness.metrics.external_validation_outcome import offline_env

offline_env()  # before RAGAS is imported: no usage tracking

from ragas.embeddings.base import BaseRagasEmbedding  # noqa: E402
from ragas.llms.base import InstructorBaseRagasLLM  # noqa: E402
from ragas.metrics.collections import AnswerRelevancy, ContextPrecision, Faithfulness  # noqa: E402

from harness.common.errors import CacheMiss  # noqa: E402
from harness.common.text import tokens  # noqa: E402
from harness.data.cases import Case  # noqa: E402
from harness.metrics.external_validation_outcome import MetricOutcome  # noqa: E402
from harness.metrics.judge import Judge, restrict_property, run_sync  # noqa: E402
from harness.records.transcript import Transcript  # noqa: E402

LEXICAL_DIM = 1024
_BINARY_FIELDS = ("verdict", "noncommittal")  # RAGAS's 0/1 integer fields


class JudgeRagasLLM(InstructorBaseRagasLLM):
    """RAGAS's structured-output LLM interface on top of a harness judge.

    Args:
        judge: the judge every call goes to. RAGAS's 0/1 fields (``verdict``,
            ``noncommittal``) are constrained to ``0`` or ``1`` while decoding.
    """

    def __init__(self, judge: Judge) -> None:
        self.judge = judge

    async def agenerate(self, prompt: str, response_model: type[Any]) -> Any:
        constraint = response_model.model_json_schema()
        for field in _BINARY_FIELDS:
            constraint = restrict_property(constraint, field, [0, 1])
        return await self.judge.generate_json(prompt, response_model, json_schema=constraint)

    def generate(self, prompt: str, response_model: type[BaseModel]) -> Any:
        return run_sync(lambda: self.agenerate(prompt, response_model))


def lexical_vector(text: str, dim: int = LEXICAL_DIM) -> list[float]:
    """A hashed bag-of-words vector of ``text``: LEXICAL overlap, not meaning.

    Each token of :func:`harness.common.text.tokens` adds 1 at a BLAKE2b-hashed index; the vector is
    L2-normalised (all zeros for a text without tokens). Deterministic across processes.

    Args:
        text: the text.
        dim: the vector length.
    """
    vec = [0.0] * dim
    for token in tokens(text):
        index = int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "big") % dim
        vec[index] += 1.0
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec] if norm else vec


class LexicalHashEmbedding(BaseRagasEmbedding):
    """A tiny deterministic local embedding for RAGAS answer relevancy.

    It is lexical, not semantic: the cosine of two texts is their (hashed) word overlap, so
    a paraphrase with other words scores low. It needs no model, no download and no torch.

    Args:
        dim: the vector length.
    """

    def __init__(self, dim: int = LEXICAL_DIM) -> None:
        super().__init__(cache=None)
        self.dim = dim
        self.name = f"lexical-hash-{dim} (hashed bag of words: lexical, not semantic)"

    def embed_text(self, text: str, **kwargs: Any) -> list[float]:
        return lexical_vector(text, self.dim)

    async def aembed_text(self, text: str, **kwargs: Any) -> list[float]:
        return lexical_vector(text, self.dim)


def default_embedding() -> BaseRagasEmbedding:
    """The embedding RAGAS answer relevancy uses: the lexical one (no sentence model is wired yet)."""
    return LexicalHashEmbedding()


def embedding_name(embedding: BaseRagasEmbedding) -> str:
    return str(getattr(embedding, "name", type(embedding).__name__))


async def _score(name: str, metric: Any, **inputs: Any) -> MetricOutcome:
    try:
        result = await metric.ascore(**inputs)
    except CacheMiss:
        raise
    except Exception as exc:  # noqa: BLE001 - a judge reply RAGAS cannot use is recorded, not fatal
        return MetricOutcome(name=name, error=f"{type(exc).__name__}: {exc}")
    return MetricOutcome(name=name, score=float(result.value), reason=result.reason)


async def run_ragas(
    case: Case, transcript: Transcript, judge: Judge, embedding: BaseRagasEmbedding, *, strictness: int = 1
) -> tuple[list[MetricOutcome], dict[str, str]]:
    """Run the seed's RAGAS metrics on ``transcript.final_answer``, one after another.

    Args:
        case: supplies ``query``, ``context`` (faithfulness, context precision) and
            ``ground_truth`` (the reference of context precision).
        transcript: supplies the answer scored.
        judge: the judge behind every metric.
        embedding: the embedding answer relevancy compares questions with.
        strictness: questions answer relevancy generates; 1 by default because the judge
            samples at temperature 0, so further questions would repeat the first.

    Returns:
        One outcome per metric run, and metric name -> why it was skipped.
    """
    llm = JudgeRagasLLM(judge)
    query, answer, contexts = case.query, transcript.final_answer, list(case.context)
    outcomes: list[MetricOutcome] = []
    skipped: dict[str, str] = {}
    if contexts:
        outcomes.append(
            await _score(
                "faithfulness",
                Faithfulness(llm=llm),
                user_input=query,
                response=answer,
                retrieved_contexts=contexts,
            )
        )
    else:
        skipped["faithfulness"] = "the case has no context"
    outcomes.append(
        await _score(
            "answer_relevancy",
            AnswerRelevancy(llm=llm, embeddings=embedding, strictness=strictness),
            user_input=query,
            response=answer,
        )
    )
    if contexts and case.ground_truth:
        outcomes.append(
            await _score(
                "context_precision",
                ContextPrecision(llm=llm),
                user_input=query,
                reference=case.ground_truth,
                retrieved_contexts=contexts,
            )
        )
    else:
        skipped["context_precision"] = "needs both context and ground_truth (the reference)"
    return outcomes, skipped
