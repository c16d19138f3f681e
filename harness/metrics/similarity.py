"""Text similarity of seed 002 (consensus voting): token overlap, sequence matching and their mix.

Token overlap is the team's one Jaccard (:func:`harness.common.text.jaccard` over
:func:`harness.common.text.tokens`, the ``\\b\\w{2,}\\b`` tokens of the lower-cased text), so the
voting council and the Tier 1 metrics agree on what a shared word is.
"""

from __future__ import annotations

import math
from difflib import SequenceMatcher

from harness.common.text import jaccard

#: Longest prefix (in characters) of each text that :func:`sequence_similarity` compares.
#: ``SequenceMatcher`` is roughly quadratic: two 9,000-character texts take about 0.5 s, two
#: 90,000-character texts about 90 s. Answers are far shorter than this bound, so it only
#: changes the figure for huge inputs.
SEQUENCE_MAX_CHARS = 5000


def token_overlap_similarity(text1: str, text2: str) -> float:
    """Jaccard similarity of the two texts' token sets, in [0, 1] (unrounded).

    Args:
        text1, text2: the texts; case does not matter. Two texts without tokens are identical
            (1.0); exactly one without tokens shares nothing (0.0).
    """
    return jaccard(text1, text2)


def sequence_similarity(text1: str, text2: str, max_chars: int | None = SEQUENCE_MAX_CHARS) -> float:
    """``difflib.SequenceMatcher(None, text1, text2).ratio()``: character-level structural similarity.

    The seed's semantics are kept: no junk function and the default ``autojunk`` heuristic
    (for texts of 200+ characters, characters making up more than 1% of the second text are
    not used to start a match). Two empty texts give 1.0.

    Args:
        text1, text2: the texts, compared as given (case-sensitive, as in the seed).
        max_chars: bound on cost: when either text is longer, both are cut to their first
            ``max_chars`` characters and the prefixes are compared. ``None`` compares whole texts.
    """
    if max_chars is not None:
        if max_chars < 1:
            raise ValueError(f"max_chars must be at least 1 or None, got {max_chars}")
        text1, text2 = text1[:max_chars], text2[:max_chars]
    return SequenceMatcher(None, text1, text2).ratio()


def combined_similarity(text1: str, text2: str, token_weight: float = 0.6, sequence_weight: float = 0.4) -> float:
    """``token_weight * token_overlap + sequence_weight * sequence`` (seed 002, section 2c).

    Args:
        text1, text2: the texts.
        token_weight: weight of :func:`token_overlap_similarity` (seed default 0.6).
        sequence_weight: weight of :func:`sequence_similarity` (seed default 0.4).

    The weights must be finite, non-negative and sum to 1 (within 0.001), so the result stays
    in [0, 1]; anything else raises ``ValueError``.
    """
    check_similarity_weights(token_weight, sequence_weight)
    return token_weight * token_overlap_similarity(text1, text2) + sequence_weight * sequence_similarity(text1, text2)


def check_similarity_weights(token_weight: float, sequence_weight: float) -> None:
    """Raise ``ValueError`` unless both weights are finite, non-negative and sum to 1 (within 0.001)."""
    for name, w in (("token_weight", token_weight), ("sequence_weight", sequence_weight)):
        if not math.isfinite(w) or w < 0:
            raise ValueError(f"{name} must be a finite non-negative number, got {w}")
    total = token_weight + sequence_weight
    if abs(total - 1.0) > 0.001:
        raise ValueError(f"token_weight + sequence_weight must be 1 (within 0.001), got {total:.4f}")
