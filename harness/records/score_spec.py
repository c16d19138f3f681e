"""The registry of named scores: one :class:`ScoreSpec` per score a case result can carry.

Every reader of a score's meaning asks here: ``minimum_scores`` validation (:mod:`harness.data.cases`), the
direction of a regression (:mod:`harness.gate.baselines`, :mod:`harness.metrics.checks`), the default gate
tolerance (5% of the scale), the report's labels, badges and charts, and the quality report's trend
table. A user-defined scorer's score (:mod:`harness.scorers.user`) has no spec of its own unless it
registers one; :func:`spec` then describes it as a 0-1, higher-is-better, gated score named after
itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pydantic import Field

from harness.common.model import Frozen


class ScoreSpec(Frozen):
    """What one score means.

    Args:
        name: the key in ``CaseResult.scores`` (and in ``minimum_scores``, baselines, ``export``).
        description: one line, with its scale in words.
        scale: the top of the scale; every score runs from 0 to ``scale`` (1, 10 or 100).
        higher_is_better: the score's good direction; a ``minimum_scores`` bound of a lower-is-better
            score is a maximum and the gate flags a rise.
        label: the short name the report's badges and sort keys use.
        gated: compared by the regression gate when the config names no ``gated_scores``.
        key_rank: position among the case matrix's key-score badges (``None``: not a key score).
        chart: charted per category (council vs baseline) in the report, in ``key_rank`` order.
        trend_label: the column head of the quality report's trend table (``None``: not trended).
    """

    name: str = Field(min_length=1)
    description: str
    scale: float = Field(default=1.0, gt=0)
    higher_is_better: bool = True
    label: str = ""
    gated: bool = True
    key_rank: int | None = None
    chart: bool = False
    trend_label: str | None = None

    @property
    def short(self) -> str:
        """The report's label, the name when none is set."""
        return self.label or self.name


def _builtin() -> dict[str, ScoreSpec]:
    specs = [
        ScoreSpec(name="consensus_strength", description="Tier 1 CSS, 0-1", label="CSS", key_rank=4,
                  trend_label="CSS"),
        ScoreSpec(name="deliberation_depth", description="Tier 1 DDI, 0-1", trend_label="DDI"),
        ScoreSpec(name="winner_alignment", description="Tier 1 SAS winner alignment, 0-1", trend_label="SAS"),
        ScoreSpec(name="max_source_alignment", description="Tier 1 SAS max source alignment, 0-1"),
        ScoreSpec(name="hallucination_risk", description="Tier 1 SAS hallucination risk, 0-1 (lower is better)",
                  higher_is_better=False, label="risk", key_rank=5, trend_label="Risk"),
        ScoreSpec(name="peer_composite", scale=10, trend_label="Peer",
                  description="stage-2 peer rubric: mean weighted composite of the members' answers, 0-10"),
        ScoreSpec(name="required_mentions", description="share of required mentions found, 0-1", label="mentions",
                  key_rank=3, chart=True),
        ScoreSpec(name="correct", description="objective correctness against the case's expected block, 1 or 0",
                  key_rank=0, chart=True),
        *(ScoreSpec(name=d, description=f"rubric judge: {d}, 1-10", scale=10)
          for d in ("accuracy", "relevance", "completeness", "conciseness", "clarity")),
        ScoreSpec(name="rubric_composite", scale=10, label="rubric", key_rank=1, chart=True, trend_label="Judge",
                  description="rubric judge: weighted score after the accuracy ceiling and safety gate, 0-10"),
        ScoreSpec(name="safety_passed", description="safety gate: 1 when no harmful pattern hit, else 0"),
        ScoreSpec(name="heuristic_quality", scale=100, label="HQ", key_rank=2, chart=True,
                  description="seed 002 heuristic quality of the final answer (weighted 5 components), 0-100"),
        *(ScoreSpec(name=f"hq_{c}", description=f"heuristic quality component: {c.replace('_', ' ')}, 0-100",
                    scale=100)
          for c in ("semantic_coherence", "citation_density", "semantic_richness", "answer_completeness",
                    "error_freedom")),
        ScoreSpec(name="deepeval_relevancy", description="DeepEval answer relevancy (LLM judge), 0-1"),
        ScoreSpec(name="deepeval_correctness",
                  description="DeepEval GEval correctness against ground_truth (LLM judge), 0-1"),
        ScoreSpec(name="deepeval_hallucination_free",
                  description="DeepEval share of the context the answer agrees with (LLM judge), 0-1"),
        ScoreSpec(name="ragas_faithfulness", description="RAGAS faithfulness to the case context (LLM judge), 0-1"),
        ScoreSpec(name="ragas_answer_relevancy",
                  description="RAGAS answer relevancy (LLM judge + embedding cosine), 0-1"),
        ScoreSpec(name="ragas_context_precision",
                  description="RAGAS context precision against ground_truth (LLM judge), 0-1"),
    ]
    return {s.name: s for s in specs}


class ScoreRegistry(Mapping[str, ScoreSpec]):
    """Score name -> :class:`ScoreSpec`, built-in scores first, in registration order."""

    def __init__(self, specs: Mapping[str, ScoreSpec]) -> None:
        self._specs = dict(specs)

    def __getitem__(self, name: str) -> ScoreSpec:
        return self._specs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def register(self, spec: ScoreSpec) -> ScoreSpec:
        """Add ``spec`` (a user scorer's score); a built-in name cannot be redefined."""
        old = self._specs.get(spec.name)
        if old is not None and old != spec and spec.name in BUILTIN_NAMES:
            raise ValueError(f"score {spec.name!r} is a built-in score and cannot be redefined")
        self._specs[spec.name] = spec
        return spec

    def spec(self, name: str) -> ScoreSpec:
        """The registered spec, or a 0-1, higher-is-better, gated one for an unregistered name."""
        found = self._specs.get(name)
        return found if found is not None else ScoreSpec(name=name, description=f"{name} (user-defined score)")

    def ranked(self, *, charted: bool = False) -> tuple[str, ...]:
        """The key scores (``key_rank`` set; with ``charted``, only those with ``chart``), in rank order."""
        chosen = [s for s in self._specs.values() if s.key_rank is not None and (s.chart or not charted)]
        return tuple(s.name for s in sorted(chosen, key=lambda s: s.key_rank or 0))

    def trended(self) -> dict[str, str]:
        """Score name -> trend-table label, for the scores with a ``trend_label``, in registry order."""
        return {s.name: s.trend_label for s in self._specs.values() if s.trend_label is not None}


BUILTIN_NAMES: frozenset[str] = frozenset(_builtin())
#: Every known score (built-in, then registered by user scorers as they load).
SCORES = ScoreRegistry(_builtin())


def spec(name: str) -> ScoreSpec:
    """:meth:`ScoreRegistry.spec` on :data:`SCORES`."""
    return SCORES.spec(name)


def register_score(
    name: str, description: str, *, scale: float = 1.0, higher_is_better: bool = True, label: str = "",
    gated: bool = True,
) -> ScoreSpec:
    """Register a score (a user scorer may, to give its score a scale, direction or label)."""
    return SCORES.register(ScoreSpec(name=name, description=description, scale=scale,
                                     higher_is_better=higher_is_better, label=label, gated=gated))


def higher_is_better(name: str) -> bool:
    return spec(name).higher_is_better


def score_scale(name: str) -> float:
    """The top of a score's scale: 10 for rubric scores, 100 for heuristic quality, else 1."""
    return spec(name).scale


def default_tolerance(name: str) -> float:
    """The allowed drop of a gated score when none is configured: 5% of its scale."""
    return 0.05 * score_scale(name)
