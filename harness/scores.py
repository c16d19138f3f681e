"""The registry of named scores a case result can carry (and ``minimum_scores`` can gate on)."""

from __future__ import annotations

#: name -> (description, higher_is_better)
SCORE_NAMES: dict[str, tuple[str, bool]] = {
    "consensus_strength": ("Tier 1 CSS, 0-1", True),
    "deliberation_depth": ("Tier 1 DDI, 0-1", True),
    "winner_alignment": ("Tier 1 SAS winner alignment, 0-1", True),
    "max_source_alignment": ("Tier 1 SAS max source alignment, 0-1", True),
    "hallucination_risk": ("Tier 1 SAS hallucination risk, 0-1 (lower is better)", False),
    "required_mentions": ("share of required mentions found, 0-1", True),
    "correct": ("objective correctness against the case's expected block, 1 or 0", True),
    "accuracy": ("rubric judge: accuracy, 1-10", True),
    "relevance": ("rubric judge: relevance, 1-10", True),
    "completeness": ("rubric judge: completeness, 1-10", True),
    "conciseness": ("rubric judge: conciseness, 1-10", True),
    "clarity": ("rubric judge: clarity, 1-10", True),
    "rubric_composite": ("rubric judge: weighted score after the accuracy ceiling and safety gate, 0-10", True),
    "safety_passed": ("safety gate: 1 when no harmful pattern hit, else 0", True),
    "peer_composite": ("stage-2 peer rubric: mean weighted composite of the members' answers, 0-10", True),
    "heuristic_quality": ("seed 002 heuristic quality of the final answer (weighted 5 components), 0-100", True),
    "hq_semantic_coherence": ("heuristic quality component: semantic coherence, 0-100", True),
    "hq_citation_density": ("heuristic quality component: citation density, 0-100", True),
    "hq_semantic_richness": ("heuristic quality component: semantic richness, 0-100", True),
    "hq_answer_completeness": ("heuristic quality component: answer completeness, 0-100", True),
    "hq_error_freedom": ("heuristic quality component: error freedom, 0-100", True),
    "deepeval_relevancy": ("DeepEval answer relevancy (LLM judge), 0-1", True),
    "deepeval_correctness": ("DeepEval GEval correctness against ground_truth (LLM judge), 0-1", True),
    "deepeval_hallucination_free": ("DeepEval share of the context the answer agrees with (LLM judge), 0-1", True),
    "ragas_faithfulness": ("RAGAS faithfulness to the case context (LLM judge), 0-1", True),
    "ragas_answer_relevancy": ("RAGAS answer relevancy (LLM judge + embedding cosine), 0-1", True),
    "ragas_context_precision": ("RAGAS context precision against ground_truth (LLM judge), 0-1", True),
}


def register_score(name: str, description: str, higher_is_better: bool = True) -> None:
    """Add a score name (scorers call this at import time)."""
    SCORE_NAMES[name] = (description, higher_is_better)


def higher_is_better(name: str) -> bool:
    return SCORE_NAMES.get(name, ("", True))[1]


def score_scale(name: str) -> float:
    """The top of a score's scale: 10 for rubric scores, 100 for heuristic quality, else 1."""
    if name in {"accuracy", "relevance", "completeness", "conciseness", "clarity", "rubric_composite",
                "peer_composite"}:
        return 10.0
    if name == "heuristic_quality" or name.startswith("hq_"):
        return 100.0
    return 1.0


def default_tolerance(name: str) -> float:
    """The allowed drop of a gated score when none is configured: 5% of its scale."""
    return 0.05 * score_scale(name)
