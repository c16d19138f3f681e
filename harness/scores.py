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
}


def register_score(name: str, description: str, higher_is_better: bool = True) -> None:
    """Add a score name (scorers call this at import time)."""
    SCORE_NAMES[name] = (description, higher_is_better)


def higher_is_better(name: str) -> bool:
    return SCORE_NAMES.get(name, ("", True))[1]
